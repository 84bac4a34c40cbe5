/**
 * OpenTelemetry tracing end to end (src/tracing): one process as `swflow start` runs it with the
 * OTEL_* variables set — tracing started first, the interpreter worker (its bundle with
 * Temporal's workflow interceptors), the built-in adapter worker and the gateway in-process — on
 * a real dev server. A CloudEvent carrying a sender's `traceparent` is POSTed to the real gateway;
 * it starts a 1.0 run that calls three real HTTP services and emits an event to a real HTTP sink.
 * The spans arrive at a real OTLP/HTTP receiver (the exporter's own protocol, JSON, over HTTP).
 * Also: every recorded history replays with the traced bundle; JSON log lines carry the trace.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
}

const received: OtlpSpan[] = [];
const contentTypes = new Set<string>();
const serviceHits: { service: string; traceparent?: string; authorization?: string }[] = [];
const produced: Record<string, unknown>[] = [];
const logLines: Record<string, unknown>[] = [];
const servers: Server[] = [];
const stops: (() => Promise<void>)[] = [];
let dir: string;
let env: any;
let gatewayUrl: string;
let tracingApi: typeof import('../../src/tracing');
let tracedClient: import('@temporalio/client').Client;
/** The traced runs, recorded as replay fixtures (test/workflow/replay.test.ts replays them without tracing every time). */
const tracedRuns: { workflowId: string; fixture: string }[] = [];

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s));
  });
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** OTLP's AnyValue as a plain value. */
function anyValue(v: Record<string, unknown>): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('boolValue' in v) return v.boolValue;
  if ('doubleValue' in v) return v.doubleValue;
  return v;
}

