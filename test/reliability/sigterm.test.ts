/**
 * SIGTERM (what `docker stop` and systemd send) to each of swflow's long-running commands, as real
 * processes: `swflow worker`, `swflow adapters`, `swflow gateway`, `swflow start`. Each exits 0
 * within SHUTDOWN_BOUND_MS; a call in flight in a stopped adapter worker is handed back (its
 * attempt ends as a worker shutdown, which the interpreter makes again: a platform failure, not
 * the user's error) and the run completes on the processes started next.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { startDevEnv } from '../helpers/temporal';
import { freePort } from '../helpers/ports';
import { CountingService, definitionsDir, loopDefinition, LOOPS, SERVING, startAdapters, startWorker, SwflowProcess } from './harness';

/** The documented bound (docs/reliability.md) on the time from SIGTERM to exit. */
const SHUTDOWN_BOUND_MS = 30_000;

let env: TestWorkflowEnvironment;
const service = new CountingService();
let dir: string;

before(async () => {
  env = await startDevEnv();
  await service.start();
  dir = definitionsDir({ 'loop-plain': loopDefinition('loop-plain', service, false) });
});
after(async () => {
  await service.stop();
  await env?.teardown();
});

/** SIGTERM, and the exit within the bound (SIGKILL after it, which fails the assertion). */
async function terminate(p: SwflowProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const t0 = Date.now();
  const timer = setTimeout(() => p.child.kill('SIGKILL'), SHUTDOWN_BOUND_MS);
  const exit = await p.stop('SIGTERM');
  clearTimeout(timer);
  return { ...exit, ms: Date.now() - t0 };
}

function assertCleanExit(name: string, exit: { code: number | null; signal: NodeJS.Signals | null; ms: number }, p: SwflowProcess): void {
  assert.equal(exit.signal, null, `${name} did not exit within ${SHUTDOWN_BOUND_MS} ms of SIGTERM:\n${p.output}`);
  assert.equal(exit.code, 0, `${name} exited ${exit.code}:\n${p.output}`);
  assert.doesNotMatch(p.output, /\n\s+at .+:\d+:\d+/, `${name} printed a stack trace:\n${p.output}`);
  console.log(`# ${name}: exit 0 ${exit.ms} ms after SIGTERM`);
}

let n = 0;
const startLoop = () => env.client.workflow.start('loop-plain', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `sigterm-${++n}`, args: [{ id: `s${n}`, i: 0 }] });
async function callInFlight(): Promise<void> {
  const before = service.total;
  while (service.total === before) await new Promise((r) => setTimeout(r, 20));
}

test('swflow adapters and swflow worker: SIGTERM mid-call exits 0; the call is handed back and the run completes on their successors', async () => {
  service.latencyMs = 2000; // the call is in flight when SIGTERM arrives
  let worker = await startWorker(env.address, dir);
  let adapters = await startAdapters(env.address, dir);
  const handle = await startLoop();
  await callInFlight();
  assertCleanExit('swflow adapters', await terminate(adapters), adapters);
  assertCleanExit('swflow worker', await terminate(worker), worker);
  service.latencyMs = 50;
  [worker, adapters] = await Promise.all([startWorker(env.address, dir), startAdapters(env.address, dir)]);
  const out = (await handle.result()) as { i: number };
  assert.equal(out.i, LOOPS);
  assert.ok((service.hits.get(`s${n}`) ?? 0) >= LOOPS);
  assertCleanExit('swflow adapters (idle)', await terminate(adapters), adapters);
  assertCleanExit('swflow worker (idle)', await terminate(worker), worker);
});

test('swflow gateway: SIGTERM exits 0', async () => {
  const port = await freePort();
  const gateway = await new SwflowProcess(['gateway', '--definitions', dir, '--port', String(port)], env.address).ready(/listening on/);
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  assert.ok(res.status < 500, `readyz ${res.status}`);
  assertCleanExit('swflow gateway', await terminate(gateway), gateway);
});

test('swflow start (on a running server): SIGTERM mid-call exits 0; the run completes on the workers started next', async () => {
  service.latencyMs = 2000;
  const gatewayPort = await freePort();
  const start = await new SwflowProcess(['start', '--definitions', dir, '--gateway-port', String(gatewayPort)], env.address).ready(/Ctrl-C stops everything/);
  const handle = await startLoop();
  await callInFlight();
  assertCleanExit('swflow start', await terminate(start), start);
  assert.match(start.output, /Stopped\./);
  service.latencyMs = 50;
  const [worker, adapters] = await Promise.all([startWorker(env.address, dir), startAdapters(env.address, dir)]);
  assert.equal(((await handle.result()) as { i: number }).i, LOOPS);
  await Promise.all([worker.stop('SIGTERM'), adapters.stop('SIGTERM')]);
});
