/**
 * The event gateway: real CloudEvents over HTTP (structured, binary, batch) to the real
 * interpreter on the dev server; start events create instances, correlated events reach them,
 * uncorrelated events reach the instances that wait for them (visibility), credentials, limits,
 * health, Temporal down, graceful shutdown, and a v0.1 definition started by an event.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { loadDefinition } from '../../src/dsl';
import type { WorkflowDef } from '../../src/common/model';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { startGateway, type AccessLogEntry, type Gateway } from '../../src/gateway/server';
import { signBody } from '../../src/gateway/auth';
import { httpSink } from '../../src/gateway/sink';
import { route } from '../../src/gateway/routing';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { historyToFixture } from '../../src/testing/history';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { freePort } from '../helpers/ports';
import { startDevEnv } from '../helpers/temporal';

const TOKEN = 'test-token-0123456789';
const HMAC_SECRET = 'hmac-secret-abcdef';
const V01_DIR = join(__dirname, 'fixtures', 'v01');
const FIXTURES_DIR = join(__dirname, '..', 'fixtures', 'histories');

async function def(doc: Record<string, unknown>): Promise<WorkflowDef> {
  const loaded = await loadDefinition({ specVersion: '0.8', ...doc });
  assert.ok(loaded.definition, JSON.stringify(loaded.problems));
  return loaded.definition;
}

let defs: WorkflowDef[];
let registry: DefinitionRegistry;
let env: TestWorkflowEnvironment;
let workers: Worker[];
let running: Promise<void>[];
let gateway: Gateway;
let client: Client;
let receiver: Server;
let receiverUrl: string;
let receiverStatus = 200;
const received: { contentType?: string; event: any }[] = [];
const accessLog: AccessLogEntry[] = [];

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
    // Waits mid-flow for an uncorrelated event: only visibility can find its instances.
    await def({
      id: 'waiter',
      start: 'Prepare',
      events: [{ name: 'Go', type: 'waiter.go', source: 'ops' }],
      states: [
        { name: 'Prepare', type: 'inject', data: { prepared: true }, transition: 'Wait' },
        { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'], eventDataFilter: { toStateData: '${ .go }' } }], end: true },
      ],
    }),
  ];
  registry = new DefinitionRegistry([...defs, V01_DIR]);
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
  workers = [
    await createInterpreterWorker({
      connection: env.nativeConnection as NativeConnection,
      taskQueue: INTERPRETER_TASK_QUEUE,
      definitions: [...defs, V01_DIR],
      workflowBundle: await bundleInterpreter(),
      eventSinks: [httpSink(receiverUrl)],
    }),
    // The v0.1 definition's `notify` function: a custom function, served here as the user's service.
    await Worker.create({ connection: env.nativeConnection as NativeConnection, taskQueue: ADAPTER_TASK_QUEUE, activities: { notify: async () => ({ notified: true }) } }),
  ];
  running = workers.map((w) => w.run());
  gateway = await startGateway({
    client,
    definitions: () => registry.definitions(),
    port: 0,
    auth: { token: TOKEN, hmacSecret: HMAC_SECRET },
    allowAnonymous: true,
    accessLog: (e) => accessLog.push(e),
  });
});

after(async () => {
  await gateway?.close();
  for (const w of workers ?? []) w.shutdown();
  await Promise.all(running ?? []);
  await env?.teardown();
  await new Promise((r) => receiver?.close(r));
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const structured = (event: Record<string, unknown>, headers: Record<string, string> = {}) => post(gateway.url, { specversion: '1.0', ...event }, headers);

async function exists(workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch {
    return false;
  }
}

async function waitFor(what: string, check: () => Promise<boolean>, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`gave up waiting: ${what}`);
}

test('routing: correlation names the instance; start events start it; uncorrelated events of a running flow go by visibility', () => {
  const created = route(defs, { specversion: '1.0', id: '1', type: 'order', source: '/orders/new', orderid: 'O/1' });
  assert.deepEqual(created, [{ via: 'id', workflowType: 'orders', workflowId: 'orders/orderid=O%2F1', start: true, keyedBy: 'correlation', events: ['OrderCreated'] }]);
  const shipped = route(defs, { specversion: '1.0', id: '2', type: 'order', source: '/orders/shipped', orderid: 'O/1' });
  assert.deepEqual(shipped.map((d) => d.via === 'id' && [d.workflowId, d.start]), [['orders/orderid=O%2F1', false]]);
  assert.deepEqual(route(defs, { specversion: '1.0', id: '3', type: 'order', source: '/orders/new' }), [], 'no correlation attribute: not this definition');
  assert.deepEqual(route(defs, { specversion: '1.0', id: 'e-9', type: 'greet.request', source: 'web' }).map((d) => d.via === 'id' && d.workflowId), ['greeter/web/e-9']);
  assert.deepEqual(route(defs, { specversion: '1.0', id: 'w-1', type: 'waiter.go', source: 'ops' }), [{ via: 'visibility', workflowType: 'waiter', eventType: 'waiter.go', events: ['Go'] }]);
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

test('a binary-mode CloudEvent (ce-* headers) works the same; without ce-specversion it is refused', async () => {
  const headers = { 'ce-specversion': '1.0', 'ce-id': 'g-2', 'ce-type': 'greet.request', 'ce-source': 'web', 'content-type': 'application/json' };
  const res = await fetch(gateway.url, { method: 'POST', headers, body: JSON.stringify({ name: 'Grace' }) });
  assert.equal(res.status, 202, await res.clone().text());
  assert.deepEqual(await client.workflow.getHandle('greeter/web/g-2').result(), { request: { name: 'Grace' } });

  for (const specversion of [undefined, '', '0.3', '2.0']) {
    const h: Record<string, string> = { ...headers, 'ce-id': `g-sv-${specversion}` };
    if (specversion === undefined) delete h['ce-specversion'];
    else h['ce-specversion'] = specversion;
    const bad = await fetch(gateway.url, { method: 'POST', headers: h, body: '{}' });
    assert.equal(bad.status, 400, `ce-specversion ${JSON.stringify(specversion)}`);
    assert.match(((await bad.json()) as any).error, /'specversion' (is missing|must be "1.0")/);
    assert.equal(await exists(`greeter/web/g-sv-${specversion}`), false);
  }
});

test('correlated events: the start event creates the instance, a later event reaches it, one for no instance is refused', async () => {
  const created = await structured({ id: 'c-1', type: 'order', source: '/orders/new', orderid: 'O-1', data: { item: 'book' } });
  assert.equal(created.status, 202);
  const lost = await structured({ id: 's-0', type: 'order', source: '/orders/shipped', orderid: 'O-404', data: { shipped: true } });
  assert.equal(lost.status, 404);
  assert.match(((await lost.json()) as any).error, /no running instance to deliver it to: no running instance orders\/orderid=O-404/);
  const shipped = await structured({ id: 's-1', type: 'order', source: '/orders/shipped', orderid: 'O-1', data: { shipped: true } });
  assert.equal(shipped.status, 202);
  assert.deepEqual(((await shipped.json()) as any).delivered, [{ workflowId: 'orders/orderid=O-1', started: false, via: 'id' }]);
  assert.deepEqual(await client.workflow.getHandle('orders/orderid=O-1').result(), { item: 'book', shipped: true });
});

test('a correlated start event delivered again after its instance completed starts nothing (the closed run consumed it); a new event opens the id again', async () => {
  const created = { id: 'c-9', type: 'order', source: '/orders/new', orderid: 'O-9', data: { item: 'pen' } };
  assert.equal((await structured(created)).status, 202);
  assert.equal((await structured({ id: 's-9', type: 'order', source: '/orders/shipped', orderid: 'O-9', data: { shipped: true } })).status, 202);
  const handle = client.workflow.getHandle('orders/orderid=O-9');
  assert.deepEqual(await handle.result(), { item: 'pen', shipped: true });
  const firstRun = (await handle.describe()).runId;
  // A broker's redelivery (or a sender's retry) of the start event, after the run completed.
  const again = await structured(created);
  assert.equal(again.status, 202);
  assert.deepEqual(((await again.json()) as any).delivered, [{ workflowId: 'orders/orderid=O-9', started: false, duplicate: true, via: 'id' }]);
  assert.equal((await handle.describe()).runId, firstRun, 'no new run was started');
  // A new start event of the same correlation opens the id again: a new run (spec: correlation ids may be reused).
  const reopened = await structured({ ...created, id: 'c-9b' });
  assert.equal(reopened.status, 202);
  assert.equal(((await reopened.json()) as any).delivered[0].started, true);
  const secondRun = (await client.workflow.getHandle('orders/orderid=O-9').describe()).runId;
  assert.notEqual(secondRun, firstRun);
  console.log(`gateway: a redelivered start after completion → duplicate (run ${firstRun.slice(0, 8)} kept); a new event → new run ${secondRun.slice(0, 8)}`);
});

test('an uncorrelated event without any swflow extension reaches the instances (started by the Temporal CLI) that wait for it, through visibility', async () => {
  const cli = await resolveTemporalCli();
  assert.ok(cli, 'the Temporal CLI');
  const ids = [`waiter-cli-${Date.now()}-a`, `waiter-cli-${Date.now()}-b`];
  for (const id of ids) {
    const r: { status: number | null; stderr: string } = spawnSync(cli.path, ['workflow', 'start', '--address', env.address, '--namespace', 'default', '--type', 'waiter', '--task-queue', INTERPRETER_TASK_QUEUE, '--workflow-id', id, '--input', '{"n":1}'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  // The instances publish what they wait for (SwAwaitedEvents); visibility shows it shortly after.
  await waitFor('both instances visible as awaiting waiter.go', async () => {
    let n = 0;
    for await (const w of client.workflow.list({ query: `SwAwaitedEvents = 'waiter.go' AND ExecutionStatus = 'Running'` })) if (ids.includes(w.workflowId)) n++;
    return n === ids.length;
  });
  const res = await structured({ id: 'go-1', type: 'waiter.go', source: 'ops', data: { at: 'now' } });
  assert.equal(res.status, 202, await res.clone().text());
  const body: any = await res.json();
  assert.deepEqual(body.delivered.map((d: any) => [d.workflowId, d.via]).sort(), ids.map((id) => [id, 'visibility']).sort());
  for (const id of ids) assert.deepEqual(await client.workflow.getHandle(id).result(), { n: 1, prepared: true, go: { at: 'now' } });

  // Once it has its event an instance no longer publishes it (the attribute is removed).
  const desc = await client.workflow.getHandle(ids[0]).describe();
  assert.deepEqual(desc.typedSearchAttributes.getAll().filter((p) => p.key.name === 'SwAwaitedEvents'), []);
  await waitFor('visibility no longer lists them as awaiting waiter.go', async () => {
    for await (const w of client.workflow.list({ query: `SwAwaitedEvents = 'waiter.go'` })) if (ids.includes(w.workflowId)) return false;
    return true;
  });
  const history = await client.workflow.getHandle(ids[0]).fetchHistory();
  const upserts = (history.events ?? []).filter((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.SwAwaitedEvents);
  assert.equal(upserts.length, 2, 'one upsert when it begins to wait, one (removal) when the run ends');
  // A replay fixture for the `awaited-events-attribute` feature (written when missing, or with SWFLOW_RECORD_HISTORIES=1).
  const file = join(FIXTURES_DIR, 'interpreter-awaited-events-attribute.json');
  if (process.env.SWFLOW_RECORD_HISTORIES === '1' || !existsSync(file)) {
    mkdirSync(FIXTURES_DIR, { recursive: true });
    writeFileSync(file, historyToFixture(history as any));
  }

  // Nobody waits any more: refused with the reason.
  const late = await structured({ id: 'go-2', type: 'waiter.go', source: 'ops' });
  assert.equal(late.status, 404);
  assert.match(((await late.json()) as any).error, /no running instance of waiter waits for events of type "waiter.go"/);
});

test('a v0.1 definition (trigger-defs, EVENT start state) is started by an event through the gateway', async () => {
  const res = await structured({ id: 'p-1', type: 'parcel.arrived', source: 'warehouse', parcelid: 'P-7', data: { shelf: 'B3' } });
  assert.equal(res.status, 202, await res.clone().text());
  const body: any = await res.json();
  assert.deepEqual(body.delivered.map((d: any) => [d.workflowId, d.started]), [['parcel/parcelid=P-7', true]]);
  assert.deepEqual(await client.workflow.getHandle('parcel/parcelid=P-7').result(), { shelf: 'B3', notified: true });
});

test('batches are all or nothing: a bad or unroutable entry refuses the whole batch, naming it; a good batch is answered per event', async () => {
  const batch = (events: unknown[]) => post(gateway.url, events, { 'content-type': 'application/cloudevents-batch+json' });
  const bad = await batch([
    { specversion: '1.0', id: 'b-ok', type: 'greet.request', source: 'web', data: { name: 'Bo' } },
    { specversion: '1.0', id: 'b-bad', source: 'web' },
    { specversion: '1.0', type: 'greet.request', source: 'web' },
  ]);
  assert.equal(bad.status, 400);
  const error = ((await bad.json()) as any).error as string;
  assert.match(error, /nothing was delivered: 2 of 3 entries are invalid: entry 1 \(id "b-bad"\): not a valid CloudEvent: 'type' is missing \| entry 2: not a valid CloudEvent: 'id' is missing/);
  assert.equal(await exists('greeter/web/b-ok'), false, 'the good entry started nothing');

  const unroutable = await batch([
    { specversion: '1.0', id: 'b-ok2', type: 'greet.request', source: 'web' },
    { specversion: '1.0', id: 'b-nobody', type: 'nobody.cares', source: 'web' },
  ]);
  assert.equal(unroutable.status, 404);
  const u: any = await unroutable.json();
  assert.match(u.error, /entry 1 \(id "b-nobody"\): no workflow definition consumes events of type "nobody.cares"/);
  assert.deepEqual(u.results.map((r: any) => [r.id, r.delivered ?? r.status]), [['b-ok2', false], ['b-nobody', 404]]);
  assert.equal(await exists('greeter/web/b-ok2'), false);

  const handle = await client.workflow.start('approval', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `approval-${Date.now()}`, args: [{ request: 7 }] });
  const good = await post(
    gateway.url,
    [
      { specversion: '1.0', id: 'd-1', type: 'approval.decision', source: 'boss', swflowworkflowid: handle.workflowId, data: { ok: true } },
      { specversion: '1.0', id: 'g-3', type: 'greet.request', source: 'web', data: { name: 'Linus' } },
    ],
    { 'content-type': 'application/cloudevents-batch+json', authorization: `Bearer ${TOKEN}` },
  );
  assert.equal(good.status, 202);
  const { results }: any = await good.json();
  assert.deepEqual(results.map((r: any) => [r.id, r.status, r.delivered[0].via]), [['d-1', 202, 'direct'], ['g-3', 202, 'id']]);
  assert.deepEqual(await handle.result(), { request: 7, decision: { ok: true } });
});

test('credentials: swflowworkflowid needs them; a wrong token or signature is 401; a valid HMAC signature authenticates', async () => {
  const handle = await client.workflow.start('approval', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `approval-auth-${Date.now()}`, args: [{}] });
  const direct = { specversion: '1.0', id: 'd-2', type: 'approval.decision', source: 'boss', swflowworkflowid: handle.workflowId, data: { ok: 'forged' } };
  const anonymous = await post(gateway.url, direct);
  assert.equal(anonymous.status, 403);
  assert.match(((await anonymous.json()) as any).error, /addressing an instance directly \(swflowworkflowid\) needs credentials/);
  assert.equal((await post(gateway.url, direct, { authorization: 'Bearer wrong' })).status, 401);
  const body = JSON.stringify({ ...direct, data: { ok: 'signed' } });
  assert.equal((await post(gateway.url, body, { 'x-swflow-signature': signBody('not-the-secret', body) })).status, 401);
  const signed = await post(gateway.url, body, { 'x-swflow-signature': signBody(HMAC_SECRET, body) });
  assert.equal(signed.status, 202, await signed.clone().text());
  assert.deepEqual(await handle.result(), { decision: { ok: 'signed' } });

  // A gateway that requires credentials refuses anonymous events altogether.
  const strict = await startGateway({ client, definitions: () => registry.definitions(), port: 0, auth: { token: TOKEN } });
  try {
    const res = await post(strict.url, { specversion: '1.0', id: 'g-anon', type: 'greet.request', source: 'web' });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    assert.equal(await exists('greeter/web/g-anon'), false);
    assert.equal((await post(strict.url, { specversion: '1.0', id: 'g-tok', type: 'greet.request', source: 'web' }, { authorization: `Bearer ${TOKEN}` })).status, 202);
  } finally {
    await strict.close();
  }
});

test('bad input is refused with the reason: malformed 400, unknown type 404, wrong method 405, too large 413, wrong content type 415', async () => {
  const noType = await structured({ id: 'x-1', source: 'web' });
  assert.equal(noType.status, 400);
  assert.equal(((await noType.json()) as any).error, "not a valid CloudEvent: 'type' is missing");
  const notJson = await post(gateway.url, '{oops');
  assert.equal(notJson.status, 400);
  assert.match(((await notJson.json()) as any).error, /the structured CloudEvent is not valid JSON/);
  const unknown = await structured({ id: 'x-2', type: 'nobody.cares', source: 'web' });
  assert.equal(unknown.status, 404);
  assert.match(((await unknown.json()) as any).error, /no workflow definition consumes events of type "nobody.cares" from source "web"/);
  assert.equal((await fetch(gateway.url)).status, 405);
  const plain = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
  assert.equal(plain.status, 415);
  const big = await structured({ id: 'x-3', type: 'greet.request', source: 'web', data: 'x'.repeat(1 << 20) });
  assert.equal(big.status, 413);
  assert.match(((await big.json()) as any).error, /larger than 1048576 bytes/);

  const small = await startGateway({ client, definitions: () => registry.definitions(), port: 0, maxBodyBytes: 200 });
  try {
    const event = { specversion: '1.0', id: 'x-4', type: 'greet.request', source: 'web' };
    const pad = (n: number) => JSON.stringify({ ...event, data: 'y'.repeat(n) });
    const limit = 200 - pad(0).length;
    const atLimit = await post(small.url, pad(limit));
    assert.notEqual(atLimit.status, 413, 'a body of exactly the limit is read');
    assert.equal((await post(small.url, pad(limit + 1))).status, 413);
  } finally {
    await small.close();
  }
});

test('health: /healthz while up, /readyz while Temporal answers; access log: one structured entry per request, no credentials', async () => {
  assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200);
  assert.equal((await fetch(`${gateway.url}/health`)).status, 200);
  const ready = await fetch(`${gateway.url}/readyz`);
  assert.equal(ready.status, 200, await ready.clone().text());

  accessLog.length = 0;
  await structured({ id: 'log-1', type: 'greet.request', source: 'web', data: { name: 'Log' } }, { authorization: `Bearer ${TOKEN}` });
  await structured({ id: 'log-2', source: 'web' });
  assert.equal(accessLog.length, 2);
  const [ok, bad] = accessLog;
  assert.deepEqual([ok.method, ok.path, ok.status, ok.auth, ok.mode], ['POST', '/', 202, 'bearer', 'structured']);
  assert.deepEqual(ok.events, [{ id: 'log-1', type: 'greet.request', status: 202, workflowIds: ['greeter/web/log-1'] }]);
  assert.ok(ok.bytesIn > 0 && ok.ms >= 0 && !Number.isNaN(Date.parse(ok.time)));
  assert.deepEqual([bad.status, bad.auth], [400, 'none']);
  assert.match(bad.error ?? '', /'type' is missing/);
  assert.ok(!JSON.stringify(accessLog).includes(TOKEN), 'the token is never logged');
});

test('Temporal unreachable: /readyz and a valid event are answered 503 (within the Temporal timeout), nothing hangs', async () => {
  const deadAddress = `127.0.0.1:${await freePort()}`;
  const connection = Connection.lazy({ address: deadAddress });
  const deadClient = new Client({ connection });
  const down = await startGateway({ client: deadClient, definitions: () => registry.definitions(), port: 0, temporalTimeoutMs: 2_000 });
  try {
    let t = Date.now();
    const ready = await fetch(`${down.url}/readyz`);
    console.log(`  /readyz with Temporal down answered ${ready.status} in ${Date.now() - t} ms`);
    assert.equal(ready.status, 503);
    assert.match(((await ready.json()) as any).error, /Temporal is not reachable/);
    t = Date.now();
    const res = await post(down.url, { specversion: '1.0', id: 'down-1', type: 'greet.request', source: 'web' });
    console.log(`  a valid event with Temporal down answered ${res.status} in ${Date.now() - t} ms`);
    assert.equal(res.status, 503);
    assert.match(((await res.json()) as any).error, /Temporal is not reachable .*send it again/);
    assert.equal((await fetch(`${down.url}/healthz`)).status, 200, 'the process itself is live');
  } finally {
    await down.close();
    await connection.close().catch(() => undefined);
  }
});

test('close() finishes the delivery in flight, then stops; new connections are refused meanwhile', async () => {
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const gw = await startGateway({
    client,
    port: 0,
    definitions: async () => {
      entered();
      await gate;
      return registry.definitions();
    },
  });
  const inflight = post(gw.url, { specversion: '1.0', id: 'drain-1', type: 'greet.request', source: 'web', data: { name: 'Drain' } });
  await inside;
  const closed = gw.close();
  await assert.rejects(fetch(`${gw.url}/healthz`), 'a new connection is refused while draining');
  release();
  const res = await inflight;
  assert.equal(res.status, 202, await res.clone().text());
  await closed;
  assert.deepEqual(await client.workflow.getHandle('greeter/web/drain-1').result(), { request: { name: 'Drain' } });
});

test('an event sink that refuses or is unreachable fails the producing activity (so Temporal retries it)', async () => {
  receiverStatus = 503;
  try {
    await assert.rejects(httpSink(receiverUrl)({ specversion: '1.0', id: 'p-1', type: 't', source: 's' }, { workflowId: 'w', runId: 'r' }), /refused event t \(p-1\): HTTP 503/);
  } finally {
    receiverStatus = 200;
  }
  await assert.rejects(httpSink('http://127.0.0.1:9/')({ specversion: '1.0', id: 'p-2', type: 't', source: 's' }, { workflowId: 'w', runId: 'r' }), /event sink http:\/\/127\.0\.0\.1:9\/ is unreachable/);
});
