/**
 * Error handling, retries, timeouts and compensation (issue 5) on the Java time-skipping server:
 * retry schedules read back from history, errors matched by code / name / description, one test
 * per timeout kind (each a `timeout` error handled by onErrors), parallel/foreach error
 * propagation, compensation order, and what automatic continue-as-new carries.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
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

const TIMEOUT_ERROR = { name: 'TimedOut', code: 'timeout' };

async function history(workflowId: string, runId?: string): Promise<any[]> {
  return (await h.env.client.workflow.getHandle(workflowId, runId).fetchHistory()).events as any[];
}
const seconds = (d: any) => Number(d?.seconds ?? 0) + Number(d?.nanos ?? 0) / 1e9;
const summaryOf = (e: any): string | undefined =>
  e.userMetadata?.summary ? h.env.client.options.loadedDataConverter.payloadConverter.fromPayload(e.userMetadata.summary) : undefined;

// ---------------------------------------------------------------- retries

test('retry schedule asserted from timer durations in history: increment, then multiplier, then maxDelay; timers name the retry', async () => {
  h.reset();
  let n = 0;
  h.mocks.flaky = () => {
    if (++n < 5) throw serviceError('503', 'busy');
    return { ok: true };
  };
  const d = def({
    id: 'retry-schedule',
    start: 'Call',
    errors: [{ name: 'Busy', code: '503' }],
    // 10, (10+5)×2 = 30, (30+5)×2 = 70 → 60, (60+5)×2 → 60
    retries: [{ name: 'steps', delay: 'PT10S', increment: 'PT5S', multiplier: 2, maxDelay: 'PT1M', maxAttempts: 6 }],
    functions: [{ name: 'flaky', operation: 'x#flaky' }],
    states: [{ name: 'Call', type: 'operation', actions: [{ name: 'callIt', functionRef: 'flaky', retryRef: 'steps', retryableErrors: ['Busy'] }], end: true }],
  });
  assert.deepEqual(await h.run(d), { ok: true });
  assert.equal(h.calls.length, 5);
  const timers = (await history(h.lastWorkflowId!)).filter((e) => e.timerStartedEventAttributes);
  assert.deepEqual(timers.map((e) => seconds(e.timerStartedEventAttributes.startToFireTimeout)), [10, 30, 60, 60]);
  assert.deepEqual(
    timers.map((e) => /retry (\d+)/.exec(summaryOf(e) ?? '')?.[1]),
    ['1', '2', '3', '4'],
  );
  assert.match(summaryOf(timers[0])!, /Call › callIt → flaky \(retry 1 after: busy\)/);
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-retry-schedule-timers');
});

test('autoRetries with an unlimited strategy Temporal expresses: the activity retry policy does the retries (attempt count in history, no timers)', async () => {
  h.reset();
  let n = 0;
  h.mocks.flaky = () => {
    if (++n < 4) throw serviceError('503', 'busy');
    return { ok: n };
  };
  h.mocks.missing = () => {
    throw serviceError('404', 'no such thing');
  };
  const d = def({
    id: 'retry-native',
    autoRetries: true,
    start: 'Call',
    errors: [{ name: 'NotFound', code: '404' }],
    // maxAttempts 0: unlimited (CWM's meaning). A finite one is retried with timers (next test).
    retries: [{ name: 'quick', delay: 'PT1S', multiplier: 2, maxDelay: 'PT2S', maxAttempts: 0 }],
    functions: [{ name: 'flaky', operation: 'x#flaky' }, { name: 'missing', operation: 'x#missing' }],
    states: [
      { name: 'Call', type: 'operation', actions: [{ functionRef: 'flaky', retryRef: 'quick', nonRetryableErrors: ['NotFound'] }], transition: 'Miss' },
      {
        name: 'Miss',
        type: 'operation',
        actions: [{ functionRef: 'missing', retryRef: 'quick', nonRetryableErrors: ['NotFound'] }],
        onErrors: [{ errorRef: 'NotFound', end: true }],
        end: true,
      },
    ],
  });
  assert.deepEqual(await h.run(d), { ok: 4 });
  assert.equal(h.calls.filter((c) => c.function === 'flaky').length, 4);
  assert.equal(h.calls.filter((c) => c.function === 'missing').length, 1, 'a non-retryable error type is not retried');
  const events = await history(h.lastWorkflowId!);
  assert.equal(events.filter((e) => e.timerStartedEventAttributes).length, 0, 'no interpreter timers');
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
  const policy = scheduled[0].activityTaskScheduledEventAttributes.retryPolicy;
  assert.equal(seconds(policy.initialInterval), 1);
  assert.equal(policy.backoffCoefficient, 2);
  assert.equal(seconds(policy.maximumInterval), 2);
  assert.ok(!policy.maximumAttempts, 'unlimited: no maximumAttempts');
  assert.deepEqual(policy.nonRetryableErrorTypes, ['404']);
  const started = events.filter((e) => e.activityTaskStartedEventAttributes);
  assert.equal(started[0].activityTaskStartedEventAttributes.attempt, 4, 'the attempt count shows in history (and the UI)');
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-retry-native-unlimited');
});

test('a platform failure (the worker shut down mid-call) is made again and is not an attempt of a finite strategy', async () => {
  h.reset();
  const answers = [
    () => {
      // what the Core-based SDKs report for a call cut short by its worker's shutdown
      throw ApplicationFailure.create({ type: 'WorkerShutdown', message: 'Worker is shutting down and this activity did not complete in time' });
    },
    () => {
      throw serviceError('503', 'busy');
    },
    () => ({ ok: true }),
  ];
  h.mocks.flaky = () => answers.shift()!();
  const d = def({
    id: 'platform-not-an-attempt',
    autoRetries: true,
    start: 'Call',
    retries: [{ name: 'twice', delay: 'PT5S', maxAttempts: 2 }],
    functions: [{ name: 'flaky', operation: 'x#flaky' }],
    states: [{ name: 'Call', type: 'operation', actions: [{ name: 'call', functionRef: 'flaky', retryRef: 'twice' }], end: true }],
  });
  assert.deepEqual(await h.run(d), { ok: true }, 'maxAttempts 2 = the 503 and the success; the shutdown did not count');
  assert.equal(h.calls.length, 3);
  const events = await history(h.lastWorkflowId!);
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
  assert.deepEqual(
    scheduled.map((e) => summaryOf(e)),
    ['Call › call → flaky', 'Call › call → flaky (again: its worker shut down during the call)', 'Call › call → flaky'],
  );
  assert.ok(scheduled.every((e) => e.activityTaskScheduledEventAttributes.retryPolicy.maximumAttempts === 1), 'a finite strategy is retried by the interpreter');
  const timers = events.filter((e) => e.timerStartedEventAttributes);
  assert.deepEqual(timers.map((e) => summaryOf(e)), ['Call › call → flaky (retry 1 after: busy)'], 'one retry of the strategy: after the 503');
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-platform-failure-not-an-attempt');
});

// ---------------------------------------------------------------- errors

test('errors are matched by code (HTTP status), by name (the failure type) and by description (the message); expression errors have code "expression"', async () => {
  h.reset();
  h.mocks.a = () => {
    throw serviceError('404', 'not here');
  };
  h.mocks.b = () => {
    throw ApplicationFailure.create({ message: 'card declined', type: 'PaymentDeclined', nonRetryable: true });
  };
  h.mocks.c = () => {
    throw serviceError('500', 'quota exceeded');
  };
  const d = def({
    id: 'error-matching',
    start: 'A',
    errors: [
      { name: 'Quota', description: 'quota exceeded' },
      { name: 'Missing', code: '404' },
      { name: 'PaymentDeclined' },
      { name: 'BadExpression', code: 'expression' },
    ],
    functions: ['a', 'b', 'c'].map((name) => ({ name, operation: `x#${name}` })),
    states: [
      { name: 'A', type: 'operation', actions: [{ functionRef: 'a' }], onErrors: [{ errorRef: 'Quota', end: true }, { errorRef: 'Missing', transition: 'B' }], end: true },
      { name: 'B', type: 'operation', actions: [{ functionRef: 'b' }], onErrors: [{ errorRef: 'Missing', end: true }, { errorRef: 'PaymentDeclined', transition: 'C' }], end: true },
      { name: 'C', type: 'operation', actions: [{ functionRef: 'c' }], onErrors: [{ errorRef: 'Missing', end: true }, { errorRef: 'Quota', transition: 'D' }], end: true },
      { name: 'D', type: 'operation', actions: [{ functionRef: 'a', actionDataFilter: { fromStateData: '${ error("bad input") }' } }], onErrors: [{ errorRef: 'BadExpression', transition: 'Done' }], end: true },
      { name: 'Done', type: 'inject', data: { handled: 4 }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { handled: 4 });
  assert.deepEqual(h.calls.map((c) => c.function), ['a', 'b', 'c']);
});

test('unhandled error fails the run naming state, action, function and the service message', async () => {
  h.reset();
  h.mocks.pay = () => {
    throw serviceError('402', 'insufficient funds');
  };
  const d = def({
    id: 'unhandled',
    start: 'Pay',
    errors: [{ name: 'Missing', code: '404' }],
    functions: [{ name: 'pay', operation: 'x#pay' }],
    states: [{ name: 'Pay', type: 'operation', actions: [{ name: 'charge', functionRef: 'pay' }], onErrors: [{ errorRef: 'Missing', end: true }], end: true }],
  });
  await assert.rejects(h.run(d), (e: any) => {
    assert.ok(e instanceof WorkflowFailedError);
    assert.match(e.cause?.message ?? '', /state "Pay", action "charge", function "pay" failed: insufficient funds \(code 402\)/);
    return true;
  });
  assert.equal(h.calls.length, 1, 'not retried by default');
});

test('parallel: a branch error goes to the state; the other branch is cancelled and its later error ignored', async () => {
  h.reset();
  h.mocks.fast = () => {
    throw serviceError('404', 'fast failed');
  };
  h.mocks.slow = () => {
    throw serviceError('500', 'slow failed');
  };
  const d = def({
    id: 'parallel-error',
    start: 'P',
    errors: [{ name: 'Missing', code: '404' }, { name: 'Broken', code: '500' }],
    functions: ['fast', 'slow'].map((name) => ({ name, operation: `x#${name}` })),
    states: [
      {
        name: 'P',
        type: 'parallel',
        branches: [
          { name: 'Fast', actions: [{ functionRef: 'fast' }] },
          { name: 'Slow', actions: [{ functionRef: 'slow', sleep: { before: 'PT1M' } }] },
        ],
        onErrors: [{ errorRef: 'Broken', transition: 'WrongHandler' }, { errorRef: 'Missing', transition: 'Handled' }],
        end: true,
      },
      { name: 'Handled', type: 'sleep', duration: 'PT5M', transition: 'Done' },
      { name: 'Done', type: 'inject', data: { handled: 'once' }, end: true },
      { name: 'WrongHandler', type: 'inject', data: { handled: 'wrong' }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { handled: 'once' });
  assert.deepEqual(h.calls.map((c) => c.function), ['fast']);
  const events = await history(h.lastWorkflowId!);
  assert.equal(events.filter((e) => e.timerCanceledEventAttributes).length, 1, "the slow branch's timer was cancelled");
});

test('foreach: the first failing iteration is handled once; the others are cancelled / not started', async () => {
  for (const mode of ['parallel', 'sequential']) {
    h.reset();
    h.mocks.check = (a) => {
      throw serviceError('422', `item ${a.n} invalid`);
    };
    const d = def({
      id: `foreach-error-${mode}`,
      start: 'Each',
      errors: [{ name: 'Invalid', code: '422' }],
      functions: [{ name: 'check', operation: 'x#check' }],
      states: [
        {
          name: 'Each',
          type: 'foreach',
          mode,
          inputCollection: '${ .items }',
          iterationParam: 'n',
          actions: [{ functionRef: { refName: 'check', arguments: { n: '${ $n }' } }, sleep: { before: 'PT1S' } }],
          onErrors: [{ errorRef: 'Invalid', transition: 'Handled' }],
          end: true,
        },
        { name: 'Handled', type: 'inject', data: { handled: true }, end: true },
      ],
    });
    assert.deepEqual(await h.run(d, { items: [1, 2, 3] }), { items: [1, 2, 3], handled: true }, mode);
    if (mode === 'sequential') assert.deepEqual(h.calls.map((c) => (c.arguments as any).n), [1]);
    else assert.ok(h.calls.length >= 1 && h.calls.length <= 3);
  }
});

// ---------------------------------------------------------------- timeouts (one per kind)

test('stateExecTimeout single (inherited from the top-level timeouts) raises a timeout error handled by onErrors', async () => {
  h.reset();
  h.mocks.slow = () => ({ slow: true });
  const d = def({
    id: 'state-single-timeout',
    start: 'S',
    timeouts: { stateExecTimeout: { single: 'PT1M', total: 'PT1H' } },
    errors: [TIMEOUT_ERROR],
    functions: [{ name: 'slow', operation: 'x#slow' }],
    states: [
      { name: 'S', type: 'operation', actions: [{ functionRef: 'slow', sleep: { before: 'PT30M' } }], onErrors: [{ errorRef: 'TimedOut', transition: 'T' }], end: true },
      { name: 'T', type: 'inject', data: { timedOut: 'state' }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { timedOut: 'state' });
  assert.equal(h.calls.length, 0);
  const timers = (await history(h.lastWorkflowId!)).filter((e) => e.timerStartedEventAttributes);
  assert.ok(timers.some((e) => seconds(e.timerStartedEventAttributes.startToFireTimeout) === 60), 'the 1 min (single) timer');
});

test('actionExecTimeout on a function call (activity startToCloseTimeout) is a timeout error handled by onErrors', async () => {
  h.reset();
  h.mocks.hang = async () => {
    await delay(4000);
    return { late: true };
  };
  const d = def({
    id: 'action-timeout',
    start: 'S',
    errors: [TIMEOUT_ERROR],
    functions: [{ name: 'hang', operation: 'x#hang' }],
    states: [
      { name: 'S', type: 'operation', timeouts: { actionExecTimeout: 'PT1S' }, actions: [{ functionRef: 'hang' }], onErrors: [{ errorRef: 'TimedOut', transition: 'T' }], end: true },
      { name: 'T', type: 'inject', data: { timedOut: 'action' }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { timedOut: 'action' });
  const scheduled = (await history(h.lastWorkflowId!)).find((e) => e.activityTaskScheduledEventAttributes);
  assert.equal(seconds(scheduled.activityTaskScheduledEventAttributes.startToCloseTimeout), 1);
});

test('actionExecTimeout (top level) bounds an eventRef wait without consumeEventTimeout', async () => {
  h.reset();
  const d = def({
    id: 'eventref-action-timeout',
    start: 'Ask',
    timeouts: { actionExecTimeout: 'PT5M' },
    errors: [TIMEOUT_ERROR],
    events: [
      { name: 'Req', type: 'req', kind: 'produced' },
      { name: 'Resp', type: 'resp' },
    ],
    states: [
      { name: 'Ask', type: 'operation', actions: [{ eventRef: { produceEventRef: 'Req', consumeEventRef: 'Resp' } }], onErrors: [{ errorRef: 'TimedOut', transition: 'T' }], end: true },
      { name: 'T', type: 'inject', data: { timedOut: 'eventRef' }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { timedOut: 'eventRef' });
  assert.equal(h.produced.length, 1);
  const timers = (await history(h.lastWorkflowId!)).filter((e) => e.timerStartedEventAttributes);
  assert.deepEqual(timers.map((e) => seconds(e.timerStartedEventAttributes.startToFireTimeout)), [300]);
});

test('consumeEventTimeout (wins over actionExecTimeout) is a timeout error handled by onErrors', async () => {
  h.reset();
  const d = def({
    id: 'consume-timeout',
    start: 'Ask',
    timeouts: { actionExecTimeout: 'PT1H' },
    errors: [TIMEOUT_ERROR],
    events: [
      { name: 'Req', type: 'req', kind: 'produced' },
      { name: 'Resp', type: 'resp' },
    ],
    states: [
      { name: 'Ask', type: 'operation', actions: [{ eventRef: { produceEventRef: 'Req', consumeEventRef: 'Resp', consumeEventTimeout: 'PT2M' } }], onErrors: [{ errorRef: 'TimedOut', transition: 'T' }], end: true },
      { name: 'T', type: 'inject', data: { timedOut: 'consume' }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { timedOut: 'consume' });
  const timers = (await history(h.lastWorkflowId!)).filter((e) => e.timerStartedEventAttributes);
  assert.deepEqual(timers.map((e) => seconds(e.timerStartedEventAttributes.startToFireTimeout)), [120]);
});

test('branchExecTimeout (inherited from the top level) is a timeout error of the parallel state handled by onErrors', async () => {
  h.reset();
  h.mocks.quick = () => ({ quick: true });
  h.mocks.slow = () => ({ slow: true });
  const d = def({
    id: 'branch-timeout',
    start: 'P',
    timeouts: { branchExecTimeout: 'PT1M' },
    errors: [TIMEOUT_ERROR],
    functions: ['quick', 'slow'].map((name) => ({ name, operation: `x#${name}` })),
    states: [
      {
        name: 'P',
        type: 'parallel',
        branches: [
          { name: 'Quick', actions: [{ functionRef: 'quick' }] },
          { name: 'Slow', actions: [{ functionRef: 'slow', sleep: { before: 'PT2H' } }] },
        ],
        onErrors: [{ errorRef: 'TimedOut', transition: 'T' }],
        end: true,
      },
      { name: 'T', type: 'inject', data: { timedOut: 'branch' }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { timedOut: 'branch' });
  assert.deepEqual(h.calls.map((c) => c.function), ['quick']);
});

test('eventTimeout of an event state is a timeout error handled by onErrors', async () => {
  h.reset();
  const d = def({
    id: 'event-timeout',
    start: 'Wait',
    errors: [TIMEOUT_ERROR],
    events: [{ name: 'Go', type: 'go' }],
    states: [
      { name: 'Wait', type: 'event', timeouts: { eventTimeout: 'PT10M' }, onEvents: [{ eventRefs: ['Go'] }], onErrors: [{ errorRef: 'TimedOut', transition: 'T' }], end: true },
      { name: 'T', type: 'inject', data: { timedOut: 'event' }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { timedOut: 'event' });
});

test('workflowExecTimeout without interrupt: the current state finishes, then runBefore runs and the run fails', async () => {
  h.reset();
  h.mocks.report = (a) => ({ reported: a });
  h.mocks.next = () => ({ next: true });
  const d = def({
    id: 'wf-timeout-nointerrupt',
    start: 'Long',
    timeouts: { workflowExecTimeout: { duration: 'PT10M', interrupt: false, runBefore: 'Report' } },
    functions: [{ name: 'report', operation: 'x#report' }, { name: 'next', operation: 'x#next' }],
    states: [
      { name: 'Long', type: 'sleep', duration: 'PT1H', stateDataFilter: { output: '${ . + { slept: true } }' }, transition: 'Next' },
      { name: 'Next', type: 'operation', actions: [{ functionRef: 'next' }], end: true },
      { name: 'Report', type: 'operation', actions: [{ functionRef: { refName: 'report', arguments: { slept: '${ .slept }' } } }], end: true },
    ],
  });
  await assert.rejects(h.run(d), (e: any) => {
    assert.match(e.cause?.message ?? '', /workflowExecTimeout/);
    assert.equal(e.cause?.type, 'WorkflowExecTimeout');
    return true;
  });
  assert.deepEqual(h.calls.map((c) => [c.function, c.arguments]), [['report', { slept: true }]], 'Long finished (its data reached runBefore); Next never ran');
});

// ---------------------------------------------------------------- compensation

test('compensation: a failed parallel state cancels its active branch first; compensations run in reverse, each on the previous one\'s data', async () => {
  h.reset();
  h.mocks.book = () => ({ booked: true });
  h.mocks.fail = () => {
    throw serviceError('500', 'payment down');
  };
  h.mocks.slow = () => ({ slow: true });
  h.mocks.undo = (a) => ({ undone: a });
  const d = def({
    id: 'compensate-parallel',
    start: 'Book',
    errors: [{ name: 'Down', code: '500' }],
    functions: ['book', 'fail', 'slow', 'undo'].map((name) => ({ name, operation: `x#${name}` })),
    states: [
      { name: 'Book', type: 'operation', actions: [{ functionRef: 'book' }], compensatedBy: 'UndoBook', transition: 'Mark' },
      { name: 'Mark', type: 'inject', data: { marked: true }, compensatedBy: 'UndoMark', transition: 'Pay' },
      {
        name: 'Pay',
        type: 'parallel',
        branches: [
          { name: 'Charge', actions: [{ functionRef: 'fail' }] },
          { name: 'Slow', actions: [{ functionRef: 'slow', sleep: { before: 'PT1M' } }] },
        ],
        onErrors: [{ errorRef: 'Down', end: { compensate: true } }],
        end: true,
      },
      { name: 'UndoBook', type: 'operation', usedForCompensation: true, actions: [{ functionRef: { refName: 'undo', arguments: { sawMarkUndone: '${ .markUndone }', booked: '${ .booked }' } } }] },
      { name: 'UndoMark', type: 'inject', usedForCompensation: true, data: { markUndone: true } },
    ],
  });
  assert.deepEqual(await h.run(d), { booked: true, marked: true });
  assert.deepEqual(h.calls.map((c) => c.function), ['book', 'fail', 'undo']);
  assert.deepEqual(h.calls[2].arguments, { sawMarkUndone: true, booked: true }, 'UndoMark ran first; its output fed UndoBook');
  const events = await history(h.lastWorkflowId!);
  const cancelled = events.findIndex((e) => e.timerCanceledEventAttributes);
  const undo = events.findIndex((e) => e.activityTaskScheduledEventAttributes && /UndoBook/.test(summaryOf(e) ?? ''));
  assert.ok(cancelled >= 0 && undo > cancelled, `the slow branch was cancelled (event ${cancelled}) before compensation (event ${undo})`);
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-compensation-after-parallel-error');
});

test('end with compensate, produceEvents and continueAs: compensation first, then the event, then continue as new', async () => {
  h.reset();
  h.mocks.book = () => ({ booked: true });
  h.mocks.undo = () => ({ undone: true });
  const next = def({ id: 'after-compensation', start: 'Z', states: [{ name: 'Z', type: 'inject', data: { continued: true }, end: true }] });
  const d = def({
    id: 'compensate-produce-continue',
    start: 'Book',
    events: [{ name: 'Cancelled', type: 'booking.cancelled', kind: 'produced' }],
    functions: ['book', 'undo'].map((name) => ({ name, operation: `x#${name}` })),
    states: [
      {
        name: 'Book',
        type: 'operation',
        actions: [{ functionRef: 'book' }],
        compensatedBy: 'Undo',
        end: { compensate: true, produceEvents: [{ eventRef: 'Cancelled', data: '${ . }' }], continueAs: { workflowId: 'after-compensation' } },
      },
      { name: 'Undo', type: 'operation', usedForCompensation: true, actions: [{ functionRef: 'undo' }] },
    ],
  });
  const handle = await h.start(d, {}, { subflows: { 'after-compensation': next } });
  assert.deepEqual(await handle.result(), { booked: true, continued: true });
  assert.deepEqual(h.calls.map((c) => c.function), ['book', 'undo']);
  assert.deepEqual(h.produced.map((e) => e.data), [{ booked: true }], 'compensation states do not change the main data');
  const events = await history(handle.workflowId, handle.firstExecutionRunId);
  const order = events
    .filter((e) => e.activityTaskScheduledEventAttributes || e.workflowExecutionContinuedAsNewEventAttributes)
    .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? 'continuedAsNew');
  assert.deepEqual(order.slice(-3), [order.at(-3), 'swflow.produceEvent', 'continuedAsNew']);
  assert.match(summaryOf(events.filter((e) => e.activityTaskScheduledEventAttributes).at(-2)) ?? '', /Undo/);
});

// ---------------------------------------------------------------- automatic continue-as-new

test('automatic continue-as-new carries the compensation stack and an early event', async () => {
  h.reset();
  h.mocks.book = () => ({ booked: true });
  h.mocks.unbook = () => ({ unbooked: true });
  const d = def({
    id: 'can-carries',
    metadata: { 'swflow.historyLimit': '12' },
    start: 'Book',
    events: [{ name: 'Go', type: 'go' }],
    functions: ['book', 'unbook'].map((name) => ({ name, operation: `x#${name}` })),
    states: [
      { name: 'Book', type: 'operation', actions: [{ functionRef: 'book' }], compensatedBy: 'Unbook', transition: 'Nap1' },
      { name: 'Nap1', type: 'sleep', duration: 'PT1M', transition: 'Nap2' },
      { name: 'Nap2', type: 'sleep', duration: 'PT1M', transition: 'Nap3' },
      { name: 'Nap3', type: 'sleep', duration: 'PT1M', transition: 'Wait' },
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'], eventDataFilter: { toStateData: '${ .go }' } }], end: { compensate: true } },
      { name: 'Unbook', type: 'operation', usedForCompensation: true, actions: [{ functionRef: 'unbook' }] },
    ],
  });
  const handle = await h.start(d, {});
  await handle.signal('swflow.event', ce('go', { early: true })); // long before the Wait state
  assert.deepEqual(await handle.result(), { booked: true, go: { early: true } });
  assert.deepEqual(h.calls.map((c) => c.function), ['book', 'unbook'], 'the compensation recorded in the first run ran in a later one');
  const last = await handle.describe();
  assert.notEqual(last.runId, handle.firstExecutionRunId, 'continued as new');
});
