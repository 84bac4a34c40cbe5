/**
 * Prometheus metrics end to end (src/metrics): one process as `swflow start` runs it — Core's
 * exporter installed first, the interpreter worker, the built-in adapter worker and the gateway
 * in-process, one /metrics endpoint — on a real dev server. Runs of a 1.0 definition call a real
 * local HTTP service that answers 500 for some inputs; CloudEvents are POSTed to the real gateway,
 * some accepted (they start runs), some rejected; then /metrics is scraped over HTTP and parsed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger } from '@temporalio/worker';
import { installCoreMetrics, startMetricsServer, type MetricsServer } from '../../src/metrics';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format's samples (`name{a="b",...} value`); comments and blank lines skipped. */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/.exec(line.trim());
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the sample `name` whose labels include `labels` (0 when none: a counter never incremented). */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return found.reduce((sum, s) => sum + s.value, 0);
}

let core: { port?: number; note?: string };
let metricsServer: MetricsServer;
let dir: string;
let service: Server;
let servicePort: number;
let env: any;
let stops: (() => Promise<void>)[] = [];
let gatewayUrl: string;
let bundle: { code: string };
const workflowIds: string[] = [];

const DEFINITION_ID = 'test/metered';
const STARTER_ID = 'test/metered-starter';
const TICK_ID = 'test/metered-tick';

