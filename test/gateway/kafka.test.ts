/**
 * CloudEvents from Kafka (src/gateway/kafka.ts) on a real broker (Apache Kafka in KRaft mode,
 * test/helpers/kafka-broker.ts), a real dev server and the real interpreter: binary and
 * structured records start 0.8 and 1.0 runs and wake correlated ones; a record delivered twice is
 * applied once; poison records land in the dead-letter topic with their reason and the next
 * record is routed; nothing is committed while Temporal is down, and the event arrives once it is
 * back; metrics count it all; bad flags are named; `swflow gateway` on a topic that does not exist
 * stays up, not ready naming it, and joins once it is created (or creates it with
 * --kafka-create-topics).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admin, Consumer, Producer, type Message } from '@platformatic/kafka';
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { DLQ_HEADERS, deadLetterTopicOf, startKafkaInbound, type KafkaInbound, type KafkaLogEntry } from '../../src/gateway/kafka';
import { recordFromEvent } from '../../src/kafka/binding';
import { enableMetrics } from '../../src/metrics';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { kafkaAvailable, startKafka, uniqueName, type KafkaCluster, startAlongside } from '../helpers/kafka-broker';
import { freePort } from '../helpers/ports';
import { runSwflow } from '../helpers/cli';
import { gatewaySettings, type GatewayCliOptions } from '../../src/cli/gateway';

/** A 0.8 run keyed by `runkey` that collects the `i` of `count` kafka.tick events, then ends with them. */
const collect = (id: string, count: number) => ({
  id,
  specVersion: '0.8',
  start: 'Collect',
  events: [{ name: 'Tick', type: 'kafka.tick', source: 'ticker', correlation: [{ contextAttributeName: 'runkey' }] }],
  states: [
    { name: 'Collect', type: 'event', onEvents: [{ eventRefs: ['Tick'], eventDataFilter: { data: '${ .i }', toStateData: '${ .last }' } }], stateDataFilter: { output: '${ {ids: ((.ids // []) + [.last])} }' }, transition: 'Enough' },
    { name: 'Enough', type: 'switch', dataConditions: [{ condition: `\${ (.ids | length) >= ${count} }`, end: true }], defaultCondition: { transition: 'Collect' } },
  ],
});

const DEFINITIONS: Record<string, unknown> = {
  greeter: {
    id: 'kgreeter',
    specVersion: '0.8',
    start: 'Greet',
    events: [{ name: 'Greet', type: 'kafka.greet', source: 'web' }],
    states: [{ name: 'Greet', type: 'event', onEvents: [{ eventRefs: ['Greet'], eventDataFilter: { toStateData: '${ .request }' } }], end: true }],
  },
  order: {
    id: 'korder',
    specVersion: '0.8',
    start: 'Created',
    events: [
      { name: 'Created', type: 'kafka.order.created', source: 'shop', correlation: [{ contextAttributeName: 'orderid' }] },
      { name: 'Paid', type: 'kafka.order.paid', source: 'shop', correlation: [{ contextAttributeName: 'orderid' }] },
    ],
    states: [
      { name: 'Created', type: 'event', onEvents: [{ eventRefs: ['Created'], eventDataFilter: { toStateData: '${ .created }' } }], transition: 'Paid' },
      { name: 'Paid', type: 'event', onEvents: [{ eventRefs: ['Paid'], eventDataFilter: { toStateData: '${ .paid }' } }], end: true },
    ],
  },
  collect: collect('kcollect', 3),
  v1start: { document: { dsl: '1.0.0', namespace: 'test', name: 'kafka-v1-start', version: '1.0.0' }, schedule: { on: { one: { with: { type: 'kafka.v1.start' } } } }, do: [{ s: { set: { got: '${ .[0].data }' } } }] },
  v1wait: {
    document: { dsl: '1.0.0', namespace: 'test', name: 'kafka-v1-wait', version: '1.0.0' },
    do: [{ wait: { listen: { to: { one: { with: { type: 'kafka.v1.paid' }, correlate: { orderId: { from: '${ .data.orderId }', expect: '${ .orderId }' } } } } } } }],
  },
};

