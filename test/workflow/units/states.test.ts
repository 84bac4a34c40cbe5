/**
 * Every 0.8 state executor on its own, without a server: data in, a fake context that records
 * and answers the commands (fake-context.ts), and the data out, the commands (types, inputs,
 * summaries, times), the events awaited and the transition/end chosen. Real definitions (the
 * real loader) and real expressions (src/expr).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CancelledFailure, TimeoutFailure } from '@temporalio/workflow';
import type { CloudEventJson } from '../../../src/common/contracts';
import { ActionError, classify, findHandler, SwTimeoutError } from '../../../src/workflow/v08/errors';
import { UNLIMITED_CALL_MS } from '../../../src/workflow/timeouts';
import { INTERPRETER_FEATURES } from '../../../src/common/features';
import { EXECUTORS } from '../../../src/workflow/v08/states/executors';
import { PRODUCE_EVENT_ACTIVITY } from '../../../src/workflow/events/produce';
import type { Json, WorkflowDef } from '../../../src/common/model';
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { definition, FakeRun } from './fake-context';
import type { ActivityCommand, Command } from './fake-effects';

/** The options of a function call's activity on a new run (no actionExecTimeout: "unlimited", heartbeat 30 s). */
const callOptions = (summary: string, extra: Record<string, unknown> = {}) => ({
  taskQueue: 'swflow-adapters',
  startToCloseTimeout: UNLIMITED_CALL_MS,
  heartbeatTimeout: 30_000,
  retry: { maximumAttempts: 1 },
  summary,
  ...extra,
});

const functions = [
  { name: 'quote', type: 'custom', operation: 'pricing.quote' },
  { name: 'stock', type: 'custom', operation: 'pricing.stock' },
  { name: 'double', type: 'expression', operation: '.n * 2' },
];

const ended = { end: { terminate: false, produceEvents: [], compensate: false } };

type Call = ActivityCommand;
/** The evaluated arguments an activity was called with (call-context-headers: the input is the arguments alone). */
const argsOf = (c: Command) => (c as Call).args[0];

/** A service error as the workflow sees an adapter's: an ActivityFailure caused by an ApplicationFailure with details `{code, message}`. */
function serviceError(code: string, message: string, activityType = 'sw.rest'): ActivityFailure {
  return activityFailure(ApplicationFailure.create({ type: code, message, nonRetryable: true, details: [{ code, message }] }), activityType);
}

/** An activity's failure with its cause, as the SDK raises it in the workflow. */
function activityFailure(cause: Error, activityType = 'sw.rest'): ActivityFailure {
  return new ActivityFailure('Activity task failed', activityType, '1', 'NON_RETRYABLE_FAILURE' as never, 'worker', cause);
}

let eventIds = 0;

/** A CloudEvent as a broker delivers it. */
function cloudEvent(type: string, data: Json, extra: Record<string, Json> = {}): CloudEventJson {
  return { specversion: '1.0', id: `ev-${++eventIds}`, source: 'test', type, datacontenttype: 'application/json', data, ...extra } as CloudEventJson;
}

test('the executor table has one executor per state type', () => {
  assert.deepEqual(Object.keys(EXECUTORS).sort(), ['callback', 'event', 'foreach', 'inject', 'operation', 'parallel', 'sleep', 'switch']);
});

test('inject: its data merged into the state data (injected values win), no command', async () => {
  const def = await definition({ states: [{ name: 'Inject', type: 'inject', data: { a: 1, nested: { x: 'new' } }, end: true }] });
  const run = new FakeRun(def);
  const out = await run.exec('Inject', { a: 0, b: 2, nested: { x: 'old', y: 3 } });
  assert.deepEqual(out.data, { a: 1, b: 2, nested: { x: 'new', y: 3 } });
  assert.equal(out.next, undefined);
  assert.deepEqual(run.effects.commands, []);
});