before(async () => {
  // First of all, as `swflow start --metrics-port` does: Core's exporter is part of the Runtime.
  core = await installCoreMetrics({ logger: new DefaultLogger('ERROR') });
  metricsServer = await startMetricsServer({ port: 0, corePort: core.port });

  service = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const n = Number(JSON.parse(body || '{}').n);
      const status = n % 2 === 0 ? 500 : 200;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(status === 200 ? { ok: n } : { error: 'even' }));
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  servicePort = (service.address() as AddressInfo).port;

  dir = mkdtempSync(join(tmpdir(), 'swflow-metrics-'));
  const doc = (name: string, body: Record<string, unknown>) => ({ document: { dsl: '1.0.0', namespace: 'test', name, version: '1.2.0' }, ...body });
  writeFileSync(
    join(dir, 'metered.sw.json'),
    JSON.stringify(
      doc('metered', {
        do: [
          { prepare: { set: { n: '${ .n }' } } },
          {
            guarded: {
              try: [{ check: { call: 'http', with: { method: 'post', endpoint: `http://127.0.0.1:${servicePort}/check`, body: '${ . }' } } }],
              // One retry (swflow counts limit.attempt.count as retries after the first attempt): a failing run calls twice, then fails.
              catch: { errors: { with: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication' } }, retry: { delay: { milliseconds: 10 }, limit: { attempt: { count: 1 } } } },
            },
          },
        ],
      }),
    ),
  );
  writeFileSync(join(dir, 'starter.sw.json'), JSON.stringify(doc('metered-starter', { schedule: { on: { one: { with: { type: 'metrics.go' } } } }, do: [{ s: { set: { n: '${ length }' } } }] })));
  writeFileSync(join(dir, 'tick.sw.json'), JSON.stringify(doc('metered-tick', { do: [{ tick: { set: { ticked: true } } }] })));
  writeFileSync(join(dir, 'broken.sw.json'), JSON.stringify({ document: { dsl: '1.0.0', namespace: 'test' }, do: 'nope' }));

  const { createLocalEnv } = await import('../../src/platform/dev-server');
  const { bundleInterpreter, createInterpreterWorker } = await import('../../src/worker/interpreter-worker');
  const { createBuiltinAdapterWorker } = await import('../../src/worker/adapter-worker');
  const { DefinitionRegistry } = await import('../../src/definitions/registry');
  const { startGateway } = await import('../../src/gateway/server');
  env = await createLocalEnv((m) => console.error(m));
  bundle = await bundleInterpreter();
  const interpreter = await createInterpreterWorker({ connection: env.nativeConnection, definitions: [dir], workflowBundle: bundle });
  const adapters = await createBuiltinAdapterWorker({ connection: env.nativeConnection, baseDirs: [dir] });
  const running = [interpreter.run(), adapters.run()];
  stops.push(async () => {
    interpreter.shutdown();
    adapters.shutdown();
    await Promise.all(running);
  });
  const registry = new DefinitionRegistry([dir]);
  const gateway = await startGateway({ client: env.client, definitions: () => registry.allDefinitions(), port: 0 });
  gatewayUrl = gateway.url;
  stops.push(() => gateway.close());
});

after(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await env?.teardown();
  await metricsServer?.close();
  await new Promise((r) => service?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function scrape(): Promise<{ text: string; samples: Sample[] }> {
  const res = await fetch(metricsServer.url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  const text = await res.text();
  return { text, samples: parseMetrics(text) };
}

test('runs, steps, calls, gateway events and definitions are counted; Core metrics are served beside them; no label carries a workflow id', async () => {
  const before = (await scrape()).samples;
  assert.equal(value(before, 'swflow_runs_started_total', { definition: DEFINITION_ID }), 0);

  // Five runs: n even → the service answers 500 → the call fails → the run fails.
  const ns = [1, 2, 3, 4, 5];
  const outcomes = await Promise.all(
    ns.map(async (n) => {
      const workflowId = `metrics-run-${n}-${Date.now()}`;
      workflowIds.push(workflowId);
      const h = await env.client.workflow.start(DEFINITION_ID, { taskQueue: 'swflow', workflowId, args: [{ n }] });
      return h.result().then(
        () => 'completed',
        () => 'failed',
      );
    }),
  );
  assert.deepEqual(outcomes, ['completed', 'failed', 'completed', 'failed', 'completed']);

  // CloudEvents: accepted ones start starter runs; rejected ones: nobody consumes them (404), malformed (400).
  const post = (body: unknown, type = 'application/cloudevents+json') => fetch(gatewayUrl, { method: 'POST', headers: { 'content-type': type }, body: JSON.stringify(body) });
  const ev = (id: string, t: string) => ({ specversion: '1.0', id, source: 'https://metrics.example', type: t, data: {} });
  assert.equal((await post(ev('a1', 'metrics.go'))).status, 202);
  assert.equal((await post(ev('a2', 'metrics.go'))).status, 202);
  assert.equal((await post(ev('r1', 'metrics.nobody'))).status, 404);
  assert.equal((await post({ specversion: '1.0', id: 'r2' })).status, 400);
  // A batch is all or nothing: one unconsumed event refuses both (2 more rejections for 404); a batch of two routable events is accepted.
  assert.equal((await post([ev('a3', 'metrics.go'), ev('r3', 'metrics.nobody')], 'application/cloudevents-batch+json')).status, 404);
  assert.equal((await post([ev('a4', 'metrics.go'), ev('a5', 'metrics.go')], 'application/cloudevents-batch+json')).status, 202);
  // The starter runs finish (started by the gateway).
  let started: string[] = [];
  for (let i = 0; i < 100 && started.length < 4; i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    started = [];
    for await (const w of env.client.workflow.list({ query: `WorkflowType = '${STARTER_ID}'` })) started.push(w.workflowId); // visibility lags a little
  }
  for (const id of started) await env.client.workflow.getHandle(id).result();
  assert.equal(started.length, 4);
  workflowIds.push(...started);

  // A Temporal Schedule triggered once starts one run of the tick definition.
  const schedule = await env.client.schedule.create({
    scheduleId: `metrics-tick-${Date.now()}`,
    spec: { intervals: [{ every: '1h' }] },
    action: { type: 'startWorkflow', workflowType: TICK_ID, taskQueue: 'swflow', args: [{}] },
    state: { paused: true },
  });
  stops.push(() => schedule.delete());
  await schedule.trigger();
  let ticks: string[] = [];
  for (let i = 0; i < 100 && !ticks.length; i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    for await (const w of env.client.workflow.list({ query: `WorkflowType = '${TICK_ID}'` })) ticks.push(w.workflowId);
  }
  assert.equal(ticks.length, 1);
  await env.client.workflow.getHandle(ticks[0]).result();
  workflowIds.push(...ticks);

  // Sinks are delivered after each activation completes: wait until the last run's end is seen.
  let samples: Sample[] = [];
  let text = '';
  for (let i = 0; i < 50; i++) {
    ({ text, samples } = await scrape());
    if (value(samples, 'swflow_runs_ended_total', { definition: STARTER_ID }) === 4 && value(samples, 'swflow_runs_ended_total', { definition: DEFINITION_ID }) === 5 && value(samples, 'swflow_runs_ended_total', { definition: TICK_ID }) === 1) break;
    await new Promise((r) => setTimeout(r, 100));
  }

  const d = { definition: DEFINITION_ID, version: '1.2.0' };
  assert.equal(value(samples, 'swflow_runs_started_total', d), 5);
  assert.equal(value(samples, 'swflow_runs_ended_total', { ...d, status: 'completed' }), 3);
  assert.equal(value(samples, 'swflow_runs_ended_total', { ...d, status: 'failed' }), 2);
  assert.equal(value(samples, 'swflow_runs_ended_total', { ...d, status: 'cancelled' }), 0);
  assert.equal(value(samples, 'swflow_runs_started_total', { definition: STARTER_ID, version: '1.2.0' }), 4);
  assert.equal(value(samples, 'swflow_runs_ended_total', { definition: STARTER_ID, status: 'completed' }), 4);

  assert.equal(value(samples, 'swflow_schedule_triggers_total', { definition: TICK_ID, version: '1.2.0' }), 1);
  assert.equal(value(samples, 'swflow_schedule_triggers_total'), 1);

  // Step durations: every run's `set` task is done; the call is done 3 times and failed 2 × 2 times; the try done 3 times, failed twice.
  assert.equal(value(samples, 'swflow_step_duration_seconds_count', { ...d, type: 'set', status: 'done' }), 5);
  assert.equal(value(samples, 'swflow_step_duration_seconds_count', { ...d, type: 'call', status: 'done' }), 3);
  assert.equal(value(samples, 'swflow_step_duration_seconds_count', { ...d, type: 'call', status: 'failed' }), 4);
  assert.equal(value(samples, 'swflow_step_duration_seconds_count', { ...d, type: 'try', status: 'done' }), 3);
  assert.equal(value(samples, 'swflow_step_duration_seconds_count', { ...d, type: 'try', status: 'failed' }), 2);
  // Retries: one per failing run, by the try task that retries.
  assert.equal(value(samples, 'swflow_retries_total', { ...d, target: '/do/1/guarded' }), 2);
  assert.equal(value(samples, 'swflow_retries_total'), 2);
  assert.equal(value(samples, 'swflow_step_duration_seconds_bucket', { ...d, type: 'set', status: 'done', le: '+Inf' }), 5);

  // Calls: 7 (1.0 retries are new calls, not activity attempts), 4 errors.
  const f = { definition: DEFINITION_ID, function: 'http' };
  assert.equal(value(samples, 'swflow_function_call_duration_seconds_count', { ...f, outcome: 'ok' }), 3);
  assert.equal(value(samples, 'swflow_function_call_duration_seconds_count', { ...f, outcome: 'error' }), 4);
  // The failure's type: a 1.0 call's is the spec's error type (a 500 is a communication error).
  assert.equal(value(samples, 'swflow_function_call_errors_total', { ...f, code: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication' }), 4);
  assert.equal(value(samples, 'swflow_function_call_errors_total', f), 4);
  assert.equal(value(samples, 'swflow_function_call_retries_total', f), 0);
  assert.ok(value(samples, 'swflow_function_call_duration_seconds_sum', { ...f, outcome: 'ok' }) > 0);

  // Gateway: 4 accepted events; rejected by reason: 3 with 404 (2 unconsumed, 1 refused with its batch), 1 malformed (400).
  assert.equal(value(samples, 'swflow_gateway_events_total', { outcome: 'accepted', status: '202' }), 4);
  assert.equal(value(samples, 'swflow_gateway_events_total', { outcome: 'rejected', status: '404' }), 3);
  assert.equal(value(samples, 'swflow_gateway_events_total', { outcome: 'rejected', status: '400' }), 1);

  // The registry's last scan: three definitions load, the broken file does not.
  assert.equal(value(samples, 'swflow_definitions_loaded'), 3);
  assert.equal(value(samples, 'swflow_definitions_rejected'), 1);

  // Bounded labels: no workflow id (nor run id) anywhere in swflow's samples.
  for (const s of samples.filter((s) => s.name.startsWith('swflow_'))) {
    for (const v of Object.values(s.labels)) {
      assert.ok(!workflowIds.some((id) => v.includes(id)), `${s.name} carries a workflow id in ${JSON.stringify(s.labels)}`);
      assert.ok(!/^[0-9a-f-]{36}$/.test(v), `${s.name} carries a run id in ${JSON.stringify(s.labels)}`);
    }
  }

  // Core's metrics, re-served in the same endpoint (its exporter installed first in this process).
  assert.equal(core.note, undefined);
  assert.ok(core.port);
  assert.ok(samples.some((s) => s.name.startsWith('temporal_')), `no Core metric in:\n${text.slice(-2000)}`);
  assert.ok(value(samples, 'temporal_workflow_completed_total') + value(samples, 'temporal_workflow_task_execution_latency_seconds_count') > 0, 'Core counted workflow work');

  // A run recorded with metrics on replays (sink calls are not commands) and counts nothing again.
  const { Worker } = await import('@temporalio/worker');
  const { metricsSinks } = await import('../../src/metrics/sink');
  const failedRun = workflowIds[1];
  await Worker.runReplayHistory({ workflowBundle: bundle, sinks: metricsSinks() }, await env.client.workflow.getHandle(failedRun).fetchHistory(), failedRun);
  const afterReplay = (await scrape()).samples;
  assert.equal(value(afterReplay, 'swflow_runs_started_total', d), 5);
  assert.equal(value(afterReplay, 'swflow_step_duration_seconds_count', d), 5 + 7 + 5); // set, call, try: as before the replay
  assert.equal(value(afterReplay, 'swflow_retries_total', d), 2);

  // The Grafana dashboard (docs/grafana/swflow.json) reads metrics this endpoint serves.
  const dashboard = JSON.parse(readFileSync(join(__dirname, '..', '..', 'docs', 'grafana', 'swflow.json'), 'utf8'));
  const exprs: string[] = dashboard.panels.flatMap((p: { targets: { expr: string }[] }) => p.targets.map((t) => t.expr));
  const used = new Set(exprs.flatMap((e) => e.match(/\b(?:swflow|temporal)_[a-z0-9_]+/g) ?? []));
  assert.ok(used.size >= 10);
  const served = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]).flatMap((n) => [n, `${n}_bucket`, `${n}_count`, `${n}_sum`]));
  for (const s of samples) served.add(s.name);
  for (const name of used) assert.ok(served.has(name), `the dashboard reads ${name}, which /metrics does not serve`);
});