let dir: string;
let kafka: KafkaCluster;
let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;
let registry: DefinitionRegistry;
let inbound: KafkaInbound;
let producer: Producer;
const topic = uniqueName('events');
const group = uniqueName('gateway');
const accessLog: KafkaLogEntry[] = [];

before(async () => {
  const available = kafkaAvailable();
  assert.ok(available.ok, `these tests need the Kafka broker: ${available.ok ? '' : available.why}`);
  enableMetrics();
  dir = mkdtempSync(join(tmpdir(), 'swflow-kafka-'));
  for (const [name, doc] of Object.entries(DEFINITIONS)) writeFileSync(join(dir, `${name}.sw.json`), JSON.stringify(doc));
  const started = Date.now();
  [kafka, env] = await startAlongside(startKafka(), startDevEnv(), (e) => e.teardown());
  console.log(`kafka test: broker ${kafka.brokers.join(',')} and dev server up in ${Date.now() - started} ms`);
  await kafka.createTopic(topic, { partitions: 3 });
  client = env.client as Client;
  worker = await createInterpreterWorker({ connection: env.nativeConnection as NativeConnection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [dir], workflowBundle: await bundleInterpreter() });
  running = worker.run();
  registry = new DefinitionRegistry([dir]);
  inbound = await startKafkaInbound({ client, definitions: () => registry.allDefinitions(), brokers: kafka.brokers, topics: [topic], groupId: group, clientId: 'kafka-test', lagIntervalMs: 300, accessLog: (e) => accessLog.push(e) });
  assert.equal(inbound.joined(), true);
  producer = new Producer({ clientId: 'kafka-test-producer', bootstrapBrokers: kafka.brokers, autocreateTopics: true });
});

after(async () => {
  await inbound?.close();
  await producer?.close();
  worker?.shutdown();
  await running;
  await env?.teardown();
  await kafka?.close();
});

const bytes = (headers: Map<string, string>) => new Map([...headers].map(([k, v]) => [Buffer.from(k), Buffer.from(v)]));

/** Sends CloudEvents as records (binary or structured), keyed by `key` (one partition: in order). */
async function send(to: string, events: Record<string, unknown>[], mode: 'binary' | 'structured', key = 'k'): Promise<void> {
  const messages = events.map((e) => {
    const r = recordFromEvent({ specversion: '1.0', ...e } as never, mode, key);
    return { topic: to, key: r.key, value: r.value ?? undefined, headers: bytes(r.headers) };
  });
  await producer.send({ messages } as never);
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) return assert.fail(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const entry = (id: string) => waitFor(`the record of event ${id} handled`, () => accessLog.find((e) => e.id === id));
const result = (workflowId: string) => waitFor(`${workflowId} started`, () => client.workflow.getHandle(workflowId).describe().then(() => true, () => undefined)).then(() => client.workflow.getHandle(workflowId).result());

test('binary and structured records start a 0.8 and a 1.0 run and wake correlated ones', { timeout: 120_000 }, async () => {
  await send(topic, [{ id: 'g-1', type: 'kafka.greet', source: 'web', data: { name: 'Bin' } }], 'binary');
  await send(topic, [{ id: 'g-2', type: 'kafka.greet', source: 'web', data: { name: 'Struct' } }], 'structured');
  assert.deepEqual(await result('kgreeter/web/g-1'), { request: { name: 'Bin' } });
  assert.deepEqual(await result('kgreeter/web/g-2'), { request: { name: 'Struct' } });

  // 0.8 correlation: created (binary) starts order/orderid=7, paid (structured) wakes it.
  await send(topic, [{ id: 'o-1', type: 'kafka.order.created', source: 'shop', orderid: '7', data: { total: 10 } }], 'binary', 'order-7');
  await send(topic, [{ id: 'o-2', type: 'kafka.order.paid', source: 'shop', orderid: '7', data: { by: 'card' } }], 'structured', 'order-7');
  assert.deepEqual(await result('korder/orderid=7'), { created: { total: 10 }, paid: { by: 'card' } });

  // 1.0: schedule.on starts a run; a running listen is woken through visibility by its correlation.
  await send(topic, [{ id: 'v-1', type: 'kafka.v1.start', source: 'shop', data: { n: 1 } }], 'binary');
  const started = await entry('v-1');
  assert.equal(started.status, 202, started.error);
  assert.deepEqual(await client.workflow.getHandle(started.workflowIds![0]).result(), { got: { n: 1 } });
  const waiting = await client.workflow.start('test/kafka-v1-wait', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: uniqueName('v1-wait'), args: [{ orderId: 'A-1' }] });
  await waitFor('the run listed as awaiting', async () => {
    for await (const _ of client.workflow.list({ query: `WorkflowId = '${waiting.workflowId}' AND SwAwaitedEvents = 'kafka.v1.paid#orderId=A-1' AND ExecutionStatus = 'Running'` })) return true;
    return false;
  });
  await send(topic, [{ id: 'v-2', type: 'kafka.v1.paid', source: 'shop', data: { orderId: 'A-1' } }], 'structured');
  const woke = await entry('v-2');
  assert.equal(woke.status, 202, woke.error);
  assert.deepEqual(woke.workflowIds, [waiting.workflowId]);
  assert.deepEqual(await waiting.result(), [{ orderId: 'A-1' }], 'the listen\'s output: the data of the event it took');
  console.log(`kafka inbound: 2 starts (binary, structured), a 0.8 correlated start+wake, a 1.0 schedule.on start and a 1.0 listen woken; ${accessLog.length} records handled`);
});

