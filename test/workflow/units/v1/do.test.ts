/**
 * The 1.0 `do` task (v1/tasks/do.ts): subtasks in sequence and the flow directives `then`,
 * `exit` and `end`.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeTaskContext } from '../fake-task-context';

test('do: subtasks in sequence, `then` jumps, `exit` leaves the list, `end` ends the workflow', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      {
        steps: {
          do: [
            { a: { set: { n: '${ .n + 1 }' }, then: 'c' } },
            { b: { set: { n: 100 } } },
            { c: { set: { n: '${ .n * 10 }' }, then: 'exit' } },
            { d: { set: { n: -1 } } },
          ],
        },
      },
      { stop: { do: [{ x: { set: { stopped: true }, then: 'end' } }, { y: { set: { stopped: false } } }] } },
    ],
  });
  assert.deepEqual(await ctx.exec('steps', { n: 1 }), { output: { n: 20 } });
  assert.deepEqual(ctx.entered, ['/do/0/steps/do/0/a', '/do/0/steps/do/2/c']);
  assert.deepEqual(await ctx.exec('stop', {}), { output: { stopped: true }, then: 'end' });
  assert.deepEqual(ctx.entered.slice(2), ['/do/1/stop/do/0/x']);
  assert.equal(ctx.effects.commands.length, 0);
});
