/**
 * 1.0 `call: asyncapi` with a subscription, its workflow side (v1/tasks/asyncapi-subscription.ts)
 * with a fake context: what the call sends (the subscription's expressions as written, the
 * variables they read, no foreach) and the foreach over the messages the activity returns; runs
 * without the v1-asyncapi-subscriptions feature evaluate the whole `with` as before. With
 * v1-subscription-streaming, a subscription with a foreach governed by while/until is consumed in
 * steps: one call per step, foreach and the policy in the workflow between them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS, FEATURE_V1_SUBSCRIPTION_STREAMING, INTERPRETER_FEATURES } from '../../../../src/common/features';
import { FakeTaskContext } from '../fake-task-context';
import { callOf } from './support';

const doc = {
  do: [
    {
      read: {
        call: 'asyncapi',
        with: {
          document: { endpoint: 'https://chat.example/asyncapi.yaml' },
          operation: 'readInbox',
          server: { name: 'broker', variables: { port: '${ .port }' } },
          subscription: {
            filter: '${ .payload.room == $input.room and $context.open }',
            consume: { until: '${ length == $input.max }', for: 'PT5S' },
            foreach: { item: 'm', at: 'i', do: [{ tag: { set: { text: '${ $m.payload.text }', at: '${ $i }' } } }], output: { as: '${ .text }' }, export: { as: '${ $context + { last: . } }' } },
          },
        },
      },
    },
  ],
};
const messages = [{ payload: { room: 'a', text: 'one' } }, { payload: { room: 'a', text: 'two' } }];

/** Runs recorded before v1-subscription-streaming: one call consumes, then foreach. */
const BEFORE_STREAMING = INTERPRETER_FEATURES.filter((f) => f !== FEATURE_V1_SUBSCRIPTION_STREAMING);

test('(before streaming) the subscription goes to the activity as written with the variables it reads; foreach runs over the messages returned', async () => {
  const ctx = await FakeTaskContext.of(doc, { features: BEFORE_STREAMING });
  ctx.context = { open: true, secretish: 'not read' };
  ctx.effects.activities['sw.asyncapiCall'] = () => messages;
  assert.deepEqual(await ctx.exec('read', { room: 'a', max: 2, port: '1883', other: 'not read' }), { output: ['one', 'two'] });
  const fc = callOf(ctx.effects.of('activity')[0].args);
  assert.deepEqual(fc.arguments, {
    document: { endpoint: 'https://chat.example/asyncapi.yaml' },
    operation: 'readInbox',
    server: { name: 'broker', variables: { port: '1883' } },
    subscription: {
      filter: '${ .payload.room == $input.room and $context.open }',
      consume: { until: '${ length == $input.max }', for: 'PT5S' },
      scope: { variables: { input: { room: 'a', max: 2 }, context: { open: true } } },
    },
  });
  assert.equal(ctx.effects.of('activity')[0].options.summary, '/do/0/read → asyncapi readInbox (subscription)');
  assert.deepEqual(ctx.entered.filter((r) => r.includes('foreach')), ['/do/0/read/with/subscription/foreach/do/0/tag', '/do/0/read/with/subscription/foreach/do/0/tag']);
  assert.deepEqual(ctx.context, { open: true, secretish: 'not read', last: 'two' });
});

test('runs without v1-asyncapi-subscriptions evaluate the whole with (the adapter refuses it) and run no foreach', async () => {
  const read = { call: 'asyncapi', with: { document: { endpoint: 'https://chat.example/asyncapi.yaml' }, operation: 'readInbox', subscription: { filter: '${ .payload.room == $input.room }', consume: { amount: 2 } } } };
  const ctx = await FakeTaskContext.of({ do: [{ read }] }, { features: INTERPRETER_FEATURES.filter((f) => f !== FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS) });
  ctx.context = { open: true };
  ctx.effects.activities['sw.asyncapiCall'] = () => messages;
  assert.deepEqual(await ctx.exec('read', { room: 'a', max: 2, port: '1883', payload: { room: 'a' } }), { output: messages });
  const fc = callOf(ctx.effects.of('activity')[0].args);
  const sub = (fc.arguments as { subscription: Record<string, unknown> }).subscription;
  assert.equal(sub.filter, true);
  assert.equal(sub.scope, undefined);
  assert.equal(ctx.effects.of('activity')[0].options.summary, '/do/0/read → asyncapi readInbox');
});

type Sub = { filter?: string; scope: { variables: Record<string, unknown> }; step: Record<string, unknown>; consume?: unknown };
const subOf = (args: unknown[]) => (callOf(args).arguments as { subscription: Sub }).subscription;
const msg = (n: number) => ({ payload: { n, room: 'a' } });

/** A subscription with a foreach that counts in $context; `consume` as given. */
const counting = (consume: Record<string, unknown>, filter = '${ .payload.room == ($context.room // "a") and ($context.count // 0) < 9 }') => ({
  do: [
    {
      read: {
        call: 'asyncapi',
        with: {
          document: { endpoint: 'https://chat.example/asyncapi.yaml' },
          operation: 'readInbox',
          subscription: {
            filter,
            consume,
            foreach: { item: 'm', at: 'i', do: [{ seen: { set: { n: '${ $m.payload.n }', at: '${ $i }' } } }], output: { as: '${ .n }' }, export: { as: '${ $context + { count: (($context.count // 0) + 1) } }' } },
          },
        },
      },
    },
  ],
});