test('a record delivered twice (same source+id) is applied once: the start is not repeated, the wake not consumed twice', { timeout: 120_000 }, async () => {
  const tick = (id: string, i: number) => ({ id, type: 'kafka.tick', source: 'ticker', runkey: 'r1', data: { i } });
  await send(topic, [tick('t-1', 1), tick('t-1', 1), tick('t-2', 2), tick('t-2', 2), tick('t-3', 3)], 'binary', 'r1');
  await send(topic, [{ id: 'g-1', type: 'kafka.greet', source: 'web', data: { name: 'Again' } }], 'structured');
  assert.deepEqual(await result('kcollect/runkey=r1'), { ids: [1, 2, 3] });
  const again = await waitFor('g-1 delivered again', () => accessLog.filter((e) => e.id === 'g-1').length === 2 && accessLog.filter((e) => e.id === 'g-1')[1]);
  assert.equal(again.status, 202);
  assert.deepEqual(await client.workflow.getHandle('kgreeter/web/g-1').result(), { request: { name: 'Bin' } }, 'the first delivery\'s run, not a second one');
  const runs = [];
  for await (const w of client.workflow.list({ query: `WorkflowId = 'kgreeter/web/g-1'` })) runs.push(w.runId);
  assert.equal(runs.length, 1, 'one run of kgreeter/web/g-1');
  console.log('kafka redelivery: 5 ticks with 2 repeated → the run consumed [1,2,3]; a start event sent again → still one run');
});