before(async () => {
  // The OTLP receiver: ExportTraceServiceRequest in OTLP/JSON, POST /v1/traces.
  const otlp = await listen(async (req, res) => {
    const text = await body(req);
    if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
    contentTypes.add(String(req.headers['content-type']));
    const request = JSON.parse(text) as { resourceSpans: { resource: { attributes: { key: string; value: Record<string, unknown> }[] }; scopeSpans: { spans: any[] }[] }[] };
    for (const rs of request.resourceSpans) {
      const service = String(anyValue(rs.resource.attributes.find((a) => a.key === 'service.name')?.value ?? {}));
      for (const ss of rs.scopeSpans) {
        for (const s of ss.spans) {
          received.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind, service, attributes: Object.fromEntries((s.attributes ?? []).map((a: { key: string; value: Record<string, unknown> }) => [a.key, anyValue(a.value)])) });
        }
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${otlp}/v1/traces`;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
  process.env.TRACED_TOKEN = 'tr4ced-s3cret-t0ken';
  tracingApi = await import('../../src/tracing');
  assert.ok(tracingApi.startTracingIf('swflow-test'), 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT turns tracing on');

  // Three services that record the trace context (and the credential, which must stay out of spans).
  const services: string[] = [];
  for (const name of ['inventory', 'payment', 'shipping']) {
    services.push(
      await listen(async (req, res) => {
        await body(req);
        serviceHits.push({ service: name, traceparent: req.headers.traceparent as string | undefined, authorization: req.headers.authorization });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ [name]: 'ok' }));
      }),
    );
  }
  const sinkUrl = await listen(async (req, res) => {
    produced.push(JSON.parse(await body(req)));
    res.writeHead(202).end();
  });

  dir = mkdtempSync(join(tmpdir(), 'swflow-tracing-'));
  const call = (name: string, url: string) => ({ [name]: { call: 'http', with: { method: 'post', endpoint: { uri: `${url}/${name}`, authentication: { bearer: { token: '${ $secrets.TRACED_TOKEN }' } } }, body: { step: name } }, output: { as: '${ $input }' } } });
  writeFileSync(
    join(dir, 'traced.sw.json'),
    JSON.stringify({
      document: { dsl: '1.0.0', namespace: 'test', name: 'traced', version: '0.3.0' },
      use: { secrets: ['TRACED_TOKEN'] },
      schedule: { on: { one: { with: { type: 'trace.order.placed' } } } },
      do: [call('inventory', services[0]), call('payment', services[1]), call('shipping', services[2]), { notify: { emit: { event: { with: { source: 'https://swflow.test/traced', type: 'trace.order.shipped', data: { shipped: true } } } } } }],
    }),
  );

  // The 0.8 definition: one operation state, three REST actions (an OpenAPI document per service), a produced event.
  ['inventory', 'payment', 'shipping'].forEach((name, i) =>
    writeFileSync(join(dir, `${name}.json`), JSON.stringify({ openapi: '3.0.0', info: { title: name, version: '1' }, servers: [{ url: services[i] }], paths: { [`/${name}`]: { post: { operationId: name, requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '200': { description: 'ok' } } } } } })),
  );
  writeFileSync(
    join(dir, 'traced08.sw.json'),
    JSON.stringify({
      id: 'traced08',
      version: '1.1',
      specVersion: '0.8',
      start: 'Order',
      functions: ['inventory', 'payment', 'shipping'].map((name) => ({ name, operation: `file://${name}.json#${name}` })),
      events: [{ name: 'shipped', type: 'trace.order.shipped08', source: 'https://swflow.test/traced08', kind: 'produced' }],
      states: [
        {
          name: 'Order',
          type: 'operation',
          actions: ['inventory', 'payment', 'shipping'].map((name) => ({ name: `reserve-${name}`, functionRef: { refName: name, arguments: { step: name } }, actionDataFilter: { useResults: false } })),
          end: { produceEvents: [{ eventRef: 'shipped', data: { shipped: true } }] },
        },
      ],
    }),
  );

  const { createLocalEnv } = await import('../../src/platform/dev-server');
  const { bundleInterpreter, createInterpreterWorker } = await import('../../src/worker/interpreter-worker');
  const { createBuiltinAdapterWorker } = await import('../../src/worker/adapter-worker');
  const { DefinitionRegistry } = await import('../../src/definitions/registry');
  const { startGateway } = await import('../../src/gateway/server');
  const { httpSink } = await import('../../src/gateway/sink');
  const { createJsonLogger } = await import('../../src/tracing/log');
  const { Client } = await import('@temporalio/client');
  env = await createLocalEnv((m) => console.error(m));
  const interpreter = await createInterpreterWorker({ connection: env.nativeConnection, definitions: [dir], workflowBundle: await bundleInterpreter(), eventSinks: [httpSink(sinkUrl)] });
  const adapters = await createBuiltinAdapterWorker({ connection: env.nativeConnection, baseDirs: [dir] });
  const running = [interpreter.run(), adapters.run()];
  stops.push(async () => {
    interpreter.shutdown();
    adapters.shutdown();
    await Promise.all(running);
  });
  const registry = new DefinitionRegistry([dir]);
  // The gateway's log, as JSON lines (what `--log-format json` makes of it).
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
  });
  const logger = createJsonLogger('swflow-gateway', logStream);
  const client = new Client({ connection: env.connection, ...tracingApi.clientInterceptors() });
  tracedClient = client;
  const gateway = await startGateway({ client, definitions: () => registry.allDefinitions(), port: 0, log: (m) => logger.info(m) });
  gatewayUrl = gateway.url;
  stops.push(() => gateway.close());
});

