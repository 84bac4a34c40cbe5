/**
 * The defaults the 0.8 spec states that are behaviour, end to end on the Java time-skipping
 * server (so "unlimited" can be days): one test per row of docs/spec-defaults.md that is not a
 * pure normalization (those are in test/dsl/spec-defaults.test.ts). A test fails if swflow's
 * default changes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { startWorkflow } from '../../src/client/start';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { retrySchedule } from '../../src/workflow/v08/retry';
import { UNLIMITED_CALL_MS } from '../../src/workflow/timeouts';
import { startTimeSkippingEnv } from '../helpers/temporal';
import { ce, def, harness, serviceError, type Harness } from './helpers';

let h: Harness;
before(async () => {
  h = await harness(await startTimeSkippingEnv());
});
after(async () => {
  await h?.close();
  await h?.env.teardown();
});

const DAY = 24 * 3600_000;
const seconds = (d: any) => Number(d?.seconds ?? 0) + Number(d?.nanos ?? 0) / 1e9;
async function history(workflowId: string): Promise<any[]> {
  return (await h.env.client.workflow.getHandle(workflowId).fetchHistory()).events as any[];
}
const timersOf = (events: any[]) => events.filter((e) => e.timerStartedEventAttributes).map((e) => seconds(e.timerStartedEventAttributes.startToFireTimeout));

test('spec default: workflow data input — {} when none is given', async () => {
  h.reset();
  const d = await def({
    id: 'no-input',
    start: 'S',
    functions: [{ name: 'isEmpty', type: 'expression', operation: '${ . == {} }' }],
    states: [{ name: 'S', type: 'operation', actions: [{ functionRef: 'isEmpty', actionDataFilter: { toStateData: '${ .emptyObject }' } }], end: true }],
  });
  const handle = await h.env.client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `no-input-${Date.now()}`, args: [null, { definition: d }] });
  assert.deepEqual(await handle.result(), { emptyObject: true });
});

test('spec default: workflowExecTimeout — unlimited: a run that sleeps 400 days completes; no timer but its own', async () => {
  h.reset();
  const d = def({ id: 'long-run', start: 'Wait', states: [{ name: 'Wait', type: 'sleep', duration: 'P400D', end: true }] });
  assert.deepEqual(await h.run(d, { x: 1 }), { x: 1 });
  assert.deepEqual(timersOf(await history(h.lastWorkflowId!)), [400 * 86_400]);
});

test('workflowExecTimeout is the interpreter\'s timer, not a Temporal execution timeout: startWorkflow leaves runBefore time to run', async () => {
  h.reset();
  const d = await def({
    id: 'deadline',
    start: 'Wait',
    timeouts: { workflowExecTimeout: { duration: 'PT1H', runBefore: 'Cancel' } },
    events: [{ name: 'Confirmed', type: 'confirmed' }],
    states: [
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Confirmed'] }], end: true },
      { name: 'Cancel', type: 'inject', data: { cancelled: true }, end: true },
    ],
  });
  const handle = await startWorkflow(h.env.client, { definition: d, input: {} });
  const err = await handle.result().then(
    () => assert.fail('the run should fail with its workflowExecTimeout'),
    (e) => e,
  );
  assert.ok(err instanceof WorkflowFailedError && err.cause instanceof ApplicationFailure, `not the interpreter's failure: ${err}`);
  assert.equal(err.cause.type, 'WorkflowExecTimeout');
  assert.deepEqual((err.cause.details?.[0] as { data: unknown } | undefined)?.data, { cancelled: true }, 'runBefore ran');
});

test('spec default: stateExecTimeout and branchExecTimeout — unlimited: a state and a parallel branch lasting 30 days complete', async () => {
  h.reset();
  h.mocks.work = () => ({ done: true });
  const slow = { functionRef: 'work', sleep: { before: 'P30D' } };
  const d = def({
    id: 'long-state',
    start: 'Op',
    functions: [{ name: 'work', operation: 'x#work' }],
    states: [
      { name: 'Op', type: 'operation', actions: [slow], transition: 'Par' },
      { name: 'Par', type: 'parallel', branches: [{ name: 'b1', actions: [slow] }, { name: 'b2', actions: [{ functionRef: 'work' }] }], end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { done: true });
  assert.deepEqual(timersOf(await history(h.lastWorkflowId!)), [30 * 86_400, 30 * 86_400], 'only the action sleeps: no state or branch timer');
});

test('spec default: actionExecTimeout — unlimited: a call runs with a ten-year start-to-close and a 30 s heartbeat timeout (swflow.heartbeat changes or drops it)', async () => {
  h.reset();
  h.mocks.plain = () => 1;
  h.mocks.slowBeat = () => 2;
  h.mocks.noBeat = () => 3;
  const d = def({
    id: 'call-timeouts',
    start: 'S',
    functions: [
      { name: 'plain', operation: 'x#plain' },
      { name: 'slowBeat', operation: 'x#slowBeat', metadata: { 'swflow.heartbeat': 'PT2M' } },
      { name: 'noBeat', operation: 'x#noBeat', metadata: { 'swflow.heartbeat': 'off' } },
    ],
    states: [
      {
        name: 'S',
        type: 'operation',
        actions: ['plain', 'slowBeat', 'noBeat'].map((f) => ({ functionRef: f, actionDataFilter: { toStateData: `\${ .${f} }` } })),
        end: true,
      },
    ],
  });
  assert.deepEqual(await h.run(d), { plain: 1, slowBeat: 2, noBeat: 3 });
  const scheduled = (await history(h.lastWorkflowId!)).filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes);
  assert.deepEqual(
    scheduled.map((a) => [seconds(a.startToCloseTimeout), seconds(a.heartbeatTimeout)]),
    [
      [UNLIMITED_CALL_MS / 1000, 30],
      [UNLIMITED_CALL_MS / 1000, 120],
      [UNLIMITED_CALL_MS / 1000, 0],
    ],
  );
  assert.equal(UNLIMITED_CALL_MS, 10 * 365 * DAY);
});

test('spec default: eventTimeout — unlimited: an event state waits 30 days for its event', async () => {
  h.reset();
  const d = def({
    id: 'long-wait',
    start: 'Wait',
    events: [{ name: 'Approved', type: 'approved' }],
    states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Approved'] }], end: true }],
  });
  const handle = await h.start(d, {});
  await h.env.sleep(30 * DAY);
  await handle.signal('swflow.event', ce('approved', { ok: true }));
  assert.deepEqual(await handle.result(), { ok: true });
  assert.deepEqual(timersOf(await history(handle.workflowId)), [], 'no event timer');
});

test('spec default: autoRetries false — a failing call is retried only for its retryableErrors, and only with a retryRef', async () => {
  h.reset();
  h.mocks.busy = () => {
    throw serviceError('503', 'busy');
  };
  const run = async (id: string, action: Record<string, unknown>) => {
    h.calls.length = 0;
    const d = def({
      id,
      start: 'S',
      errors: [{ name: 'Busy', code: '503' }],
      retries: [{ name: 'often', delay: 'PT1S', maxAttempts: 5 }],
      functions: [{ name: 'busy', operation: 'x#busy' }],
      states: [{ name: 'S', type: 'operation', actions: [{ functionRef: 'busy', ...action }], end: true }],
    });
    await assert.rejects(h.run(d), WorkflowFailedError);
    return h.calls.length;
  };
  assert.equal(await run('no-retry-listed', { retryRef: 'often' }), 1, 'a retryRef without retryableErrors: not retried');
  assert.equal(await run('no-retry-ref', { retryableErrors: ['Busy'] }), 1, 'retryableErrors without a retryRef: not retried');
  assert.equal(await run('retried', { retryRef: 'often', retryableErrors: ['Busy'] }), 5, 'both: retried (the control)');
});

test('spec default: foreach mode parallel and batchSize the whole collection — every iteration is in flight at once', async () => {
  h.reset();
  const n = 12;
  let inFlight = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => (release = r));
  // each call answers only once all n are in flight: iterations run one by one (or in smaller batches) never finish
  h.mocks.item = async (a) => {
    if (++inFlight === n) release();
    await Promise.race([all, new Promise((_, reject) => setTimeout(() => reject(new Error('not all iterations in flight')), 20_000))]);
    return { v: a.x * 2 };
  };
  const d = def({
    id: 'foreach-defaults',
    start: 'Each',
    functions: [{ name: 'item', operation: 'x#item' }],
    states: [{ name: 'Each', type: 'foreach', inputCollection: '${ .xs }', outputCollection: '${ .out }', actions: [{ functionRef: { refName: 'item', arguments: { x: '${ $item }' } } }], end: true }],
  });
  const xs = Array.from({ length: n }, (_, i) => i);
  const out = (await h.run(d, { xs })) as { out: { v: number }[] };
  assert.deepEqual(out.out, xs.map((x) => ({ v: x * 2 })));
});

test('spec default: produced event source — swflow/<definition id> when the event definition gives none', async () => {
  h.reset();
  const d = def({
    id: 'producer',
    start: 'S',
    events: [{ name: 'Done', type: 'done', kind: 'produced' }],
    states: [{ name: 'S', type: 'inject', data: {}, end: { produceEvents: [{ eventRef: 'Done' }] } }],
  });
  await h.run(d);
  assert.deepEqual(h.produced.map((e) => [e.type, e.source]), [['done', 'swflow/producer']]);
});

test('spec default: continueAs — the run ends there (terminate assumed), even with keepActive', async () => {
  h.reset();
  const next = def({ id: 'next', start: 'N', states: [{ name: 'N', type: 'inject', data: { next: true }, end: true }] });
  const d = def({ id: 'kept', keepActive: true, start: 'A', states: [{ name: 'A', type: 'inject', data: { a: 1 }, end: { continueAs: 'next' } }] });
  assert.deepEqual(await h.run(d, {}, { subflows: { next } }), { a: 1, next: true });
});

test('spec default: retry delay — 1 s when a strategy gives none (swflow\'s choice), constant without multiplier or increment', () => {
  assert.deepEqual(retrySchedule({ name: 'r', maxAttempts: 4 }, 3), [1000, 1000, 1000]);
});
