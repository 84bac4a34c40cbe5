/**
 * Bundling the interpreter's workflow code in a short-lived child process. webpack needs ~160 MB
 * of heap for it, which a worker process would otherwise keep resident for its whole life (V8
 * does not give the pages back): bundled apart, the worker holds only the bundle (~6 MB of code).
 * The bundle comes back as a file, given to the Worker by path (`workflowBundle: { codePath }`):
 * the Worker reads it once, hands it to its workflow threads and keeps only the path, where a
 * bundle given as text stays in the main thread's heap for the worker's life (~6 MB; twice
 * while it is read). bench/README.md, "What a worker costs", has the figures.
 *
 *   const bundle = await bundleInterpreterApart();   // what createInterpreterWorker does by default
 *   try { worker = await Worker.create({ ..., workflowBundle: { codePath: bundle.codePath } }); } finally { bundle.remove(); }
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cachedBundlePath, workflowStackTraces } from './bundle-cache';

/** The child's entry (./bundle-main.ts, or .js once built). */
const MAIN = require.resolve('./bundle-main');

/** A bundle in a file of its own: the code with its inline source map. `remove()` deletes it (once the Worker has read it). */
export interface BundleFile {
  codePath: string;
  remove(): void;
}

/** bundleInterpreter() run in a child process, written to a file; its warnings go to this process's stderr. */
export async function bundleInterpreterApart(opts: { tracing?: boolean } = {}): Promise<BundleFile> {
  // Unchanged since it was last bundled (./bundle-cache.ts): the cached file, without a child or webpack.
  const cached = cachedBundlePath({ tracing: opts.tracing ?? false, stackTraces: workflowStackTraces() });
  if (cached) return { codePath: cached, remove: () => undefined };
  const codePath = join(mkdtempSync(join(tmpdir(), 'swflow-bundle-')), 'workflow-bundle.js');
  const remove = () => rmSync(dirname(codePath), { recursive: true, force: true });
  // Run from TypeScript sources (tsx): the child loads them the same way.
  const loader = MAIN.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : [];
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [...loader, MAIN, codePath, ...(opts.tracing ? ['--tracing'] : [])], { stdio: ['ignore', 'inherit', 'pipe'] });
      let said = '';
      child.stderr!.on('data', (c: Buffer) => {
        said += c.toString();
        process.stderr.write(c);
      });
      child.once('error', reject);
      child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`bundling the workflow code failed (${signal ?? `exit ${code}`}): ${said.trim().slice(-2000)}`))));
    });
  } catch (err) {
    remove();
    throw err;
  }
  return { codePath, remove };
}
