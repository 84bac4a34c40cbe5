/**
 * The asyncapi adapter over AMQP 0-9-1 against a real RabbitMQ node (test/helpers/amqp-broker.ts),
 * driven by the real interpreter on the dev server: 1.0 `call: asyncapi` publishing to an
 * exchange with a routing key (the `amqp` channel binding), subscriptions reading a queue the
 * binding names or a queue of their own bound to the exchange, stepwise consumption over a durable
 * queue, the broker's refusal of a wrong password, and 0.8 `asyncapi` functions.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import amqp, { type ChannelModel, type ConfirmChannel } from 'amqplib';
import { stringify } from 'yaml';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { stepQueueName } from '../../adapters/asyncapi/transport';
import { startAmqpBroker, type AmqpBroker } from '../helpers/amqp-broker';
import { adapterHarness, failureText, type AdapterHarness } from './harness';

let broker: AmqpBroker;
let conn: ChannelModel;
let ch: ConfirmChannel;
let dir: string;
let h: AdapterHarness;

/** AsyncAPI 3.0: orders are routed by key on the topic exchange `shop`; tasks are a queue. */
const shop = (port: number) => ({
  asyncapi: '3.0.0',
  info: { title: 'Shop', version: '1.0.0' },
  servers: { rabbit: { host: `127.0.0.1:${port}`, protocol: 'amqp' } },
  channels: {
    orders: {
      address: 'orders.{region}.created',
      parameters: { region: {} },
      messages: { order: { contentType: 'application/json', payload: { type: 'object' } } },
      bindings: { amqp: { is: 'routingKey', exchange: { name: 'shop', type: 'topic', durable: true, autoDelete: false }, bindingVersion: '0.3.0' } },
    },
    tasks: {
      address: 'tasks',
      messages: { task: { contentType: 'application/json', payload: { type: 'object' } } },
      bindings: { amqp: { is: 'queue', queue: { name: 'swflow-tasks', durable: true, exclusive: false, autoDelete: false }, bindingVersion: '0.3.0' } },
    },
  },
  operations: {
    placeOrder: { action: 'send', channel: { $ref: '#/channels/orders' } },
    readOrders: { action: 'receive', channel: { $ref: '#/channels/orders' } },
    takeTasks: { action: 'receive', channel: { $ref: '#/channels/tasks' } },
  },
});

/** AsyncAPI 2.6 for 0.8 functions: an audit exchange (publish) and an inbox queue (subscribe). */
const audit = (port: number) => ({
  asyncapi: '2.6.0',
  info: { title: 'Audit', version: '1.0.0' },
  servers: { rabbit: { url: `amqp://127.0.0.1:${port}`, protocol: 'amqp' } },
  channels: {
    'audit.{kind}': {
      parameters: { kind: { schema: { type: 'string' } } },
      bindings: { amqp: { is: 'routingKey', exchange: { name: 'audit', type: 'direct', durable: true, autoDelete: false } } },
      publish: { operationId: 'recordAudit', message: { payload: { type: 'object' } } },
    },
    inbox: {
      bindings: { amqp: { is: 'queue', queue: { name: 'swflow-inbox', durable: true, exclusive: false, autoDelete: false } } },
      subscribe: { operationId: 'nextInbox', message: { contentType: 'application/json', payload: { type: 'object' } } },
    },
  },
});

before(async () => {
  broker = await startAmqpBroker();
  conn = await amqp.connect(broker.url);
  ch = await conn.createConfirmChannel();
  dir = mkdtempSync(join(tmpdir(), 'swflow-asyncapi-amqp-'));
  writeFileSync(join(dir, 'shop.yaml'), stringify(shop(broker.port)));
  writeFileSync(join(dir, 'audit.yaml'), stringify(audit(broker.port)));
  h = await adapterHarness();
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, baseDirs: [dir] }));
});

after(async () => {
  await h?.close();
  await conn?.close().catch(() => {});
  await broker?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const doc = (name: string, tasks: unknown[]) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, do: tasks });
const shopCall = (w: Record<string, unknown>) => ({ call: 'asyncapi', with: { document: { endpoint: 'file://shop.yaml' }, ...w } });

/** A queue of the test's own bound to `exchange` with `pattern`: the messages that reach it. */
async function listen(exchange: string, type: string, pattern: string): Promise<{ queue: string; next(): Promise<amqp.ConsumeMessage> }> {
  await ch.assertExchange(exchange, type, { durable: true, autoDelete: false });
  const { queue } = await ch.assertQueue('', { exclusive: true });
  await ch.bindQueue(queue, exchange, pattern);
  const got: amqp.ConsumeMessage[] = [];
  let waiting: ((m: amqp.ConsumeMessage) => void) | undefined;
  await ch.consume(queue, (m) => {
    if (!m) return;
    if (waiting) waiting(m);
    else got.push(m);
  }, { noAck: true });
  return { queue, next: () => (got.length ? Promise.resolve(got.shift()!) : new Promise((r) => (waiting = (m) => ((waiting = undefined), r(m))))) };
}

