/**
 * Failures of the platform are not the user's errors (src/workflow/platform.ts): the built-in
 * adapter worker runs as a separate process (`swflow adapters`) calling a real HTTP service that
 * holds the call open; the process is killed (SIGKILL) or stopped (SIGINT) in the middle of the
 * call of a definition that defines no retries, then started again. The call is made again and the
 * run ends as the service's answer and the definition say: completed, or the service's error
 * handled by onErrors, or the run failed. No timing is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import type { Json, WorkflowDef } from '../../src/dsl/model';
import { def, saveHistory } from './helpers';
import { activityStory, usePlatform } from './platform-harness';

// ------------------------------------------------------------------ swflow's processes

const platform = usePlatform();
const service = platform.service;

// ------------------------------------------------------------------ definitions and runs

/** One REST call of a job, no retries defined; `extra` adds errors, onErrors, function metadata. */
function jobDefinition(id: string, extra: { metadata?: Record<string, string>; onErrors?: boolean } = {}): Promise<WorkflowDef> {
  return def({
    id,
    start: 'Run',
    errors: [{ name: 'Unavailable', code: '503' }],
    functions: [{ name: 'runJob', operation: service.operation, ...(extra.metadata ? { metadata: extra.metadata } : {}) }],
    states: [
      {
        name: 'Run',
        type: 'operation',
        actions: [{ name: 'run', functionRef: { refName: 'runJob', arguments: { job: '${ .job }' } }, actionDataFilter: { toStateData: '${ .result }' } }],
        ...(extra.onErrors ? { onErrors: [{ errorRef: 'Unavailable', transition: 'Fallback' }] } : {}),
        end: true,
      },
      { name: 'Fallback', type: 'inject', data: { result: 'fallback' }, end: true },
    ],
  });
}

async function start(d: WorkflowDef, input: Json) {
  return platform.env.client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `${d.id}-${Date.now()}`, args: [input, { definition: d }] });
}

// ------------------------------------------------------------------ tests

test('kill -9 of the adapter worker mid-call, no retries defined: after a restart the call is made again and the run completes', async () => {
  service.requests.length = 0;
  service.answers.push('hold'); // the first call never answers: its worker dies with it
  const handle = await start(await jobDefinition('platform-kill'), { job: 'report-1' });
  await service.waitForRequests(1);
  await platform.adapters.stop('SIGKILL');
  await platform.adapters.start();
  assert.deepEqual(await handle.result(), { job: 'report-1', result: { done: true } });
  assert.equal(service.requests.length, 2, 'the service saw the call once per execution: the lost one and the repeat');
  assert.deepEqual(service.requests, [{ job: 'report-1' }, { job: 'report-1' }]);
  const story = await activityStory(platform.env.client, handle.workflowId);
  assert.equal(story.length, 4, story.join('\n'));
  assert.match(story[0], /^scheduled: Run › run → runJob$/);
  // the default heartbeat timeout (no metadata) noticed the lost worker
  assert.equal(story[1], 'timed out: HEARTBEAT');
  assert.match(story[2], /^scheduled: Run › run → runJob \(again: its worker stopped heartbeating/);
  assert.equal(story[3], 'completed');
  await saveHistory(platform.env.client, handle.workflowId, 'interpreter-platform-heartbeat-timeout');
});

test('kill -9 mid-call, then the service answers 503: the definition (no retries, onErrors) handles it once, as written', async () => {
  service.requests.length = 0;
  service.answers.push('hold', { status: 503, body: { message: 'busy' } });
  // metadata swflow.heartbeat sets the function's heartbeat timeout (shorter here: a faster test)
  const d = await jobDefinition('platform-kill-503', { onErrors: true, metadata: { 'swflow.heartbeat': 'PT5S' } });
  const handle = await start(d, { job: 'report-2' });
  await service.waitForRequests(1);
  await platform.adapters.stop('SIGKILL');
  await platform.adapters.start();
  assert.deepEqual(await handle.result(), { job: 'report-2', result: 'fallback' });
  assert.equal(service.requests.length, 2, 'the 503 is not retried (the definition defines no retries)');
  const story = await activityStory(platform.env.client, handle.workflowId);
  assert.deepEqual(story.slice(1), ['timed out: HEARTBEAT', story[2], 'failed: 503']);
  const scheduled = (await platform.env.client.workflow.getHandle(handle.workflowId).fetchHistory()).events!.find((e) => e.activityTaskScheduledEventAttributes)!;
  assert.equal(Number(scheduled.activityTaskScheduledEventAttributes!.heartbeatTimeout?.seconds), 5);
});

test('the adapter worker shuts down (SIGINT) mid-call: the call is made again; the service then answers 503 and the run fails as the definition says', async () => {
  service.requests.length = 0;
  service.answers.push('hold', { status: 503, body: { message: 'busy' } });
  const handle = await start(await jobDefinition('platform-shutdown'), { job: 'report-3' });
  await service.waitForRequests(1);
  await platform.adapters.stop('SIGINT');
  await platform.adapters.start();
  const err = await handle.result().then(
    () => assert.fail('the run should fail with the service error'),
    (e) => e,
  );
  assert.ok(err instanceof WorkflowFailedError);
  assert.match(String(err.cause?.message), /state "Run", action "run", function "runJob" failed: busy \(code 503\)/);
  assert.equal(service.requests.length, 2);
  const story = await activityStory(platform.env.client, handle.workflowId);
  assert.equal(story[1], 'failed: WorkerShutdown');
  assert.match(story[2], /\(again: its worker shut down during the call\)/);
  assert.equal(story[3], 'failed: 503');
});
