/**
 * The 0.8 inject state (v08/states/inject.ts): its data merged into the state data.
 * Without a server: a definition through the real loader, the real state pipeline over the
 * fake effects of ../fake-context.ts (Temporal on a virtual clock), the real jq engine; data in,
 * and out the data, the commands (types, inputs, summaries, times) and the transition chosen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definition, FakeRun } from '../fake-context';

test('inject: its data merged into the state data (injected values win), no command', async () => {
  const def = await definition({ states: [{ name: 'Inject', type: 'inject', data: { a: 1, nested: { x: 'new' } }, end: true }] });
  const run = new FakeRun(def);
  const out = await run.exec('Inject', { a: 0, b: 2, nested: { x: 'old', y: 3 } });
  assert.deepEqual(out.data, { a: 1, b: 2, nested: { x: 'new', y: 3 } });
  assert.equal(out.next, undefined);
  assert.deepEqual(run.effects.commands, []);
});
