/**
 * Graceful shutdown as Kubernetes does it: SIGTERM to a real `swflow adapters` process while a
 * function call is in flight. With --shutdown-grace the worker stops polling, reports not ready
 * on /readyz, lets the call finish (one attempt, its answer delivered to the run), then exits 0
 * — within the pod's grace period. Without a grace time the call would be cancelled and, with no
 * other adapter worker left, the run would never end.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { loadAny, sharedBundle } from '../workflow/helpers';

const ROOT = resolve(__dirname, '..', '..');
const CALL_MS = 2_500;
let env: TestWorkflowEnvironment;
let service: Server;
let base: string;
let interpreter: Worker;
let interpreterRun: Promise<void>;
let adapters: ChildProcess | undefined;
const arrivals: number[] = [];
const answered: number[] = [];

before(async () => {
  env = await startDevEnv();
  service = createServer((req, res) => {
    arrivals.push(Date.now());
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ slow: true }));
      answered.push(Date.now());
    }, CALL_MS);
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  interpreter = await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle() });
  interpreterRun = interpreter.run();
});

after(async () => {
  if (adapters && adapters.exitCode === null) adapters.kill('SIGKILL');
  interpreter?.shutdown();
  await interpreterRun;
  await new Promise((r) => service?.close(r));
  await env?.teardown();
});

test('SIGTERM drains a call in flight within --shutdown-grace, /readyz says 503 meanwhile, the process exits 0', async () => {
  adapters = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'adapters', '--definitions', 'examples', '--health-port', '0', '--shutdown-grace', '20s'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  adapters.stdout!.on('data', (d) => (output += d));
  adapters.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => adapters!.once('exit', r));
  const until = async (what: string, ok: () => boolean, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > deadline || adapters!.exitCode !== null) throw new Error(`${what}: ${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await until('the adapters process did not start', () => /serving task queue/.test(output) && /health at/.test(output));
  const health = /health at (http:\/\/[^/\s]+)\/healthz/.exec(output)![1];
  assert.equal((await fetch(`${health}/readyz`)).status, 200);

  const definition = await loadAny({ document: { dsl: '1.0.3', namespace: 'tests', name: 'slow', version: '0.1.0' }, do: [{ fetch: { call: 'http', with: { method: 'get', endpoint: `${base}/slow` } } }] });
  const handle = await env.client.workflow.start(definition.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `shutdown-${Date.now()}`, args: [{}, { definition }] });
  await until('the call did not reach the service', () => arrivals.length === 1);

  const signalled = Date.now();
  adapters.kill('SIGTERM');
  // Draining: no longer ready (Kubernetes takes it out of service), still alive, the call still running.
  let readyz = 0;
  for (let i = 0; i < 40 && readyz !== 503; i++) {
    readyz = await fetch(`${health}/readyz`).then((r) => r.status, () => 0);
    if (readyz !== 503) await new Promise((r) => setTimeout(r, 25));
  }
  assert.equal(readyz, 503, `readyz while draining: ${output}`);
  assert.equal(answered.length, 0, 'the call was still running while the worker drained');

  assert.equal(await exited, 0, output);
  const stoppedAfter = Date.now() - signalled;
  assert.equal(answered.length, 1, 'the service answered the call');
  assert.ok(stoppedAfter >= CALL_MS - 500 && stoppedAfter < 20_000, `stopped ${stoppedAfter} ms after SIGTERM`);
  assert.deepEqual(await handle.result(), { slow: true });
  const history = await handle.fetchHistory();
  const started = history.events!.filter((e) => e.activityTaskStartedEventAttributes);
  assert.deepEqual(started.map((e) => e.activityTaskStartedEventAttributes!.attempt), [1], 'one attempt: the call was not cancelled and retried');
  assert.equal(arrivals.length, 1);
});
