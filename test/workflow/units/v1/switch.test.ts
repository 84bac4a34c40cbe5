/**
 * The 1.0 `switch` task (v1/tasks/switch.ts): the first case that holds, the default case.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeTaskContext } from '../fake-task-context';

test('switch: the first case that holds gives `then`; a case without `when` is the default; the output is the input', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      {
        size: {
          switch: [{ small: { when: '${ .n < 10 }', then: 'smallTask' } }, { other: { then: 'mediumTask' } }, { tiny: { when: '${ .n < 5 }', then: 'tinyTask' } }, { big: { when: '${ .n >= 100 }', then: 'end' } }],
        },
      },
      { strict: { switch: [{ only: { when: '${ .ok }', then: 'exit' } }] } },
      { smallTask: { set: { size: 'small' } } },
      { mediumTask: { set: { size: 'medium' } } },
      { tinyTask: { set: { size: 'tiny' } } },
    ],
  });
  assert.deepEqual(await ctx.exec('size', { n: 3 }), { output: { n: 3 }, then: 'smallTask' }); // small before tiny
  assert.deepEqual(await ctx.exec('size', { n: 500 }), { output: { n: 500 }, then: 'end' });
  assert.deepEqual(await ctx.exec('size', { n: 50 }), { output: { n: 50 }, then: 'mediumTask' });
  assert.deepEqual(await ctx.exec('strict', { ok: false }), { output: { ok: false } });
  assert.deepEqual(await ctx.exec('strict', { ok: true }), { output: { ok: true }, then: 'exit' });
});
