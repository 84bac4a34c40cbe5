/** Events: event states (start, mid-flow, early arrival, exclusive or not, correlation), switch event conditions, callback, eventRef, produceEvents. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { startDevEnv } from '../helpers/temporal';
import { ce, def, harness, type Harness } from './helpers';

let h: Harness;
before(async () => {
  h = await harness(await startDevEnv());
});
after(async () => {
  await h?.close();
  await h?.env.teardown();
});

async function waitFor<T>(fn: () => T | undefined | Promise<T | undefined>, ms = 15000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error('timed out waiting');
    await delay(50);
  }
}

const greetDef = () =>
  def({
    id: 'GreetCustomersWorkflow',
    start: 'WaitForCustomerToArrive',
    events: [{ name: 'CustomerArrivesEvent', type: 'customer-arrival-type', source: 'customer-arrival-event-source' }],
    functions: [{ name: 'greetingFunction', operation: 'x#greeting' }],
    states: [
      {
        name: 'WaitForCustomerToArrive',
        type: 'event',
        onEvents: [
          {
            eventRefs: ['CustomerArrivesEvent'],
            eventDataFilter: { data: '${ .customer }', toStateData: '${ .customerInfo }' },
            actions: [
              {
                functionRef: { refName: 'greetingFunction', arguments: { greeting: '${ .hello.spanish } ', customerName: '${ .customerInfo.name } ' } },
                actionDataFilter: { fromStateData: '${ { hello, customerInfo } }', results: '${ .greetingMessageResult }', toStateData: '${ .finalCustomerGreeting }' },
              },
            ],
          },
        ],
        stateDataFilter: { input: '${ .greetings } ', output: '${ { finalCustomerGreeting } }' },
        end: true,
      },
    ],
  });

test('start event state: the spec data-filter walk-through', async () => {
  h.reset();
  h.mocks.greetingFunction = (a) => ({ execInfo: {}, greetingMessageResult: `${a.greeting} ${a.customerName}!` });
  const handle = await h.start(greetDef(), { greetings: { hello: { spanish: 'Hola' }, goodbye: {} } });
  // the state query shows what the instance waits for (by CloudEvent type and by name)
  await waitFor(async () => ((await handle.query('state')) as any).awaitedEvents.includes('customer-arrival-type'));
  // an event of another source is not consumed
  await handle.signal('swflow.event', ce('customer-arrival-type', { customer: { name: 'Nobody' } }, { source: 'elsewhere' }));
  await handle.signal('swflow.event', ce('customer-arrival-type', { customer: { name: 'John Michaels', age: 40 } }, { source: 'customer-arrival-event-source' }));
  assert.deepEqual(await handle.result(), { finalCustomerGreeting: 'Hola John Michaels!' });
  assert.deepEqual(h.calls[0].arguments, { greeting: 'Hola', customerName: 'John Michaels' });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-event-data-filters');
});

test('mid-flow event state: an event that arrives early is kept', async () => {
  h.reset();
  const d = def({
    id: 'early',
    start: 'Nap',
    events: [{ name: 'Go', type: 'go', source: 'test' }],
    states: [
      { name: 'Nap', type: 'sleep', duration: 'PT1S', transition: 'Wait' },
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'] }], end: true },
    ],
  });
  const out = await h.run(d, { a: 1 }, { events: [ce('go', { b: 2 })] });
  assert.deepEqual(out, { a: 1, b: 2 });
});

test('event state exclusive false waits for all events; onEvents actions run', async () => {
  h.reset();
  h.mocks.f = (a) => ({ got: a.x });
  const d = def({
    id: 'allof',
    start: 'Wait',
    events: [
      { name: 'A', type: 'a' },
      { name: 'B', type: 'b' },
    ],
    functions: [{ name: 'f', operation: 'x#f' }],
    states: [
      {
        name: 'Wait',
        type: 'event',
        exclusive: false,
        onEvents: [
          { eventRefs: ['A'], eventDataFilter: { toStateData: '${ .a }' } },
          { eventRefs: ['B'], eventDataFilter: { toStateData: '${ .b }' }, actions: [{ functionRef: { refName: 'f', arguments: { x: '${ .b.v }' } } }] },
        ],
        end: true,
      },
    ],
  });
  const handle = await h.start(d);
  await handle.signal('swflow.event', ce('b', { v: 2 }));
  await delay(300);
  assert.equal(((await handle.query('state')) as any).currentStates[0], 'Wait');
  await handle.signal('swflow.event', ce('a', { v: 1 }));
  assert.deepEqual(await handle.result(), { a: { v: 1 }, b: { v: 2 }, got: 2 });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-event-not-exclusive');
});

test('exclusive event state: first event wins and only its actions run', async () => {
  h.reset();
  const d = def({
    id: 'anyof',
    start: 'Wait',
    events: [
      { name: 'A', type: 'a' },
      { name: 'B', type: 'b' },
    ],
    states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['A'], eventDataFilter: { toStateData: '${ .a }' } }, { eventRefs: ['B'], eventDataFilter: { toStateData: '${ .b }' } }], end: true }],
  });
  assert.deepEqual(await h.run(d, {}, { events: [ce('b', 1)] }), { b: 1 });
});

test('correlation: the first event fixes the key; others must match', async () => {
  h.reset();
  const d = def({
    id: 'correlated',
    start: 'First',
    events: [
      { name: 'Vitals', type: 'vitals', correlation: [{ contextAttributeName: 'patientid' }] },
    ],
    states: [
      { name: 'First', type: 'event', onEvents: [{ eventRefs: ['Vitals'], eventDataFilter: { toStateData: '${ .first }' } }], transition: 'Second' },
      { name: 'Second', type: 'event', onEvents: [{ eventRefs: ['Vitals'], eventDataFilter: { toStateData: '${ .second }' } }], end: true },
    ],
  });
  const out = await h.run(d, {}, {
    events: [ce('vitals', 1, { patientid: 'P1' }), ce('vitals', 2, { patientid: 'P2' }), ce('vitals', 3), ce('vitals', 4, { patientid: 'P1' })],
  });
  assert.deepEqual(out, { first: 1, second: 4 });
});

test('switch event conditions: matching event, and eventTimeout → defaultCondition', async () => {
  h.reset();
  const d = def({
    id: 'evswitch',
    start: 'Decide',
    events: [
      { name: 'Yes', type: 'yes' },
      { name: 'No', type: 'no' },
    ],
    states: [
      {
        name: 'Decide',
        type: 'switch',
        timeouts: { eventTimeout: 'PT1S' },
        eventConditions: [
          { eventRef: 'Yes', transition: 'Approved', eventDataFilter: { toStateData: '${ .answer }' } },
          { eventRef: 'No', transition: 'Rejected' },
        ],
        defaultCondition: { transition: 'TimedOut' },
      },
      { name: 'Approved', type: 'inject', data: { r: 'approved' }, end: true },
      { name: 'Rejected', type: 'inject', data: { r: 'rejected' }, end: true },
      { name: 'TimedOut', type: 'inject', data: { r: 'timeout' }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d, {}, { events: [ce('yes', 'sure')] }), { answer: 'sure', r: 'approved' });
  assert.deepEqual(await h.run(d, {}, { events: [ce('no')] }), { r: 'rejected' });
  assert.deepEqual(await h.run(d, {}), { r: 'timeout' });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-switch-event-timeout');
});

test('callback state: action, then the callback event; timeout is an error handled by onErrors', async () => {
  h.reset();
  h.mocks.requestApproval = () => ({ requested: true });
  const d = def({
    id: 'cb',
    start: 'Ask',
    events: [{ name: 'Approval', type: 'approval' }],
    errors: [{ name: 'Timeout', code: 'timeout' }],
    functions: [{ name: 'requestApproval', operation: 'x#req' }],
    states: [
      {
        name: 'Ask',
        type: 'callback',
        action: { functionRef: 'requestApproval' },
        eventRef: 'Approval',
        eventDataFilter: { toStateData: '${ .approval }' },
        timeouts: { eventTimeout: 'PT2S' },
        onErrors: [{ errorRef: 'Timeout', transition: 'Late' }],
        end: true,
      },
      { name: 'Late', type: 'inject', data: { late: true }, end: true },
    ],
  });
  const handle = await h.start(d);
  await waitFor(() => h.calls.length > 0);
  await handle.signal('swflow.event', ce('approval', { ok: true }));
  assert.deepEqual(await handle.result(), { requested: true, approval: { ok: true } });
  assert.deepEqual(await h.run(d), { requested: true, late: true });
});

test('eventRef action: produce, then consume the result event; produceEvents on transition and end', async () => {
  h.reset();
  const d = def({
    id: 'evref',
    start: 'Bid',
    events: [
      { name: 'BidRequest', type: 'bid.request', kind: 'produced', source: 'auction' },
      { name: 'BidResult', type: 'bid.result' },
      { name: 'Done', type: 'auction.done', kind: 'produced' },
      { name: 'Step', type: 'auction.step', kind: 'produced' },
    ],
    states: [
      {
        name: 'Bid',
        type: 'operation',
        actions: [{ name: 'ask', eventRef: { produceEventRef: 'BidRequest', consumeEventRef: 'BidResult', data: '${ { amount: .amount } }', contextAttributes: { auctionid: '${ .id }' } }, actionDataFilter: { toStateData: '${ .result }' } }],
        transition: { nextState: 'Finish', produceEvents: [{ eventRef: 'Step', data: { step: 1 } }] },
      },
      { name: 'Finish', type: 'inject', data: { finished: true }, end: { produceEvents: [{ eventRef: 'Done', data: '${ .result }' }] } },
    ],
  });
  const handle = await h.start(d, { amount: 5, id: 'A1' });
  const req = await waitFor(() => h.produced.find((e) => e.type === 'bid.request'));
  assert.deepEqual(req.data, { amount: 5 });
  assert.equal(req.source, 'auction');
  assert.equal(req.auctionid, 'A1');
  await handle.signal('swflow.event', ce('bid.result', { won: true }));
  assert.deepEqual(await handle.result(), { amount: 5, id: 'A1', result: { won: true }, finished: true });
  assert.deepEqual(h.produced.map((e) => e.type), ['bid.request', 'auction.step', 'auction.done']);
  assert.deepEqual(h.produced[1].data, { step: 1 });
  assert.deepEqual(h.produced[2].data, { won: true });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-eventref-produce-consume');
});

test('keepActive: an event start state runs again for each new event it accepts; workflowExecTimeout runs runBefore and completes', async () => {
  h.reset();
  h.mocks.log = (a) => ({ logged: a.value });
  h.mocks.report = (a) => ({ report: a.values });
  // The spec's accumulate-room-readings example, with a collecting stateDataFilter.
  const d = def({
    id: 'roomreadings-live',
    keepActive: true,
    start: 'ConsumeReading',
    timeouts: { workflowExecTimeout: { duration: 'PT6S', runBefore: 'GenerateReport' } },
    events: [{ name: 'Reading', type: 'reading', correlation: [{ contextAttributeName: 'roomid' }] }],
    functions: [
      { name: 'log', operation: 'x#log' },
      { name: 'report', operation: 'x#report' },
    ],
    states: [
      {
        name: 'ConsumeReading',
        type: 'event',
        onEvents: [
          {
            eventRefs: ['Reading'],
            eventDataFilter: { toStateData: '${ .last }' },
            actions: [{ functionRef: { refName: 'log', arguments: { value: '${ .last }' } }, actionDataFilter: { useResults: false } }],
          },
        ],
        stateDataFilter: { output: '${ .readings += [.last] }' },
        end: true,
      },
      { name: 'GenerateReport', type: 'operation', actions: [{ functionRef: { refName: 'report', arguments: { values: '${ .readings }' } } }], end: { terminate: true } },
    ],
  });
  const handle = await h.start(d, {});
  await handle.signal('swflow.event', ce('reading', 20, { roomid: 'r1' }));
  await waitFor(() => h.calls.length === 1);
  // The flow has ended; the instance is idle and still takes readings of its room.
  await waitFor(async () => ((await handle.query('state')) as any).awaitedEvents.includes('reading'));
  await handle.signal('swflow.event', ce('reading', 99, { roomid: 'other-room' }));
  await handle.signal('swflow.event', ce('reading', 22, { roomid: 'r1' }));
  await waitFor(() => h.calls.length === 2);
  await handle.signal('swflow.event', ce('reading', 23, { roomid: 'r1' }));
  const out = await handle.result();
  assert.deepEqual(h.calls.map((c) => [c.function, c.arguments]), [
    ['log', { value: 20 }],
    ['log', { value: 22 }],
    ['log', { value: 23 }],
    ['report', { values: [20, 22, 23] }],
  ]);
  assert.deepEqual(out, { last: 23, readings: [20, 22, 23], report: [20, 22, 23] });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-keepactive-events');
});

test('a redelivered event (same source and id) is not consumed twice', async () => {
  h.reset();
  const d = def({
    id: 'ticks',
    start: 'First',
    events: [{ name: 'Tick', type: 'tick' }],
    states: [
      { name: 'First', type: 'event', onEvents: [{ eventRefs: ['Tick'], eventDataFilter: { toStateData: '${ .first }' } }], transition: 'Second' },
      { name: 'Second', type: 'event', onEvents: [{ eventRefs: ['Tick'], eventDataFilter: { toStateData: '${ .second }' } }], end: true },
    ],
  });
  const out = await h.run(d, {}, { events: [ce('tick', 1, { id: 't-1' }), ce('tick', 1, { id: 't-1' }), ce('tick', 2, { id: 't-2' })] });
  assert.deepEqual(out, { first: 1, second: 2 });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-event-dedupe');
});

test('spec default: workflowExecTimeout.interrupt — false: the call in flight finishes, then runBefore runs; a wait for an event ends at the timeout', async () => {
  h.reset();
  h.mocks.slow = async () => {
    await new Promise((r) => setTimeout(r, 1500));
    return { slow: 'done' };
  };
  h.mocks.report = (a) => ({ reported: a });
  const d = def({
    id: 'interrupt-default',
    start: 'Slow',
    timeouts: { workflowExecTimeout: { duration: 'PT1S', runBefore: 'Report' } },
    events: [{ name: 'Never', type: 'never' }],
    functions: [{ name: 'slow', operation: 'x#slow' }, { name: 'report', operation: 'x#report' }],
    states: [
      { name: 'Slow', type: 'operation', actions: [{ functionRef: 'slow' }], transition: 'Wait' },
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Never'] }], end: true },
      { name: 'Report', type: 'operation', actions: [{ functionRef: { refName: 'report', arguments: { slow: '${ .slow }' } } }], end: true },
    ],
  });
  await assert.rejects(h.run(d), (e: any) => /workflowExecTimeout/.test(e.cause?.message ?? ''));
  assert.deepEqual(h.calls.map((c) => [c.function, c.arguments]), [['slow', {}], ['report', { slow: 'done' }]], 'the call finished (its result reached runBefore)');
});

test('workflowExecTimeout with interrupt: false ends a wait for an event that starts after the timeout, within the current state', async () => {
  h.reset();
  h.mocks.slow = async () => {
    await new Promise((r) => setTimeout(r, 1500));
    return { slow: 'done' };
  };
  const d = def({
    id: 'interrupt-false-event-later',
    start: 'S',
    timeouts: { workflowExecTimeout: { duration: 'PT1S', interrupt: false } },
    events: [{ name: 'Never', type: 'never' }, { name: 'Go', type: 'go', kind: 'produced' }],
    functions: [{ name: 'slow', operation: 'x#slow' }],
    states: [{ name: 'S', type: 'operation', actions: [{ functionRef: 'slow' }, { eventRef: { triggerEventRef: 'Go', resultEventRef: 'Never' } }], end: true }],
  });
  await assert.rejects(h.run(d), (e: any) => /workflowExecTimeout/.test(e.cause?.message ?? ''));
});
