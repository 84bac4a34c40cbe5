/**
 * Bundling the interpreter's workflow code in a short-lived child process. webpack needs ~160 MB
 * of heap for it, which a worker process would otherwise keep resident for its whole life (V8
 * does not give the pages back): bundled apart, the worker holds only the bundle (~6 MB of code).
 * bench/README.md, "What a worker costs", has the figures.
 *
 *   const bundle = await bundleInterpreterApart();   // what createInterpreterWorker does by default
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowBundle } from './interpreter-worker';

/** The child's entry (./bundle-main.ts, or .js once built). */
const MAIN = require.resolve('./bundle-main');

/** bundleInterpreter() run in a child process; its warnings go to this process's stderr. */
export async function bundleInterpreterApart(opts: { tracing?: boolean } = {}): Promise<WorkflowBundle> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-bundle-'));
  const out = join(dir, 'bundle.json');
  // Run from TypeScript sources (tsx): the child loads them the same way.
  const loader = MAIN.endsWith('.ts') ? ['--require', require.resolve('tsx/cjs')] : [];
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [...loader, MAIN, out, ...(opts.tracing ? ['--tracing'] : [])], { stdio: ['ignore', 'inherit', 'pipe'] });
      let said = '';
      child.stderr!.on('data', (c: Buffer) => {
        said += c.toString();
        process.stderr.write(c);
      });
      child.once('error', reject);
      child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`bundling the workflow code failed (${signal ?? `exit ${code}`}): ${said.trim().slice(-2000)}`))));
    });
    return JSON.parse(readFileSync(out, 'utf8')) as WorkflowBundle;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
