/**
 * 1.0 `call: asyncapi` subscriptions against a real broker (the embedded aedes MQTT broker,
 * test/helpers/mqtt-broker.ts), driven by the real interpreter on the dev server: the adapter
 * activity subscribes and consumes until the consumption policy is met; `foreach` runs in the
 * workflow over what it returns.
 *
 * The test cannot know the moment the run's activity has subscribed, so a publisher sends a
 * numbered message every 40 ms until the run ends: the run consumes a run of consecutive numbers
 * from wherever it joined the stream (no retained messages: a subscription is a live stream).
 *
 * Streamed subscriptions (a foreach governed by while/until, v1-subscription-streaming): the
 * workflow calls the activity once per step, between which the broker keeps the messages in the
 * subscription's persistent session; foreach runs per message as it comes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { stringify } from 'yaml';
import { formatFinding, loadAnyDefinition } from '../../src/dsl';
import type { ActivityContext } from '../../src/adapter-sdk';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { invokeAsyncApiCall } from '../../adapters/asyncapi/asyncapi-call';
import { stepClientId } from '../../adapters/asyncapi/transport';
import { startMqttBroker, type MqttBroker } from '../helpers/mqtt-broker';
import { adapterHarness, failureText, type AdapterHarness } from './harness';

let broker: MqttBroker;
let dir: string;
let http: Server;
/** The HTTP inbox: GETs answered so far; every third is a 204 (no message yet). */
let polls = 0;
/** What a foreach posted to /seen (a user's service it calls per message), and who waits for how many. */
const seen: unknown[] = [];
let seenWaiters: { n: number; resolve: () => void }[] = [];
/** Resolves once `n` messages were posted to /seen. */
const seenCount = (n: number) => new Promise<void>((resolve) => (seen.length >= n ? resolve() : seenWaiters.push({ n, resolve })));
let h: AdapterHarness;

/**
 * AsyncAPI 3.0: an HTTP server listed first, the broker's URL with a `{port}` variable (its
 * default a port nothing listens on: only `server.variables` reach the broker), a WebSocket server.
 */
const chat = () => ({
  asyncapi: '3.0.0',
  info: { title: 'Chat', version: '1.0.0' },
  servers: {
    hooks: { host: '127.0.0.1:9', protocol: 'http' },
    broker: { host: '127.0.0.1:{port}', protocol: 'mqtt', variables: { port: { default: '9' } } },
    events: { host: '127.0.0.1:9', protocol: 'ws' },
  },
  channels: {
    inbox: { address: 'chat/{room}/inbox', parameters: { room: {} }, messages: { said: { contentType: 'application/json', payload: { type: 'object' } } } },
  },
  operations: {
    readInbox: { action: 'receive', channel: { $ref: '#/channels/inbox' } },
    postToInbox: { action: 'send', channel: { $ref: '#/channels/inbox' } },
  },
});

/** AsyncAPI 2.6: a channel with both operations and no operationIds (addressed by `channel`). */
const feed = (url: string) => ({
  asyncapi: '2.6.0',
  info: { title: 'Feed', version: '1.0.0' },
  servers: { local: { url, protocol: 'mqtt' } },
  channels: { 'feed/items': { publish: { message: { payload: { type: 'object' } } }, subscribe: { message: { payload: { type: 'object' } } } } },
});

/** AsyncAPI 3.0 over HTTP: the channel path is long-polled, one message per answer. */
const httpInbox = (url: string) => ({
  asyncapi: '3.0.0',
  info: { title: 'HTTP inbox', version: '1.0.0' },
  servers: { api: { host: url.replace(/^http:\/\//, ''), protocol: 'http' } },
  channels: { inbox: { address: '/inbox', messages: { said: { contentType: 'application/json', payload: { type: 'object' } } } } },
  operations: { readInbox: { action: 'receive', channel: { $ref: '#/channels/inbox' } } },
});

before(async () => {
  broker = await startMqttBroker();
  http = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/seen') {
      let body = '';
      req.on('data', (c) => (body += c)).on('end', () => {
        seen.push(JSON.parse(body));
        for (const w of seenWaiters.filter((w) => seen.length >= w.n)) w.resolve();
        seenWaiters = seenWaiters.filter((w) => seen.length < w.n);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
      return;
    }
    if (req.method !== 'GET' || req.url !== '/inbox') return res.writeHead(404).end();
    polls++;
    if (polls % 3 === 0) return res.writeHead(204).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ seq: polls }));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  dir = mkdtempSync(join(tmpdir(), 'swflow-asyncapi-sub-'));
  writeFileSync(join(dir, 'chat.yaml'), stringify(chat()));
  writeFileSync(join(dir, 'feed.yaml'), stringify(feed(broker.url)));
  writeFileSync(join(dir, 'http-inbox.yaml'), stringify(httpInbox(`http://127.0.0.1:${(http.address() as AddressInfo).port}`)));
  h = await adapterHarness();
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, baseDirs: [dir] }));
});

