/**
 * Tracing across Kafka, inbound: a binary-mode record whose `ce_traceparent` header carries the
 * sender's trace starts a 1.0 run through the gateway's Kafka consumer; the consumer's span
 * continues that trace and the run's spans are below it. A real broker (test/helpers/kafka-broker.ts),
 * a real dev server, spans received by a real OTLP/HTTP receiver (as test/tracing/tracing.test.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { kafkaAvailable, startKafka, uniqueName, type KafkaCluster, startAlongside } from '../helpers/kafka-broker';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

const received: OtlpSpan[] = [];
const stops: (() => Promise<unknown>)[] = [];
let server: Server;
let kafka: KafkaCluster;
let env: any;
let tracingApi: typeof import('../../src/tracing');
let topic: string;
let producer: import('@platformatic/kafka').Producer;
const workflowIds: string[] = [];

before(async () => {
  const available = kafkaAvailable();
  assert.ok(available.ok, `this test needs the Kafka broker: ${available.ok ? '' : available.why}`);
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const request = JSON.parse(text) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const rs of request.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) received.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
  tracingApi = await import('../../src/tracing');
  assert.ok(tracingApi.startTracingIf('swflow-kafka-test'));

  const dir = mkdtempSync(join(tmpdir(), 'swflow-kafka-tracing-'));
  writeFileSync(join(dir, 'traced.sw.json'), JSON.stringify({ document: { dsl: '1.0.0', namespace: 'test', name: 'kafka-traced', version: '1.0.0' }, schedule: { on: { one: { with: { type: 'trace.kafka.placed' } } } }, do: [{ s: { set: { got: '${ .[0].data }' } } }] }));
  const { createLocalEnv } = await import('../../src/platform/dev-server');
  const { bundleInterpreter, createInterpreterWorker } = await import('../../src/worker/interpreter-worker');
  const { DefinitionRegistry } = await import('../../src/definitions/registry');
  const { startKafkaInbound } = await import('../../src/gateway/kafka');
  const { Client } = await import('@temporalio/client');
  const { Producer } = await import('@platformatic/kafka');
  [kafka, env] = await startAlongside(startKafka(), createLocalEnv((m) => console.error(m)), (e) => e.teardown());
  topic = uniqueName('traced');
  await kafka.createTopic(topic, { partitions: 1 });
  const worker = await createInterpreterWorker({ connection: env.nativeConnection, definitions: [dir], workflowBundle: await bundleInterpreter() });
  const running = worker.run();
  stops.push(async () => {
    worker.shutdown();
    await running;
  });
  const registry = new DefinitionRegistry([dir]);
  const client = new Client({ connection: env.connection, ...tracingApi.clientInterceptors() });
  const inbound = await startKafkaInbound({ client, definitions: () => registry.allDefinitions(), brokers: kafka.brokers, topics: [topic], groupId: uniqueName('traced-gateway'), accessLog: (e) => workflowIds.push(...(e.workflowIds ?? [])) });
  stops.push(() => inbound.close());
  producer = new Producer({ clientId: 'traced-producer', bootstrapBrokers: kafka.brokers });
  stops.push(() => producer.close());
});

after(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await env?.teardown();
  await kafka?.close();
  await tracingApi?.tracing()?.shutdown();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
});

test('a ce_traceparent header joins the trace: the gateway\'s consumer span has the sender\'s span as parent, the run is below it', { timeout: 120_000 }, async () => {
  const traceId = randomBytes(16).toString('hex');
  const senderSpan = randomBytes(8).toString('hex');
  const headers = new Map(
    Object.entries({ ce_specversion: '1.0', ce_id: 'tk-1', ce_source: 'shop', ce_type: 'trace.kafka.placed', ce_traceparent: `00-${traceId}-${senderSpan}-01`, 'content-type': 'application/json' }).map(([k, v]) => [Buffer.from(k), Buffer.from(v)]),
  );
  await producer.send({ messages: [{ topic, key: Buffer.from('tk'), value: Buffer.from('{"id":"o-1"}'), headers }] });
  for (let i = 0; i < 300 && !workflowIds.length; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(workflowIds.length, 1, 'the record started a run');
  assert.deepEqual(await env.client.workflow.getHandle(workflowIds[0]).result(), { got: { id: 'o-1' } });
  const names = () => new Set(received.filter((s) => s.traceId === traceId).map((s) => s.name));
  for (let i = 0; i < 100 && !names().has('run test/kafka-traced'); i++) {
    await tracingApi.tracing()!.flush();
    await new Promise((r) => setTimeout(r, 100));
  }
  const spans = received.filter((s) => s.traceId === traceId);
  const consumer = spans.find((s) => s.name === 'gateway trace.kafka.placed');
  assert.ok(consumer, `the consumer's span in the sender's trace; spans: ${[...names()].join(', ')}`);
  assert.equal(consumer.parentSpanId, senderSpan);
  const start = spans.find((s) => /^(SignalWithStartWorkflow|StartWorkflow):test\/kafka-traced$/.test(s.name));
  assert.equal(start?.parentSpanId, consumer.spanId, 'the run is started under the consumer span');
  assert.ok(names().has('run test/kafka-traced'), 'the run\'s span in the trace');
  console.log(`kafka tracing: ce_traceparent → consumer span (parent: the sender's span) → ${start!.name} → the run; ${spans.length} spans in the trace`);
});
