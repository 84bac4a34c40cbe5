/**
 * The 1.0 `emit` task (v1/tasks/emit.ts): the CloudEvent built in the workflow and the
 * activity that produces it.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Json } from '../../../../src/common/model';
import { FakeTaskContext } from '../fake-task-context';
import { T0 } from '../fake-effects';

test('emit: the CloudEvent built in the workflow (id from uuid4, time from workflow time) and handed to swflow.produceEvent', async () => {
  const ctx = await FakeTaskContext.of({
    do: [{ notify: { emit: { event: { with: { source: 'https://petstore.example', type: 'com.petstore.order.placed.v1', data: { pet: '${ .petId }', by: '${ $workflow.input.user }' }, subject: 'order' } } } } }],
  }, { workflowInput: { user: 'ann' } });
  ctx.effects.activities['swflow.produceEvent'] = () => undefined;
  const ce = {
    specversion: '1.0',
    id: '00000000-0000-4000-8000-000000000001',
    source: 'https://petstore.example',
    type: 'com.petstore.order.placed.v1',
    time: new Date(T0).toISOString(),
    data: { pet: 7, by: 'ann' },
    subject: 'order',
    datacontenttype: 'application/json',
  };
  assert.deepEqual(await ctx.exec('notify', { petId: 7 }), { output: ce });
  const [c] = ctx.effects.of('activity');
  assert.equal(c.type, 'swflow.produceEvent');
  assert.deepEqual(c.args, [ce]);
  assert.deepEqual(c.options, { taskQueue: 'swflow-interpreter', startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 }, summary: '/do/0/notify → emit com.petstore.order.placed.v1' });

  const bare = await FakeTaskContext.of({ do: [{ ping: { emit: { event: { with: { type: 'com.x.ping', id: 'ev-1' } } } } }] });
  bare.effects.activities['swflow.produceEvent'] = () => undefined;
  const out = (await bare.exec('ping')).output as Record<string, Json>;
  assert.deepEqual(out, { specversion: '1.0', id: 'ev-1', source: 'swflow/test/units', type: 'com.x.ping', time: new Date(T0).toISOString() });
});
