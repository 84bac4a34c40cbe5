/**
 * The 0.8 switch state (v08/states/switch.ts): data conditions, event conditions and the
 * defaultCondition after eventTimeout.
 * Without a server: a definition through the real loader, the real state pipeline over the
 * fake effects of ../fake-context.ts (Temporal on a virtual clock), the real jq engine; data in,
 * and out the data, the commands (types, inputs, summaries, times) and the transition chosen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definition, FakeRun } from '../fake-context';
import { cloudEvent } from './support';

const ended = { end: { terminate: false, produceEvents: [], compensate: false } };

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
