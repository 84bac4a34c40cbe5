/**
 * A run stuck in a call is visible as stuck (issue 33, item 6; docs/stuck-calls.md). The user's
 * scenario: a 0.8 definition whose GET (a read: a local activity by default) goes to a service
 * that does not answer, no actionExecTimeout. Real dev server (the Temporal CLI's, so its
 * `temporal workflow metadata|describe` are asked), the real interpreter worker serving the
 * built-in calls, a real HTTP service that holds its requests until told to answer, the worker's
 * Prometheus endpoint scraped over HTTP, the run page in headless Chromium. Checked: while the
 * call is local, the current details and the `state` query list it (step, function, target,
 * start, attempt) and the metric counts a local call; past its bound (`swflow.localBound`) it is
 * handed over to a regular activity, which `describe` shows as pending, the metric counts and
 * the run page shows with its age; once the service answers the run completes. Records the
 * replay fixture of the `local-call-hand-over` feature.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { INTERPRETER_TASK_QUEUE, STATE_QUERY, type InstanceState, type StartOptions } from '../../src/common/contracts';
import { FEATURE_LOCAL_CALL_HAND_OVER } from '../../src/common/features';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { startMetricsServer, type MetricsServer } from '../../src/metrics';
import { startRunPage, type RunPage } from '../../src/ui/server';
import { launchChromium } from '../helpers/browser';
import { freePort } from '../helpers/ports';
import { waitFor } from '../helpers/wait';
import { callsOf, saveHistory } from '../workflow/helpers';

const run = promisify(execFile);

let server: DevServer;
let cli: string;
let client: Client;
let worker: Worker | undefined;
let running: Promise<unknown> = Promise.resolve();
let metricsServer: MetricsServer;
let runPage: RunPage;
let browser: Browser;
let page: Page;
let service: Server;
let base = '';
let dir = '';
/** Requests the service got, and the ones it holds (answered by `answer()`). */
const received: string[] = [];
let held: ServerResponse[] = [];
let answering = false;
let nativeConnection: NativeConnection | undefined;
let clientConnection: Connection | undefined;

function respond(res: ServerResponse): void {
  if (!res.writableEnded && !res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ thing: 'found' }));
}

/** From now on the service answers, the held requests first. */
function answer(): void {
  answering = true;
  for (const res of held) respond(res);
  held = [];
}

const doc = (id: string, bound: string) => ({
  id,
  version: '1.0',
  specVersion: '0.8',
  start: 'Fetch',
  functions: [{ name: 'getThing', operation: 'file://api.json#getThing', metadata: { 'swflow.localBound': bound } }],
  states: [{ name: 'Fetch', type: 'operation', actions: [{ name: 'lookup', functionRef: { refName: 'getThing' } }], end: true }],
});