test('poison records go to the dead-letter topic with their reason; the next record is routed; the consumer goes on', { timeout: 120_000 }, async () => {
  const raw = (value: string, headers: Record<string, string>) => ({ topic, key: Buffer.from('poison'), value: Buffer.from(value), headers: bytes(new Map(Object.entries(headers))) });
  await producer.send({
    messages: [
      raw('{not json', { 'content-type': 'application/cloudevents+json' }),
      raw('{"a":1}', { ce_specversion: '1.0', ce_id: 'p-2', ce_source: 'web', 'content-type': 'application/json' }),
      raw('{}', { ce_specversion: '1.0', ce_id: 'p-3', ce_source: 'web', ce_type: 'kafka.nobody', 'content-type': 'application/json' }),
      raw('{}', { ce_specversion: '1.0', ce_id: 'p-4', ce_source: 'web', ce_type: 'kafka.greet', ce_swflowworkflowid: 'kgreeter/web/g-1', 'content-type': 'application/json' }),
    ],
  } as never);
  await send(topic, [{ id: 'after-poison', type: 'kafka.greet', source: 'web', data: { name: 'Next' } }], 'binary', 'poison');
  assert.deepEqual(await result('kgreeter/web/after-poison'), { request: { name: 'Next' } });
  const dlq = deadLetterTopicOf(topic);
  const letters: Message[] = [];
  const reader = new Consumer({ groupId: uniqueName('reader'), clientId: 'kafka-test-reader', bootstrapBrokers: kafka.brokers, autocommit: false, maxWaitTime: 500 });
  const stream = await reader.consume({ topics: [dlq], mode: 'earliest', autocommit: false });
  stream.on('data', (m) => letters.push(m));
  await waitFor('4 dead letters', () => letters.length >= 4 || undefined);
  await reader.close(true);
  const h = (m: Message) => Object.fromEntries([...(m.headers as Map<Buffer, Buffer>)].map(([k, v]) => [k.toString(), v.toString()]));
  const byStatus = Object.fromEntries(letters.map((m) => [h(m)[DLQ_HEADERS.status], m]));
  assert.deepEqual(Object.keys(byStatus).sort(), ['400', '403', '404']);
  assert.equal(letters.length, 4);
  const notJson = letters.find((m) => /not valid JSON/.test(h(m)[DLQ_HEADERS.reason]))!;
  assert.ok(notJson, 'the record that is not JSON');
  assert.equal(notJson.value.toString(), '{not json', 'the original value');
  assert.equal(notJson.key.toString(), 'poison', 'the original key');
  assert.equal(h(notJson)['content-type'], 'application/cloudevents+json', 'the original headers');
  assert.equal(h(notJson)[DLQ_HEADERS.topic], topic);
  assert.match(h(notJson)[DLQ_HEADERS.offset], /^\d+$/);
  assert.match(h(notJson)[DLQ_HEADERS.partition], /^\d+$/);
  assert.match(letters.map((m) => h(m)[DLQ_HEADERS.reason]).join('\n'), /'type' is missing/);
  assert.match(h(byStatus['404'])[DLQ_HEADERS.reason], /no workflow definition consumes events of type "kafka.nobody"/);
  assert.match(h(byStatus['403'])[DLQ_HEADERS.reason], /swflowworkflowid/);
  // Metrics: dead letters by reason, records by outcome.
  const registry = enableMetrics().registry;
  const value = async (name: string, labels: Record<string, string>) =>
    ((await registry.getSingleMetric(name)!.get()).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0);
  assert.equal(await value('swflow_kafka_dead_lettered_total', { topic, reason: 'invalid' }), 2);
  assert.equal(await value('swflow_kafka_dead_lettered_total', { topic, reason: 'unrouted' }), 1);
  assert.equal(await value('swflow_kafka_dead_lettered_total', { topic, reason: 'refused' }), 1);
  assert.equal(await value('swflow_kafka_consumed_total', { topic, outcome: 'dead-lettered' }), 4);
  const accepted = await value('swflow_kafka_consumed_total', { topic, outcome: 'accepted' });
  assert.equal(accepted, accessLog.filter((e) => e.status === 202).length);
  // The lag gauge: every partition consumed to its end.
  const lags = await waitFor('the lag gauge at 0 on every partition', async () => {
    const v = (await registry.getSingleMetric('swflow_kafka_consumer_lag')!.get()).values.filter((x) => x.labels.topic === topic);
    return v.length === 3 && v.every((x) => x.value === 0) ? v : undefined;
  });
  console.log(`kafka dead letters: 4 poison records (not JSON, no type, unrouted, refused) in ${dlq} with reason headers; the next record routed; metrics accepted=${accepted} dead-lettered=4; lag ${lags.map((l) => l.value).join('/')}`);
});