after(async () => {
  await h?.close();
  await broker?.close();
  await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const doc = (name: string, tasks: unknown[]) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, do: tasks });

/** `with` of a subscription to the chat inbox over the broker (its port as a server variable). */
const inbox = (subscription: unknown) => ({
  call: 'asyncapi',
  with: { document: { endpoint: 'file://chat.yaml' }, operation: 'readInbox', server: { name: 'broker', variables: { port: String(broker.port) } }, subscription },
});

/** Publishes `message(n)` (n = 0, 1, ...) to `topic` every 40 ms until stopped. */
async function publisher(topic: string, message: (n: number) => unknown): Promise<{ stop(): Promise<void>; sent(): number }> {
  const client = await mqtt.connectAsync(broker.url);
  let n = 0;
  const timer = setInterval(() => void client.publishAsync(topic, JSON.stringify(message(n++)), { qos: 1 }).catch(() => {}), 40);
  return {
    sent: () => n,
    async stop() {
      clearInterval(timer);
      await client.endAsync();
    },
  };
}

/** Runs `tasks` while a publisher sends, and returns the run's result and how long it took. */
async function runWhilePublishing(name: string, tasks: unknown[], topic: string, message: (n: number) => unknown, input: unknown = {}) {
  const pub = await publisher(topic, message);
  const started = Date.now();
  try {
    const { result } = await h.run(doc(name, tasks), input);
    return { result: await result, ms: Date.now() - started, sent: pub.sent() };
  } finally {
    await pub.stop();
  }
}

const seqs = (messages: unknown) => (messages as { payload: { seq: number } }[]).map((m) => m.payload.seq);
const consecutive = (ns: number[], step = 1) => ns.every((n, i) => i === 0 || n === ns[i - 1] + step);

test('amount: 3 messages, in order, from the broker reached through server.variables (the channel parameter as a wildcard)', async () => {
  const { result } = await runWhilePublishing('sub-amount', [{ read: inbox({ consume: { amount: 3 } }) }], 'chat/lobby/inbox', (seq) => ({ seq, text: `hello ${seq}` }));
  const messages = result as { payload: { seq: number; text: string } }[];
  assert.equal(messages.length, 3);
  assert.ok(consecutive(seqs(messages)), JSON.stringify(messages));
  assert.deepEqual(messages[0], { payload: { seq: messages[0].payload.seq, text: `hello ${messages[0].payload.seq}` } });
});

test('filter: a runtime expression over each message (and the task input) drops messages, which do not count', async () => {
  const read = inbox({ filter: '${ .payload.room == $input.room and .payload.seq % 2 == 0 }', consume: { amount: 3 } });
  const { result } = await runWhilePublishing('sub-filter', [{ read }], 'chat/any/inbox', (seq) => ({ seq, room: seq % 4 < 2 ? 'a' : 'b' }), { room: 'a' });
  const ns = seqs(result);
  assert.equal(ns.length, 3);
  assert.ok(ns.every((n) => n % 4 === 0), JSON.stringify(ns));
  assert.ok(consecutive(ns, 4), JSON.stringify(ns));
});

test('for: PT2S ends the subscription on time with what it consumed (while holds throughout)', async () => {
  const { result, ms } = await runWhilePublishing('sub-for', [{ read: inbox({ consume: { while: '${ true }', for: 'PT2S' } }) }], 'chat/timed/inbox', (seq) => ({ seq }));
  const ns = seqs(result);
  assert.ok(ns.length >= 10, `only ${ns.length} messages in 2 s`);
  assert.ok(consecutive(ns));
  assert.ok(ms >= 2000 && ms < 15_000, `took ${ms} ms`);
});

