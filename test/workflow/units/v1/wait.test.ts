/**
 * The 1.0 `wait` task (v1/tasks/wait.ts): a durable timer of the duration.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeTaskContext } from '../fake-task-context';

test('wait: a durable timer of the duration (inline, ISO 8601, or an expression); the output is the input', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ pause: { wait: { minutes: 1, seconds: 30 } } }, { iso: { wait: 'PT2S' } }, { dyn: { wait: '${ .delay }' } }] });
  assert.deepEqual(await ctx.exec('pause', { a: 1 }), { output: { a: 1 } });
  assert.deepEqual(await ctx.exec('iso', { b: 2 }), { output: { b: 2 } });
  assert.deepEqual(await ctx.exec('dyn', { delay: 'PT5S' }), { output: { delay: 'PT5S' } });
  assert.deepEqual(
    ctx.effects.commands.map((c) => c.kind === 'timer' && [c.ms, c.summary, c.state]),
    [
      [90_000, '/do/0/pause → wait PT90S', 'fired'],
      [2000, '/do/1/iso → wait PT2S', 'fired'],
      [5000, '/do/2/dyn → wait PT5S', 'fired'],
    ],
  );
  assert.equal(ctx.effects.elapsed, 97_000);
});