test('while Temporal is unreachable nothing is committed; a gateway started later (same group) delivers the event', { timeout: 120_000 }, async () => {
  const downTopic = uniqueName('down');
  const downGroup = uniqueName('down-gateway');
  await kafka.createTopic(downTopic, { partitions: 1 });
  const dead = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}` }) });
  const retries: string[] = [];
  const downLog: KafkaLogEntry[] = [];
  const common = { definitions: () => registry.allDefinitions(), brokers: kafka.brokers, topics: [downTopic], groupId: downGroup, lagIntervalMs: 200, accessLog: (e: KafkaLogEntry) => downLog.push(e) };
  const stuck = await startKafkaInbound({ ...common, client: dead, temporalTimeoutMs: 500, retryDelayMs: 100, log: (m) => /retrying/.test(m) && retries.push(m) });
  await send(downTopic, [{ id: 'down-1', type: 'kafka.greet', source: 'web', data: { name: 'Late' } }], 'structured');
  await waitFor('3 retries', () => retries.length >= 3 || undefined);
  assert.match(retries[0], /not committed/);
  const committed = await stuck.consumer.listCommittedOffsets({ topics: [{ topic: downTopic, partitions: [0] }] });
  assert.deepEqual(committed.get(downTopic), [-1n], 'no offset committed');
  const lag = await waitFor('the lag gauge shows the record', async () => (await enableMetrics().registry.getSingleMetric('swflow_kafka_consumer_lag')!.get()).values.find((v) => v.labels.topic === downTopic && v.value === 1));
  assert.equal(lag.value, 1);
  await stuck.close();
  assert.deepEqual([...new Set(downLog.map((e) => e.status))], [503], 'only the attempt cut short by close(): not taken, not committed');

  const back = await startKafkaInbound({ ...common, client });
  try {
    assert.deepEqual(await result('kgreeter/web/down-1'), { request: { name: 'Late' } });
    await waitFor('offset 1 committed', async () => (await back.consumer.listCommittedOffsets({ topics: [{ topic: downTopic, partitions: [0] }] })).get(downTopic)?.[0] === 1n || undefined);
  } finally {
    await back.close();
    await dead.connection.close().catch(() => undefined);
  }
  console.log(`kafka Temporal down: ${retries.length} retries, nothing committed, lag 1; the next gateway of the group delivered down-1 and committed offset 1`);
});

test('keyConcurrency: records of different keys of one partition at once, each key in order, offsets committed contiguously', { timeout: 120_000 }, async () => {
  const keyTopic = uniqueName('keys');
  await kafka.createTopic(keyTopic, { partitions: 1 });
  const log: KafkaLogEntry[] = [];
  const concurrent = await startKafkaInbound({ client, definitions: () => registry.allDefinitions(), brokers: kafka.brokers, topics: [keyTopic], groupId: uniqueName('keys-gateway'), keyConcurrency: 4, accessLog: (e) => log.push(e) });
  try {
    const keys = ['ka', 'kb', 'kc', 'kd', 'ke'];
    const messages = [];
    for (let i = 1; i <= 3; i++) {
      for (const k of keys) {
        const r = recordFromEvent({ specversion: '1.0', id: `${k}-${i}`, type: 'kafka.tick', source: 'ticker', runkey: k, data: { i } }, 'binary', k);
        messages.push({ topic: keyTopic, key: r.key, value: r.value ?? undefined, headers: bytes(r.headers) });
      }
    }
    await producer.send({ messages } as never);
    for (const k of keys) assert.deepEqual(await result(`kcollect/runkey=${k}`), { ids: [1, 2, 3] }, `${k}'s events in order`);
    await waitFor('offset 15 committed', async () => (await concurrent.consumer.listCommittedOffsets({ topics: [{ topic: keyTopic, partitions: [0] }] })).get(keyTopic)?.[0] === 15n || undefined);
    // Handled at once: some record's handling began before the previous record's ended.
    const spans = log.map((e) => ({ start: Date.parse(e.time), end: Date.parse(e.time) + e.ms })).sort((a, b) => a.start - b.start);
    const overlapping = spans.filter((s, i) => i > 0 && s.start < spans[i - 1].end).length;
    assert.ok(overlapping > 0, 'records of different keys overlapped');
    console.log(`kafka keyConcurrency 4: 15 records of 5 keys in one partition, ${overlapping} handled while another was, each key in order, offset 15 committed`);
  } finally {
    await concurrent.close();
  }
});

