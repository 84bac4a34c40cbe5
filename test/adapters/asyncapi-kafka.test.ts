/**
 * The asyncapi adapter over Kafka against a real Apache Kafka broker (test/helpers/kafka-broker.ts,
 * KRaft, with a SASL/PLAIN listener and topic auto-creation off), driven by the real interpreter
 * on the dev server: 1.0 `call: asyncapi` publishing a record (key from the message binding,
 * headers, payload) on an AsyncAPI 3.0 document, a topic the channel binding describes created,
 * subscriptions by amount and for a time, stepwise `foreach` with while/until where nothing is
 * lost between steps, 0.8 `asyncapi` functions on an AsyncAPI 2.6 document, SASL, and errors.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin, Consumer, Producer, type Message, type MessagesStream } from '@platformatic/kafka';
import { stringify } from 'yaml';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { stepGroupId } from '../../adapters/asyncapi/transport';
import { kafkaAvailable, startKafka, type KafkaCluster } from '../helpers/kafka-broker';
import { freePort } from '../helpers/ports';
import { adapterHarness, failureText, type AdapterHarness } from './harness';

const available = kafkaAvailable();
const USER = { username: 'flow', password: 'kafka-s3cret-pw' };

let kafka: KafkaCluster;
let producer: Producer;
let dir: string;
let h: AdapterHarness;
let closedPort: number;

const kafkaBinding = (v: Record<string, unknown>) => ({ kafka: { ...v, bindingVersion: '0.5.0' } });

/** AsyncAPI 3.0: orders keyed by the message binding, a topic the binding describes, single-partition readings, a topic nobody created. */
const shop = () => ({
  asyncapi: '3.0.0',
  info: { title: 'Shop', version: '1.0.0' },
  servers: {
    broker: { host: kafka.brokers[0], protocol: 'kafka' },
    secured: { host: kafka.saslBrokers[0], protocol: 'kafka', security: [{ $ref: '#/components/securitySchemes/saslPlain' }] },
    nowhere: { host: `127.0.0.1:${closedPort}`, protocol: 'kafka' },
    registry: { host: kafka.brokers[0], protocol: 'kafka', bindings: kafkaBinding({ schemaRegistryUrl: 'http://127.0.0.1:1/', schemaRegistryVendor: 'confluent' }) },
  },
  channels: {
    orders: {
      address: 'orders.{region}',
      parameters: { region: {} },
      messages: { order: { contentType: 'application/json', payload: { type: 'object' }, bindings: kafkaBinding({ key: { type: 'string', const: 'shop-1' } }) } },
    },
    declared: {
      address: 'declared',
      messages: { note: { contentType: 'application/json', payload: { type: 'object' } } },
      bindings: kafkaBinding({ partitions: 2, replicas: 1, topicConfiguration: { 'retention.ms': 3600000, 'cleanup.policy': ['delete'] } }),
    },
    readings: { address: 'readings', messages: { reading: { contentType: 'application/json', payload: { type: 'object' } } } },
    missing: { address: 'missing', messages: { any: { contentType: 'application/json', payload: { type: 'object' } } } },
  },
  operations: {
    placeOrder: { action: 'send', channel: { $ref: '#/channels/orders' } },
    note: { action: 'send', channel: { $ref: '#/channels/declared' } },
    readReadings: { action: 'receive', channel: { $ref: '#/channels/readings' } },
    sendMissing: { action: 'send', channel: { $ref: '#/channels/missing' } },
    readAsApp: { action: 'receive', channel: { $ref: '#/channels/readings' }, bindings: kafkaBinding({ groupId: { type: 'string', const: 'app-readers' }, clientId: { type: 'string', const: 'app-reader-1' } }) },
  },
  components: { securitySchemes: { saslPlain: { type: 'plain', description: 'SASL/PLAIN' } } },
});

/** AsyncAPI 2.6 for 0.8 functions: sensor readings published by kind (keyed), alerts received. */
const sensors = () => ({
  asyncapi: '2.6.0',
  info: { title: 'Sensors', version: '1.0.0' },
  servers: { broker: { url: kafka.brokers[0], protocol: 'kafka' } },
  channels: {
    'sensors.{kind}': {
      parameters: { kind: { schema: { type: 'string' } } },
      publish: { operationId: 'recordReading', message: { payload: { type: 'object' }, bindings: kafkaBinding({ key: { type: 'string', default: 'sensor-7' } }) } },
    },
    alerts: { subscribe: { operationId: 'nextAlert', message: { contentType: 'application/json', payload: { type: 'object' } } } },
  },
});

