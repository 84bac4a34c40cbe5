/**
 * Produced and lifecycle CloudEvents out to Kafka (src/kafka/sink.ts), against a real Apache
 * Kafka broker (test/helpers/kafka-broker.ts) and a real Temporal dev server: a 0.8 `produce` and
 * a 1.0 `emit` with lifecycle events on, written by the interpreter worker in binary and
 * structured mode and read back with a consumer (attributes, data, keys, one run's order,
 * `ce_traceparent` with tracing on, the produced metric); a broker that is down fails the
 * producing activity until it is back, and the run completes; `swflow worker --event-sink
 * kafka://… --lifecycle-events` as a process; bad sink URLs named.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { Consumer } from '@platformatic/kafka';
import type { CloudEventJson } from '../../src/common/contracts';
import type { Definition, Json } from '../../src/common/model';
import { kafkaAvailable, startKafka, uniqueName, type KafkaCluster, startAlongside } from '../helpers/kafka-broker';
import { waitFor } from '../helpers/wait';

const ROOT = join(__dirname, '..', '..');
const QUEUE = 'swflow-kafka-sink';
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

let kafka: KafkaCluster;
let env: TestWorkflowEnvironment;
let otlp: Server;
let dir: string;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let closeSinks: () => Promise<void> = async () => undefined;
let binaryTopic: string;
let structuredTopic: string;
let n = 0;
let api: {
  tracing: typeof import('../../src/tracing');
  metrics: typeof import('../../src/metrics');
  binding: typeof import('../../src/kafka/binding');
  sink: typeof import('../../src/gateway/sink');
  helpers: typeof import('../workflow/helpers');
  stop: typeof import('../../src/worker/stop');
};

const available = kafkaAvailable();

before(async () => {
  if (!available.ok) throw new Error(`the Kafka broker cannot run here: ${available.why}`);
  // Tracing on for this file (as test/tracing does): an OTLP receiver that takes and drops spans.
  otlp = createServer((req, res) => req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')));
  await new Promise<void>((r) => otlp.listen(0, '127.0.0.1', r));
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${(otlp.address() as AddressInfo).port}/v1/traces`;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
  const tracing = await import('../../src/tracing');
  assert.ok(tracing.startTracingIf('swflow-kafka-sink-test'), 'tracing is on');
  api = {
    tracing,
    metrics: await import('../../src/metrics'),
    binding: await import('../../src/kafka/binding'),
    sink: await import('../../src/gateway/sink'),
    helpers: await import('../workflow/helpers'),
    stop: await import('../../src/worker/stop'),
  };
  api.metrics.enableMetrics();
  const { startDevEnv } = await import('../helpers/temporal');
  const { createInterpreterWorker } = await import('../../src/worker/interpreter-worker');
  const started = Date.now();
  [kafka, env] = await startAlongside(startKafka({ nodes: 1 }), startDevEnv(), (e) => e.teardown());
  console.log(`kafka-sink: one Kafka node and a dev server up in ${Date.now() - started} ms`);
  binaryTopic = uniqueName('sink-binary');
  structuredTopic = uniqueName('sink-structured');
  await kafka.createTopic(binaryTopic, { partitions: 3 });
  await kafka.createTopic(structuredTopic, { partitions: 3 });
  const sinks = api.sink.eventSinks([`kafka://${kafka.brokers.join(',')}/${binaryTopic}`, `kafka://${kafka.brokers.join(',')}/${structuredTopic}?mode=structured`]);
  closeSinks = sinks.close;
  workers = [
    await createInterpreterWorker({
      connection: env.nativeConnection,
      taskQueue: QUEUE,
      definitions: [],
      workflowBundle: await api.helpers.sharedBundle(),
      lifecycleEvents: true,
      eventSinks: sinks.sinks,
    }),
  ];
  runs = workers.map((w) => w.run());
  dir = mkdtempSync(join(tmpdir(), 'swflow-kafka-sink-'));
});

after(async () => {
  if (api) await api.stop.stopWorkers(workers, runs);
  await closeSinks?.();
  await env?.teardown();
  await kafka?.close();
  await api?.tracing.tracing()?.shutdown();
  await new Promise((r) => (otlp ? otlp.close(r) : r(undefined)));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface ReadRecord {
  key?: string;
  partition: number;
  offset: bigint;
  headers: Map<string, string>;
  value: Buffer;
  event: CloudEventJson;
}

/** Reads `topic` from its start (a group of its own) until `done` says the records are all there. */
async function readTopic(topic: string, done: (records: ReadRecord[]) => boolean, timeoutMs = 30_000): Promise<ReadRecord[]> {
  const consumer = new Consumer({ groupId: uniqueName('reader'), clientId: 'kafka-sink-test', bootstrapBrokers: kafka.brokers, maxWaitTime: 200 });
  const records: ReadRecord[] = [];
  try {
    const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          for await (const m of stream) {
            const headers = api.binding.textHeaders(m.headers as Map<Buffer, Buffer>);
            const value = m.value ?? Buffer.alloc(0);
            records.push({ key: m.key?.length ? m.key.toString('utf8') : undefined, partition: m.partition, offset: m.offset, headers, value, event: api.binding.eventFromKafka({ key: m.key, value, headers }) });
            if (done(records)) return;
          }
        })(),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out reading ${topic}: ${records.length} records, ${JSON.stringify(records.map((r) => `${r.event.type} key=${r.key} p${r.partition}@${r.offset}`))}`)), timeoutMs))),
      ]);
    } finally {
      clearTimeout(timer);
      await stream.close();
    }
  } finally {
    await consumer.close(true);
  }
  return records;
}

async function start(definition: Definition, input: Json = {}, taskQueue = QUEUE) {
  const workflowId = `ksink-${definition.id.replace(/[^a-z0-9]/gi, '-')}-${++n}-${Date.now().toString(36)}`;
  const handle = await env.client.workflow.start(definition.id, { taskQueue, workflowId, args: [input, { definition }] });
  return { workflowId, handle };
}

const produced = async (outcome: string): Promise<number> =>
  (await api.metrics.metrics()!.registry.getSingleMetric('swflow_events_produced_total')!.get()).values.find((v) => v.labels.sink === 'kafka' && v.labels.outcome === outcome)?.value ?? 0;

const short = (t: string) => t.replace(/^io\.serverlessworkflow\.|\.v1$/g, '');

function v08Produce() {
  return api.helpers.def({
    id: 'kafka-produce',
    version: '1.0',
    start: 'Produce',
    events: [
      { name: 'OrderPlaced', type: 'test.order.placed', source: '/orders', kind: 'produced' },
      { name: 'OrderNoted', type: 'test.order.noted', source: '/orders', kind: 'produced' },
    ],
    states: [
      {
        name: 'Produce',
        type: 'inject',
        data: {},
        end: {
          produceEvents: [
            { eventRef: 'OrderPlaced', data: '${ {order: .order, total: .total} }', contextAttributes: { partitionkey: '${ .customer }' } },
            { eventRef: 'OrderNoted', data: '${ {order: .order} }' },
          ],
        },
      },
    ],
  });
}

function v1Emit(name = 'kafka-emit') {
  return api.helpers.loadAny({
    document: { dsl: '1.0.0', namespace: 'tests', name, version: '0.1.0' },
    do: [{ prepare: { set: { greeting: 'hello kafka', n: 42 } } }, { tell: { emit: { event: { with: { type: 'test.kafka.emitted', source: 'https://swflow.test/kafka', data: { greeting: '${ .greeting }', n: '${ .n }' } } } } } }],
  });
}

test('0.8 produce and 1.0 emit with lifecycle events: binary and structured records, attributes and data intact, keyed by partitionkey else the workflow id, one run in order, ce_traceparent', async () => {
  const okBefore = await produced('ok');
  const t0 = Date.now();
  const p = await start(await v08Produce(), { order: 'o-17', total: 99.5, customer: 'cust-7' });
  await p.handle.result();
  const e = await start(await v1Emit());
  await e.handle.result();
  const ranMs = Date.now() - t0;

  // Everything of both runs: the two produced events, the emitted one and the runs' lifecycle events.
  const complete = (records: ReadRecord[]) =>
    ['test.order.placed', 'test.order.noted', 'test.kafka.emitted'].every((t) => records.some((r) => r.event.type === t)) &&
    records.filter((r) => r.key === e.workflowId && r.event.type === 'io.serverlessworkflow.workflow.completed.v1').length > 0 &&
    records.filter((r) => r.key === p.workflowId && r.event.type === 'io.serverlessworkflow.workflow.completed.v1').length > 0;
  const [binary, structured] = await Promise.all([readTopic(binaryTopic, complete), readTopic(structuredTopic, complete)]);

  for (const [mode, records] of [['binary', binary], ['structured', structured]] as const) {
    const placed = records.find((r) => r.event.type === 'test.order.placed')!;
    const noted = records.find((r) => r.event.type === 'test.order.noted')!;
    const emitted = records.find((r) => r.event.type === 'test.kafka.emitted')!;
    // Attributes and data as the run built them.
    assert.equal(placed.event.source, '/orders', mode);
    assert.equal(placed.event.specversion, '1.0', mode);
    assert.equal(placed.event.datacontenttype, 'application/json', mode);
    assert.equal(placed.event.partitionkey, 'cust-7', mode);
    assert.deepEqual(placed.event.data, { order: 'o-17', total: 99.5 }, mode);
    assert.deepEqual(noted.event.data, { order: 'o-17' }, mode);
    assert.deepEqual(emitted.event.data, { greeting: 'hello kafka', n: 42 }, mode);
    assert.equal(emitted.event.source, 'https://swflow.test/kafka', mode);
    // Keys: partitionkey when the event has one, else the producing run's workflow id.
    assert.equal(placed.key, 'cust-7', `${mode}: keyed by partitionkey`);
    assert.equal(noted.key, p.workflowId, `${mode}: keyed by the workflow id`);
    assert.equal(emitted.key, e.workflowId, `${mode}: keyed by the workflow id`);
    // The mode's shape on the wire.
    if (mode === 'binary') {
      assert.equal(placed.headers.get('ce_type'), 'test.order.placed');
      assert.equal(placed.headers.get('ce_id'), placed.event.id);
      assert.equal(placed.headers.get('content-type'), 'application/json');
      assert.deepEqual(JSON.parse(placed.value.toString('utf8')), { order: 'o-17', total: 99.5 }, 'binary: the value is the data');
      for (const r of records) assert.match(r.headers.get('ce_traceparent') ?? '', TRACEPARENT, `${r.event.type}: ce_traceparent`);
    } else {
      assert.match(placed.headers.get('content-type') ?? '', /^application\/cloudevents\+json/);
      assert.equal([...placed.headers.keys()].some((k) => k.startsWith('ce_')), false, 'structured: no ce_ headers');
      assert.equal(JSON.parse(placed.value.toString('utf8')).id, placed.event.id, 'structured: the value is the event');
      for (const r of records) assert.match(String(r.event.traceparent ?? ''), TRACEPARENT, `${r.event.type}: traceparent`);
    }
    // One run's records: one partition, in the order the run produced them.
    const ofRun = records.filter((r) => r.key === e.workflowId);
    assert.equal(new Set(ofRun.map((r) => r.partition)).size, 1, `${mode}: one run, one partition`);
    const offsets = ofRun.map((r) => r.offset);
    assert.deepEqual(offsets, [...offsets].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    // Lifecycle events are chained (each one written once the previous one was): in the run's order.
    // (They trail the run without holding it up, so an `emit` may come out before earlier lifecycle events.)
    const seq = ofRun.filter((r) => r.event.type.startsWith('io.serverlessworkflow.')).map((r) => `${short(r.event.type)}${r.event.subject ? ` ${r.event.subject}` : ''}`);
    const expected = ['workflow.started', 'workflow.status-changed', 'task.created /do/0/prepare', 'task.started /do/0/prepare', 'task.completed /do/0/prepare', 'task.created /do/1/tell', 'task.started /do/1/tell', 'task.completed /do/1/tell', 'workflow.status-changed', 'workflow.completed'];
    assert.deepEqual(seq, expected, `${mode}: lifecycle events in order`);
    assert.equal(ofRun.filter((r) => r.event.type === 'test.kafka.emitted').length, 1, `${mode}: the emitted event among them`);
    console.log(`kafka-sink ${mode}: ${records.length} records read back; run ${e.workflowId}: ${ofRun.length} records in partition ${ofRun[0].partition}, in order (${seq.join(' → ')})`);
  }
  const written = binary.length + structured.length;
  const okAfter = await produced('ok');
  assert.ok(okAfter - okBefore >= written, `swflow_events_produced_total{sink="kafka",outcome="ok"} counted ${okAfter - okBefore} for ${written} records`);
  console.log(`kafka-sink: two runs (0.8 produce, 1.0 emit with lifecycle events) in ${ranMs} ms; ${written} records written to two topics; produced metric ok +${okAfter - okBefore}`);
});

test('concurrent events through one sink, all to one partition: none lost, none doubled (one send in flight per idempotent producer)', async () => {
  const topic = uniqueName('sink-concurrent');
  await kafka.createTopic(topic, { partitions: 1 });
  const sink = api.sink.eventSinks([`kafka://${kafka.brokers[0]}/${topic}`]);
  const count = 2000;
  const t0 = Date.now();
  try {
    await Promise.all(Array.from({ length: count }, (_, i) => sink.sinks[0]({ specversion: '1.0', id: `c-${i}`, type: 'test.concurrent', source: '/c', data: { i } }, { workflowId: `w-${i % 7}`, runId: 'r' })));
  } finally {
    await sink.close();
  }
  const writeMs = Date.now() - t0;
  const records = await readTopic(topic, (rs) => rs.length >= count, 60_000);
  const ids = records.map((r) => r.event.id);
  assert.equal(new Set(ids).size, count, 'every event written');
  assert.equal(ids.length, count, 'none twice');
  // Events of one key keep the order they were given in.
  const ofKey = records.filter((r) => r.key === 'w-3').map((r) => (r.event.data as { i: number }).i);
  assert.deepEqual(ofKey, [...ofKey].sort((a, b) => a - b));
  console.log(`kafka-sink concurrency: ${count} concurrent events → ${records.length} records, ${new Set(ids).size} distinct, in ${writeMs} ms (${Math.round((count * 1000) / writeMs)} events/s through one sink)`);
});