test('two gateways of one group share the partitions; each event is taken once', { timeout: 120_000 }, async () => {
  const sharedTopic = uniqueName('shared');
  const sharedGroup = uniqueName('shared-gateway');
  await kafka.createTopic(sharedTopic, { partitions: 4 });
  const logs: KafkaLogEntry[][] = [[], []];
  const start = (n: number) => startKafkaInbound({ client, definitions: () => registry.allDefinitions(), brokers: kafka.brokers, topics: [sharedTopic], groupId: sharedGroup, clientId: `replica-${n}`, sessionTimeoutMs: 6_000, accessLog: (e) => logs[n].push(e) });
  const first = await start(0);
  const second = await start(1);
  try {
    // Both members in the group (the first rejoined when the second came).
    await waitFor('both replicas assigned partitions', () => (first.consumer.assignments?.length ?? 0) > 0 && (second.consumer.assignments?.length ?? 0) > 0 || undefined);
    const events = Array.from({ length: 40 }, (_, i) => ({ id: `shared-${i}`, type: 'kafka.greet', source: 'web', data: { name: `S${i}` } }));
    for (const e of events) await send(sharedTopic, [e], 'structured', e.id);
    await waitFor('40 records taken', () => logs[0].length + logs[1].length >= 40 || undefined);
    await new Promise((r) => setTimeout(r, 1_000)); // a record taken twice would show by now
    const taken = [...logs[0], ...logs[1]].map((e) => e.id);
    assert.equal(new Set(taken).size, 40, 'every record taken');
    // At least once: a rebalance may hand a record a member had fetched to the other; each start is
    // still made once (the start id's reuse policy), and each run has its one event.
    const twice = taken.length - 40;
    assert.ok(twice <= 4, `${twice} records taken twice: more than one rebalance's worth`);
    assert.ok(logs[0].length > 0 && logs[1].length > 0, `both replicas took records (${logs[0].length} and ${logs[1].length})`);
    for (let i = 0; i < 40; i++) assert.deepEqual(await result(`kgreeter/web/shared-${i}`), { request: { name: `S${i}` } });
    console.log(`kafka replicas: one group, 4 partitions, 40 records → ${logs[0].length} + ${logs[1].length} (${twice} taken twice in a rebalance), 40 runs each with its event`);
  } finally {
    await Promise.all([first.close(), second.close()]);
  }
});

test('bad Kafka flags are refused, naming the flag', { timeout: 120_000 }, async () => {
  const cases: [string[], RegExp][] = [
    [['--kafka-topics', 'a'], /--kafka-topics needs --kafka-brokers/],
    [['--kafka-brokers', '127.0.0.1:99999', '--kafka-topics', 'a'], /--kafka-brokers: '127.0.0.1:99999' has no valid port/],
    [['--kafka-brokers', '127.0.0.1:9092'], /no topic is: name the topics to consume with --kafka-topics/],
    [['--kafka-brokers', '127.0.0.1:9092', '--kafka-topics', 'bad topic'], /--kafka-topics: 'bad topic' is not a Kafka topic name/],
    [['--kafka-brokers', '127.0.0.1:9092', '--kafka-topics', 'a', '--kafka-dead-letter-topic', 'a'], /--kafka-dead-letter-topic: 'a' is also a consumed topic/],
  ];
  for (const [args, message] of cases) {
    const r = await runSwflow(env.address, ['gateway', '--definitions', dir, '--port', '0', ...args]);
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.err, message, args.join(' '));
  }
  const unreachable = await runSwflow(env.address, ['gateway', '--definitions', dir, '--port', '0', '--kafka-brokers', `127.0.0.1:${await freePort()}`, '--kafka-topics', 'a'], { SWFLOW_KAFKA_SASL_MECHANISM: 'PLAIN', SWFLOW_KAFKA_USERNAME: 'u', SWFLOW_KAFKA_PASSWORD: 'sekret-pw' });
  assert.notEqual(unreachable.code, 0);
  assert.match(unreachable.err, /Kafka \(brokers 127\.0\.0\.1:\d+, topics a\): cannot consume/);
  assert.doesNotMatch(unreachable.err + unreachable.out, /sekret-pw/, 'the SASL password is never printed');
  console.log(`kafka flags: ${cases.length} bad flag sets refused by name; an unreachable cluster named at start, the SASL password not printed`);
});