before(async () => {
  if (!available.ok) return;
  kafka = await startKafka({ sasl: USER, autoCreateTopics: false, partitions: 1 });
  closedPort = await freePort();
  for (const t of ['orders.eu', 'readings', 'sensors.temperature', 'alerts']) await kafka.createTopic(t, { partitions: 1 });
  producer = new Producer({ clientId: 'asyncapi-kafka-test', bootstrapBrokers: kafka.brokers, idempotent: true, acks: -1 });
  dir = mkdtempSync(join(tmpdir(), 'swflow-asyncapi-kafka-'));
  writeFileSync(join(dir, 'shop.yaml'), stringify(shop()));
  writeFileSync(join(dir, 'sensors.yaml'), stringify(sensors()));
  h = await adapterHarness();
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, baseDirs: [dir] }));
});

after(async () => {
  await h?.close();
  await producer?.close().catch(() => {});
  await kafka?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const skip = available.ok ? false : `Kafka broker unavailable: ${available.ok ? '' : available.why}`;
const doc = (name: string, tasks: unknown[]) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, do: tasks });
const shopCall = (w: Record<string, unknown>) => ({ call: 'asyncapi', with: { document: { endpoint: 'file://shop.yaml' }, ...w } });

const send = (topic: string, value: unknown, headers: Record<string, string> = {}) =>
  producer.send({ messages: [{ topic, value: Buffer.from(JSON.stringify(value)), headers: new Map(Object.entries(headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)])) }] });

/** Publishes `{ seq, run }` to `topic` every `ms` until stopped (`run` tells this publisher's records from earlier ones); `sent()` is how many went out. */
function publisher(topic: string, ms: number, run = ''): { stop(): Promise<void>; sent(): number } {
  let n = 0;
  let chain: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    const seq = n++;
    chain = chain.then(() => send(topic, { seq, run }, { n: String(seq) }));
  }, ms);
  const stop = async (): Promise<void> => {
    clearInterval(timer);
    await chain;
  };
  return { stop, sent: () => n };
}

/** A consumer of `topic` from its beginning: the records read, in order. */
async function readBack(topic: string): Promise<{ next(): Promise<Message>; close(): Promise<void> }> {
  const c = new Consumer({ groupId: `reader-${topic}-${Date.now()}`, clientId: 'reader', bootstrapBrokers: kafka.brokers, autocommit: false, maxWaitTime: 200 });
  const stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> = await c.consume({ topics: [topic], mode: 'earliest' });
  const got: Message[] = [];
  let waiting: ((m: Message) => void) | undefined;
  stream.on('data', (m: Message) => (waiting ? waiting(m) : got.push(m)));
  return {
    next: () => (got.length ? Promise.resolve(got.shift()!) : new Promise((r) => (waiting = (m) => ((waiting = undefined), r(m))))),
    close: async () => {
      await stream.close();
      await c.close(true);
    },
  };
}

const text = (m: Map<Buffer, Buffer>) => Object.fromEntries([...m].map(([k, v]) => [k.toString(), v.toString()]));

test('1.0 call: asyncapi publishes a record: the channel address is the topic, the message binding\'s key, message.headers as record headers', { skip }, async () => {
  const place = shopCall({ operation: 'placeOrder', message: { payload: { region: '${ .region }', id: 42, items: ['tea'] }, headers: { tenant: 'acme', attempt: 1 } } });
  const { result } = await h.run(doc('kafka-publish', [{ place }]), { region: 'eu' });
  const out = (await result) as Record<string, unknown>;
  assert.deepEqual({ ...out, offset: undefined }, { published: true, operationId: 'placeOrder', protocol: 'kafka', server: 'broker', channel: 'orders.eu', partition: 0, offset: undefined });
  const reader = await readBack('orders.eu');
  try {
    const m = await reader.next();
    assert.equal(String(m.offset), out.offset);
    assert.equal(m.key.toString(), 'shop-1');
    assert.deepEqual(JSON.parse(m.value.toString()), { region: 'eu', id: 42, items: ['tea'] });
    assert.deepEqual(text(m.headers), { 'content-type': 'application/json', tenant: 'acme', attempt: '1' });
    console.log(`kafka publish (1.0, AsyncAPI 3.0): orders.eu offset ${out.offset}, key ${m.key}, ${m.headers.size} headers read back`);
  } finally {
    await reader.close();
  }
});

