/**
 * The event gateway: real CloudEvents over HTTP (structured, binary, batch) to the real
 * interpreter on the dev server; start events create instances, correlated events reach them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { loadDefinition } from '../../src/dsl';
import type { WorkflowDef } from '../../src/dsl/model';
import { startGateway, type Gateway } from '../../src/gateway/server';
import { httpSink } from '../../src/gateway/sink';
import { route } from '../../src/gateway/routing';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';

async function def(doc: Record<string, unknown>): Promise<WorkflowDef> {
  const loaded = await loadDefinition({ specVersion: '0.8', ...doc });
  assert.ok(loaded.definition, JSON.stringify(loaded.problems));
  return loaded.definition;
}

let defs: WorkflowDef[];
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let gateway: Gateway;
let client: Client;
let receiver: Server;
let receiverUrl: string;
let receiverStatus = 200;
const received: { contentType?: string; event: any }[] = [];

before(async () => {
  defs = [
    await def({
      id: 'greeter',
      start: 'Greet',
      events: [
        { name: 'GreetRequest', type: 'greet.request', source: 'web' },
        { name: 'Greeted', type: 'greet.done', kind: 'produced' },
      ],
      states: [
        {
          name: 'Greet',
          type: 'event',
          onEvents: [{ eventRefs: ['GreetRequest'], eventDataFilter: { toStateData: '${ .request }' } }],
          end: { produceEvents: [{ eventRef: 'Greeted', data: '${ .request }' }] },
        },
      ],
    }),
    await def({
      id: 'orders',
      start: 'Created',
      events: [
        { name: 'OrderCreated', type: 'order', source: '/orders/new', correlation: [{ contextAttributeName: 'orderid' }] },
        { name: 'OrderShipped', type: 'order', source: '/orders/shipped', correlation: [{ contextAttributeName: 'orderid' }] },
      ],
      states: [
        { name: 'Created', type: 'event', onEvents: [{ eventRefs: ['OrderCreated'] }], transition: 'Shipped' },
        { name: 'Shipped', type: 'event', onEvents: [{ eventRefs: ['OrderShipped'] }], end: true },
      ],
    }),
    await def({
      id: 'approval',
      start: 'Wait',
      events: [{ name: 'Decision', type: 'approval.decision', source: 'boss' }],
      states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Decision'], eventDataFilter: { toStateData: '${ .decision }' } }], end: true }],
    }),
  ];
  env = await startDevEnv();
  client = env.client as Client;
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ contentType: req.headers['content-type'], event: JSON.parse(body) });
      res.writeHead(receiverStatus).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  worker = await createInterpreterWorker({
    connection: env.nativeConnection as NativeConnection,
    taskQueue: INTERPRETER_TASK_QUEUE,
    definitions: defs,
    workflowBundle: await bundleInterpreter(),
    eventSinks: [httpSink(receiverUrl)],
  });
  running = worker.run();
  gateway = await startGateway({ client, definitions: async () => defs, port: 0 });
});

after(async () => {
  await gateway?.close();
  worker?.shutdown();
  await running;
  await env?.teardown();
  await new Promise((r) => receiver?.close(r));
});

const structured = (event: Record<string, unknown>) =>
  fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify({ specversion: '1.0', ...event }) });

test('routing: correlation names the instance; start events start it, others only reach it', () => {
  const created = route(defs, { specversion: '1.0', id: '1', type: 'order', source: '/orders/new', orderid: 'O/1' });
  assert.deepEqual(created, [{ workflowType: 'orders', workflowId: 'orders/orderid=O%2F1', start: true, keyedBy: 'correlation', events: ['OrderCreated'] }]);
  const shipped = route(defs, { specversion: '1.0', id: '2', type: 'order', source: '/orders/shipped', orderid: 'O/1' });
  assert.deepEqual(shipped.map((d) => [d.workflowId, d.start]), [['orders/orderid=O%2F1', false]]);
  assert.deepEqual(route(defs, { specversion: '1.0', id: '3', type: 'order', source: '/orders/new' }), [], 'no correlation attribute: not this definition');
  assert.deepEqual(route(defs, { specversion: '1.0', id: 'e-9', type: 'greet.request', source: 'web' }).map((d) => d.workflowId), ['greeter/web/e-9']);
});

test('a structured CloudEvent starts the instance its start state consumes; the same event again starts nothing', async () => {
  const res = await structured({ id: 'g-1', type: 'greet.request', source: 'web', data: { name: 'Ada' } });
  assert.equal(res.status, 202);
  const body: any = await res.json();
  assert.equal(body.delivered[0].workflowId, 'greeter/web/g-1');
  assert.equal(body.delivered[0].started, true);
  assert.deepEqual(await client.workflow.getHandle('greeter/web/g-1').result(), { request: { name: 'Ada' } });

  // Its produced event went out to the HTTP sink, in structured mode.
  const out = received.find((r) => r.event.type === 'greet.done');
  assert.ok(out, 'the produced event reached the sink');
  assert.match(out.contentType ?? '', /^application\/cloudevents\+json/);
  assert.deepEqual(out.event.data, { name: 'Ada' });

  const again = await structured({ id: 'g-1', type: 'greet.request', source: 'web', data: { name: 'Ada' } });
  assert.equal(again.status, 202);
  assert.equal(((await again.json()) as any).delivered[0].duplicate, true);
  let runs = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = 'greeter/web/g-1'` })) runs++;
  assert.equal(runs, 1);
});

test('a binary-mode CloudEvent (ce-* headers) works the same', async () => {
  const res = await fetch(gateway.url, {
    method: 'POST',
    headers: { 'ce-specversion': '1.0', 'ce-id': 'g-2', 'ce-type': 'greet.request', 'ce-source': 'web', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Grace' }),
  });
  assert.equal(res.status, 202, await res.clone().text());
  assert.deepEqual(await client.workflow.getHandle('greeter/web/g-2').result(), { request: { name: 'Grace' } });
});

test('correlated events: the start event creates the instance, a later event reaches it, an uncorrelated one is refused', async () => {
  const created = await structured({ id: 'c-1', type: 'order', source: '/orders/new', orderid: 'O-1', data: { item: 'book' } });
  assert.equal(created.status, 202);
  const lost = await structured({ id: 's-0', type: 'order', source: '/orders/shipped', orderid: 'O-404', data: { shipped: true } });
  assert.equal(lost.status, 404);
  assert.match((await lost.json() as any).error, /no running instance to deliver it to \(orders\/orderid=O-404\)/);
  const shipped = await structured({ id: 's-1', type: 'order', source: '/orders/shipped', orderid: 'O-1', data: { shipped: true } });
  assert.equal(shipped.status, 202);
  assert.deepEqual(((await shipped.json()) as any).delivered, [{ workflowId: 'orders/orderid=O-1', started: false }]);
  assert.deepEqual(await client.workflow.getHandle('orders/orderid=O-1').result(), { item: 'book', shipped: true });
});

test('swflowworkflowid delivers to an instance started by other means; a batch is answered per event', async () => {
  const handle = await client.workflow.start('approval', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `approval-${Date.now()}`, args: [{ request: 7 }] });
  const res = await fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents-batch+json' },
    body: JSON.stringify([
      { specversion: '1.0', id: 'd-1', type: 'approval.decision', source: 'boss', swflowworkflowid: handle.workflowId, data: { ok: true } },
      { specversion: '1.0', id: 'g-3', type: 'greet.request', source: 'web', data: { name: 'Linus' } },
    ]),
  });
  assert.equal(res.status, 202);
  const { results }: any = await res.json();
  assert.deepEqual(results.map((r: any) => r.status), [202, 202]);
  assert.deepEqual(await handle.result(), { request: 7, decision: { ok: true } });
});

test('bad input is refused with the reason: malformed event 400, unknown type 404, wrong method 405', async () => {
  const noType = await structured({ id: 'x-1', source: 'web' });
  assert.equal(noType.status, 400);
  assert.equal(((await noType.json()) as any).error, "not a valid CloudEvent: must have required property 'type'");
  const notJson = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: '{oops' });
  assert.equal(notJson.status, 400);
  const unknown = await structured({ id: 'x-2', type: 'nobody.cares', source: 'web' });
  assert.equal(unknown.status, 404);
  assert.match(((await unknown.json()) as any).error, /no workflow definition consumes events of type "nobody.cares" from source "web"/);
  assert.equal((await fetch(gateway.url)).status, 405);
  assert.equal((await fetch(`${gateway.url}/health`)).status, 200);
});

test('an event sink that refuses or is unreachable fails the producing activity (so Temporal retries it)', async () => {
  receiverStatus = 503;
  try {
    await assert.rejects(httpSink(receiverUrl)({ specversion: '1.0', id: 'p-1', type: 't', source: 's' }), /refused event t \(p-1\): HTTP 503/);
  } finally {
    receiverStatus = 200;
  }
  await assert.rejects(httpSink('http://127.0.0.1:9/')({ specversion: '1.0', id: 'p-2', type: 't', source: 's' }), /event sink http:\/\/127\.0\.0\.1:9\/ is unreachable/);
});