test('until: consumption ends on the message that makes it hold; while: ends on the first message it no longer holds for', async () => {
  const until = inbox({ consume: { until: '${ length > 0 and .[-1].payload.last }' } });
  const { result } = await runWhilePublishing('sub-until', [{ read: until }], 'chat/until/inbox', (seq) => ({ seq, last: seq % 5 === 4 }));
  const messages = result as { payload: { seq: number; last: boolean } }[];
  assert.equal(messages.at(-1)!.payload.last, true);
  assert.ok(messages.slice(0, -1).every((m) => !m.payload.last), JSON.stringify(messages));
  assert.ok(consecutive(seqs(messages)));
  const whileTask = inbox({ consume: { while: '${ (. | length) < 4 }' } });
  const w = await runWhilePublishing('sub-while', [{ read: whileTask }], 'chat/while/inbox', (seq) => ({ seq }));
  assert.equal(seqs(w.result).length, 4);
  // An until that holds before any message: nothing is consumed.
  const none = await h.run(doc('sub-until-now', [{ read: inbox({ consume: { until: '${ true }' } }) }]));
  assert.deepEqual(await none.result, []);
});

test('foreach: each message through foreach.do with item/at, output.as and export.as, in order; the output is theirs', async () => {
  const read = {
    ...inbox({
      consume: { amount: 3 },
      foreach: {
        item: 'message',
        at: 'i',
        do: [{ tag: { set: { seq: '${ $message.payload.seq }', at: '${ $i }' } } }],
        output: { as: '${ { seq, at, tenfold: (.seq * 10) } }' },
        export: { as: '${ ($context // { seen: [] }) | .seen += [$i] }' },
      },
    }),
  };
  const { result } = await runWhilePublishing('sub-foreach', [{ read }, { after: { set: { out: '${ . }', seen: '${ $context.seen }' } } }], 'chat/each/inbox', (seq) => ({ seq }));
  const { out, seen } = result as { out: { seq: number; at: number; tenfold: number }[]; seen: number[] };
  assert.deepEqual(out.map((o) => o.at), [0, 1, 2]);
  assert.ok(consecutive(out.map((o) => o.seq)));
  assert.deepEqual(out.map((o) => o.tenfold), out.map((o) => o.seq * 10));
  assert.deepEqual(seen, [0, 1, 2]);
});

test('streaming: while over the $context that foreach exports stops at the right count; no message lost between the steps while foreach works', async () => {
  const read = inbox({
    consume: { while: '${ ($context.count // 0) < 6 }' },
    foreach: {
      item: 'message',
      // Slower than the publisher: messages arrive while the workflow is between two steps.
      do: [{ pause: { wait: { milliseconds: 150 } } }, { seq: { set: { seq: '${ $message.payload.seq }' } } }],
      output: { as: '${ .seq }' },
      export: { as: '${ ($context // {}) | .count = ((.count // 0) + 1) }' },
    },
  });
  const { result } = await runWhilePublishing('sub-stream-while', [{ read }, { after: { set: { out: '${ . }', count: '${ $context.count }' } } }], 'chat/stream/inbox', (seq) => ({ seq }));
  const { out, count } = result as { out: number[]; count: number };
  assert.equal(count, 6);
  assert.equal(out.length, 6);
  assert.ok(consecutive(out), JSON.stringify(out));
});

