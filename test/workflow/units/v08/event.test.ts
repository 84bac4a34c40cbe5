/**
 * The 0.8 event state (v08/states/event.ts): exclusive and not, eventTimeout, correlation.
 * Without a server: a definition through the real loader, the real state pipeline over the
 * fake effects of ../fake-context.ts (Temporal on a virtual clock), the real jq engine; data in,
 * and out the data, the commands (types, inputs, summaries, times) and the transition chosen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SwTimeoutError } from '../../../../src/workflow/v08/errors';
import { definition, FakeRun } from '../fake-context';
import { callOptions, functions, cloudEvent } from './support';

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
