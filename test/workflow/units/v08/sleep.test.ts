/**
 * The 0.8 sleep state (v08/states/sleep.ts): one durable timer.
 * Without a server: a definition through the real loader, the real state pipeline over the
 * fake effects of ../fake-context.ts (Temporal on a virtual clock), the real jq engine; data in,
 * and out the data, the commands (types, inputs, summaries, times) and the transition chosen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definition, FakeRun } from '../fake-context';

test('sleep: one durable timer of its duration with its summary; the data passes through', async () => {
  const def = await definition({ states: [{ name: 'Nap', type: 'sleep', duration: 'PT1M30S', transition: 'After' }, { name: 'After', type: 'inject', data: {}, end: true }] });
  const run = new FakeRun(def);
  const out = await run.exec('Nap', { keep: [1, 2] });
  assert.deepEqual(out.data, { keep: [1, 2] });
  assert.deepEqual(run.effects.issued(), [{ kind: 'timer', ms: 90_000, summary: 'Nap → sleep PT1M30S' }]);
  assert.equal(run.effects.elapsed, 90_000);
});