before(async () => {
  const resolved = await resolveTemporalCli();
  assert.ok(resolved, 'a Temporal CLI (TEMPORAL_CLI)');
  cli = resolved.path;
  service = createServer((req: IncomingMessage, res: ServerResponse) => {
    received.push(`${req.method} ${req.url}`);
    if (answering) respond(res);
    else held.push(res);
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'swflow-stuck-'));
  writeFileSync(join(dir, 'api.json'), JSON.stringify({ openapi: '3.0.0', info: { title: 'things', version: '1' }, servers: [{ url: base }], paths: { '/thing': { get: { operationId: 'getThing', responses: { '200': { description: 'ok' } } } } } }));
  writeFileSync(join(dir, 'stuck.sw.json'), JSON.stringify(doc('stuck', 'PT4S')));
  metricsServer = await startMetricsServer({ port: 0 });
  server = await startDevServer({ binary: cli, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = nativeConnection;
  // A local call still held when the file ends must not keep the worker (and the file) from stopping.
  worker = await createInterpreterWorker({ connection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [dir], builtinCalls: true, workerOptions: { shutdownGraceTime: '2s', shutdownForceTime: '10s' } });
  running = worker.run();
  clientConnection = await Connection.connect({ address: server.address });
  client = new Client({ connection: clientConnection });
  runPage = await startRunPage({ client, registry: new DefinitionRegistry([dir]), webUiUrl: server.uiUrl });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

after(async () => {
  answer();
  // Each step bounded: a worker still holding a local call must not keep the file from ending.
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([Promise.resolve(p).catch(() => undefined), new Promise((r) => setTimeout(r, 20_000).unref())]);
  await bounded(browser?.close());
  await bounded(runPage?.close());
  try {
    worker?.shutdown();
  } catch {
    /* already stopping */
  }
  await bounded(running);
  // Open connections keep the process (and so this file) alive.
  await bounded(nativeConnection?.close());
  await bounded(clientConnection?.close());
  await bounded(server?.stop());
  await bounded(metricsServer?.close());
  service?.closeAllConnections();
  await bounded(new Promise((r) => service?.close(r)));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `temporal workflow <command> -w <id> -o json`, parsed. */
async function temporal(command: string, workflowId: string): Promise<any> {
  const { stdout } = await run(cli, ['workflow', command, '--address', server.address, '-w', workflowId, '-o', 'json'], { timeout: 30_000 });
  return JSON.parse(stdout);
}

/** The value of a sample of the worker's /metrics. */
async function metric(name: string, kind: string): Promise<number> {
  const text = await (await fetch(metricsServer.url)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{kind="${kind}"}`));
  return line ? Number(line.split(' ').pop()) : NaN;
}

test('a GET to a service that does not answer: listed while local, handed over to a pending activity past its bound, counted, shown on the run page; completes once the service answers', { timeout: 120_000 }, async () => {
  const workflowId = `stuck-${Date.now()}`;
  const started = Date.now();
  const handle = await client.workflow.start('stuck', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [{}] });

  // Local: the worker runs it and counts it. (Queries wait meanwhile: the worker answers them when it
  // completes the workflow task it keeps alive, every 8 s; the next test reads the details then.)
  await waitFor('the request', async () => (received.length ? true : undefined));
  await waitFor('the local call counted', async () => ((await metric('swflow_calls_in_flight', 'local')) === 1 ? true : undefined), 3000);
  console.log(`metrics: swflow_calls_in_flight{kind="local"} = 1 ${Date.now() - started} ms after the start, oldest ${(await metric('swflow_call_oldest_in_flight_seconds', 'local')).toFixed(2)} s`);
  assert.equal(received.length, 1);

  // Handed over past the bound (PT4S): describe shows a pending activity, the details list it.
  const pending = await waitFor(
    'a pending activity',
    async () => {
      const d = await temporal('describe', workflowId);
      return (d.pendingActivities ?? [])[0];
    },
    30_000,
  );
  const handedAfter = Date.now() - started;
  console.log(`temporal workflow describe shows a pending activity ${handedAfter} ms after the start: ${pending.activityType?.name ?? JSON.stringify(pending.activityType)} (${pending.state})`);
  assert.equal(pending.activityType?.name ?? pending.activityType, 'sw.rest');
  assert.ok(handedAfter >= 4000, 'not before the bound');
  const meta = await temporal('metadata', workflowId);
  const details: string = meta.queryResult?.[0]?.currentDetails ?? '';
  console.log(`temporal workflow metadata (current details, ${details.length} chars) lists the call: ${/Calls in flight/.test(details)}`);
  assert.match(details, /#### Calls in flight/);
  assert.match(details, /\| Fetch \| getThing \| getThing \| activity \(handed over\) \| \d{4}-\d\d-\d\dT[\d:.]+Z \| 1 \|/);
  const state = await handle.query<InstanceState>(STATE_QUERY);
  assert.deepEqual(
    state.callsInFlight?.map((c) => [c.kind, c.handedOver, c.step, c.action, c.function, c.target, c.attempt]),
    [['activity', true, 'Fetch', 'lookup', 'getThing', 'getThing', 1]],
  );
  assert.ok(state.callsInFlight![0].startedAt >= started - 5000 && state.callsInFlight![0].startedAt <= Date.now(), 'started at workflow time');
  await waitFor('the activity counted', async () => ((await metric('swflow_calls_in_flight', 'activity')) === 1 ? true : undefined), 10_000);
  const oldest = await metric('swflow_call_oldest_in_flight_seconds', 'activity');
  console.log(`metrics: swflow_calls_in_flight{kind="activity"} = 1, oldest ${oldest.toFixed(2)} s; local still running (cancelled, unanswered): ${await metric('swflow_calls_in_flight', 'local')}`);
  assert.ok(oldest > 0);

  // The run page: the call in flight with its age.
  await page.goto(`${runPage.url}/runs/${workflowId}`);
  await page.locator('#calls:not([hidden]) li.call').first().waitFor({ timeout: 20_000 });
  // It polls every second: the age grows.
  await page.locator('#calls li.call', { hasText: /running for [2-9] s/ }).waitFor({ timeout: 15_000 });
  const shown = await page.locator('#calls li.call').allInnerTexts();
  console.log(`run page shows: ${shown.join(' | ')}`);
  assert.equal(shown.length, 1);
  assert.match(shown[0], /^Fetch › getThing → getThing · activity \(handed over from a local call\) · running for [2-9] s \(since .+\) · attempt 1$/);

  // The service answers: the run completes, the lists are empty.
  answer();
  assert.deepEqual(await handle.result(), { thing: 'found' });
  console.log(`completed ${Date.now() - started} ms after the start; requests: ${received.join(', ')}`);
  assert.equal(received.length, 2, 'the local attempt and the activity');
  const { calls, pinned, events } = await callsOf(client, workflowId);
  assert.ok(pinned.features?.includes(FEATURE_LOCAL_CALL_HAND_OVER), 'the run is pinned with local-call-hand-over');
  assert.deepEqual(calls.map((c) => [c.kind, c.type, c.summary]), [
    ['local', 'sw.rest', 'Fetch › lookup → getThing'],
    ['activity', 'sw.rest', 'Fetch › lookup → getThing (local call handed over after 4 s)'],
  ]);
  assert.equal(calls[1].taskQueue, INTERPRETER_TASK_QUEUE, "on the run's own queue");
  const tasks = events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
  console.log(`history: ${events.length} events, ${tasks} workflow tasks; calls: ${JSON.stringify(calls.map((c) => c.kind))}`);
  await page.reload();
  await page.locator('body[data-run-status="Completed"]').waitFor({ timeout: 20_000 });
  assert.equal(await page.locator('#calls').isHidden(), true);
  await saveHistory(client, workflowId, 'interpreter-local-call-hand-over');
});

test('a local call without a bound (swflow.localBound: off) stays local: listed in the current details while it runs, no pending activity; the workflow task is kept alive meanwhile', { timeout: 90_000 }, async () => {
  held = [];
  answering = false;
  received.length = 0;
  writeFileSync(join(dir, 'unbounded.sw.json'), JSON.stringify(doc('unbounded', 'off')));
  const workflowId = `unbounded-${Date.now()}`;
  const started = Date.now();
  const handle = await client.workflow.start('unbounded', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [{}] });
  await waitFor('the request', async () => (received.length ? true : undefined));
  // The metadata query is answered once the worker completes the workflow task it keeps alive.
  const details = await waitFor(
    'the current details listing the call',
    async () => {
      const meta = await temporal('metadata', workflowId);
      const d: string = meta.queryResult?.[0]?.currentDetails ?? '';
      return /\| Fetch \| getThing \| getThing \| local \|/.test(d) ? d : undefined;
    },
    30_000,
  );
  console.log(`local call listed in the current details ${Date.now() - started} ms after the start`);
  assert.match(details, /#### Calls in flight/);
  await new Promise((r) => setTimeout(r, 12_000));
  const d = await temporal('describe', workflowId);
  assert.deepEqual(d.pendingActivities ?? [], [], 'no pending activity');
  const events = (await handle.fetchHistory()).events ?? [];
  const tasks = events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
  console.log(`after ${((Date.now() - started) / 1000).toFixed(1)} s stuck locally: ${events.length} history events, ${tasks} workflow tasks completed (the kept-alive task)`);
  assert.ok(tasks >= 2, 'the worker completes the workflow task to keep it alive');
  answer();
  assert.deepEqual(await handle.result(), { thing: 'found' });
  assert.equal(received.length, 1, 'made once');
});

test('a bad swflow.localBound is refused with where and why (0.8 and 1.0)', async () => {
  const { loadAnyDefinition } = await import('../../src/dsl');
  const bad = await loadAnyDefinition(doc('bad', 'soon'));
  const finding = bad.problems?.find((p) => p.pointer === '/functions/0/metadata/swflow.localBound');
  console.log(`0.8 swflow.localBound "soon": ${finding?.message}`);
  assert.ok(finding, JSON.stringify(bad.problems));
  assert.match(finding.message, /swflow\.localBound: .*"off"/);
  const v1 = await loadAnyDefinition({ document: { dsl: '1.0.0', namespace: 't', name: 'b', version: '1.0.0' }, do: [{ a: { call: 'http', metadata: { 'swflow.localBound': 'PT0.1S' }, with: { method: 'get', endpoint: base } } }] });
  const f1 = v1.problems?.find((p) => p.pointer === '/do/0/a/metadata/swflow.localBound');
  console.log(`1.0 swflow.localBound "PT0.1S": ${f1?.message}`);
  assert.ok(f1, JSON.stringify(v1.problems));
  assert.match(f1.message, /shorter than a second/);
});

test('1.0: a call: http GET past its bound is handed over likewise (the same run host)', { timeout: 60_000 }, async () => {
  held = [];
  answering = false;
  received.length = 0;
  const { loadAnyDefinition } = await import('../../src/dsl');
  const loaded = await loadAnyDefinition({ document: { dsl: '1.0.0', namespace: 'stuck', name: 'get', version: '1.0.0' }, do: [{ fetch: { call: 'http', metadata: { 'swflow.localBound': 'PT2S' }, with: { method: 'get', endpoint: `${base}/thing` }, output: { as: '.thing' } } }] });
  assert.ok(loaded.definition, JSON.stringify(loaded.problems));
  const started = Date.now();
  const start: StartOptions = { definition: loaded.definition };
  const handle = await client.workflow.start(loaded.definition.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `stuck-v1-${Date.now()}`, args: [{}, start] });
  const pending = await waitFor('a pending activity', async () => (await temporal('describe', handle.workflowId)).pendingActivities?.[0], 20_000);
  const state = await handle.query<InstanceState>(STATE_QUERY);
  console.log(`1.0: pending ${pending.activityType?.name} ${Date.now() - started} ms after the start; listed: ${JSON.stringify(state.callsInFlight)}`);
  assert.deepEqual(state.callsInFlight?.map((c) => [c.step, c.function, c.target, c.kind, c.handedOver]), [['/do/0/fetch', 'http', `GET ${base}/thing`, 'activity', true]]);
  answer();
  assert.equal(await handle.result(), 'found');
  const { calls } = await callsOf(client, handle.workflowId);
  assert.deepEqual(calls.map((c) => c.kind), ['local', 'activity']);
});