test('a topic the channel binding describes (partitions, replicas, topicConfiguration) is created so when missing', { skip }, async () => {
  const { result } = await h.run(doc('kafka-declared', [{ n: shopCall({ operation: 'note', message: { payload: { hello: 'kafka' } } }) }, { again: shopCall({ operation: 'note', message: { payload: { hello: 'again' } } }) }]));
  assert.equal(((await result) as { published: boolean }).published, true);
  const admin = new Admin({ clientId: 'asyncapi-kafka-test', bootstrapBrokers: kafka.brokers });
  try {
    const meta = await admin.metadata({ topics: ['declared'] });
    assert.equal(meta.topics.get('declared')?.partitionsCount, 2);
    const [config] = await admin.describeConfigs({ resources: [{ resourceType: 2, resourceName: 'declared', configurationKeys: ['retention.ms', 'cleanup.policy'] }] });
    const values = Object.fromEntries(config!.configs.map((c) => [c.name, c.value]));
    assert.deepEqual(values, { 'retention.ms': '3600000', 'cleanup.policy': 'delete' });
    console.log(`kafka channel binding: topic "declared" created with ${meta.topics.get('declared')?.partitionsCount} partitions, retention.ms ${values['retention.ms']}; a second publish found it`);
  } finally {
    await admin.close();
  }
});

test('1.0 subscription: filter and amount: 3 over the records published after it subscribed, headers carried', { skip }, async () => {
  const pub = publisher('readings', 30);
  try {
    const { result } = await h.run(doc('kafka-amount', [{ read: shopCall({ operation: 'readReadings', subscription: { filter: '${ .payload.seq % 2 == 1 }', consume: { amount: 3 } } }) }]));
    const got = (await result) as { payload: { seq: number }; headers: Record<string, string> }[];
    const seqs = got.map((m) => m.payload.seq);
    assert.equal(seqs.length, 3);
    assert.ok(seqs.every((s, i) => s % 2 === 1 && (i === 0 || s === seqs[i - 1]! + 2)), JSON.stringify(seqs));
    assert.ok(got.every((m) => m.headers.n === String(m.payload.seq)));
    console.log(`kafka subscription amount 3 with filter: seqs ${seqs.join(',')} (${pub.sent()} published meanwhile)`);
  } finally {
    await pub.stop();
  }
});

test('1.0 subscription for 1.5 s (amount 10000 never reached): what arrived in that time, contiguous, then the call ends', { skip }, async () => {
  const pub = publisher('readings', 50);
  try {
    const started = Date.now();
    const { result } = await h.run(doc('kafka-for', [{ read: shopCall({ operation: 'readReadings', subscription: { consume: { for: { milliseconds: 1500 }, amount: 10000 } } }) }]));
    const seqs = ((await result) as { payload: { seq: number } }[]).map((m) => m.payload.seq);
    const took = Date.now() - started;
    assert.ok(seqs.length >= 5, `only ${seqs.length} in 1.5 s`);
    assert.ok(seqs.every((s, i) => i === 0 || s === seqs[i - 1]! + 1), JSON.stringify(seqs));
    console.log(`kafka subscription for 1.5 s: ${seqs.length} records (${seqs[0]}..${seqs.at(-1)}), run took ${took} ms`);
  } finally {
    await pub.stop();
  }
});

test('the operation binding\'s groupId: a subscription is a member of that group and commits what it consumed; the next one goes on from there', { skip }, async () => {
  const pub = publisher('readings', 30, 'group');
  try {
    const read = shopCall({ operation: 'readAsApp', subscription: { consume: { amount: 3 } } });
    const { result } = await h.run(
      doc('kafka-group', [
        { first: { ...read, export: { as: '${ { first: [ .[].payload.seq ] } }' } } },
        { pause: { wait: { milliseconds: 300 } } },
        { second: read },
        { both: { set: { first: '${ $context.first }', second: '${ [ .[].payload.seq ] }' } } },
      ]),
    );
    const { first, second } = (await result) as { first: number[]; second: number[] };
    const admin = new Admin({ clientId: 'asyncapi-kafka-test', bootstrapBrokers: kafka.brokers });
    try {
      const [group] = await admin.listConsumerGroupOffsets({ groups: ['app-readers'] });
      const committed = group!.topics.find((t) => t.name === 'readings')!.partitions[0]!.committedOffset;
      // The second call started where the first left the group (records published during the pause included) and committed after its last.
      const all = [...first, ...second];
      assert.equal(all.length, 6);
      assert.ok(all.every((s, i) => i === 0 || s === all[i - 1]! + 1), JSON.stringify({ first, second }));
      const reader = await readBack('readings');
      let lastOffset = -1n;
      for (;;) {
        const m = await reader.next();
        const value = JSON.parse(m.value.toString());
        if (value.run === 'group' && value.seq === second.at(-1)) {
          lastOffset = m.offset;
          break;
        }
      }
      await reader.close();
      assert.equal(committed, lastOffset + 1n);
      console.log(`kafka binding groupId app-readers: first call ${first.join(',')}, second call (300 ms later) ${second.join(',')}: none lost between; committed offset ${committed} right after the last`);
    } finally {
      await admin.close();
    }
  } finally {
    await pub.stop();
  }
});

