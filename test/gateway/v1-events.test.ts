/**
 * Serverless Workflow 1.0 runs reached by CloudEvents through the real gateway (HTTP), MQTT and
 * `swflow event send --temporal`, on a dev server with the real interpreter: a running listen
 * woken by visibility (SwAwaitedEvents), correlation telling two instances apart (with and
 * without `expect`), listens in nested do / for / fork / try+until / foreach, `schedule.on`
 * starting runs (once per event; `all` collecting correlated events in one instance), and
 * `schedule.after` running the workflow again. One dev server, worker and gateway for the file.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { MQTT, type CloudEventV1 } from 'cloudevents';
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { startGateway, type Gateway } from '../../src/gateway/server';
import { startMqttInbound, type MqttInbound, type MqttLogEntry } from '../../src/gateway/mqtt';
import { historyToFixture } from '../../src/testing/history';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { startMqttBroker, type MqttBroker } from '../helpers/mqtt-broker';
import { runSwflow } from '../helpers/cli';

const FIXTURES_DIR = join(__dirname, '..', 'fixtures', 'histories');

const doc = (name: string, body: Record<string, unknown>) => ({ document: { dsl: '1.0.0', namespace: 'test', name, version: '1.0.0' }, ...body });
const listenOne = (type: string, more: Record<string, unknown> = {}) => ({ listen: { to: { one: { with: { type } } } }, ...more });

const DOCUMENTS: Record<string, unknown> = {
  plain: doc('plain', { do: [{ prepare: { set: { prepared: true } } }, { wait: listenOne('v1.plain.go') }] }),
  pay: doc('pay', {
    do: [{ wait: { listen: { to: { one: { with: { type: 'v1.payment.received' }, correlate: { orderId: { from: '${ .data.orderId }', expect: '${ .orderId }' } } } } } } }],
  }),
  fixed: doc('fixed', {
    do: [
      { created: { listen: { to: { one: { with: { type: 'v1.order.created' }, correlate: { orderId: { from: '${ .data.orderId }' } } } } } } },
      { paid: { listen: { to: { one: { with: { type: 'v1.order.paid' }, correlate: { orderId: { from: '${ .data.orderId }' } } } } } } },
    ],
  }),
  nested: doc('nested', {
    do: [
      { outer: { do: [{ inner: listenOne('v1.n.do') }] } },
      { loop: { for: { each: 'i', in: '${ [1] }' }, do: [{ l: listenOne('v1.n.for') }] } },
      { par: { fork: { branches: [{ a: listenOne('v1.n.fork') }, { b: { set: { b: 1 } } }] } } },
      { guarded: { try: [{ l: { listen: { to: { any: [{ with: { type: 'v1.n.until' } }], until: '${ length >= 2 }' } } } }], catch: { do: [{ c: { set: { caught: true } } }] } } },
      { each: listenOne('v1.n.foreach', { foreach: { item: 'ev', do: [{ s: { set: { got: '${ $ev }' } } }] } }) },
    ],
  }),
  viaMqtt: doc('via-mqtt', { do: [{ wait: listenOne('v1.mqtt.go') }] }),
  viaCli: doc('via-cli', { do: [{ wait: listenOne('v1.cli.go') }] }),
  onOne: doc('on-one', { schedule: { on: { one: { with: { type: 'v1.start' } } } }, do: [{ s: { set: { got: '${ .[0].data }', n: '${ length }' } } }] }),
  onAll: doc('on-all', {
    schedule: {
      on: {
        all: [
          { with: { type: 'v1.part.a' }, correlate: { batch: { from: '${ .data.batch }' } } },
          { with: { type: 'v1.part.b' }, correlate: { batch: { from: '${ .data.batch }' } } },
        ],
      },
    },
    do: [{ s: { set: { types: '${ map(.type) }', batch: '${ .[0].data.batch }' } } }],
  }),
  onAllFree: doc('on-all-free', {
    schedule: { on: { all: [{ with: { type: 'v1.free.a' } }, { with: { type: 'v1.free.b' } }] } },
    do: [{ s: { set: { types: '${ map(.type) }' } } }],
  }),
  again: doc('again', { schedule: { after: 'PT1S' }, do: [{ s: { set: { n: '${ .n }' } } }] }),
};

let dir: string;
let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;
let gateway: Gateway;
let broker: MqttBroker;
let inbound: MqttInbound;
let publisher: MqttClient;
const mqttLog: MqttLogEntry[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-v1-events-'));
  for (const [name, d] of Object.entries(DOCUMENTS)) writeFileSync(join(dir, `${name}.sw.json`), JSON.stringify(d));
  env = await startDevEnv();
  client = env.client as Client;
  worker = await createInterpreterWorker({ connection: env.nativeConnection as NativeConnection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [dir], workflowBundle: await bundleInterpreter() });
  running = worker.run();
  const registry = new DefinitionRegistry([dir]);
  gateway = await startGateway({ client, definitions: () => registry.allDefinitions(), port: 0 });
  broker = await startMqttBroker();
  inbound = await startMqttInbound({ client, definitions: () => registry.allDefinitions(), url: broker.url, topics: ['cloudevents/#'], clientId: 'swflow-v1-inbound', accessLog: (e) => mqttLog.push(e) });
  publisher = await mqtt.connectAsync(broker.url, { clientId: 'v1-publisher' });
});

after(async () => {
  await publisher?.endAsync();
  await inbound?.close();
  await broker?.close();
  await gateway?.close();
  worker?.shutdown();
  await running;
  await env?.teardown();
});

let seq = 0;
const post = async (type: string, extra: Record<string, unknown> = {}) => {
  const res = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify({ specversion: '1.0', id: `ev-${++seq}`, source: 'https://shop.example', type, ...extra }) });
  return { status: res.status, body: (await res.json()) as any };
};

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  return assert.fail(`gave up waiting: ${what}`);
}

/** Until visibility lists the instance with `entry` in SwAwaitedEvents (what the gateway looks up). */
async function awaiting(workflowId: string, entry: string): Promise<void> {
  const q = `WorkflowId = '${workflowId}' AND SwAwaitedEvents = '${entry.replace(/'/g, "\\'")}' AND ExecutionStatus = 'Running'`;
  await waitFor(`${workflowId} awaiting ${entry}`, async () => {
    for await (const _ of client.workflow.list({ query: q })) return true;
    return false;
  });
}

