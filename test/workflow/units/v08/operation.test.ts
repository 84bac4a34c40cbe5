/**
 * The 0.8 operation state (v08/states/operation.ts, actions in v08/actions.ts): sequential and
 * parallel actions, their filters, service errors and onErrors, calls made again after a platform
 * failure, retryRef strategies, subflows and eventRef actions.
 * Without a server: a definition through the real loader, the real state pipeline over the
 * fake effects of ../fake-context.ts (Temporal on a virtual clock), the real jq engine; data in,
 * and out the data, the commands (types, inputs, summaries, times) and the transition chosen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimeoutFailure } from '@temporalio/workflow';
import { ActionError, classify, findHandler } from '../../../../src/workflow/v08/errors';
import { PRODUCE_EVENT_ACTIVITY } from '../../../../src/workflow/events/produce';
import { definition, FakeRun } from '../fake-context';
import type { ActivityCommand } from '../fake-effects';
import { callOptions, functions, serviceError, activityFailure, cloudEvent } from './support';

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
    run.effects.commands.map((c) => [(c as ActivityCommand).type, c.at, (c as ActivityCommand).options.summary]),
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
    run.effects.commands.map((c) => (c as ActivityCommand).options.summary),
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
    run.effects.issued().map((c) => (c.kind === 'timer' ? [c.kind, c.ms, c.summary] : [c.kind, (c as ActivityCommand).type])),
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
  assert.equal((produce as ActivityCommand).type, PRODUCE_EVENT_ACTIVITY);
  assert.deepEqual((produce as ActivityCommand).args, [
    { specversion: '1.0', id: '00000000-0000-4000-8000-000000000002', source: 'swflow/test', type: 'com.x.ask', time: '2026-01-01T00:00:05.000Z', datacontenttype: 'application/json', data: { q: 'life' } },
  ]);
  assert.deepEqual((produce as ActivityCommand).options, { taskQueue: 'swflow', startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 }, summary: 'Ops › ask → produce Ask' });
  assert.deepEqual(wait, { kind: 'wait', ms: 60_000, summary: 'Ops › ask → wait for Answer' });
  assert.equal(run.effects.elapsed, 8000);
});