test('a broker that is down fails the producing activity, Temporal retries it, and the event arrives once the broker is back: the run completes', async () => {
  const errorsBefore = await produced('error');
  await kafka.stopNode(0);
  const stoppedAt = Date.now();
  const e = await start(await v1Emit('kafka-emit-down'));
  try {
    await waitFor('a failed write while the broker is down', async () => ((await produced('error')) > errorsBefore ? true : undefined), 60_000);
    const failed = await waitFor(
      'the emit activity to report its failure',
      async () => {
        const d = await e.handle.describe();
        const pending = (d.raw.pendingActivities ?? []).find((a) => a.lastFailure?.message && /could not write event test\.kafka\.emitted/.test(a.lastFailure.message));
        return pending ? { attempt: pending.attempt ?? 0, message: pending.lastFailure!.message! } : undefined;
      },
      60_000,
    );
    assert.match(failed.message, new RegExp(`event sink kafka://127\\.0\\.0\\.1:\\d+/${binaryTopic} could not write event test\\.kafka\\.emitted`));
    console.log(`kafka-sink broker down: the emit failed (attempt ${failed.attempt}) after ${Date.now() - stoppedAt} ms: ${failed.message.slice(0, 400)}`);
  } finally {
    await kafka.startNode(0);
  }
  const restartedAt = Date.now();
  await e.handle.result();
  const completedAfterMs = Date.now() - restartedAt;
  const records = await readTopic(binaryTopic, (rs) => rs.some((r) => r.key === e.workflowId && r.event.type === 'test.kafka.emitted') && rs.some((r) => r.key === e.workflowId && r.event.type === 'io.serverlessworkflow.workflow.completed.v1'));
  const emitted = records.filter((r) => r.key === e.workflowId && r.event.type === 'test.kafka.emitted');
  assert.ok(emitted.length >= 1);
  assert.equal(new Set(emitted.map((r) => r.event.id)).size, 1, 'one event (a retried write may repeat it: the same id)');
  console.log(`kafka-sink broker down: ${(await produced('error')) - errorsBefore} failed writes; the run completed ${completedAfterMs} ms after the broker was back; emitted event read back ${emitted.length}x`);
});