/** `swflow gateway` as a long-running child process on a free port; its output so far, and a graceful stop. */
async function spawnGateway(args: string[]) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'bin', 'swflow.js'), 'gateway', '--definitions', dir, '--port', String(port), '--no-access-log', ...args], {
    env: { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  const readyz = () => fetch(`${url}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as { ok: boolean; error?: string } }), () => undefined);
  return {
    output: () => output,
    exitCode: () => child.exitCode,
    readyz,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const late = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(late);
    },
  };
}

test('swflow gateway on a topic that does not exist: up and not ready, naming the topic, said once; created later, it joins and its events start runs', { timeout: 180_000 }, async () => {
  const later = uniqueName('later');
  const gw = await spawnGateway(['--kafka-brokers', kafka.brokers.join(','), '--kafka-topics', later, '--kafka-group', uniqueName('later-gateway')]);
  try {
    const waiting = await waitFor('/readyz naming the missing topic', async () => {
      assert.equal(gw.exitCode(), null, `the gateway exited:\n${gw.output()}`);
      const r = await gw.readyz();
      return r && r.status === 503 && /does not exist/.test(r.body.error ?? '') ? r : undefined;
    }, 90_000);
    assert.match(waiting.body.error!, new RegExp(`the Kafka topic ${later} does not exist on ${kafka.brokers[0]}`));
    // Two checks of the topic later: still up, still not ready, and the wait said once.
    await new Promise((r) => setTimeout(r, 6_000));
    assert.equal(gw.exitCode(), null, gw.output());
    assert.equal((await gw.readyz())?.status, 503);
    const said = gw.output().split('\n').filter((l) => l.includes(`topic ${later} does not exist`));
    assert.equal(said.length, 1, `said once:\n${gw.output()}`);
    assert.match(said[0], /waiting for it to be created/);

    await kafka.createTopic(later, { partitions: 1 });
    await waitFor('/readyz 200 once the topic exists', async () => (await gw.readyz())?.status === 200 || undefined, 60_000);
    await send(later, [{ id: 'late-1', type: 'kafka.greet', source: 'web', data: { name: 'Late topic' } }], 'binary');
    assert.deepEqual(await result('kgreeter/web/late-1'), { request: { name: 'Late topic' } });
    assert.match(gw.output(), new RegExp(`${later} exists now; joining the group`));
    console.log(`kafka missing topic: the gateway stayed up, /readyz 503 "${waiting.body.error}"; topic created → ready, late-1 started its run`);
  } finally {
    await gw.stop();
  }
});

test('--kafka-create-topics (or SWFLOW_KAFKA_CREATE_TOPICS=1) creates the topic and its dead-letter topic; the gateway is ready; a second start finds them', { timeout: 180_000 }, async () => {
  const base: GatewayCliOptions = { maxBody: '1000', bodyTimeout: '1000', temporalTimeout: '1000', accessLog: false, mqttProtocol: '4', kafkaBrokers: kafka.brokers.join(','), kafkaTopics: ['t'] };
  assert.equal(gatewaySettings(base, () => undefined).kafka?.createTopics, false);
  assert.equal(gatewaySettings({ ...base, kafkaCreateTopics: true }, () => undefined).kafka?.createTopics, true);
  process.env.SWFLOW_KAFKA_CREATE_TOPICS = '1';
  try {
    assert.equal(gatewaySettings(base, () => undefined).kafka?.createTopics, true);
  } finally {
    delete process.env.SWFLOW_KAFKA_CREATE_TOPICS;
  }

  const made = uniqueName('made');
  for (const round of [1, 2]) {
    const gw = await spawnGateway(['--kafka-brokers', kafka.brokers.join(','), '--kafka-topics', made, '--kafka-group', uniqueName('made-gateway'), '--kafka-create-topics']);
    try {
      await waitFor(`/readyz 200 (start ${round})`, async () => {
        assert.equal(gw.exitCode(), null, `the gateway exited:\n${gw.output()}`);
        return (await gw.readyz())?.status === 200 || undefined;
      }, 90_000);
      if (round === 1) assert.match(gw.output(), new RegExp(`created topics ${made}, ${deadLetterTopicOf(made)}`));
      else assert.doesNotMatch(gw.output(), /created topic/, 'the topics exist: nothing created, no error');
      assert.doesNotMatch(gw.output(), /does not exist/);
    } finally {
      await gw.stop();
    }
  }
  const admin = new Admin({ clientId: 'kafka-test-admin', bootstrapBrokers: kafka.brokers });
  try {
    const topics = await admin.listTopics();
    assert.ok(topics.includes(made) && topics.includes(deadLetterTopicOf(made)), 'both topics exist');
  } finally {
    await admin.close();
  }
  console.log(`kafka --kafka-create-topics: ${made} and ${deadLetterTopicOf(made)} created with the broker's defaults, ready; started again: nothing to create, ready`);
});