test('streaming: a forever subscription runs foreach per message as it arrives (an HTTP call each), keeps what is published between two steps, and is cancelled', async () => {
  seen.length = 0;
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const read = inbox({
    filter: '${ .payload.kind == "note" }',
    consume: { while: '${ true }' },
    foreach: {
      item: 'message',
      do: [
        { tell: { call: 'http', with: { method: 'post', endpoint: `${base}/seen`, body: { seq: '${ $message.payload.seq }' } } } },
        // The workflow is busy here, between two steps: no activity holds the subscription.
        { pause: { wait: { seconds: 1 } } },
      ],
    },
  });
  const handle = await h.start(doc('sub-stream-forever', [{ read }]));
  const pub = await mqtt.connectAsync(broker.url);
  try {
    const send = (seq: number, kind = 'note') => pub.publishAsync('chat/forever/inbox', JSON.stringify({ seq, kind }), { qos: 1 });
    // The run subscribes at its first step: publish until the first message is seen.
    let first = 0;
    const got1 = seenCount(1);
    for (let i = 0; seen.length === 0 && i < 200; i++) {
      await send(first++);
      await Promise.race([got1, new Promise((r) => setTimeout(r, 100))]);
    }
    await got1;
    const firstSeq = (seen[0] as { seq: number }).seq;
    assert.deepEqual(seen, [{ seq: firstSeq }]);
    // While foreach waits (1 s) after its HTTP call: three messages (and one the filter drops), then each is processed in turn.
    await send(1000);
    await send(1001, 'chatter');
    await send(1002);
    await send(1003);
    // Messages the run was sent before its first one was seen (and after it) are there too, in order.
    const expected = [...Array.from({ length: first - firstSeq - 1 }, (_, i) => firstSeq + 1 + i), 1000, 1002, 1003];
    await seenCount(expected.length + 1);
    assert.deepEqual(seen.slice(1).map((s) => (s as { seq: number }).seq), expected);
    // It is still running (forever): the test cancels it; its session is ended.
    const description = await handle.describe();
    assert.equal(description.status.name, 'RUNNING');
    await handle.cancel();
    await assert.rejects(handle.result(), (e: unknown) => /cancel/i.test(failureText(e)));
    const present = await new Promise<boolean>((resolve, reject) => {
      const probe = mqtt.connect(broker.url, { clientId: stepClientId(`${handle.workflowId}/do/0/read`), clean: false, reconnectPeriod: 0 });
      probe.once('connect', (connack) => (resolve(connack.sessionPresent), probe.end())).once('error', reject);
    });
    assert.equal(present, false, 'the subscription\'s persistent session was ended');
  } finally {
    await pub.endAsync();
    await handle.terminate().catch(() => {});
  }
});

test('channel without operation (AsyncAPI 2.6: the channel subscribe operation), protocol selecting the server, a protocol not spoken, a failing filter', async () => {
  const byChannel = { call: 'asyncapi', with: { document: { endpoint: 'file://feed.yaml' }, channel: 'feed/items', subscription: { consume: { amount: 2 } } } };
  const { result } = await runWhilePublishing('sub-channel', [{ read: byChannel }], 'feed/items', (seq) => ({ seq }));
  assert.equal(seqs(result).length, 2);
  // protocol: mqtt passes over the HTTP server listed first (whose port nothing listens on).
  const byProtocol = { call: 'asyncapi', with: { document: { endpoint: 'file://chat.yaml' }, operation: 'readInbox', protocol: 'mqtt', subscription: { consume: { amount: 1 } } } };
  const viaDefault = await h.run(doc('sub-protocol', [{ read: byProtocol }]));
  // Without server.variables the broker's port is the variable's default (9): the connection is refused.
  await assert.rejects(viaDefault.result, (e: unknown) => /errors\/communication/.test(failureText(e)) && /MQTT subscribe chat\/\+\/inbox at mqtt:\/\/127\.0\.0\.1:9/.test(failureText(e)));
  const ws = { call: 'asyncapi', with: { ...byProtocol.with, protocol: 'ws' } };
  const refused = await h.run(doc('sub-ws', [{ read: ws }]));
  await assert.rejects(refused.result, (e: unknown) => /errors\/configuration/.test(failureText(e)) && /the asyncapi adapter does not speak ws \(server "events"\)/.test(failureText(e)));
  const sending = { call: 'asyncapi', with: { document: { endpoint: 'file://chat.yaml' }, operation: 'postToInbox', server: { name: 'broker', variables: { port: String(broker.port) } }, subscription: { consume: { amount: 1 } } } };
  const wrongWay = await h.run(doc('sub-wrong-way', [{ read: sending }]));
  await assert.rejects(wrongWay.result, (e: unknown) => /operation "postToInbox" sends messages: a subscription needs an operation the workflow receives/.test(failureText(e)));
  const unknownVariable = { call: 'asyncapi', with: { ...sending.with, operation: 'readInbox', server: { name: 'broker', variables: { prot: '1883' } } } };
  const typo = await h.run(doc('sub-typo', [{ read: unknownVariable }]));
  await assert.rejects(typo.result, (e: unknown) => /server "broker" has no variable "prot"; its variables: port/.test(failureText(e)));
  const failing = await runWhilePublishing('sub-bad-filter', [{ read: inbox({ filter: '${ .payload.seq | error("no seq for you") }', consume: { amount: 1 } }) }], 'chat/bad/inbox', (seq) => ({ seq })).catch((e: unknown) => e);
  assert.match(failureText(failing), /errors\/expression/);
  assert.match(failureText(failing), /no seq for you/);
});

