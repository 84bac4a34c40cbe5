/**
 * The 1.0 `set` task (v1/tasks/set.ts): an object with expressions or one expression, with
 * and without sync-expressions.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_SYNC_EXPRESSIONS } from '../../../../src/common/features';
import { DEFAULT_FEATURES, FakeTaskContext } from '../fake-task-context';

test('set: an object with expressions, or one expression; with and without sync-expressions', async () => {
  const doc = { do: [{ obj: { set: { name: '${ .first + " " + .last }', fixed: 1, nested: { n: '${ .n * 2 }' } } } }, { expr: { set: '${ {sum: (.n + $workflow.input.k)} }' } }] };
  for (const features of [DEFAULT_FEATURES, DEFAULT_FEATURES.filter((f) => f !== FEATURE_SYNC_EXPRESSIONS)]) {
    const ctx = await FakeTaskContext.of(doc, { features, workflowInput: { k: 10 } });
    assert.equal(ctx.sync, features.includes(FEATURE_SYNC_EXPRESSIONS));
    assert.deepEqual(await ctx.exec('obj', { first: 'Ada', last: 'L', n: 2 }), { output: { name: 'Ada L', fixed: 1, nested: { n: 4 } } });
    assert.deepEqual(await ctx.exec('expr', { n: 2 }), { output: { sum: 12 } });
  }
});