test('operation, sequential: arguments evaluated, results filtered (results/toStateData), each call after the previous one', async () => {
  const def = await definition({
    functions,
    states: [
      {
        name: 'Price',
        type: 'operation',
        actions: [
          { name: 'quote', functionRef: { refName: 'quote', arguments: { count: '${ .order.count }', sku: '${ .order.sku }', fixed: 'x' } }, actionDataFilter: { results: '${ .price }', toStateData: '${ .quoted }' } },
          { name: 'stock', functionRef: { refName: 'stock', arguments: { sku: '${ .order.sku }', price: '${ .quoted }' } }, sleep: { after: 'PT2S' } },
          { name: 'twice', functionRef: { refName: 'double', arguments: { n: '${ .quoted }' } }, actionDataFilter: { toStateData: '${ .doubled }' } },
        ],
        transition: 'Next',
      },
      { name: 'Next', type: 'inject', data: {}, end: true },
    ],
  });
  const run = new FakeRun(def);
  run.effects.activities['pricing.quote'] = () => run.effects.after(1000, { price: 15, currency: 'EUR' });
  run.effects.activities['pricing.stock'] = () => run.effects.after(500, { inStock: true });
  const out = await run.exec('Price', { order: { sku: 'A1', count: 3 } });
  assert.deepEqual(out.data, { order: { sku: 'A1', count: 3 }, quoted: 15, inStock: true, doubled: 30 });
  assert.equal(out.next, undefined); // the state's own transition
  assert.deepEqual(run.effects.issued(), [
    { kind: 'activity', type: 'pricing.quote', args: [{ count: 3, sku: 'A1', fixed: 'x' }], options: callOptions('Price › quote → quote') },
    { kind: 'activity', type: 'pricing.stock', args: [{ sku: 'A1', price: 15 }], options: callOptions('Price › stock → stock') },
    { kind: 'timer', ms: 2000, summary: 'Price › stock → sleep PT2S after' },
  ]);
  // The second call starts when the first has answered; the expression function issues nothing.
  assert.deepEqual(run.effects.commands.map((c) => c.at), [0, 1000, 1500]);
  assert.equal(run.effects.elapsed, 3500);
});

test('operation, parallel: every call issued at once, results merged in action order whatever order they answer in', async () => {
  const def = await definition({
    functions,
    states: [
      {
        name: 'Both',
        type: 'operation',
        actionMode: 'parallel',
        actions: [
          { name: 'q', functionRef: { refName: 'quote', arguments: { sku: '${ .sku }' } }, actionDataFilter: { results: '${ {tags: [.tag], who: "quote"} }' } },
          { name: 's', functionRef: { refName: 'stock', arguments: { sku: '${ .sku }' } }, actionDataFilter: { results: '${ {tags: [.tag], who: "stock"} }' } },
        ],
        end: true,
      },
    ],
  });
  const run = new FakeRun(def);
  // The second action answers first.
  run.effects.activities['pricing.quote'] = () => run.effects.after(2000, { tag: 'q' });
  run.effects.activities['pricing.stock'] = () => run.effects.after(100, { tag: 's' });
  const out = await run.exec('Both', { sku: 'B2', tags: ['start'] });
  assert.deepEqual(out.data, { sku: 'B2', tags: ['start', 'q', 's'], who: 'stock' });
  assert.deepEqual(
    run.effects.commands.map((c) => [(c as Call).type, c.at, (c as Call).options.summary]),
    [
      ['pricing.quote', 0, 'Both › q → quote'],
      ['pricing.stock', 0, 'Both › s → stock'],
    ],
  );
  assert.equal(run.effects.elapsed, 2000);
});

