/**
 * The adapter commands as processes (through bin/swflow.js): `swflow adapters --module <file>`
 * serves a user adapter beside the built-in ones on `swflow-adapters`, and `swflow worker
 * --adapter <file> --task-queue <q> --secrets <file>` serves one on its own queue with secret
 * values from a file; both driven by the interpreter.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adapterHarness, type AdapterHarness } from '../adapters/harness';

const ROOT = resolve(__dirname, '..', '..');
const STOCK = join(ROOT, 'test', 'conformance', 'adapters', 'stock.ts');
let h: AdapterHarness;
const children: ChildProcess[] = [];

function swflow(args: string[]): Promise<void> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), ...args], { cwd: ROOT, env: { ...process.env, TEMPORAL_ADDRESS: h.env.address }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return new Promise((ok, fail) => {
    const timer = setInterval(() => {
      if (/serving/.test(out)) (clearInterval(timer), ok());
      if (child.exitCode !== null) (clearInterval(timer), fail(new Error(`swflow ${args.join(' ')} exited: ${out}`)));
    }, 100);
  });
}

before(async () => {
  h = await adapterHarness();
});

after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGINT');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  await h?.close();
});

const definition = (queue?: string) => ({
  id: 'stockcount',
  start: 'Count',
  secrets: ['STOCK_TOKEN'],
  functions: [{ name: 'count', type: 'custom', operation: 'stock.count', ...(queue ? { metadata: { worker: queue } } : {}) }],
  states: [{ name: 'Count', type: 'operation', actions: [{ functionRef: { refName: 'count', arguments: { items: '${ .items }', token: '${ $SECRETS.STOCK_TOKEN }' } } }], end: true }],
});

test('swflow adapters --module serves a user adapter beside the built-in ones', async () => {
  process.env.STOCK_TOKEN = 'stock-t0ken-5150'; // the spawned process's $SECRETS: its environment
  await swflow(['adapters', '--module', STOCK]);
  delete process.env.STOCK_TOKEN;
  const { result } = await h.run(definition(), { items: ['x'] });
  assert.deepEqual(await result, { items: ['x'], count: 1, state: 'Count' });
});

test('swflow worker --adapter --task-queue --secrets serves an adapter on its own queue', async () => {
  const secrets = join(mkdtempSync(join(tmpdir(), 'swflow-secrets-')), 'secrets.yaml');
  writeFileSync(secrets, 'STOCK_TOKEN: stock-t0ken-5150\n');
  await swflow(['worker', '--adapter', STOCK, '--task-queue', 'stock-own', '--secrets', secrets]);
  const { result } = await h.run(definition('stock-own'), { items: ['x', 'y'] });
  assert.deepEqual(await result, { items: ['x', 'y'], count: 2, state: 'Count' });
});