/** Declares `queue` (as the binding does) and empties it (purging a missing queue would close the channel). */
async function empty(queue: string): Promise<void> {
  await ch.assertQueue(queue, { durable: true, exclusive: false, autoDelete: false });
  await ch.purgeQueue(queue);
}

async function sendToQueue(queue: string, bodies: unknown[], headers?: (i: number) => Record<string, unknown>): Promise<void> {
  await ch.assertQueue(queue, { durable: true, exclusive: false, autoDelete: false });
  bodies.forEach((b, i) => ch.sendToQueue(queue, Buffer.from(JSON.stringify(b)), { contentType: 'application/json', correlationId: `c${i}`, ...(headers ? { headers: headers(i) } : {}) }));
  await ch.waitForConfirms();
}

test('1.0 call: asyncapi publishes message.payload to the exchange with the channel address as routing key, message.headers as AMQP headers', async () => {
  const orders = await listen('shop', 'topic', 'orders.#');
  const place = shopCall({ operation: 'placeOrder', message: { payload: { region: '${ .region }', id: 42, items: ['tea'] }, headers: { tenant: 'acme', attempt: 1 } } });
  const { result } = await h.run(doc('amqp-publish', [{ place }]), { region: 'eu' });
  assert.deepEqual(await result, { published: true, operationId: 'placeOrder', protocol: 'amqp', server: 'rabbit', channel: 'orders.eu.created' });
  const m = await orders.next();
  assert.equal(m.fields.exchange, 'shop');
  assert.equal(m.fields.routingKey, 'orders.eu.created');
  assert.deepEqual(JSON.parse(m.content.toString()), { region: 'eu', id: 42, items: ['tea'] });
  assert.equal(m.properties.contentType, 'application/json');
  assert.equal(m.properties.deliveryMode, 2);
  assert.deepEqual(m.properties.headers, { tenant: 'acme', attempt: 1 });
});

test('1.0 subscription: amount: 3 from the queue the binding names, with headers and correlation ids; what it did not take stays in the queue', async () => {
  await empty('swflow-tasks');
  await sendToQueue('swflow-tasks', [0, 1, 2, 3, 4].map((seq) => ({ seq })), (i) => ({ n: String(i) }));
  const { result } = await h.run(doc('amqp-amount', [{ take: shopCall({ operation: 'takeTasks', subscription: { consume: { amount: 3 } } }) }]));
  assert.deepEqual(await result, [0, 1, 2].map((seq) => ({ payload: { seq }, headers: { n: String(seq) }, correlationId: `c${seq}` })));
  const { messageCount } = await ch.checkQueue('swflow-tasks');
  assert.equal(messageCount, 2);
  const rest = [await ch.get('swflow-tasks', { noAck: true }), await ch.get('swflow-tasks', { noAck: true })].map((m) => (m ? JSON.parse(m.content.toString()).seq : null));
  assert.deepEqual(rest, [3, 4]);
});

test('1.0 subscription on the exchange: a queue of its own bound with the routing key (a parameter is *), filter and amount', async () => {
  let n = 0;
  const timer = setInterval(() => {
    ch.publish('shop', `orders.${n % 2 ? 'us' : 'eu'}.created`, Buffer.from(JSON.stringify({ seq: n })), { contentType: 'application/json' });
    n++;
  }, 40);
  try {
    const { result } = await h.run(doc('amqp-exchange', [{ read: shopCall({ operation: 'readOrders', subscription: { filter: '${ .payload.seq % 2 == 1 }', consume: { amount: 3 } } }) }]));
    const seqs = ((await result) as { payload: { seq: number } }[]).map((m) => m.payload.seq);
    assert.equal(seqs.length, 3);
    assert.ok(seqs.every((s, i) => s % 2 === 1 && (i === 0 || s === seqs[i - 1] + 2)), JSON.stringify(seqs));
  } finally {
    clearInterval(timer);
  }
});