test('operation: a service error fails the state with the action site and code; onErrors picks its handler; parallel siblings are cancelled', async () => {
  const def = await definition({
    functions,
    errors: [{ name: 'NotFound', code: '404' }],
    states: [
      {
        name: 'Fetch',
        type: 'operation',
        actionMode: 'parallel',
        actions: [
          { name: 'slow', functionRef: { refName: 'stock', arguments: {} } },
          { name: 'missing', functionRef: { refName: 'quote', arguments: { sku: '${ .sku }' } } },
        ],
        onErrors: [{ errorRef: 'NotFound', transition: 'Fallback' }],
        transition: 'Done',
      },
      { name: 'Fallback', type: 'inject', data: {}, end: true },
      { name: 'Done', type: 'inject', data: {}, end: true },
    ],
  });
  const run = new FakeRun(def);
  run.effects.activities['pricing.quote'] = () => run.effects.after(300, serviceError('404', 'no sku Z9'));
  run.effects.activities['pricing.stock'] = () => run.effects.after(60_000, { late: true });
  const err = await run.exec('Fetch', { sku: 'Z9' }).then(
    () => assert.fail('the state did not fail'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ActionError);
  assert.deepEqual(err.error, { kind: 'service', code: '404', type: '404', message: 'no sku Z9' });
  assert.deepEqual(err.site, { state: 'Fetch', action: 'missing', function: 'quote' });
  assert.equal(err.message, 'state "Fetch", action "missing", function "quote" failed: no sku Z9 (code 404)');
  // The slow sibling was cancelled: its answer is no longer pending, the clock never reached it.
  assert.equal(run.effects.elapsed, 300);
  assert.equal(run.effects.commands.length, 2);
  assert.equal(run.effects.outstanding, 0);
  // The run's error handling (Runtime.execState) takes the first handler that matches.
  const handler = findHandler(def, run.state('Fetch'), classify(err));
  assert.deepEqual(handler?.transition, { nextState: 'Fallback', produceEvents: [], compensate: false });
});

test('operation: a call that lost its worker is made again (not a definition retry), its summary says why', async () => {
  const def = await definition({ functions, states: [{ name: 'Op', type: 'operation', actions: [{ name: 'q', functionRef: { refName: 'quote', arguments: {} } }], end: true }] });
  let n = 0;
  const run = new FakeRun(def);
  run.effects.activities['pricing.quote'] = () => (++n === 1 ? run.effects.after(30_000, activityFailure(new TimeoutFailure('heartbeat', undefined, 'HEARTBEAT'))) : run.effects.after(10, { price: 1 }));
  const out = await run.exec('Op', {});
  assert.deepEqual(out.data, { price: 1 });
  assert.deepEqual(
    run.effects.commands.map((c) => (c as Call).options.summary),
    ['Op › q → quote', 'Op › q → quote (again: its worker stopped heartbeating (heartbeat timeout))'],
  );
  assert.deepEqual(run.effects.warnings, ['a function call is made again: its worker stopped heartbeating (heartbeat timeout)']);
});

test('operation: a retryRef strategy retries a listed error after a durable timer named after the retry', async () => {
  const def = await definition({
    functions,
    errors: [{ name: 'Busy', code: '503' }],
    retries: [{ name: 'twice', delay: 'PT2S', maxAttempts: 3 }],
    states: [{ name: 'Op', type: 'operation', actions: [{ name: 'q', functionRef: { refName: 'quote', arguments: {} }, retryRef: 'twice', retryableErrors: ['Busy'] }], end: true }],
  });
  let n = 0;
  const run = new FakeRun(def);
  run.effects.activities['pricing.quote'] = () => {
    if (++n < 3) throw serviceError('503', 'busy');
    return { ok: n };
  };
  const out = await run.exec('Op', {});
  assert.deepEqual(out.data, { ok: 3 });
  assert.deepEqual(
    run.effects.issued().map((c) => (c.kind === 'timer' ? [c.kind, c.ms, c.summary] : [c.kind, (c as Call).type])),
    [
      ['activity', 'pricing.quote'],
      ['timer', 2000, 'Op › q → quote (retry 1 after: busy)'],
      ['activity', 'pricing.quote'],
      ['timer', 2000, 'Op › q → quote (retry 2 after: busy)'],
      ['activity', 'pricing.quote'],
    ],
  );
  // maxAttempts counts every attempt: the third failure is the state's.
  const always = new FakeRun(def);
  always.effects.activities['pricing.quote'] = () => {
    throw serviceError('503', 'still busy');
  };
  await assert.rejects(always.exec('Op', {}), (e: unknown) => e instanceof ActionError && e.error.code === '503');
  assert.deepEqual(always.effects.commands.map((c) => c.kind), ['activity', 'timer', 'activity', 'timer', 'activity']);
  assert.equal(always.effects.elapsed, 4000);
});

test('operation: subflow and eventRef actions (a child with a deterministic id; an event produced, then its answer awaited)', async () => {
  const def = await definition({
    functions,
    events: [
      { name: 'Ask', type: 'com.x.ask', source: 'swflow/test', kind: 'produced' },
      { name: 'Answer', type: 'com.x.answer', source: 'svc', kind: 'consumed' },
    ],
    states: [
      {
        name: 'Ops',
        type: 'operation',
        actions: [
          { name: 'child', subFlowRef: { workflowId: 'billing', version: '2.0' }, actionDataFilter: { toStateData: '${ .bill }' } },
          { name: 'ask', eventRef: { produceEventRef: 'Ask', consumeEventRef: 'Answer', data: '${ {q: .q} }', consumeEventTimeout: 'PT1M' }, actionDataFilter: { toStateData: '${ .answer }' } },
        ],
        end: true,
      },
    ],
  });
  const run = new FakeRun(def);
  run.effects.children['billing@2.0'] = () => run.effects.after(5000, { total: 9 });
  run.effects.activities[PRODUCE_EVENT_ACTIVITY] = () => null;
  run.deliver(8000, cloudEvent('com.x.answer', { a: 42 }, { source: 'svc' }));
  const out = await run.exec('Ops', { q: 'life' });
  assert.deepEqual(out.data, { q: 'life', bill: { total: 9 }, answer: { a: 42 } });
  const [child, produce, wait] = run.effects.issued();
  assert.deepEqual(child, {
    kind: 'executeChild',
    type: 'billing@2.0',
    options: {
      args: [{ q: 'life' }, {}],
      workflowId: 'billing-00000000-0000-4000-8000-000000000001',
      taskQueue: 'swflow',
      parentClosePolicy: 'TERMINATE',
      staticSummary: 'Ops › child → subflow billing@2.0',
      staticDetails: 'Subflow **billing@2.0** of unit (state Ops)',
    },
  });
  assert.equal(produce.kind, 'activity');
  assert.equal((produce as Call).type, PRODUCE_EVENT_ACTIVITY);
  assert.deepEqual((produce as Call).args, [
    { specversion: '1.0', id: '00000000-0000-4000-8000-000000000002', source: 'swflow/test', type: 'com.x.ask', time: '2026-01-01T00:00:05.000Z', datacontenttype: 'application/json', data: { q: 'life' } },
  ]);
  assert.deepEqual((produce as Call).options, { taskQueue: 'swflow', startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 }, summary: 'Ops › ask → produce Ask' });
  assert.deepEqual(wait, { kind: 'wait', ms: 60_000, summary: 'Ops › ask → wait for Answer' });
  assert.equal(run.effects.elapsed, 8000);
});