test('swflow worker --event-sink kafka://… --lifecycle-events: the interpreter worker process writes a run\'s produced and lifecycle events to the topic', async () => {
  const topic = uniqueName('sink-cli');
  await kafka.createTopic(topic, { partitions: 2 });
  const queue = uniqueName('swflow-kafka-cli');
  const file = join(dir, 'cli-emit.yaml');
  writeFileSync(
    file,
    ['document: { dsl: "1.0.0", namespace: tests, name: cli-emit, version: "0.1.0" }', 'do:', '  - tell:', '      emit:', '        event:', '          with: { type: test.cli.emitted, source: "https://swflow.test/cli", partitionkey: cli-key, data: { from: cli } }', ''].join('\n'),
  );
  const sinkUrl = `kafka://${kafka.brokers[0]}/${topic}?mode=structured`;
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'worker', '-d', file, '-q', queue, '--no-schedules', '--event-sink', sinkUrl, '--lifecycle-events'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: env.address, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', SWFLOW_EVENT_SINKS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    await waitFor('the worker to serve', async () => (/serving task queue/.test(out) ? true : undefined), 90_000);
    assert.match(out, new RegExp(`produced events: kafka://127\\.0\\.0\\.1:\\d+/${topic}\\?mode=structured \\(with lifecycle events\\)`));
    const workflowId = uniqueName('ksink-cli');
    const t0 = Date.now();
    await env.client.workflow.execute('tests/cli-emit', { taskQueue: queue, workflowId, args: [{}] }).catch(async (err) => {
      throw new Error(`${(err as Error).message}\n${out}`);
    });
    const records = await readTopic(topic, (rs) => rs.some((r) => r.event.type === 'io.serverlessworkflow.workflow.completed.v1') && rs.some((r) => r.event.type === 'test.cli.emitted'));
    const emitted = records.find((r) => r.event.type === 'test.cli.emitted');
    assert.ok(emitted, `the emitted event: ${records.map((r) => r.event.type).join(', ')}`);
    assert.equal(emitted.key, 'cli-key');
    assert.deepEqual(emitted.event.data, { from: 'cli' });
    const lifecycle = records.filter((r) => r.event.type.startsWith('io.serverlessworkflow.'));
    assert.ok(lifecycle.length >= 4, `lifecycle events: ${lifecycle.map((r) => short(r.event.type)).join(', ')}`);
    assert.ok(lifecycle.every((r) => r.key === workflowId), 'lifecycle events keyed by the workflow id');
    console.log(`kafka-sink CLI: swflow worker wrote ${records.length} records (${lifecycle.length} lifecycle) for one run in ${Date.now() - t0} ms`);
  } finally {
    child.kill('SIGTERM');
    const stopAt = Date.now();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 30_000))]);
    if (code === 'timeout') child.kill('SIGKILL');
    assert.equal(code, 0, `swflow worker stops on SIGTERM (closing its Kafka producer): ${out.slice(-2000)}`);
    console.log(`kafka-sink CLI: SIGTERM stopped the worker in ${Date.now() - stopAt} ms, exit code ${code}`);
  }
});