test('stepwise: while over the $context foreach exports; the durable queue keeps what arrives between steps (nothing lost), and is deleted at the end', async () => {
  let n = 0;
  const timer = setInterval(() => void ch.publish('shop', 'orders.eu.created', Buffer.from(JSON.stringify({ seq: n++ })), { contentType: 'application/json' }), 40);
  const read = shopCall({
    operation: 'readOrders',
    subscription: {
      consume: { while: '${ ($context.count // 0) < 6 }' },
      foreach: {
        item: 'message',
        // Slower than the publisher: messages arrive while the workflow is between two steps.
        do: [{ pause: { wait: { milliseconds: 150 } } }, { seq: { set: { seq: '${ $message.payload.seq }' } } }],
        output: { as: '${ .seq }' },
        export: { as: '${ ($context // {}) | .count = ((.count // 0) + 1) }' },
      },
    },
  });
  try {
    const { result, workflowId } = await h.run(doc('amqp-stream', [{ read }, { after: { set: { out: '${ . }', count: '${ $context.count }' } } }]));
    const { out, count } = (await result) as { out: number[]; count: number };
    assert.equal(count, 6);
    assert.equal(out.length, 6);
    assert.ok(out.every((s, i) => i === 0 || s === out[i - 1] + 1), JSON.stringify(out));
    // The subscription's own queue is gone with it.
    const probe = await conn.createChannel();
    probe.on('error', () => {});
    await assert.rejects(probe.checkQueue(stepQueueName(`${workflowId}/do/0/read`)), /404|NOT_FOUND/);
  } finally {
    clearInterval(timer);
  }
});

test('stepwise on a queue: steps take what was queued, a step\'s extra deliveries go back to the queue (nacked by the closed channel), in order', async () => {
  await empty('swflow-tasks');
  await sendToQueue('swflow-tasks', Array.from({ length: 40 }, (_, seq) => ({ seq })));
  const read = shopCall({
    operation: 'takeTasks',
    subscription: { consume: { until: '${ ($context.count // 0) >= 20 }' }, foreach: { item: 'm', output: { as: '${ $m.payload.seq }' }, export: { as: '${ { count: (($context.count // 0) + 1) } }' } } },
  });
  const { result } = await h.run(doc('amqp-queue-steps', [{ read }]));
  const out = (await result) as number[];
  // The steps took 16 then 16 (STEP_MAX): the workflow used 20 of them; nothing was skipped.
  assert.deepEqual(out, Array.from({ length: 20 }, (_, i) => i));
  const { messageCount } = await ch.checkQueue('swflow-tasks');
  assert.equal(messageCount, 40 - 32);
  const next = await ch.get('swflow-tasks', { noAck: true });
  assert.equal(next && JSON.parse(next.content.toString()).seq, 32);
});

test('a wrong password: the broker refuses the login, a communication problem (401) naming the broker', async () => {
  const place = shopCall({ operation: 'placeOrder', message: { payload: { region: 'eu' } }, authentication: { basic: { username: 'guest', password: 'not-the-password' } } });
  const { result } = await h.run(doc('amqp-wrong-password', [{ place }]));
  await assert.rejects(result, (e: unknown) => {
    const text = failureText(e);
    return /errors\/communication/.test(text) && /401/.test(text) && text.includes(`AMQP publish orders.eu.created on exchange "shop" at amqp://127.0.0.1:${broker.port}`) && /refused the credentials/.test(text);
  });
  // The right one (guest's) is accepted.
  const ok = await h.run(doc('amqp-right-password', [{ place: shopCall({ operation: 'placeOrder', message: { payload: { region: 'eu' } }, authentication: { basic: { username: 'guest', password: 'guest' } } }) }]));
  assert.equal(((await ok.result) as { published: boolean }).published, true);
});

test('0.8 asyncapi functions over AMQP: a publish operation routes the arguments by key, a subscribe operation returns the first message of its queue', async () => {
  const audits = await listen('audit', 'direct', 'audit.login');
  await empty('swflow-inbox');
  await sendToQueue('swflow-inbox', [{ hello: 'world' }]);
  const wf = {
    id: 'amqp08',
    version: '1.0',
    specVersion: '0.8',
    start: 'Call',
    functions: [
      { name: 'record', type: 'asyncapi', operation: 'audit.yaml#recordAudit' },
      { name: 'inbox', type: 'asyncapi', operation: 'audit.yaml#nextInbox' },
    ],
    states: [
      {
        name: 'Call',
        type: 'operation',
        actions: [
          { functionRef: { refName: 'record', arguments: { kind: 'login', user: 'ada' } }, actionDataFilter: { toStateData: '${ .audit }' } },
          { functionRef: { refName: 'inbox', arguments: {} }, actionDataFilter: { toStateData: '${ .inbox }' } },
        ],
        end: true,
      },
    ],
  };
  const { result } = await h.run(wf);
  assert.deepEqual(await result, { audit: { published: true, operationId: 'recordAudit', protocol: 'amqp', server: 'rabbit', channel: 'audit.login' }, inbox: { hello: 'world' } });
  const m = await audits.next();
  assert.equal(m.fields.routingKey, 'audit.login');
  assert.deepEqual(JSON.parse(m.content.toString()), { kind: 'login', user: 'ada' });
});