after(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await env?.teardown();
  await tracingApi?.tracing()?.shutdown();
  for (const s of servers) await new Promise((r) => s.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('one trace from the incoming event through the gateway, the run, its tasks and calls into each service and out with the produced event', async () => {
  // The sender's trace: the event carries it (CloudEvents distributed-tracing extension).
  const traceId = randomBytes(16).toString('hex');
  const senderSpan = randomBytes(8).toString('hex');
  const res = await fetch(gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json' },
    body: JSON.stringify({ specversion: '1.0', id: 'order-1', source: 'https://shop.example', type: 'trace.order.placed', traceparent: `00-${traceId}-${senderSpan}-01`, data: { id: 'o-1' } }),
  });
  assert.equal(res.status, 202, await res.clone().text());
  const { delivered } = (await res.json()) as { delivered: { workflowId: string }[] };
  await env.client.workflow.getHandle(delivered[0].workflowId).result();
  tracedRuns.push({ workflowId: delivered[0].workflowId, fixture: 'interpreter-traced-v1' });

  // Spans are batched (and the workflow's arrive through its sink after the activation): wait for the run's own.
  const names = () => new Set(received.filter((s) => s.traceId === traceId).map((s) => s.name));
  for (let i = 0; i < 100 && !(names().has('run test/traced') && names().has('RunWorkflow:test/traced')); i++) {
    await tracingApi.tracing()!.flush();
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual([...contentTypes], ['application/json'], 'the OTLP/HTTP exporter sends JSON');
  const spans = received.filter((s) => s.traceId === traceId);
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const one = (name: string) => {
    const found = spans.filter((s) => s.name === name);
    assert.equal(found.length, 1, `one span ${name} in the trace; spans: ${spans.map((s) => s.name).join(', ')}`);
    return found[0];
  };
  const parentOf = (s: OtlpSpan) => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined);

  // The gateway continues the sender's trace; the run's spans are below it.
  const gateway = one('gateway trace.order.placed');
  assert.equal(gateway.parentSpanId, senderSpan);
  assert.equal(gateway.attributes['cloudevents.event_id'], 'order-1');
  const start = spans.find((s) => /^(SignalWithStartWorkflow|StartWorkflow):test\/traced$/.test(s.name));
  assert.ok(start, `a client span starting the run; spans: ${[...names()].join(', ')}`);
  assert.equal(parentOf(start)?.spanId, gateway.spanId);
  const workflow = one('RunWorkflow:test/traced');
  assert.equal(workflow.parentSpanId, start.spanId);
  const run = one('run test/traced');
  assert.equal(run.parentSpanId, workflow.spanId);
  assert.equal(run.attributes['swflow.definition.id'], 'test/traced');
  assert.equal(run.attributes['swflow.definition.version'], '0.3.0');

  // Each task under the run; each call under its task (StartActivity → RunActivity → call span).
  const callSpans: OtlpSpan[] = [];
  for (const name of ['inventory', 'payment', 'shipping']) {
    const task = one(`task /do/${['inventory', 'payment', 'shipping'].indexOf(name)}/${name}`);
    assert.equal(task.parentSpanId, run.spanId);
    assert.equal(task.attributes['swflow.task.type'], 'call');
    const calls = spans.filter((s) => s.name.startsWith('call ') && s.attributes['swflow.state'] === task.attributes['swflow.task']);
    assert.equal(calls.length, 1, `one call span for ${name}`);
    const runActivity = parentOf(calls[0]);
    assert.match(runActivity?.name ?? '', /^RunActivity:/);
    const startActivity = parentOf(runActivity!);
    assert.match(startActivity?.name ?? '', /^StartActivity:/);
    assert.equal(startActivity?.parentSpanId, task.spanId);
    assert.equal(calls[0].attributes['swflow.call.attempt'], 1);
    callSpans.push(calls[0]);
  }
  const notify = one('task /do/3/notify');
  assert.equal(notify.parentSpanId, run.spanId);

  // Each service got the trace context of its call span.
  assert.equal(serviceHits.length, 3);
  for (const hit of serviceHits) {
    const [, tid, parent] = (hit.traceparent ?? '').split('-');
    assert.equal(tid, traceId, `${hit.service} received the trace`);
    assert.ok(callSpans.some((c) => c.spanId === parent), `${hit.service}'s traceparent names a call span`);
    assert.equal(hit.authorization, `Bearer ${process.env.TRACED_TOKEN}`);
  }

  // The produced event carries the trace (its producer span, under the emit task).
  const shipped = produced.filter((e) => e.type === 'trace.order.shipped');
  assert.equal(shipped.length, 1);
  const [, tid, parent] = String(shipped[0].traceparent).split('-');
  assert.equal(tid, traceId);
  const producer = one('produce trace.order.shipped');
  assert.equal(parent, producer.spanId);
  let up: OtlpSpan | undefined = producer;
  while (up && up.spanId !== notify.spanId) up = parentOf(up);
  assert.ok(up, 'the producer span is below the emit task');

  // Every span is linked to the sender's trace, none carries a secret.
  for (const s of spans) if (s.spanId !== gateway.spanId) assert.ok(s.parentSpanId && byId.has(s.parentSpanId), `${s.name} has its parent in the trace`);
  const all = JSON.stringify(received);
  assert.ok(!all.includes(process.env.TRACED_TOKEN!), 'no span carries the secret');
  assert.ok(!all.includes('o-1'), 'no span carries event data');

  // The gateway's JSON log line about the delivery carries the trace and its span.
  const line = logLines.find((l) => String(l.msg).startsWith('event trace.order.placed order-1'));
  assert.ok(line, `a log line for the delivery: ${JSON.stringify(logLines)}`);
  assert.equal(line.trace_id, traceId);
  assert.equal(line.span_id, gateway.spanId);
  assert.equal(line.level, 'info');
  assert.equal(line.name, 'swflow-gateway');
});

test('0.8: a run started by a traced client has its state, actions and calls in one trace; each service and the produced event carry it', async () => {
  serviceHits.length = 0;
  const handle = await tracedClient.workflow.start('traced08', { taskQueue: 'swflow', workflowId: `traced08-${Date.now()}`, args: [{}] });
  await handle.result();
  tracedRuns.push({ workflowId: handle.workflowId, fixture: 'interpreter-traced-08' });
  const runSpan = () => received.find((s) => s.name === 'run traced08');
  for (let i = 0; i < 100 && !(runSpan() && received.some((s) => s.traceId === runSpan()!.traceId && s.name === 'RunWorkflow:traced08')); i++) {
    await tracingApi.tracing()!.flush();
    await new Promise((r) => setTimeout(r, 100));
  }
  const run = runSpan();
  assert.ok(run, 'the run span arrived');
  const spans = received.filter((s) => s.traceId === run.traceId);
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const parentOf = (s: OtlpSpan) => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined);
  assert.match(spans.find((s) => s.spanId === run.parentSpanId)?.name ?? '', /^RunWorkflow:traced08$/);
  assert.match(parentOf(parentOf(run)!)?.name ?? '', /^StartWorkflow:traced08$/, 'the client span is the root');
  assert.equal(run.attributes['swflow.definition.version'], '1.1');
  assert.equal(run.attributes['swflow.dsl'], '0.8');
  const state = spans.filter((s) => s.name === 'state Order');
  assert.equal(state.length, 1);
  assert.equal(state[0].parentSpanId, run.spanId);
  assert.equal(state[0].attributes['swflow.state.type'], 'operation');
  const callSpans: OtlpSpan[] = [];
  for (const name of ['inventory', 'payment', 'shipping']) {
    const action = spans.filter((s) => s.name === `action reserve-${name}`);
    assert.equal(action.length, 1, `one action span for ${name}: ${spans.map((s) => s.name).join(', ')}`);
    assert.equal(action[0].parentSpanId, state[0].spanId);
    const call = spans.filter((s) => s.name === `call ${name}`);
    assert.equal(call.length, 1);
    assert.equal(call[0].attributes['swflow.action'], `reserve-${name}`);
    const runActivity = parentOf(call[0])!;
    assert.match(runActivity.name, /^RunActivity:/);
    assert.equal(parentOf(runActivity)?.parentSpanId, action[0].spanId, 'StartActivity under the action');
    callSpans.push(call[0]);
  }
  assert.deepEqual(serviceHits.map((h) => h.service).sort(), ['inventory', 'payment', 'shipping']);
  for (const hit of serviceHits) {
    const [, tid, parent] = (hit.traceparent ?? '').split('-');
    assert.equal(tid, run.traceId);
    assert.ok(callSpans.some((c) => c.spanId === parent));
  }
  const event = produced.find((e) => e.type === 'trace.order.shipped08');
  assert.ok(event);
  assert.equal(String(event.traceparent).split('-')[1], run.traceId);
  assert.ok(spans.some((s) => s.name === 'produce trace.order.shipped08' && s.spanId === String(event.traceparent).split('-')[2]));
});

