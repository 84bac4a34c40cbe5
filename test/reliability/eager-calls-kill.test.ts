/**
 * kill -9 on the default path (feature `eager-calls`): a built-in call runs as an activity in the
 * interpreter worker's process (`swflow worker`, no `swflow adapters` running). That process is
 * killed with SIGKILL while the call is in flight; the attempt ends by its heartbeat timeout, the
 * interpreter makes the call again (a platform failure, not the user's error), and a second
 * `swflow worker` completes the run. History shows every call as an activity on the run's queue
 * with its summary, the lost attempt timed out and the new one marked "again".
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { startDevEnv } from '../helpers/temporal';
import { CountingService, definitionsDir, startWorker, type SwflowProcess } from './harness';

let env: TestWorkflowEnvironment;
const service = new CountingService();
let dir: string;
const workers: SwflowProcess[] = [];

/** Two POSTs to the counting service; a lost worker is noticed within 2 s (the call's heartbeat timeout). */
const doc = () => {
  const hit = { call: 'http', metadata: { 'swflow.heartbeat': 'PT2S' }, with: { method: 'post', endpoint: `http://127.0.0.1:${service.port}/hit`, body: { id: 'k1' } } };
  return { document: { dsl: '1.0.3', namespace: 'rel', name: 'eager-kill', version: '1.0.0' }, do: [{ first: { ...hit, export: { as: '{ first: .n }' } } }, { second: { ...hit, output: { as: '{ first: $context.first, second: .n }' } } }] };
};

before(async () => {
  env = await startDevEnv();
  await service.start();
  dir = definitionsDir({ 'eager-kill': doc() });
});
after(async () => {
  await Promise.all(workers.map((w) => w.stop('SIGTERM')));
  await service.stop();
  await env?.teardown();
});

test('kill -9 of the swflow worker serving a call (eager-calls, no adapter worker): the call is made again and the run completes on the next worker', async () => {
  service.latencyMs = 10_000; // in flight when the worker dies
  const first = await startWorker(env.address, dir);
  workers.push(first);
  const handle = await env.client.workflow.start('rel/eager-kill', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: 'eager-kill-1', args: [{}] });
  while ((service.hits.get('k1') ?? 0) === 0) await new Promise((r) => setTimeout(r, 20));
  first.child.kill('SIGKILL');
  assert.equal((await first.exited).signal, 'SIGKILL');
  service.latencyMs = 20;
  workers.push(await startWorker(env.address, dir));

  const out = (await handle.result()) as { first: number; second: number };
  // The first call reached the service twice (the lost attempt and the one made again), the second once.
  assert.deepEqual(out, { first: 2, second: 3 });

  const evs = (await handle.fetchHistory()).events ?? [];
  const conv = env.client.options.loadedDataConverter.payloadConverter;
  const calls = evs
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sw.http')
    .map((e) => ({ queue: e.activityTaskScheduledEventAttributes!.taskQueue!.name, summary: conv.fromPayload(e.userMetadata!.summary!) as string }));
  const target = `POST http://127.0.0.1:${service.port}/hit`;
  assert.deepEqual(
    calls.map((c) => c.queue),
    [INTERPRETER_TASK_QUEUE, INTERPRETER_TASK_QUEUE, INTERPRETER_TASK_QUEUE],
  );
  assert.equal(calls[0].summary, `/do/0/first → ${target}`);
  assert.match(calls[1].summary, /^\/do\/0\/first → POST .* \(again: .*heartbeat/i);
  assert.equal(calls[2].summary, `/do/1/second → ${target}`);
  const timedOut = evs.filter((e) => e.activityTaskTimedOutEventAttributes);
  assert.equal(timedOut.length, 1, 'the lost attempt ended by its heartbeat timeout');
});