test('sleep: one durable timer of its duration with its summary; the data passes through', async () => {
  const def = await definition({ states: [{ name: 'Nap', type: 'sleep', duration: 'PT1M30S', transition: 'After' }, { name: 'After', type: 'inject', data: {}, end: true }] });
  const run = new FakeRun(def);
  const out = await run.exec('Nap', { keep: [1, 2] });
  assert.deepEqual(out.data, { keep: [1, 2] });
  assert.deepEqual(run.effects.issued(), [{ kind: 'timer', ms: 90_000, summary: 'Nap → sleep PT1M30S' }]);
  assert.equal(run.effects.elapsed, 90_000);
});

test('switch, data conditions: the first true condition wins, else defaultCondition; no command', async () => {
  const def = await definition({
    states: [
      {
        name: 'Route',
        type: 'switch',
        dataConditions: [
          { name: 'big', condition: '${ .amount > 100 }', transition: 'Big' },
          { name: 'some', condition: '${ .amount > 10 }', transition: 'Some' },
          { condition: '${ .amount > 0 }', end: true },
        ],
        defaultCondition: { transition: 'Zero' },
      },
      ...['Big', 'Some', 'Zero'].map((name) => ({ name, type: 'inject', data: {}, end: true })),
    ],
  });
  const run = new FakeRun(def);
  const route = async (amount: number) => (await run.exec('Route', { amount })).next;
  assert.deepEqual(await route(500), { transition: { nextState: 'Big', produceEvents: [], compensate: false }, end: undefined });
  assert.deepEqual(await route(50), { transition: { nextState: 'Some', produceEvents: [], compensate: false }, end: undefined });
  assert.deepEqual(await route(5), { transition: undefined, ...ended });
  assert.deepEqual(await route(0), { transition: { nextState: 'Zero', produceEvents: [], compensate: false }, end: undefined });
  assert.deepEqual(run.effects.commands, []);
});

test('switch, event conditions: the first matching event wins (its eventDataFilter merges it); eventTimeout goes to defaultCondition', async () => {
  const def = await definition({
    events: [
      { name: 'Approved', type: 'com.x.approved', source: 'hr', kind: 'consumed' },
      { name: 'Denied', type: 'com.x.denied', source: 'hr', kind: 'consumed' },
    ],
    states: [
      {
        name: 'Decide',
        type: 'switch',
        eventConditions: [
          { eventRef: 'Approved', transition: 'Yes', eventDataFilter: { data: '${ .by }', toStateData: '${ .approver }' } },
          { eventRef: 'Denied', transition: 'No' },
        ],
        defaultCondition: { transition: 'Late' },
        timeouts: { eventTimeout: 'PT1H' },
      },
      ...['Yes', 'No', 'Late'].map((name) => ({ name, type: 'inject', data: {}, end: true })),
    ],
  });
  // An event already kept: taken at once, no wait.
  const kept = new FakeRun(def, { events: [cloudEvent('com.x.other', {}), cloudEvent('com.x.approved', { by: 'ann' }, { source: 'hr' })] });
  const a = await kept.exec('Decide', { id: 7 });
  assert.deepEqual(a.data, { id: 7, approver: 'ann' });
  assert.equal(a.next && a.next.transition?.nextState, 'Yes');
  assert.deepEqual(kept.effects.commands, []);
  assert.equal(kept.mailbox.events.length, 1); // the unrelated event is still kept

  // An event arriving while the state waits.
  const waiting = new FakeRun(def);
  let awaited: string[] = [];
  waiting.effects.later(60_000, () => (awaited = [...waiting.mailbox.awaited]));
  waiting.deliver(120_000, cloudEvent('com.x.denied', { why: 'budget' }, { source: 'hr' }));
  const d = await waiting.exec('Decide', { id: 8 });
  assert.deepEqual(awaited, ['Approved', 'Denied']); // what the state query and SwAwaitedEvents show meanwhile
  assert.deepEqual([...waiting.mailbox.awaited], []);
  assert.deepEqual(d.data, { id: 8, why: 'budget' }); // no eventDataFilter: the event data merged
  assert.equal(d.next && d.next.transition?.nextState, 'No');
  assert.deepEqual(waiting.effects.issued(), [{ kind: 'wait', ms: 3_600_000, summary: 'Decide → wait for Approved | Denied' }]);
  assert.equal(waiting.effects.elapsed, 120_000);

  // None within eventTimeout: defaultCondition.
  const late = new FakeRun(def);
  late.deliver(3_600_001, cloudEvent('com.x.approved', { by: 'bob' }, { source: 'hr' }));
  const l = await late.exec('Decide', { id: 9 });
  assert.deepEqual(l.data, { id: 9 });
  assert.equal(l.next && l.next.transition?.nextState, 'Late');
  assert.equal(late.effects.elapsed, 3_600_000);
});

