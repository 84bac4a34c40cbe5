/**
 * `swflow worker` (the real CLI process, a real dev server) and its definitions folder changing
 * under it: a broken file is logged with its file:line and skipped at start while the others
 * serve runs (an OpenAPI document beside them is not logged at all); a file added, a file edited
 * and a file broken later are picked up without a restart, and the broken one is logged once and
 * does not stop the others.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevEnv } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';

const ROOT = resolve(__dirname, '..', '..');
const QUEUE = 'worker-definitions';
const dir = mkdtempSync(join(tmpdir(), 'swflow-worker-defs-'));
const doc = (id: string, a: number) => JSON.stringify({ id, version: '1.0', specVersion: '0.8', start: 'S', states: [{ name: 'S', type: 'inject', data: { a }, end: true }] }, null, 2);

let env: TestWorkflowEnvironment;
let worker: ChildProcess | undefined;
let out = '';

before(async () => {
  env = await startDevEnv();
});

after(async () => {
  worker?.kill('SIGKILL');
  await env?.teardown();
  rmSync(dir, { recursive: true, force: true });
});

test('swflow worker: a broken definition is logged (file:line) and skipped; added, edited and newly broken files need no restart', { timeout: 180_000 }, async () => {
  writeFileSync(join(dir, 'good.sw.json'), doc('wgood', 1));
  writeFileSync(join(dir, 'bad.sw.json'), '{\n  "id": "wbad",\n  "states": [\n');
  writeFileSync(join(dir, 'greeting.openapi.json'), JSON.stringify({ openapi: '3.0.3', info: { title: 'Greeting', version: '1.0' }, paths: {} }, null, 2));
  worker = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'worker', '-d', dir, '--task-queue', QUEUE, '--no-schedules'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: env.address },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout!.on('data', (d) => (out += d));
  worker.stderr!.on('data', (d) => (out += d));
  await waitFor('the worker serving', async () => (/serving task queue/.test(out) ? true : undefined), 120_000);
  const skipped = (file: string) => out.split('\n').filter((l) => l.includes('definition file skipped') && l.includes(file));
  assert.equal(skipped(join(dir, 'bad.sw.json')).length, 1, out);
  assert.match(skipped(join(dir, 'bad.sw.json'))[0], /bad\.sw\.json:\d+:\d+: error: /);
  assert.match(out, /serving task queue .*\(1 file\(s\) skipped, see above\)/);
  assert.equal(skipped('greeting.openapi.json').length, 0, out);

  let n = 0;
  const run = async (type: string) => (await env.client.workflow.execute(type, { taskQueue: QUEUE, workflowId: `${type}-${n++}`, args: [{}], workflowExecutionTimeout: '60s' })) as { a: number };
  assert.equal((await run('wgood')).a, 1);

  writeFileSync(join(dir, 'later.sw.json'), doc('wlater', 3));
  assert.equal((await run('wlater')).a, 3, 'a file added is served without a restart');
  writeFileSync(join(dir, 'good.sw.json'), doc('wgood', 22));
  assert.equal((await run('wgood')).a, 22, 'an edited file is served without a restart');

  writeFileSync(join(dir, 'later.sw.json'), '{ "id": "wlater", ');
  await waitFor('the newly broken file logged', async () => (skipped(join(dir, 'later.sw.json')).length ? true : undefined), 15_000);
  assert.equal((await run('wgood')).a, 22, 'the others keep serving');
  await assert.rejects(run('wlater'), (err: Error & { cause?: Error }) => /No workflow definition with id "wlater".*Files that did not load: .*later\.sw\.json:1:\d+: error/.test(err.cause?.message ?? ''));
  assert.equal(skipped(join(dir, 'later.sw.json')).length, 1, 'logged once');
  console.log(`swflow worker: broken at start logged and skipped ("${skipped(join(dir, 'bad.sw.json'))[0].trim()}"); added, edited served; newly broken logged once, others served; 5 runs`);
});