test('over HTTP: the channel path long-polled, one message per answer, a 204 asked again; filter and amount; for ends it on time', async () => {
  polls = 0;
  const read = (subscription: unknown) => ({ call: 'asyncapi', with: { document: { endpoint: 'file://http-inbox.yaml' }, operation: 'readInbox', protocol: 'http', subscription } });
  const { result } = await h.run(doc('sub-http', [{ read: read({ filter: '${ .payload.seq % 2 == 1 }', consume: { amount: 3 } }) }]));
  // Polls 1, 2, (3: 204), 4, 5, (6: 204), 7: the odd ones pass the filter.
  assert.deepEqual(await result, [{ payload: { seq: 1 } }, { payload: { seq: 5 } }, { payload: { seq: 7 } }]);
  assert.equal(polls, 7);
  const started = Date.now();
  const timed = await h.run(doc('sub-http-for', [{ read: read({ consume: { while: '${ true }', for: 'PT1S' } }) }]));
  const messages = (await timed.result) as unknown[];
  const ms = Date.now() - started;
  assert.ok(messages.length >= 2, JSON.stringify(messages));
  assert.ok(ms >= 1000 && ms < 10_000, `took ${ms} ms`);
});

test('streaming over HTTP: one long poll per step, foreach per message, while over the exported $context', async () => {
  polls = 0;
  const read = {
    call: 'asyncapi',
    with: {
      document: { endpoint: 'file://http-inbox.yaml' },
      operation: 'readInbox',
      protocol: 'http',
      subscription: { consume: { while: '${ ($context.count // 0) < 3 }' }, foreach: { item: 'm', output: { as: '${ $m.payload.seq }' }, export: { as: '${ { count: (($context.count // 0) + 1) } }' } } },
    },
  };
  const { result } = await h.run(doc('sub-http-stream', [{ read }]));
  // Polls 1, 2, (3: 204, asked again), 4: three messages, and no poll after the third.
  assert.deepEqual(await result, [1, 2, 4]);
  assert.equal(polls, 4);
});

test('a subscription from a run that started before v1-asyncapi-subscriptions (no scope: its workflow evaluated the expressions as arguments) is refused as it was then', async () => {
  const old = { document: { endpoint: 'file://chat.yaml' }, operation: 'readInbox', subscription: { filter: true, consume: { amount: 1 } } };
  await assert.rejects(invokeAsyncApiCall(old, { state: '/do/0/read' } as ActivityContext, [dir]), (e: unknown) => {
    const f = e as { type?: string; message: string };
    return f.type === 'https://serverlessworkflow.io/spec/1.0.0/errors/configuration' && /\/do\/0\/read: call: asyncapi with a subscription is not supported yet by this run/.test(f.message);
  });
});

test('validation: no warning for a subscription; a consumption policy with neither amount, while nor until is an error with its location', async () => {
  const ok = await loadAnyDefinition(doc('sub-valid', [{ read: inbox({ consume: { amount: 1 } }) }]));
  assert.deepEqual(ok.problems, []);
  const bad = await loadAnyDefinition(doc('sub-invalid', [{ read: inbox({ consume: { for: 'PT2S' } }) }]));
  assert.equal(bad.definition, undefined);
  assert.match(bad.problems.map(formatFinding).join('\n'), /error: 'consume' is missing required property 'amount' or 'while' or 'until' at \/do\/0\/read\/with\/subscription\/consume/);
});