test('event, exclusive: the first event of any onEvents wins, its eventDataFilter and actions run; the others are not awaited', async () => {
  const def = await definition({
    functions,
    events: [
      { name: 'Order', type: 'com.x.order', source: 'shop', kind: 'consumed' },
      { name: 'Refund', type: 'com.x.refund', source: 'shop', kind: 'consumed' },
    ],
    states: [
      {
        name: 'Wait',
        type: 'event',
        onEvents: [
          { eventRefs: ['Order'], eventDataFilter: { toStateData: '${ .order }' }, actions: [{ name: 'price', functionRef: { refName: 'quote', arguments: { sku: '${ .order.sku }' } } }] },
          { eventRefs: ['Refund'], eventDataFilter: { data: '${ .amount }', toStateData: '${ .refund }' }, actions: [{ name: 'stock', functionRef: { refName: 'stock', arguments: { back: '${ .refund }' } } }] },
        ],
        end: true,
      },
    ],
  });
  const run = new FakeRun(def);
  run.effects.activities['pricing.stock'] = () => ({ restocked: true });
  run.deliver(1000, cloudEvent('com.x.refund', { amount: 12 }, { source: 'shop' }));
  run.deliver(2000, cloudEvent('com.x.order', { sku: 'late' }, { source: 'shop' }));
  const out = await run.exec('Wait', { customer: 'c1' });
  assert.deepEqual(out.data, { customer: 'c1', refund: 12, restocked: true });
  assert.deepEqual(run.effects.issued(), [
    { kind: 'condition' }, // no eventTimeout: a bare wait
    { kind: 'activity', type: 'pricing.stock', args: [{ back: 12 }], options: callOptions('Wait › stock → stock') },
  ]);
  assert.equal(run.effects.commands[1].at, 1000);
});

test('event, not exclusive: every onEvents waits for all its events; eventTimeout is one deadline for the whole state', async () => {
  const def = await definition({
    functions,
    events: [
      { name: 'A', type: 'com.x.a', source: 's', kind: 'consumed' },
      { name: 'B', type: 'com.x.b', source: 's', kind: 'consumed' },
    ],
    states: [
      {
        name: 'Both',
        type: 'event',
        exclusive: false,
        onEvents: [{ eventRefs: ['A', 'B'], actions: [{ name: 'q', functionRef: { refName: 'quote', arguments: { a: '${ .a }', b: '${ .b }' } } }] }],
        timeouts: { eventTimeout: 'PT10S' },
        end: true,
      },
    ],
  });
  const run = new FakeRun(def, { events: [cloudEvent('com.x.a', { a: 1 }, { source: 's' })] });
  run.effects.activities['pricing.quote'] = (args) => ({ sum: (args[0] as { a: number; b: number }).a + (args[0] as { a: number; b: number }).b });
  run.deliver(4000, cloudEvent('com.x.b', { b: 2 }, { source: 's' }));
  let awaited: string[] = [];
  run.effects.later(2000, () => (awaited = [...run.mailbox.awaited]));
  const out = await run.exec('Both', {});
  assert.deepEqual(awaited, ['B']); // A was kept: only B is awaited
  assert.deepEqual(out.data, { a: 1, b: 2, sum: 3 });
  assert.deepEqual(run.effects.issued('wait', 'condition'), [{ kind: 'wait', ms: 10_000, summary: 'Both → wait for B' }]);
  assert.equal(run.effects.commands[1].at, 4000);

  // B never comes: the rest of the deadline passes, then a timeout error.
  const late = new FakeRun(def);
  late.deliver(3000, cloudEvent('com.x.a', { a: 1 }, { source: 's' }));
  await assert.rejects(late.exec('Both', {}), (e: unknown) => e instanceof SwTimeoutError && e.message === 'state "Both" received no B event within PT10S (eventTimeout)');
  assert.deepEqual(late.effects.issued(), [
    { kind: 'wait', ms: 10_000, summary: 'Both → wait for A | B' },
    { kind: 'wait', ms: 7000, summary: 'Both → wait for B' },
  ]);
  assert.equal(late.effects.elapsed, 10_000);
});

