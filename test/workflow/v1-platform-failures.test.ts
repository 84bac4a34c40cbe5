/**
 * Failures of the platform are not the user's errors, for 1.0 calls too (feature
 * `v1-platform-failures`; src/workflow/platform.ts): a `call: http` without a task `timeout` runs
 * with the unlimited policy (ten-year start-to-close, heartbeat timeout); the built-in adapter
 * worker, its own process (`swflow adapters`), is killed (SIGKILL) in the middle of the call and
 * started again: the call is made again and the run ends as the service's answer and the
 * document's `try`/`catch` say. No timing is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import { formatProblem, loadAnyDefinition } from '../../src/dsl';
import type { Json } from '../../src/dsl/model';
import { UNLIMITED_CALL_MS } from '../../src/workflow/timeouts';
import { saveHistory } from './helpers';
import { activityStory, usePlatform } from './platform-harness';

const platform = usePlatform();
const service = platform.service;

/** `POST /jobs` of the job as a 1.0 `call: http` task; `extra` adds the task's metadata or timeout. */
function jobCall(extra: Record<string, Json> = {}): Record<string, Json> {
  return { call: 'http', with: { method: 'post', endpoint: `http://127.0.0.1:${service.port}/jobs`, body: { job: '${ .job }' } }, ...extra };
}

async function start(name: string, tasks: Json[], input: Json) {
  const r = await loadAnyDefinition({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, do: tasks });
  assert.ok(r.definition, r.problems.map(formatProblem).join('\n'));
  const opts: StartOptions = { definition: r.definition };
  return platform.env.client.workflow.start(r.definition.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `${name}-${Date.now()}`, args: [input, opts] });
}

/** The activity options of the run's first scheduled call (seconds). */
async function firstCallTimeouts(workflowId: string): Promise<{ startToClose: number; heartbeat: number }> {
  const events = (await platform.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const a = events.find((e) => e.activityTaskScheduledEventAttributes)!.activityTaskScheduledEventAttributes!;
  return { startToClose: Number(a.startToCloseTimeout?.seconds ?? 0), heartbeat: Number(a.heartbeatTimeout?.seconds ?? 0) };
}

test('1.0: kill -9 of the adapter worker mid-call, no try/catch: the default heartbeat timeout notices it, the call is made again, the run completes', async () => {
  service.requests.length = 0;
  service.answers.push('hold');
  const handle = await start('v1-platform-kill', [{ runJob: jobCall() }], { job: 'report-1' });
  await service.waitForRequests(1);
  await platform.adapters.stop('SIGKILL');
  await platform.adapters.start();
  assert.deepEqual(await handle.result(), { done: true });
  assert.deepEqual(service.requests, [{ job: 'report-1' }, { job: 'report-1' }]);
  const story = await activityStory(platform.env.client, handle.workflowId);
  assert.equal(story.length, 4, story.join('\n'));
  assert.match(story[0], /^scheduled: \/do\/0\/runJob → POST /);
  assert.equal(story[1], 'timed out: HEARTBEAT');
  assert.match(story[2], /\(again: its worker stopped heartbeating/);
  assert.equal(story[3], 'completed');
  // unlimited: no task timeout → the ten-year start-to-close, and the default 30 s heartbeat timeout
  assert.deepEqual(await firstCallTimeouts(handle.workflowId), { startToClose: UNLIMITED_CALL_MS / 1000, heartbeat: 30 });
  await saveHistory(platform.env.client, handle.workflowId, 'v1-platform-heartbeat-timeout');
});

test('1.0: kill -9 mid-call, then 503 twice: the lost call is no attempt of catch.retry (count 1), which retries the 503 once, then catch.do handles it', async () => {
  service.requests.length = 0;
  service.answers.push('hold', { status: 503, body: { message: 'busy' } }, { status: 503, body: { message: 'still busy' } });
  const guarded = {
    try: [{ runJob: jobCall({ metadata: { 'swflow.heartbeat': 'PT5S' } }) }],
    catch: { errors: { with: { status: 503 } }, retry: { delay: { milliseconds: 10 }, limit: { attempt: { count: 1 } } }, do: [{ fallback: { set: { result: 'fallback' } } }] },
  };
  const handle = await start('v1-platform-kill-503', [{ guarded }], { job: 'report-2' });
  await service.waitForRequests(1);
  await platform.adapters.stop('SIGKILL');
  await platform.adapters.start();
  assert.deepEqual(await handle.result(), { result: 'fallback' });
  assert.equal(service.requests.length, 3, 'the lost call, the 503, its one retry');
  const story = await activityStory(platform.env.client, handle.workflowId);
  const communication = 'failed: https://serverlessworkflow.io/spec/1.0.0/errors/communication'; // the 503, as an RFC 7807 type
  assert.deepEqual(story.filter((s) => !s.startsWith('scheduled')), ['timed out: HEARTBEAT', communication, communication]);
  assert.equal((await firstCallTimeouts(handle.workflowId)).heartbeat, 5);
});

test('1.0: a call task with a timeout: its start-to-close is the timeout (a definition timeout, not a platform failure)', async () => {
  service.requests.length = 0;
  const handle = await start('v1-platform-timeout', [{ runJob: jobCall({ timeout: { after: { minutes: 5 } } }) }], { job: 'report-3' });
  assert.deepEqual(await handle.result(), { done: true });
  assert.deepEqual(await firstCallTimeouts(handle.workflowId), { startToClose: 300, heartbeat: 30 });
});
