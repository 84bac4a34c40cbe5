/**
 * The SDK as a user gets it: `npm pack` swflow (its prepack builds dist/), install the tarball
 * into a separate temporary project, type-check the example adapter (examples/adapters/
 * inventory.ts) against the installed `swflow/adapter` types, then serve it — with the
 * installed `swflow worker --adapter` command, and from plain Node with `runAdapterWorker` —
 * against a real Temporal server, driven by the interpreter through its definition
 * (examples/adapters/reserve.sw.yaml).
 *
 * npm installs the tarball's dependencies from the registry (offline from npm's cache when they
 * are there).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../src/platform/paths';
import { adapterHarness, type AdapterHarness } from './harness';

const run = promisify(execFile);
const EXAMPLES = join(PROJECT_ROOT, 'examples', 'adapters');
let dir: string;
let h: AdapterHarness;
const children: ChildProcess[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-package-'));
  await run('npm', ['pack', '--pack-destination', dir], { cwd: PROJECT_ROOT, maxBuffer: 32 * 1024 * 1024 });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack made a tarball');
  const project = join(dir, 'project');
  await run('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-adapters', private: true }));
  const typescript = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).devDependencies.typescript;
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, tarball), `typescript@${typescript}`], { cwd: project, maxBuffer: 32 * 1024 * 1024 });
  copyFileSync(join(EXAMPLES, 'inventory.ts'), join(project, 'inventory.ts'));
  h = await adapterHarness();
});

after(async () => {
  for (const c of children) c.kill('SIGINT');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const project = () => join(dir, 'project');

/** Starts a process in the project and waits for a line saying it serves. */
async function serve(command: string, args: string[]): Promise<void> {
  const child = spawn(command, args, { cwd: project(), env: { ...process.env, TEMPORAL_ADDRESS: h.env.address }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  for (let i = 0; i < 600 && !/serving inventory\.reserve/.test(out) && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
  assert.match(out, /serving inventory\.reserve/, `${command} ${args.join(' ')} serves: ${out}`);
}

async function reserve(queue: string, input: Record<string, unknown>): Promise<unknown> {
  const def = parseYaml(readFileSync(join(EXAMPLES, 'reserve.sw.yaml'), 'utf8'));
  def.functions[0].metadata.worker = queue;
  const { result } = await h.run(def, input);
  return result;
}

test('the example adapter type-checks against the installed swflow/adapter (CommonJS with bundler resolution, and nodenext)', async () => {
  for (const [module, resolution] of [['commonjs', 'bundler'], ['nodenext', 'nodenext']]) {
    await run(join(project(), 'node_modules', '.bin', 'tsc'), ['--noEmit', '--strict', '--skipLibCheck', '--module', module, '--moduleResolution', resolution, 'inventory.ts'], { cwd: project() }).catch((e) => {
      assert.fail(`tsc (${module}/${resolution}) failed: ${e.stdout}${e.stderr}`);
    });
  }
});

test('`swflow worker --adapter` from the installed package serves the example adapter', async () => {
  await serve(join(project(), 'node_modules', '.bin', 'swflow'), ['worker', '--adapter', './inventory.ts', '--task-queue', 'inventory-cli']);
  assert.deepEqual(await reserve('inventory-cli', { item: 'apple', count: 2 }), { item: 'apple', count: 2, reservation: { item: 'apple', reserved: 2, left: 1, state: 'Reserve' } });
  assert.deepEqual(await reserve('inventory-cli', { item: 'pear', count: 1 }), { item: 'pear', count: 1, soldOut: true });
});

test('plain Node (no TypeScript) runs an adapter with runAdapterWorker from the built package', async () => {
  writeFileSync(
    join(project(), 'worker.js'),
    `const { defineAdapter, runAdapterWorker } = require('swflow/adapter');
const inventory = defineAdapter({ name: 'inventory', activities: { reserve: (args, ctx) => ({ item: args.item, reserved: args.count, left: 0, state: ctx.state }) } });
runAdapterWorker({ adapters: [inventory], taskQueue: 'inventory-node', log: (m) => console.log(m) }).catch((e) => { console.error(e); process.exit(1); });
`,
  );
  await serve(process.execPath, ['worker.js']);
  assert.deepEqual(await reserve('inventory-node', { item: 'fig', count: 4 }), { item: 'fig', count: 4, reservation: { item: 'fig', reserved: 4, left: 0, state: 'Reserve' } });
});