test('event: correlation keys are fixed by the first consumed event; an event of another instance is not taken', async () => {
  const def = await definition({
    events: [{ name: 'Reading', type: 'com.x.reading', source: 'sensor', kind: 'consumed', correlation: [{ contextAttributeName: 'room' }] }],
    states: [{ name: 'Read', type: 'event', onEvents: [{ eventRefs: ['Reading'] }], end: true }],
  });
  const run = new FakeRun(def, { events: [cloudEvent('com.x.reading', { t: 20 }, { source: 'sensor', room: 'r1' })] });
  assert.deepEqual((await run.exec('Read', {})).data, { t: 20 });
  assert.deepEqual(run.mailbox.correlation, { room: 'r1' });
  run.mailbox.push(cloudEvent('com.x.reading', { t: 99 }, { source: 'sensor', room: 'r2' }));
  run.deliver(500, cloudEvent('com.x.reading', { t: 21 }, { source: 'sensor', room: 'r1' }));
  assert.deepEqual((await run.exec('Read', { t: 20 })).data, { t: 21 });
  assert.equal(run.mailbox.events.length, 1);
});

test('callback: the action runs, then the callback event is awaited (eventDataFilter); none within eventTimeout is a timeout error', async () => {
  const def = await definition({
    functions,
    events: [{ name: 'Done', type: 'com.x.done', source: 'svc', kind: 'consumed' }],
    states: [
      {
        name: 'Cb',
        type: 'callback',
        action: { name: 'start', functionRef: { refName: 'quote', arguments: { job: '${ .job }' } }, actionDataFilter: { results: '${ .ticket }', toStateData: '${ .ticket }' } },
        eventRef: 'Done',
        eventDataFilter: { data: '${ .result }', toStateData: '${ .outcome }' },
        timeouts: { eventTimeout: 'PT5M' },
        end: true,
      },
    ],
  });
  const run = new FakeRun(def);
  run.effects.activities['pricing.quote'] = () => run.effects.after(200, { ticket: 'T-1' });
  run.deliver(60_000, cloudEvent('com.x.done', { result: { ok: true }, noise: 1 }, { source: 'svc' }));
  const out = await run.exec('Cb', { job: 'j' });
  assert.deepEqual(out.data, { job: 'j', ticket: 'T-1', outcome: { ok: true } });
  assert.deepEqual(run.effects.issued(), [
    { kind: 'activity', type: 'pricing.quote', args: [{ job: 'j' }], options: callOptions('Cb › start → quote') },
    { kind: 'wait', ms: 300_000, summary: 'Cb → wait for Done' },
  ]);
  assert.equal(run.effects.commands[1].at, 200);

  const late = new FakeRun(def);
  late.effects.activities['pricing.quote'] = () => ({ ticket: 'T-2' });
  await assert.rejects(late.exec('Cb', { job: 'k' }), (e: unknown) => e instanceof SwTimeoutError && e.message === 'state "Cb" received no Done event within PT5M (eventTimeout)');
  assert.equal(classify(await late.exec('Cb', {}).catch((e) => e)).code, 'timeout');
});

const branchDef = (completion: Record<string, unknown>, branchTimeout?: string) =>
  definition({
    functions,
    errors: [{ name: 'Boom', code: '500' }],
    states: [
      {
        name: 'Par',
        type: 'parallel',
        ...completion,
        branches: [
          { name: 'fast', actions: [{ name: 'q', functionRef: { refName: 'quote', arguments: { b: 'fast' } }, actionDataFilter: { results: '${ {log: [.]} }' } }] },
          { name: 'slow', actions: [{ name: 's', functionRef: { refName: 'stock', arguments: { b: 'slow' } }, actionDataFilter: { results: '${ {log: [.]} }' } }], ...(branchTimeout ? { timeouts: { branchExecTimeout: branchTimeout } } : {}) },
        ],
        end: true,
      },
    ],
  });

/** A run of `def` where fast answers after 1 s (`fastMs`), slow after 10 s (or fails after 3 s, when `slowFails`). */
const answeringBranches = (def: WorkflowDef, slowFails = false, fastMs = 1000) => {
  const run = new FakeRun(def);
  run.effects.activities['*'] = (args) =>
    (args[0] as { b: string }).b === 'fast' ? run.effects.after(fastMs, 'F') : slowFails ? run.effects.after(3000, serviceError('500', 'slow broke')) : run.effects.after(10_000, 'S');
  return run;
};

