/**
 * The `Idempotency-Key` header of the built-in HTTP adapters (src/adapter-sdk/idempotency.ts)
 * against a real HTTP service, on the default path (the interpreter worker serving built-in
 * calls: writes as activities, reads as local activities) on the dev server: unsafe requests
 * carry the call's key, the same on every Temporal attempt, a different one per call; safe ones
 * none; the definition's own header wins; `swflow.idempotencyKey: false` switches it off.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { formatFinding, loadAnyDefinition, loadDefinition } from '../../src/dsl';
import { installQuietRuntime } from '../../src/testing/env';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { idempotencyKey } from '../../src/adapter-sdk';
import { startDevEnv } from '../helpers/temporal';

// ---- the service: records what each request carried; /flaky answers 503 once ----------------
interface Seen {
  method: string;
  path: string;
  key: string | undefined;
  status: number;
}
const seen: Seen[] = [];
let flakyFailures = 0;
let server: Server;
let base: string;

const openapi = () => ({
  openapi: '3.0.3',
  info: { title: 'orders', version: '1' },
  servers: [{ url: base }],
  paths: { '/flaky': { post: { operationId: 'placeOrder', requestBody: { content: { 'application/json': {} } } } } },
});

let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;

before(async () => {
  installQuietRuntime();
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      let status = req.method === 'POST' ? 201 : 200;
      let body: unknown = { ok: true };
      if (path === '/openapi.json') body = openapi();
      if (path === '/flaky' && flakyFailures > 0) {
        flakyFailures--;
        status = 503;
        body = { message: 'busy, try again' };
      }
      const key = req.headers['idempotency-key'];
      if (path !== '/openapi.json') seen.push({ method: req.method!, path, key: Array.isArray(key) ? key.join(',') : key, status });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = await startDevEnv();
  client = env.client as Client;
  // The default path, as `swflow worker` runs it: built-in calls served by the interpreter worker.
  worker = await createInterpreterWorker({ connection: env.nativeConnection as NativeConnection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [], builtinCalls: true, workflowBundle: await bundleInterpreter() });
  running = worker.run();
});

after(async () => {
  worker?.shutdown();
  await running?.catch(() => undefined);
  await env?.teardown();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

async function start(doc: Record<string, unknown>) {
  const loaded = doc.document ? await loadAnyDefinition(doc) : await loadDefinition({ specVersion: '0.8', ...doc } as never);
  assert.ok(loaded.definition, loaded.problems.map(formatFinding).join('\n'));
  return client.workflow.start(loaded.definition.id, {
    taskQueue: INTERPRETER_TASK_QUEUE,
    workflowId: `idem-${randomUUID().slice(0, 8)}`,
    args: [{}, { definition: loaded.definition }],
    workflowExecutionTimeout: '1 minute',
  });
}

/**
 * The key as the adapters derive it for a call of a run (sent as a structured-field string): from
 * its call id (feature call-ids: `<first run id>/<step>#<n>`), not the activity id.
 */
const expected = (workflowId: string, runId: string, activityId: string, callId: string) => `"${idempotencyKey({ workflowNamespace: 'default', workflowExecution: { workflowId, runId }, activityId }, callId)}"`;

/** Each sw.http / sw.rest activity scheduled in a run: its summary's step and its activity id. */
async function scheduled(handle: Awaited<ReturnType<typeof start>>) {
  const conv = client.options.loadedDataConverter.payloadConverter;
  const events = (await handle.fetchHistory()).events ?? [];
  return events
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => ({ step: String(conv.fromPayload(e.userMetadata!.summary!)).split(' ')[0], activityId: e.activityTaskScheduledEventAttributes!.activityId! }));
}

const KEY = /^"[A-Za-z0-9_-]{43}"$/;

const post = (path: string, extra: Record<string, unknown> = {}) => ({ call: 'http', ...extra, with: { method: 'post', endpoint: `${base}${path}`, body: { item: 'book' }, ...((extra.with as object) ?? {}) } });
const writes = () => ({
  document: { dsl: '1.0.0', namespace: 'idem', name: 'writes', version: '1.0.0' },
  do: [
    { create1: post('/orders/1') },
    { create2: post('/orders/2') },
    { list: { call: 'http', with: { method: 'get', endpoint: `${base}/orders` } } },
    { replace: { call: 'http', with: { method: 'put', endpoint: `${base}/orders/put`, body: { item: 'pen' } } } },
    { own: post('/orders/own', { with: { headers: { 'Idempotency-Key': 'mine-1' } } }) },
    { off: post('/orders/off', { metadata: { 'swflow.idempotencyKey': false } }) },
    { localPost: post('/orders/local', { metadata: { 'swflow.local': true } }) },
    { viaOpenapi: { call: 'openapi', with: { document: { endpoint: `${base}/openapi.json` }, operationId: 'placeOrder', parameters: { item: 'book' } } } },
  ],
});