test('every recorded history replays with the traced bundle (Temporal\'s OpenTelemetry workflow interceptors in it)', async () => {
  const { Worker } = await import('@temporalio/worker');
  const { bundleInterpreter } = await import('../../src/worker/interpreter-worker');
  const { saveHistory, replayFixtures } = await import('../workflow/helpers');
  // The traced runs (their resolve result says `tracing`, their activities carry `_tracer-data`) replay too, with and without tracing.
  assert.equal(tracedRuns.length, 2, 'the traced runs above ran');
  const traced = await Promise.all(tracedRuns.map(async (r) => ({ workflowId: r.fixture, history: await saveHistory(env.client, r.workflowId, r.fixture) })));
  const plain = await bundleInterpreter({ tracing: false });
  assert.doesNotMatch(plain.code, /tracing-interceptors/);
  const plainFailures: string[] = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle: plain }, traced)) if (r.error) plainFailures.push(`${r.workflowId}: ${r.error.message ?? r.error}`);
  assert.deepEqual(plainFailures, []);
  const bundle = await bundleInterpreter();
  assert.match(bundle.code, /tracing-interceptors/, 'the bundle holds the OpenTelemetry workflow interceptors');
  const before = received.length;
  const { files, replayed, failures } = await replayFixtures({ workflowBundle: bundle, sinks: tracingApi.tracingSinks() });
  assert.ok(files.length >= 5);
  assert.equal(replayed, files.length);
  assert.deepEqual(failures, []);
  await tracingApi.tracing()!.flush();
  assert.equal(received.filter((s) => /^(RunWorkflow|StartActivity|run |task |state )/.test(s.name)).length - received.slice(0, before).filter((s) => /^(RunWorkflow|StartActivity|run |task |state )/.test(s.name)).length, 0, 'replays export no workflow spans');
});