const awaitedNow = async (workflowId: string): Promise<string[]> =>
  ((await client.workflow.getHandle(workflowId).describe()).typedSearchAttributes.getAll().find((p) => p.key.name === 'SwAwaitedEvents')?.value as string[] | undefined) ?? [];

const start = (type: string, workflowId: string, input: unknown = {}) => client.workflow.start(type, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [input] });

function record(name: string, history: unknown): void {
  const file = join(FIXTURES_DIR, name);
  if (process.env.SWFLOW_RECORD_HISTORIES === '1' || !existsSync(file)) {
    mkdirSync(FIXTURES_DIR, { recursive: true });
    writeFileSync(file, historyToFixture(history as any));
  }
}

test('a running 1.0 listen is woken by a POSTed CloudEvent (visibility on SwAwaitedEvents); the entry is removed once it has it', async () => {
  const id = `plain-${Date.now()}`;
  const h = await start('test/plain', id);
  await awaiting(id, 'v1.plain.go');
  const r = await post('v1.plain.go', { data: { go: 1 } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.deepEqual(r.body.delivered, [{ workflowId: id, started: false, via: 'visibility' }]);
  assert.deepEqual(await h.result(), [{ go: 1 }]);
  assert.deepEqual(await awaitedNow(id), []);
  const late = await post('v1.plain.go');
  assert.equal(late.status, 404);
  assert.match(late.body.error, /no running instance of test\/plain waits for events of type "v1.plain.go"/);
  const unknown = await post('v1.nobody.listens');
  assert.equal(unknown.status, 404);
  assert.match(unknown.body.error, /no workflow definition consumes events of type "v1.nobody.listens"/);
});

test('correlate with expect: the event wakes the one instance of two whose key matches; the other keeps waiting', async () => {
  const [a, b] = [`pay-a-${Date.now()}`, `pay-b-${Date.now()}`];
  const ha = await start('test/pay', a, { orderId: 'A-1' });
  const hb = await start('test/pay', b, { orderId: 'B-2' });
  await awaiting(a, 'v1.payment.received#orderId=A-1');
  await awaiting(b, 'v1.payment.received#orderId=B-2');
  const r = await post('v1.payment.received', { data: { orderId: 'A-1', amount: 10 } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  assert.deepEqual(r.body.delivered.map((d: any) => d.workflowId), [a]);
  assert.deepEqual(await ha.result(), [{ orderId: 'A-1', amount: 10 }]);
  assert.deepEqual(await awaitedNow(b), ['v1.payment.received#orderId=B-2'], 'B was not signalled and still waits');
  assert.equal((await hb.describe()).status.name, 'RUNNING');
  const none = await post('v1.payment.received', { data: { orderId: 'C-3' } });
  assert.equal(none.status, 404, 'no instance waits for C-3');
  assert.match(none.body.error, /with these correlation values/);
  assert.equal((await post('v1.payment.received', { data: { orderId: 'B-2', amount: 20 } })).status, 202);
  assert.deepEqual(await hb.result(), [{ orderId: 'B-2', amount: 20 }]);
  record('interpreter-v1-awaited-events.json', await ha.fetchHistory());
});

test('correlate without expect: the first event fixes the value, later listens publish and receive only that key', async () => {
  const [one, two] = [`fixed-1-${Date.now()}`, `fixed-2-${Date.now()}`];
  const h1 = await start('test/fixed', one);
  await awaiting(one, 'v1.order.created');
  assert.equal((await post('v1.order.created', { data: { orderId: 'O-1' } })).status, 202);
  await awaiting(one, 'v1.order.paid#orderId=O-1');
  const h2 = await start('test/fixed', two);
  await awaiting(two, 'v1.order.created');
  const created2 = await post('v1.order.created', { data: { orderId: 'O-2' } });
  assert.deepEqual(created2.body.delivered.map((d: any) => d.workflowId), [two], 'instance 1 waits for paid O-1 only');
  await awaiting(two, 'v1.order.paid#orderId=O-2');
  const paid2 = await post('v1.order.paid', { data: { orderId: 'O-2', ok: true } });
  assert.deepEqual(paid2.body.delivered.map((d: any) => d.workflowId), [two]);
  assert.deepEqual(await h2.result(), [{ orderId: 'O-2', ok: true }]);
  assert.deepEqual(await awaitedNow(one), ['v1.order.paid#orderId=O-1']);
  assert.equal((await post('v1.order.paid', { data: { orderId: 'O-1' } })).status, 202);
  assert.deepEqual(await h1.result(), [{ orderId: 'O-1' }]);
});

test('listens in nested do, a for iteration, a fork branch, a try with until, and a listen with foreach are reached', async () => {
  const id = `nested-${Date.now()}`;
  const h = await start('test/nested', id);
  for (const type of ['v1.n.do', 'v1.n.for', 'v1.n.fork', 'v1.n.until', 'v1.n.until', 'v1.n.foreach']) {
    await awaiting(id, type);
    const r = await post(type, { data: { type } });
    assert.equal(r.status, 202, `${type}: ${JSON.stringify(r.body)}`);
    assert.deepEqual(r.body.delivered.map((d: any) => d.workflowId), [id], type);
  }
  assert.deepEqual(await h.result(), [{ got: { type: 'v1.n.foreach' } }]);
});

test('MQTT and `swflow event send --temporal` reach a 1.0 listen through the same routing', async () => {
  const m = `mqtt-${Date.now()}`;
  const hm = await start('test/via-mqtt', m);
  await awaiting(m, 'v1.mqtt.go');
  await publisher.publishAsync('cloudevents/v1', JSON.stringify(MQTT.structured({ specversion: '1.0', id: 'mq-1', source: 'https://shop.example', type: 'v1.mqtt.go', data: { via: 'mqtt' } } as unknown as CloudEventV1<unknown>).body), { qos: 1 });
  assert.deepEqual(await hm.result(), [{ via: 'mqtt' }]);
  const entry = mqttLog.find((e) => e.id === 'mq-1');
  assert.equal(entry?.status, 202, JSON.stringify(mqttLog));
  assert.deepEqual(entry?.workflowIds, [m]);

  const c = `cli-${Date.now()}`;
  const hc = await start('test/via-cli', c);
  await awaiting(c, 'v1.cli.go');
  const sent = await runSwflow(env.address, ['event', 'send', '--temporal', '--definitions', dir, '--type', 'v1.cli.go', '--source', 'https://shop.example', '--data', '{"via":"cli"}']);
  assert.equal(sent.code, 0, sent.err + sent.out);
  assert.match(sent.out, new RegExp(`v1.cli.go .* → ${c}`));
  assert.deepEqual(await hc.result(), [{ via: 'cli' }]);
});

test('schedule.on: a POSTed event starts a run whose input is the array of its events; the same event again starts nothing', async () => {
  const r = await post('v1.start', { id: 'start-1', data: { patient: 7 } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const id = 'test/on-one/https:%2F%2Fshop.example/start-1';
  assert.deepEqual(r.body.delivered, [{ workflowId: id, runId: r.body.delivered[0].runId, started: true, via: 'id' }]);
  const h = client.workflow.getHandle(id);
  assert.deepEqual(await h.result(), { got: { patient: 7 }, n: 1 });
  const again = await post('v1.start', { id: 'start-1', data: { patient: 7 } });
  assert.equal(again.status, 202);
  assert.equal(again.body.delivered[0].duplicate, true);
  let runs = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = '${id}'` })) runs++;
  assert.equal(runs, 1);
  record('interpreter-v1-schedule-on.json', await h.fetchHistory());
});

test('schedule.on all with correlate: two events of one key collect in one instance; another key has its own', async () => {
  const a = await post('v1.part.a', { data: { batch: 'b1', part: 'a' } });
  assert.equal(a.status, 202, JSON.stringify(a.body));
  assert.equal(a.body.delivered[0].workflowId, 'test/on-all/batch=b1');
  const other = await post('v1.part.b', { data: { batch: 'b2', part: 'b' } });
  assert.equal(other.body.delivered[0].workflowId, 'test/on-all/batch=b2');
  const b = await post('v1.part.b', { data: { batch: 'b1', part: 'b' } });
  assert.equal(b.body.delivered[0].workflowId, 'test/on-all/batch=b1');
  assert.deepEqual(await client.workflow.getHandle('test/on-all/batch=b1').result(), { types: ['v1.part.a', 'v1.part.b'], batch: 'b1' });
  const h2 = client.workflow.getHandle('test/on-all/batch=b2');
  assert.equal((await h2.describe()).status.name, 'RUNNING', 'b2 still collects: it has only its b event');
  await waitFor('b2 publishes what it still waits for', async () => (await awaitedNow(h2.workflowId)).includes('v1.part.a#batch=b2'));
  await post('v1.part.a', { data: { batch: 'b2', part: 'a' } });
  assert.deepEqual(await h2.result(), { types: ['v1.part.b', 'v1.part.a'], batch: 'b2' });
});

test('schedule.on all without correlation: the first event starts a run, the next one goes to that run (it waits for it) instead of starting another', async () => {
  const first = await post('v1.free.a', { id: 'free-a' });
  assert.equal(first.status, 202, JSON.stringify(first.body));
  const id = 'test/on-all-free/https:%2F%2Fshop.example/free-a';
  assert.equal(first.body.delivered[0].workflowId, id);
  await awaiting(id, 'v1.free.b');
  const second = await post('v1.free.b', { id: 'free-b' });
  assert.deepEqual(second.body.delivered, [{ workflowId: id, started: false, via: 'visibility' }]);
  assert.deepEqual(await client.workflow.getHandle(id).result(), { types: ['v1.free.a', 'v1.free.b'] });
  let runs = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowType = 'test/on-all-free'` })) runs++;
  assert.equal(runs, 1, 'the second event started nothing');
});

test('schedule.after: a completed run sleeps the delay (a timer whose summary says so) and continues as new with its original input', async () => {
  const id = `again-${Date.now()}`;
  const h = await start('test/again', id, { n: 3 });
  const first = (await h.describe()).runId;
  await waitFor('a second run', async () => (await h.describe()).runId !== first);
  const history = await client.workflow.getHandle(id, first).fetchHistory();
  const events = history.events ?? [];
  const timer = events.find((e) => e.timerStartedEventAttributes);
  assert.ok(timer, 'a timer');
  assert.equal(Number(timer.timerStartedEventAttributes!.startToFireTimeout!.seconds), 1);
  assert.match(Buffer.from((timer.userMetadata?.summary?.data as Uint8Array) ?? []).toString(), /\/schedule\/after → run again after PT1S/);
  const last = events[events.length - 1];
  assert.ok(last.workflowExecutionContinuedAsNewEventAttributes, 'the run continued as new');
  const next = await client.workflow.getHandle(id).describe();
  assert.equal(next.status.name === 'RUNNING' || next.status.name === 'CONTINUED_AS_NEW', true);
  const input = last.workflowExecutionContinuedAsNewEventAttributes!.input!.payloads![0];
  assert.deepEqual(JSON.parse(Buffer.from(input.data as Uint8Array).toString()), { n: 3 });
  await client.workflow.getHandle(id).terminate('test done');
  record('interpreter-v1-schedule-after.json', history);
});