test('streaming: while over the $context foreach exports stops at the right message; each step is a call, the last one ends the session', async () => {
  const ctx = await FakeTaskContext.of(counting({ while: '${ $context.count < 3 }' }));
  ctx.context = { room: 'a' };
  const batches = [[msg(0), msg(1)], [msg(2), msg(3), msg(4)]];
  const contexts: unknown[] = [];
  ctx.effects.activities['sw.asyncapiCall'] = (args) => {
    const sub = subOf(args);
    contexts.push(sub.scope.variables.context);
    return sub.step.end ? [] : batches.shift();
  };
  // m3 and m4 came with m2 but the subscription ended at m2 (while no longer held): not consumed.
  assert.deepEqual(await ctx.exec('read', {}), { output: [0, 1, 2] });
  assert.deepEqual(ctx.context, { room: 'a', count: 3 });
  const subs = ctx.effects.of('activity').map((c) => subOf(c.args));
  assert.deepEqual(
    subs.map((s) => s.step),
    [
      { session: 'wf-1/do/0/read', first: true, max: 16, windowMs: 100 },
      { session: 'wf-1/do/0/read', max: 16, windowMs: 100 },
      { session: 'wf-1/do/0/read', end: true },
    ],
  );
  // The filter goes with the variables it reads as they are at each step; consume stays in the workflow.
  assert.equal(subs[0].filter, '${ .payload.room == ($context.room // "a") and ($context.count // 0) < 9 }');
  assert.equal(subs[0].consume, undefined);
  assert.deepEqual(contexts, [{ room: 'a' }, { room: 'a', count: 2 }, { room: 'a', count: 3 }]);
  assert.deepEqual(ctx.entered.filter((r) => r.includes('foreach')).length, 3);
});

test('streaming: a forever subscription (while: true) runs foreach per message as steps return them, until cancelled; until is evaluated before the first message', async () => {
  const ctx = await FakeTaskContext.of(counting({ while: '${ true }' }));
  let sent = 0;
  ctx.effects.activities['sw.asyncapiCall'] = (args) => (subOf(args).step.end ? [] : ctx.effects.after(1000, [msg(sent++)]));
  const scope = ctx.effects.scope();
  ctx.effects.later(5500, () => scope.cancel());
  await assert.rejects(scope.run(() => ctx.exec('read', {})), /cancelled/);
  // Five messages went through foreach, one per step, before the cancellation; the session was ended after it.
  assert.deepEqual(ctx.context, { count: 5 });
  const calls = ctx.effects.of('activity');
  assert.equal(calls.length, 7);
  assert.equal(calls[5].state, 'cancelled');
  assert.deepEqual(subOf(calls[6].args).step, { session: 'wf-1/do/0/read', end: true });
  assert.equal(calls[6].state, 'completed');

  const none = await FakeTaskContext.of(counting({ until: '${ $input.stop }' }));
  none.effects.activities['sw.asyncapiCall'] = () => [msg(0)];
  assert.deepEqual(await none.exec('read', { stop: true }), { output: [] });
  assert.equal(none.effects.of('activity').length, 0);
  const untilCount = await FakeTaskContext.of(counting({ until: '${ length == 2 }' }));
  untilCount.effects.activities['sw.asyncapiCall'] = (args) => (subOf(args).step.end ? [] : [msg(7)]);
  assert.deepEqual(await untilCount.exec('read', {}), { output: [7, 7] });
  assert.equal(untilCount.effects.of('activity').length, 3);
});

test('streaming: for is a deadline from the first step, each step waits what is left of it', async () => {
  const timed = await FakeTaskContext.of(counting({ for: 'PT10S', while: '${ true }' }));
  timed.effects.activities['sw.asyncapiCall'] = (args) => {
    const { step } = subOf(args);
    if (step.end) return [];
    // A message after 4 s, then nothing within what is left.
    return step.first ? timed.effects.after(4000, [msg(1)]) : timed.effects.after(step.waitMs as number, []);
  };
  assert.deepEqual(await timed.exec('read', {}), { output: [1] });
  assert.deepEqual(timed.effects.of('activity').map((c) => subOf(c.args).step.waitMs), [10_000, 6000, undefined]);
  assert.equal(timed.effects.elapsed, 10_000);
});

test('streaming: a foreach that fails fails the task, and the subscription\'s session is ended; runs before the feature make one call', async () => {
  const doc2 = counting({ while: '${ true }' });
  (doc2.do[0].read.with.subscription.foreach.do as unknown[]).push({ boom: { raise: { error: { type: 'https://example.com/boom', status: 500 } } } });
  const ctx = await FakeTaskContext.of(doc2);
  ctx.effects.activities['sw.asyncapiCall'] = (args) => (subOf(args).step.end ? [] : [msg(0)]);
  await assert.rejects(ctx.exec('read', {}), (e: unknown) => /boom/.test(JSON.stringify(e)) || /boom/.test(String(e)));
  assert.deepEqual(ctx.effects.of('activity').map((c) => subOf(c.args).step), [
    { session: 'wf-1/do/0/read', first: true, max: 16, windowMs: 100 },
    { session: 'wf-1/do/0/read', end: true },
  ]);

  const old = await FakeTaskContext.of(counting({ while: '${ $context.count < 2 }' }), { features: BEFORE_STREAMING });
  old.effects.activities['sw.asyncapiCall'] = () => [msg(0), msg(1), msg(2)];
  assert.deepEqual(await old.exec('read', {}), { output: [0, 1, 2] });
  const calls = old.effects.of('activity');
  assert.equal(calls.length, 1);
  assert.deepEqual((callOf(calls[0].args).arguments as { subscription: Sub }).subscription.consume, { while: '${ $context.count < 2 }' });
});