test('parallel, allOf: every branch runs on the state data, their data merged in branch order', async () => {
  const run = answeringBranches(await branchDef({ completionType: 'allOf' }));
  const out = await run.exec('Par', { base: true, log: ['start'] });
  assert.deepEqual(out.data, { base: true, log: ['start', 'F', 'S'] });
  // Both branches' calls at once, then the state waits for its branches (a bare condition).
  assert.deepEqual(
    run.effects.commands.map((c) => (c.kind === 'activity' ? [c.kind, c.args, c.options.summary, c.at] : [c.kind, c.at])),
    [
      ['activity', [{ b: 'fast' }], 'Par › fast › q → quote', 0],
      ['activity', [{ b: 'slow' }], 'Par › slow › s → stock', 0],
      ['condition', 0],
    ],
  );
  assert.equal(run.effects.elapsed, 10_000);
  // Branch order, not the order they end in.
  const reversed = answeringBranches(await branchDef({ completionType: 'allOf' }), false, 20_000);
  assert.deepEqual((await reversed.exec('Par', { log: [] })).data, { log: ['F', 'S'] });
  assert.equal(reversed.effects.elapsed, 20_000);
});

test('parallel, atLeast: numCompleted branches suffice, the others are cancelled and their data dropped', async () => {
  const run = answeringBranches(await branchDef({ completionType: 'atLeast', numCompleted: 1 }));
  const out = await run.exec('Par', { base: true });
  assert.deepEqual(out.data, { base: true, log: ['F'] });
  assert.equal(run.effects.elapsed, 1000);
  assert.equal(run.effects.outstanding, 0); // the slow branch's call was cancelled
});

test('parallel: a failing branch fails the state (the error of its action), whatever the completion type', async () => {
  for (const completion of [{ completionType: 'allOf' }, { completionType: 'atLeast', numCompleted: 2 }]) {
    const run = answeringBranches(await branchDef(completion), true, 20_000);
    const err = await run.exec('Par', {}).catch((e: unknown) => e);
    assert.ok(err instanceof ActionError, String(err));
    assert.equal(err.message, 'state "Par", action "slow › s", function "stock" failed: slow broke (code 500)');
    assert.equal(run.effects.elapsed, 3000);
    assert.equal(run.effects.outstanding, 0); // the fast branch, still running, was cancelled
  }
});

test('parallel: branchExecTimeout cancels the branch and fails the state with a timeout', async () => {
  const run = answeringBranches(await branchDef({ completionType: 'allOf' }, 'PT5S'));
  const err = await run.exec('Par', {}).catch((e: unknown) => e);
  assert.ok(err instanceof SwTimeoutError);
  assert.equal(err.message, 'branch "slow" of state "Par" did not finish within PT5S (branchExecTimeout)');
  assert.deepEqual(run.effects.issued('timer'), [{ kind: 'timer', ms: 5000, summary: 'Par › slow → branchExecTimeout PT5S' }]);
  assert.equal(run.effects.elapsed, 5000);
  assert.equal(run.effects.outstanding, 0);
});

const foreachDef = (extra: Record<string, unknown>) =>
  definition({
    functions,
    states: [
      {
        name: 'Each',
        type: 'foreach',
        inputCollection: '${ .orders }',
        outputCollection: '${ .priced }',
        iterationParam: 'order',
        actions: [{ name: 'q', functionRef: { refName: 'quote', arguments: { sku: '${ $order.sku }', n: '${ .order.n }', cur: '${ .currency }' } }, actionDataFilter: { results: '${ {sku: .sku, total: .total} }' } }],
        ...extra,
        end: true,
      },
    ],
  });

/** Each order takes n seconds; the total is n × 10. */
const answeringOrders = (run: FakeRun) => (args: unknown[]) => {
  const a = args[0] as { sku: string; n: number; cur: string };
  return run.effects.after(a.n * 1000, { sku: a.sku, total: a.n * 10, cur: a.cur });
};

const orders = [
  { sku: 'a', n: 3 },
  { sku: 'b', n: 1 },
  { sku: 'c', n: 1 },
];

test('foreach, batchSize: at most batchSize iterations at once, results in input order in outputCollection', async () => {
  const run = new FakeRun(await foreachDef({ batchSize: 2 }));
  run.effects.activities['*'] = answeringOrders(run);
  const out = await run.exec('Each', { orders, currency: 'EUR', priced: [{ sku: 'old', total: 0 }] });
  assert.deepEqual(out.data, {
    orders,
    currency: 'EUR',
    priced: [
      { sku: 'old', total: 0 },
      { sku: 'a', total: 30 },
      { sku: 'b', total: 10 },
      { sku: 'c', total: 10 },
    ],
  });
  assert.deepEqual(
    run.effects.commands.map((c) => [argsOf(c), (c as Call).options.summary, c.at]),
    [
      [{ sku: 'a', n: 3, cur: 'EUR' }, 'Each › [0] › q → quote', 0],
      [{ sku: 'b', n: 1, cur: 'EUR' }, 'Each › [1] › q → quote', 0],
      [{ sku: 'c', n: 1, cur: 'EUR' }, 'Each › [2] › q → quote', 1000], // when b's slot freed
    ],
  );
  assert.equal(run.effects.elapsed, 3000);
});

