/**
 * The 1.0 `listen` task (v1/tasks/listen.ts): one/all/any, `until`, correlation, `foreach`
 * and `read`, over the real mailbox with events kept or arriving on the virtual clock.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_V1_LISTEN_UNTIL_ANY_EVENT } from '../../../../src/common/features';
import { DEFAULT_FEATURES, FakeTaskContext } from '../fake-task-context';
import { ev } from './support';

test('listen one: an event already in the mailbox is taken (the oldest match); others are kept', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ hear: { listen: { to: { one: { with: { type: 'com.x.created' } } } } } }] });
  ctx.mailbox.push(ev('com.x.other', 0));
  ctx.mailbox.push(ev('com.x.created', { n: 1 }));
  ctx.mailbox.push(ev('com.x.created', { n: 2 }));
  assert.deepEqual(await ctx.exec('hear'), { output: [{ n: 1 }] });
  assert.deepEqual(ctx.mailbox.events.map((e) => e.data), [0, { n: 2 }]);
  assert.equal(ctx.effects.commands.length, 0);
  assert.equal(ctx.effects.elapsed, 0);
});

test('listen all: one event per filter, in any order; a late event is waited for (its type shown as awaited)', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ both: { listen: { to: { all: [{ with: { type: 'com.x.paid' } }, { with: { type: 'com.x.shipped' } }] } } } }] });
  ctx.mailbox.push(ev('com.x.shipped', 's'));
  let awaited: string[] = [];
  ctx.effects.later(5000, () => {
    awaited = [...ctx.mailbox.awaited];
    ctx.mailbox.push(ev('com.x.paid', 'p'));
  });
  assert.deepEqual(await ctx.exec('both'), { output: ['s', 'p'] });
  assert.deepEqual(awaited, ['com.x.paid']);
  assert.deepEqual([...ctx.mailbox.awaited], []);
  assert.equal(ctx.effects.elapsed, 5000);
});

test('listen any until an expression: events consumed until it holds over the ones read', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ readings: { listen: { to: { any: [{ with: { type: 'com.x.reading' } }], until: '${ length >= 2 }' } } } }] });
  for (const [t, v] of [[1000, 1], [2000, 2], [3000, 3]]) ctx.effects.later(t, () => ctx.mailbox.push(ev('com.x.reading', { v })));
  // The third reading comes after the listen ended: the drive stops at 2 s.
  assert.deepEqual(await ctx.exec('readings'), { output: [{ v: 1 }, { v: 2 }] });
  assert.equal(ctx.effects.elapsed, 2000);
});

test('listen any until a strategy: its events end the listen and are not output; any: [] takes any event', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      { readings: { listen: { to: { any: [{ with: { type: 'com.x.reading' } }], until: { one: { with: { type: 'com.x.done' } } } } } } },
      { anything: { listen: { to: { any: [] } } } },
    ],
  });
  ctx.mailbox.push(ev('com.x.reading', 1));
  ctx.effects.later(1000, () => ctx.mailbox.push(ev('com.x.reading', 2)));
  ctx.effects.later(2000, () => ctx.mailbox.push(ev('com.x.done', 'done')));
  ctx.effects.later(3000, () => ctx.mailbox.push(ev('com.x.reading', 3)));
  assert.deepEqual(await ctx.exec('readings'), { output: [1, 2] });
  assert.equal(ctx.effects.elapsed, 2000);
  ctx.mailbox.push(ev('com.y.whatever', 'w'));
  assert.deepEqual(await ctx.exec('anything'), { output: ['w'] });
});

test('listen any until { any: [] }: the next event, whatever it is, ends the listen and is not output (v1-listen-until-any-event)', async () => {
  const fixed = { do: [{ readings: { listen: { to: { any: [{ with: { type: 'com.x.reading' } }], until: { any: [] } } } } }] };
  const ctx = await FakeTaskContext.of(fixed);
  ctx.effects.later(1000, () => ctx.mailbox.push(ev('com.x.reading', 1)));
  ctx.effects.later(2000, () => ctx.mailbox.push(ev('com.x.reading', 2)));
  assert.deepEqual(await ctx.exec('readings'), { output: [] });
  assert.equal(ctx.effects.elapsed, 1000);
  // Runs recorded before the feature kept consuming readings, never ending.
  const old = await FakeTaskContext.of(fixed, { features: DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_LISTEN_UNTIL_ANY_EVENT) });
  old.mailbox.push(ev('com.x.reading', 1));
  await assert.rejects(old.exec('readings'), /the work is stuck/);
});

test('listen correlate: `expect` over the task input; without expect, the first event fixes the value', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      { room: { listen: { to: { one: { with: { type: 'com.x.reading' }, correlate: { room: { from: '${ .data.room }', expect: '${ .room }' } } } } } } },
      {
        order: {
          listen: {
            to: {
              all: [
                { with: { type: 'com.x.paid' }, correlate: { order: { from: '${ .data.order }' } } },
                { with: { type: 'com.x.shipped' }, correlate: { order: { from: '${ .data.order }' } } },
              ],
            },
          },
        },
      },
    ],
  });
  ctx.mailbox.push(ev('com.x.reading', { room: 'r1' }));
  ctx.mailbox.push(ev('com.x.reading', { room: 'r2' }));
  assert.deepEqual(await ctx.exec('room', { room: 'r2' }), { output: [{ room: 'r2' }] });
  assert.deepEqual(ctx.mailbox.events.map((e) => e.data), [{ room: 'r1' }]);
  assert.deepEqual(ctx.correlation, {}); // expected values are not kept

  ctx.mailbox.events.length = 0;
  ctx.mailbox.push(ev('com.x.paid', { order: 1 }));
  ctx.mailbox.push(ev('com.x.shipped', { order: 2 }));
  ctx.effects.later(1000, () => ctx.mailbox.push(ev('com.x.shipped', { order: 1 })));
  assert.deepEqual(await ctx.exec('order'), { output: [{ order: 1 }, { order: 1 }] });
  assert.deepEqual(ctx.correlation, { order: 1 });
  assert.deepEqual(ctx.mailbox.events.map((e) => e.data), [{ order: 2 }]);
});

test('listen foreach: each event runs foreach.do, output.as and export.as as it comes', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      {
        twice: {
          listen: { to: { any: [{ with: { type: 'com.x.reading' } }], until: '${ length >= 2 }' } },
          foreach: {
            item: 'r',
            at: 'n',
            do: [{ double: { set: '${ {v: ($r.v * 2), n: $n} }' } }],
            output: { as: '${ .v + .n }' },
            export: { as: '${ {seen: (($context.seen // 0) + 1), last: .} }' },
          },
        },
      },
    ],
  });
  ctx.mailbox.push(ev('com.x.reading', { v: 5 }));
  ctx.effects.later(1000, () => ctx.mailbox.push(ev('com.x.reading', { v: 7 })));
  assert.deepEqual(await ctx.exec('twice'), { output: [10, 15] });
  assert.deepEqual(ctx.context, { seen: 2, last: 15 });
  assert.deepEqual(ctx.entered, ['/do/0/twice/foreach/do/0/double', '/do/0/twice/foreach/do/0/double']);
});

test('listen read: data (default), envelope, raw', async () => {
  const one = { one: { with: { type: 'com.x.e' } } };
  const ctx = await FakeTaskContext.of({
    do: [{ data: { listen: { to: one } } }, { envelope: { listen: { to: one, read: 'envelope' } } }, { raw: { listen: { to: one, read: 'raw' } } }],
  });
  const e = (n: number) => ev('com.x.e', { n }, { subject: `s${n}` });
  ctx.mailbox.push(e(1));
  ctx.mailbox.push(e(2));
  ctx.mailbox.push(e(3));
  assert.deepEqual(await ctx.exec('data'), { output: [{ n: 1 }] });
  assert.deepEqual(await ctx.exec('envelope'), { output: [e(2)] });
  assert.deepEqual(await ctx.exec('raw'), { output: [{ n: 3 }] });
});
