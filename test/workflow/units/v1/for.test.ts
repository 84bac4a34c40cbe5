/**
 * The 1.0 `for` task (v1/tasks/for.ts): the iteration variables, the data threaded through
 * the iterations, `while` and `exit`.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeTaskContext } from '../fake-task-context';

test('for: each/at bound, data threads through the iterations, while stops the loop', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      { sum: { for: { each: 'pet', in: '${ .pets }', at: 'i' }, while: '${ $i < 2 }', do: [{ add: { set: '${ {total: (.total + $pet.price)} }' } }] } },
      { trace: { for: { in: '${ .xs }' }, do: [{ note: { set: '${ {xs: .xs, seen: (.seen + [{item: $item, index: $index}])} }' } }] } },
      { firstBig: { for: { in: '${ .xs }' }, do: [{ check: { switch: [{ big: { when: '${ $item > 10 }', then: 'exit' } }] } }, { keep: { set: '${ {last: $item} }' } }] } },
    ],
  });
  assert.deepEqual(await ctx.exec('sum', { pets: [{ price: 1 }, { price: 2 }, { price: 4 }], total: 0 }), { output: { total: 3 } });
  assert.deepEqual(ctx.entered, ['/do/0/sum/do/0/add', '/do/0/sum/do/0/add']);
  assert.deepEqual(await ctx.exec('trace', { xs: ['a', 'b'], seen: [] }), {
    output: { xs: ['a', 'b'], seen: [{ item: 'a', index: 0 }, { item: 'b', index: 1 }] },
  });
  // `exit` inside the iteration stops the loop: the output is what the list had then.
  assert.deepEqual(await ctx.exec('firstBig', { xs: [1, 2, 30, 4] }), { output: { last: 2 } });
});