test('bad sink URLs and settings are errors naming the flag or variable and the URL, never its password', async () => {
  const { eventSinks, sinkUrls } = api.sink;
  const cases: [string, RegExp][] = [
    ['ftp://host/x', /--event-sink: ftp:\/\/host\/x is not an event sink: unknown scheme 'ftp'/],
    ['host:9092/topic', /--event-sink: host:9092\/topic is not an event sink: unknown scheme 'host'/],
    ['events', /--event-sink: events is not an event sink: no scheme/],
    ['kafka://127.0.0.1:9092', /--event-sink: kafka:\/\/127\.0\.0\.1:9092 is not a Kafka sink .*no topic/],
    ['kafka:///topic', /no broker/],
    ['kafka://host:notaport/t', /'host:notaport' is not host:port/],
    ['kafka://host:9092/bad topic', /topic 'bad topic' is not a Kafka topic name/],
    ['kafka://host:9092/t?mode=avro', /mode must be binary or structured \(got 'avro'\)/],
    ['kafka://host:9092/t?acks=1', /unknown parameter 'acks'/],
    ['kafka://alice:s3cr3t-pw@host:9092/t?mode=json', /kafka:\/\/\*\*\*@host:9092\/t\?mode=json .*mode must be/],
    ['https://bob:s3cr3t-pw@[bad/', /https:\/\/\*\*\*@\[bad\/ is not a valid URL/],
  ];
  for (const [url, expected] of cases) {
    assert.throws(
      () => eventSinks([url]),
      (err: Error) => {
        assert.match(err.message, expected, url);
        assert.doesNotMatch(err.message, /s3cr3t-pw/, 'no password in the message');
        return true;
      },
    );
  }
  assert.throws(() => eventSinks(sinkUrls(undefined, { SWFLOW_EVENT_SINKS: 'http://ok.example/in,mqtt://broker/t' }).urls, 'SWFLOW_EVENT_SINKS'), /^Error: SWFLOW_EVENT_SINKS: mqtt:\/\/broker\/t is not an event sink: unknown scheme 'mqtt'/);
  assert.deepEqual(sinkUrls(undefined, { SWFLOW_EVENT_SINKS: 'kafka://a:1,b:2/t?mode=structured, https://x.example/in' }), { urls: ['kafka://a:1,b:2/t?mode=structured', 'https://x.example/in'], what: 'SWFLOW_EVENT_SINKS' });
  const ok = eventSinks(['kafka://alice:s3cr3t-pw@a:1,b:2/t', 'http://carol:s3cr3t-pw@x.example/in']);
  assert.deepEqual(ok.shown, ['kafka://***@a:1,b:2/t', 'http://***@x.example/in']);
  await ok.close();
  // The worker process refuses them before it connects anywhere, naming the flag or variable.
  const cli = (args: string[], extra: Record<string, string>) => spawnSync(process.execPath, [join(ROOT, 'bin', 'swflow.js'), ...(args[0] === 'start' ? args : ['worker', '--no-schedules', ...args])], { cwd: ROOT, env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1', SWFLOW_EVENT_SINKS: '', ...extra }, encoding: 'utf8', timeout: 60_000 });
  const checks: [string[], Record<string, string>, RegExp][] = [
    [['--event-sink', 'kafka://dave:s3cr3t-pw@127.0.0.1:9092'], {}, /--event-sink: kafka:\/\/\*\*\*@127\.0\.0\.1:9092 is not a Kafka sink .*no topic/],
    [[], { SWFLOW_EVENT_SINKS: 'kafka://127.0.0.1:9092/t?mode=xml' }, /SWFLOW_EVENT_SINKS: kafka:\/\/127\.0\.0\.1:9092\/t\?mode=xml .*mode must be binary or structured/],
    [['--event-sink', 'kafka://127.0.0.1:9092/t'], { SWFLOW_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256', SWFLOW_KAFKA_USERNAME: 'eve' }, /SWFLOW_KAFKA_SASL_MECHANISM=SCRAM-SHA-256 needs SWFLOW_KAFKA_USERNAME and SWFLOW_KAFKA_PASSWORD/],
    [['start', '--event-sink', 'kafka://frank:s3cr3t-pw@127.0.0.1:9092/t', 'nats://n/x'], {}, /--event-sink: nats:\/\/n\/x is not an event sink: unknown scheme 'nats'/],
    [['--event-sink', 'kafka://gina:s3cr3t-pw@127.0.0.1:9092/t'], { SWFLOW_KAFKA_SASL_MECHANISM: 'GSSAPI' }, /SWFLOW_KAFKA_SASL_MECHANISM must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 \(got "GSSAPI"\)/],
    [[], { SWFLOW_LIFECYCLE_EVENTS: 'maybe' }, /SWFLOW_LIFECYCLE_EVENTS must be true or false \(got "maybe"\)/],
  ];
  for (const [args, extra, expected] of checks) {
    const r = cli(args, extra);
    assert.notEqual(r.status, 0, `${args.join(' ')} ${JSON.stringify(extra)}: exits non-zero`);
    assert.match(r.stderr + r.stdout, expected);
    assert.doesNotMatch(r.stderr + r.stdout, /s3cr3t-pw/);
  }
  console.log(`kafka-sink bad settings: ${cases.length} sink URLs refused by eventSinks(), ${checks.length} by swflow worker and start, none showing a password`);
});

test('a topic that does not exist: a broker that creates topics creates it (the sink, swflow event send --kafka); one that does not refuses, naming the topic and the broker', async () => {
  const event = (id: string): CloudEventJson => ({ specversion: '1.0', id, type: 'test.fresh', source: '/fresh', data: { id } });
  const sendCli = (brokers: string, topic: string, id: string) => spawnSync(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'event', 'send', '--type', 'test.fresh', '--source', '/fresh', '--id', id, '--data', '{"x":1}', '--kafka', brokers, '--topic', topic], { cwd: ROOT, env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:1' }, encoding: 'utf8', timeout: 90_000 });
  // Auto-create on (this file's broker): the first write creates the topic.
  const sinkTopic = uniqueName('fresh-sink');
  const fresh = api.sink.eventSinks([`kafka://${kafka.brokers[0]}/${sinkTopic}`]);
  try {
    await fresh.sinks[0](event('f-1'), { workflowId: 'wf-fresh', runId: 'r' });
  } finally {
    await fresh.close();
  }
  assert.ok((await readTopic(sinkTopic, (rs) => rs.some((r) => r.event.id === 'f-1'))).some((r) => r.event.id === 'f-1'));
  const sendTopic = uniqueName('fresh-send');
  const sent = sendCli(kafka.brokers[0]!, sendTopic, 'f-2');
  assert.equal(sent.status, 0, sent.stderr + sent.stdout);
  assert.match(sent.stdout, new RegExp(`test\\.fresh f-2 → produced to ${sendTopic}`));
  assert.ok((await readTopic(sendTopic, (rs) => rs.some((r) => r.event.id === 'f-2'))).some((r) => r.event.id === 'f-2'));

  // Auto-create off: refused, and the message says what to do.
  const strict = await startKafka({ autoCreateTopics: false });
  try {
    const broker = strict.brokers[0]!;
    const refused = (topic: string) => new RegExp(`topic ${topic} does not exist on ${broker.replaceAll('.', '\\.')} and the broker does not create topics: create it`);
    const missing = uniqueName('missing');
    const sink = api.sink.eventSinks([`kafka://${broker}/${missing}`]);
    const t0 = Date.now();
    try {
      await assert.rejects(sink.sinks[0](event('m-1'), { workflowId: 'w', runId: 'r' }), (err: Error) => {
        assert.match(err.message, new RegExp(`could not write event test\\.fresh \\(m-1\\) to topic ${missing}: `));
        assert.match(err.message, refused(missing));
        return true;
      });
    } finally {
      await sink.close();
    }
    const failedAfter = Date.now() - t0;
    const cli = sendCli(broker, missing, 'm-2');
    assert.notEqual(cli.status, 0);
    assert.match(cli.stderr, refused(missing));
    console.log(`kafka-sink missing topic: created by the auto-creating broker (sink and event send); refused by the strict one after ${failedAfter} ms: ${cli.stderr.trim().split('\n').pop()}`);
  } finally {
    await strict.close();
  }
});

test('the HTTP sink is counted too: swflow_events_produced_total{sink="http"} by outcome', async () => {
  let status = 202;
  const bodies: string[] = [];
  const receiver = createServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c)).on('end', () => {
      bodies.push(b);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const count = async (outcome: string) => (await api.metrics.metrics()!.registry.getSingleMetric('swflow_events_produced_total')!.get()).values.find((v) => v.labels.sink === 'http' && v.labels.outcome === outcome)?.value ?? 0;
  try {
    const [ok0, err0] = [await count('ok'), await count('error')];
    const { sinks } = api.sink.eventSinks([`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`]);
    const event = { specversion: '1.0', id: 'h-1', type: 'test.http', source: '/t' };
    await sinks[0](event, { workflowId: 'w-1', runId: 'r-1' });
    status = 503;
    await assert.rejects(sinks[0]({ ...event, id: 'h-2' }, { workflowId: 'w-1', runId: 'r-1' }), /refused event test\.http \(h-2\): HTTP 503/);
    assert.equal((await count('ok')) - ok0, 1);
    assert.equal((await count('error')) - err0, 1);
    assert.equal(JSON.parse(bodies[0]).id, 'h-1');
    console.log('kafka-sink http: one event accepted and one refused, counted ok +1 and error +1');
  } finally {
    await new Promise((r) => receiver.close(r));
  }
});