test('tracing follows the OTEL_* variables; a bad exporter name says where it came from', () => {
  const { tracingWanted } = tracingApi;
  assert.equal(tracingWanted({}), false, 'nothing set: off');
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), true);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
  assert.equal(tracingWanted({ OTEL_TRACES_EXPORTER: 'console' }), true);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), false);
  assert.equal(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
  assert.throws(() => tracingWanted({ OTEL_TRACES_EXPORTER: 'zipkin' }), /OTEL_TRACES_EXPORTER.*"zipkin"/);
});

test('JSON log lines: a `[component] ` prefix becomes a field, a JSON line (the access log) is merged, the active span\'s ids are added', async () => {
  const { createJsonLogger, logLine } = await import('../../src/tracing/log');
  const { inSpan } = await import('../../src/tracing/context');
  const stream = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  stream.on('data', (c: Buffer) => lines.push(...c.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l))));
  const logger = createJsonLogger('swflow-worker', stream);
  logLine(logger, 'info', ['[swflow worker] serving task queue swflow']);
  logLine(logger, 'error', [JSON.stringify({ log: 'access', path: '/', status: 202 })]);
  let spanIds: { traceId: string; spanId: string } | undefined;
  await inSpan('logged', {}, async (span) => {
    spanIds = span!.spanContext();
    logLine(logger, 'warn', ['inside a span']);
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(lines.length, 3);
  assert.deepEqual({ ...lines[0], time: undefined }, { level: 'info', time: undefined, name: 'swflow-worker', component: 'swflow worker', msg: 'serving task queue swflow' });
  assert.equal(lines[0].trace_id, undefined, 'no span, no ids');
  assert.equal(lines[1].log, 'access');
  assert.equal(lines[1].status, 202);
  assert.equal(lines[1].level, 'error');
  assert.equal(lines[2].trace_id, spanIds!.traceId);
  assert.equal(lines[2].span_id, spanIds!.spanId);
  assert.match(String(lines[2].time), /^\d{4}-\d\d-\d\dT/);
});