test('1.0 call: http and call: openapi: POST, PUT and a local POST carry the call\'s key (different per call and per run); GET none; the definition\'s own header wins; the opt-out sends none', async () => {
  const keysOf = async () => {
    seen.length = 0;
    const handle = await start(writes());
    await handle.result();
    const by = new Map(seen.map((s) => [s.path, s]));
    return { handle, by };
  };
  const { handle, by } = await keysOf();
  const key = (path: string) => by.get(path)?.key;
  assert.equal(seen.length, 8, JSON.stringify(seen));
  for (const path of ['/orders/1', '/orders/2', '/orders/local', '/flaky']) assert.match(key(path) ?? '(none)', KEY, `${path} carries a key`);
  assert.match(key('/orders/put') ?? '(none)', KEY, 'PUT carries a key');
  assert.equal(new Set([key('/orders/1'), key('/orders/2'), key('/orders/put'), key('/orders/local'), key('/flaky')]).size, 5, 'each call its own key');
  assert.equal(key('/orders'), undefined, 'GET carries none');
  assert.equal(key('/orders/own'), 'mine-1', "the definition's header wins");
  assert.equal(key('/orders/off'), undefined, 'swflow.idempotencyKey: false sends none');

  // The derivation, from the run's history: sha256 of namespace, workflow id and the call's id.
  const activities = await scheduled(handle);
  const create1 = activities.find((a) => a.step === '/do/0/create1');
  const create2 = activities.find((a) => a.step === '/do/1/create2');
  assert.ok(create1 && create2, JSON.stringify(activities));
  const runId = handle.firstExecutionRunId;
  const firstPostKey = key('/orders/1');
  assert.equal(firstPostKey, expected(handle.workflowId, runId, create1.activityId, `${runId}//do/0/create1#1`));
  assert.equal(key('/orders/2'), expected(handle.workflowId, runId, create2.activityId, `${runId}//do/1/create2#1`));

  // The same definition run again: new keys (another run).
  const again = await keysOf();
  assert.notEqual(again.by.get('/orders/2')?.key, key('/orders/2'), 'another run, another key');
  console.log(`idempotency-key 1.0: 8 requests per run, keys on POST/PUT/local POST/openapi POST (${firstPostKey}), none on GET and opt-out, own header kept; derivation matches history (activity ${create1.activityId}); 2 runs`);
});

test('0.8 rest POST retried by Temporal (503, then 201): both attempts carry the same key', async () => {
  seen.length = 0;
  flakyFailures = 1;
  const handle = await start({
    id: 'idem-retry',
    version: '1.0',
    start: 'Place',
    autoRetries: true,
    // maxAttempts 0 = unlimited: a strategy Temporal's own retry policy runs (src/workflow/v08/retry.ts).
    retries: [{ name: 'quick', delay: 'PT0.2S', multiplier: 1, maxAttempts: 0 }],
    functions: [{ name: 'placeOrder', type: 'rest', operation: `${base}/openapi.json#placeOrder` }],
    states: [{ name: 'Place', type: 'operation', actions: [{ functionRef: { refName: 'placeOrder', arguments: { item: 'book' } }, retryRef: 'quick' }], end: true }],
  });
  await handle.result();
  assert.deepEqual(
    seen.map((s) => `${s.method} ${s.path} ${s.status}`),
    ['POST /flaky 503', 'POST /flaky 201'],
  );
  assert.match(seen[0].key ?? '(none)', KEY);
  assert.equal(seen[1].key, seen[0].key, 'the retry carries the first attempt\'s key');
  const activities = await scheduled(handle);
  assert.equal(activities.length, 1, 'one activity, retried by Temporal');
  assert.equal(seen[0].key, expected(handle.workflowId, handle.firstExecutionRunId, activities[0].activityId, `${handle.firstExecutionRunId}/Place/action 1#1`));
  console.log(`idempotency-key 0.8 retry: 2 attempts (503, 201) of activity ${activities[0].activityId}, one key ${seen[0].key}`);
});

test('a bad swflow.idempotencyKey value fails the call clearly, without sending it', async () => {
  seen.length = 0;
  const handle = await start({
    document: { dsl: '1.0.0', namespace: 'idem', name: 'bad', version: '1.0.0' },
    do: [{ create: post('/orders/bad', { metadata: { 'swflow.idempotencyKey': 'maybe' } }) }],
  });
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err, 'the run fails');
  assert.match(String(((err as Error).cause as Error | undefined)?.message), /swflow\.idempotencyKey.*"maybe" is not true or false/);
  assert.equal(seen.length, 0, 'nothing sent');
  console.log('idempotency-key bad value: run failed naming metadata "swflow.idempotencyKey", 0 requests sent');
});