test('foreach, sequential, awaited expressions (runs before sync-expressions): one iteration after the other; no outputCollection leaves the data', async () => {
  const features = INTERPRETER_FEATURES.filter((f) => f !== 'sync-expressions');
  const run = new FakeRun(await foreachDef({ mode: 'sequential', outputCollection: undefined }), { features });
  run.effects.activities['*'] = answeringOrders(run);
  assert.equal(run.sync, false);
  const out = await run.exec('Each', { orders, currency: 'USD' });
  assert.deepEqual(out.data, { orders, currency: 'USD' });
  assert.deepEqual(run.effects.commands.map((c) => c.at), [0, 3000, 4000]);
});

test('foreach: an inputCollection that is not an array is an inputCollection error; a failed iteration fails the state and starts no other', async () => {
  const run = new FakeRun(await foreachDef({}));
  run.effects.activities['*'] = answeringOrders(run);
  const err = await run.exec('Each', { orders: { not: 'a list' } }).catch((e: unknown) => e);
  assert.ok(err instanceof ActionError);
  assert.deepEqual(err.error, { kind: 'runtime', code: 'inputCollection', message: 'inputCollection "${ .orders }" selected object, not an array' });
  assert.deepEqual(run.effects.commands, []);

  const failing = new FakeRun(await foreachDef({ batchSize: 2 }));
  failing.effects.activities['*'] = (args) => {
    if ((args[0] as { sku: string }).sku === 'b') throw serviceError('409', 'sold out');
    return answeringOrders(failing)(args);
  };
  const e2 = await failing.exec('Each', { orders }).catch((e: unknown) => e);
  assert.ok(e2 instanceof ActionError);
  assert.equal(e2.message, 'state "Each", action "[1] › q", function "quote" failed: sold out (code 409)');
  // b fails at once: a (still running) is cancelled, c never starts.
  assert.deepEqual(failing.effects.commands.map((c) => (argsOf(c) as { sku: string }).sku), ['a', 'b']);
  assert.equal(failing.effects.outstanding, 0);
  assert.equal(failing.effects.elapsed, 0);
});

test('foreach over more elements than a chunk: child workflows of the same type, each with its slice and the data without the collection', async () => {
  const def = await foreachDef({ batchSize: 2 });
  def.metadata['swflow.foreachChunk'] = '2';
  const run = new FakeRun(def);
  run.effects.children['*'] = (options) => {
    const items = (options.args![1] as { carried: { foreachChunk: { items: { sku: string }[] } } }).carried.foreachChunk.items;
    return run.effects.after(100, items.map((o) => ({ sku: o.sku, total: 0 })));
  };
  const out = await run.exec('Each', { orders, currency: 'EUR' });
  assert.deepEqual((out.data as { priced: Json }).priced, [
    { sku: 'a', total: 0 },
    { sku: 'b', total: 0 },
    { sku: 'c', total: 0 },
  ]);
  assert.deepEqual(run.effects.issued(), [0, 1].map((c) => ({
    kind: 'executeChild',
    type: 'unit',
    options: {
      args: [{ currency: 'EUR' }, { definition: def, carried: { foreachChunk: { state: 'Each', offset: c * 2, count: c ? 1 : 2, items: c ? [orders[2]] : orders.slice(0, 2) } } }],
      workflowId: `unit-foreach-00000000-0000-4000-8000-00000000000${c + 1}`,
      taskQueue: 'swflow',
      staticSummary: c ? 'Each → iterations 2–2 of 3' : 'Each → iterations 0–1 of 3',
    },
  })));
  // batchSize 2 over chunks of 2: one chunk child at a time.
  assert.deepEqual(run.effects.commands.map((c) => c.at), [0, 100]);
});

test('the fake cancels as Temporal does: a cancelled scope rejects its pending work, a non-cancellable one is shielded', async () => {
  const run = new FakeRun(await definition({ states: [{ name: 'X', type: 'inject', data: {}, end: true }] }));
  const fx = run.effects;
  const outcome = await fx.drive(async () => {
    const outer = fx.scope();
    let shielded: Json = null;
    const p = outer.run(async () => {
      const inner = fx.nonCancellable(() => fx.sleep(100).then(() => (shielded = 'done')));
      await fx.sleep(1000);
      return inner;
    });
    await fx.sleep(10);
    outer.cancel();
    const err = await p.catch((e: unknown) => e);
    await fx.sleep(200);
    return { cancelled: err instanceof CancelledFailure, shielded };
  });
  assert.deepEqual(outcome, { cancelled: true, shielded: 'done' });
});