test('stepwise: while over the $context foreach exports; the group keeps what arrives between steps (nothing lost), and is deleted at the end', { skip }, async () => {
  const pub = publisher('readings', 40);
  const read = shopCall({
    operation: 'readReadings',
    subscription: {
      // 24 at 150 ms each: later steps find more than a step takes (STEP_MAX 16) waiting, and leave the rest uncommitted.
      consume: { while: '${ ($context.count // 0) < 24 }' },
      foreach: {
        item: 'message',
        // Slower than the publisher: records arrive while the workflow is between two steps.
        do: [{ pause: { wait: { milliseconds: 150 } } }, { seq: { set: { seq: '${ $message.payload.seq }' } } }],
        output: { as: '${ .seq }' },
        export: { as: '${ ($context // {}) | .count = ((.count // 0) + 1) }' },
      },
    },
  });
  try {
    const { result, workflowId } = await h.run(doc('kafka-stream', [{ read }, { after: { set: { out: '${ . }', count: '${ $context.count }' } } }]));
    const group = stepGroupId(`${workflowId}/do/0/read`);
    const admin = new Admin({ clientId: 'asyncapi-kafka-test', bootstrapBrokers: kafka.brokers });
    try {
      // The subscription's own group exists while it runs...
      const deadline = Date.now() + 15_000;
      while (!(await admin.listGroups()).has(group)) {
        assert.ok(Date.now() < deadline, `no group ${group} while the subscription runs`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const { out, count } = (await result) as { out: number[]; count: number };
      assert.equal(count, 24);
      assert.equal(out.length, 24);
      assert.ok(out.every((s, i) => i === 0 || s === out[i - 1]! + 1), JSON.stringify(out));
      // ...and not after.
      const groups = await admin.listGroups();
      assert.ok(!groups.has(group), `the step group is left: ${[...groups.keys()].join(', ')}`);
      console.log(`kafka stepwise while: 24 records ${out[0]}..${out.at(-1)} contiguous over steps while ${pub.sent()} were published; group ${group} deleted at the end`);
    } finally {
      await admin.close();
    }
  } finally {
    await pub.stop();
  }
});

test('stepwise until with a filter: what the filter drops is committed too, what a step does not take goes to the next step', { skip }, async () => {
  const pub = publisher('readings', 10);
  const read = shopCall({
    operation: 'readReadings',
    subscription: {
      filter: '${ .payload.seq % 3 == 0 }',
      consume: { until: '${ ($context.count // 0) >= 20 }' },
      foreach: { item: 'm', output: { as: '${ $m.payload.seq }' }, export: { as: '${ { count: (($context.count // 0) + 1) } }' } },
    },
  });
  try {
    const { result } = await h.run(doc('kafka-until', [{ read }]));
    const out = (await result) as number[];
    assert.equal(out.length, 20);
    assert.ok(out.every((s, i) => s % 3 === 0 && (i === 0 || s === out[i - 1]! + 3)), JSON.stringify(out));
    console.log(`kafka stepwise until with filter: 20 records ${out[0]}..${out.at(-1)} every third, none skipped, ${pub.sent()} published`);
  } finally {
    await pub.stop();
  }
});

test('0.8 asyncapi functions over Kafka (AsyncAPI 2.6): a publish operation sends the arguments keyed by the binding, a subscribe operation returns the first record', { skip }, async () => {
  const pub = publisher('alerts', 100);
  const wf = {
    id: 'kafka08',
    version: '1.0',
    specVersion: '0.8',
    start: 'Call',
    functions: [
      { name: 'record', type: 'asyncapi', operation: 'sensors.yaml#recordReading' },
      { name: 'alert', type: 'asyncapi', operation: 'sensors.yaml#nextAlert' },
    ],
    states: [
      {
        name: 'Call',
        type: 'operation',
        actions: [
          { functionRef: { refName: 'record', arguments: { kind: 'temperature', celsius: 21.5 } }, actionDataFilter: { toStateData: '${ .reading }' } },
          { functionRef: { refName: 'alert', arguments: {} }, actionDataFilter: { toStateData: '${ .alert }' } },
        ],
        end: true,
      },
    ],
  };
  try {
    const { result } = await h.run(wf);
    const out = (await result) as { reading: Record<string, unknown>; alert: { seq: number } };
    assert.deepEqual({ ...out.reading, offset: undefined }, { published: true, operationId: 'recordReading', protocol: 'kafka', server: 'broker', channel: 'sensors.temperature', partition: 0, offset: undefined });
    assert.equal(typeof out.alert.seq, 'number');
    const reader = await readBack('sensors.temperature');
    const m = await reader.next();
    await reader.close();
    assert.equal(m.key.toString(), 'sensor-7');
    assert.deepEqual(JSON.parse(m.value.toString()), { kind: 'temperature', celsius: 21.5 });
    console.log(`kafka 0.8: published to sensors.temperature keyed ${m.key}, received alert seq ${out.alert.seq}`);
  } finally {
    await pub.stop();
  }
});

test('SASL/PLAIN from the server\'s security scheme: the right credentials publish; a wrong password is refused (401) naming the broker and the user, never the password; none is a configuration error', { skip }, async () => {
  const call = (name: string, authentication?: unknown) => h.run(doc(name, [{ place: shopCall({ operation: 'placeOrder', server: { name: 'secured' }, message: { payload: { region: 'eu', sasl: true } }, ...(authentication ? { authentication } : {}) }) }]), {});
  const ok = await call('kafka-sasl-ok', { basic: USER });
  assert.equal(((await ok.result) as { server: string }).server, 'secured');
  const wrong = await call('kafka-sasl-wrong', { basic: { username: USER.username, password: 'not-the-password' } });
  let refused = '';
  await assert.rejects(wrong.result, (e: unknown) => {
    refused = failureText(e);
    return /errors\/communication/.test(refused) && /401/.test(refused) && refused.includes(`Kafka publish orders.eu at kafka://${kafka.saslBrokers[0]}`) && /refused the credentials of "flow"/.test(refused) && !refused.includes('not-the-password');
  });
  const none = await call('kafka-sasl-none');
  let missing = '';
  await assert.rejects(none.result, (e: unknown) => ((missing = failureText(e)), /errors\/configuration/.test(missing) && /server "secured" needs SASL PLAIN credentials/.test(missing)));
  console.log(`kafka SASL/PLAIN: accepted with the right password; wrong: ${refused.split(' | ').find((p) => p.includes('refused'))?.slice(0, 140)}; none: configuration`);
});

test('errors: an unknown topic with auto-creation off, an unreachable broker, a schema registry, a channel parameter no topic name can hold', { skip }, async () => {
  const fail = async (name: string, w: Record<string, unknown>) => {
    const { result } = await h.run(doc(name, [{ c: shopCall(w) }]));
    let text = '';
    await assert.rejects(result, (e: unknown) => ((text = failureText(e)), true));
    return text;
  };
  const unknown = await fail('kafka-unknown-topic', { operation: 'sendMissing', message: { payload: {} } });
  assert.match(unknown, /errors\/communication/);
  assert.match(unknown, /Kafka publish missing at kafka:\/\/127\.0\.0\.1:\d+: the broker answered UNKNOWN_TOPIC_OR_PARTITION/);
  const started = Date.now();
  const unreachable = await fail('kafka-unreachable', { operation: 'placeOrder', server: { name: 'nowhere' }, message: { payload: { region: 'eu' } } });
  assert.match(unreachable, /errors\/communication/);
  assert.ok(unreachable.includes(`Kafka publish orders.eu at kafka://127.0.0.1:${closedPort} failed`), unreachable);
  assert.match(unreachable, /ConnectionRefused/);
  const registry = await fail('kafka-registry', { operation: 'placeOrder', server: { name: 'registry' }, message: { payload: { region: 'eu' } } });
  assert.match(registry, /errors\/configuration/);
  assert.match(registry, /schema registry/);
  const badParam = await fail('kafka-bad-param', { operation: 'placeOrder', message: { payload: { region: 'eu/west' } } });
  assert.match(badParam, /a Kafka topic name holds only letters/);
  console.log(`kafka errors: unknown topic (communication, UNKNOWN_TOPIC_OR_PARTITION), unreachable broker (ConnectionRefused, ${Date.now() - started} ms with the others), schema registry and a bad topic parameter (configuration)`);
});
