/**
 * 1.0 `call: asyncapi` with a subscription, its workflow side (v1/tasks/asyncapi-subscription.ts)
 * with a fake context: what the call sends (the subscription's expressions as written, the
 * variables they read, no foreach) and the foreach over the messages the activity returns; runs
 * without the v1-asyncapi-subscriptions feature evaluate the whole `with` as before.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FunctionCall } from '../../../src/common/contracts';
import { callContextOf } from '../../../src/workflow/interceptors';
import { FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS, INTERPRETER_FEATURES } from '../../../src/common/features';
import { FakeTaskContext } from './fake-task-context';

const callOf = (args: unknown[]): FunctionCall => {
  const context = callContextOf(args);
  return context ? ({ ...context, arguments: args[0] } as FunctionCall) : (args[0] as FunctionCall);
};

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

test('the subscription goes to the activity as written with the variables it reads; foreach runs over the messages returned', async () => {
  const ctx = await FakeTaskContext.of(doc);
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
