/**
 * The asyncapi adapter against real brokers and servers: the embedded aedes MQTT broker
 * (test/helpers/mqtt-broker.ts, checking credentials) and a node:http server for HTTP channels.
 * The AsyncAPI documents are written into a definitions folder with the servers' ports. Driven by
 * the real interpreter on the dev server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { stringify } from 'yaml';
import { loadAnyDefinition } from '../../src/dsl';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { findOperation, loadDocument } from '../../adapters/asyncapi/document';
import { channelAddress } from '../../adapters/asyncapi/message';
import { assertNoSecrets } from '../helpers/leaks';
import { startMqttBroker, type MqttBroker } from '../helpers/mqtt-broker';
import { CORPUS } from '../dsl/corpus-lib';
import { adapterHarness, failureText, type AdapterHarness } from './harness';

const SECRETS = { MQTT_PASSWORD: 'mqtt-pw-3e3e3e', WRONG_PASSWORD: 'not-the-pw-8a8a', HOOK_TOKEN: 'hook-bearer-1f1f1f' };
/** A 1.0 secret-based basic policy's secret (`basic: { use: LIGHTS_BASIC }`). */
const V1_SECRETS = { ...SECRETS, LIGHTS_BASIC: JSON.stringify({ username: 'lights', password: SECRETS.MQTT_PASSWORD }) };

let broker: MqttBroker;
/** The user names clients connected with. */
const logins: string[] = [];
const packets: { topic: string; payload: string; qos: number; retain: boolean; user?: string }[] = [];
let http: Server;
let httpBase: string;
let streetlightsYaml: string;
const posted: { method: string; path: string; body: string; contentType?: string; authorization?: string; team?: string }[] = [];
let dir: string;
let h: AdapterHarness;

// ---- the documents ---------------------------------------------------------------------------
/** The spec's streetlights example (AsyncAPI 2.1), with a parameterised channel, an MQTT binding and a subscribe operation. */
const streetlights = (url: string) => ({
  asyncapi: '2.1.0',
  info: { title: 'Streetlights API', version: '1.0.0' },
  servers: { mosquitto: { url, protocol: 'mqtt' } },
  channels: {
    'light/measured': {
      publish: {
        operationId: 'onLightMeasured',
        message: { name: 'LightMeasured', payload: { type: 'object', properties: { id: { type: 'integer', minimum: 0 }, lumens: { type: 'integer', minimum: 0 }, sentAt: { type: 'string', format: 'date-time' } } } },
      },
    },
    'light/{streetlightId}/dim': {
      parameters: { streetlightId: { schema: { type: 'string' } } },
      publish: { operationId: 'dimLight', bindings: { mqtt: { qos: 2, retain: true } }, message: { payload: { type: 'object' } } },
    },
    'light/{streetlightId}/status': {
      parameters: { streetlightId: { schema: { type: 'string' } } },
      subscribe: { operationId: 'lightStatus', message: { contentType: 'application/json', payload: { type: 'object' } } },
    },
  },
});

/** An AsyncAPI 3.0 document with an HTTP server (send) and a STOMP one the adapter does not speak. */
const notifications = (url: string) => ({
  asyncapi: '3.0.0',
  info: { title: 'Notifications', version: '1.0.0' },
  servers: { hooks: { host: url.replace(/^http:\/\//, ''), protocol: 'http' }, stomp: { host: 'localhost:61613', protocol: 'stomp' } },
  channels: {
    notifications: { address: '/notifications/{team}', parameters: { team: {} }, servers: [{ $ref: '#/servers/hooks' }], messages: { note: { contentType: 'application/json', payload: { type: 'object' } } } },
    audit: { address: 'audit', servers: [{ $ref: '#/servers/stomp' }], messages: { entry: { payload: { type: 'object' } } } },
    latest: { address: '/notifications/{team}/latest', parameters: { team: {} }, servers: [{ $ref: '#/servers/hooks' }], messages: { note: { contentType: 'application/json', payload: { type: 'object' } } } },
  },
  operations: {
    notify: { action: 'send', channel: { $ref: '#/channels/notifications' }, messages: [{ $ref: '#/channels/notifications/messages/note' }] },
    audit: { action: 'send', channel: { $ref: '#/channels/audit' } },
    latestNote: { action: 'receive', channel: { $ref: '#/channels/latest' } },
  },
});

before(async () => {
  broker = await startMqttBroker();
  // Anonymous clients are welcome; a client with a username must give the right password.
  broker.broker.authenticate = (_client, username, password, done) => {
    if (!username) return done(null, true);
    logins.push(username);
    const ok = username === 'lights' && password?.toString() === SECRETS.MQTT_PASSWORD;
    done(ok ? null : Object.assign(new Error('bad user name or password'), { returnCode: 4 }), ok);
  };
  broker.broker.on('publish', (packet, client) => {
    if (client) packets.push({ topic: packet.topic, payload: packet.payload.toString(), qos: packet.qos, retain: packet.retain, user: (client as unknown as { user?: string }).user });
  });
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/docs/streetlights.yaml') {
        if (req.headers.authorization !== `Bearer ${SECRETS.HOOK_TOKEN}`) return res.writeHead(401).end();
        return res.writeHead(200, { 'content-type': 'application/yaml' }).end(streetlightsYaml);
      }
      if (req.headers.authorization !== `Bearer ${SECRETS.HOOK_TOKEN}`) return res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"who are you?"}');
      if (req.method === 'GET' && req.url === '/notifications/ops/latest') return res.writeHead(200, { 'content-type': 'application/json' }).end(posted.at(-1)?.body ?? 'null');
      posted.push({ method: req.method!, path: req.url!, body, contentType: req.headers['content-type'], authorization: req.headers.authorization, ...(req.headers['x-team'] ? { team: String(req.headers['x-team']) } : {}) });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  dir = mkdtempSync(join(tmpdir(), 'swflow-asyncapi-'));
  httpBase = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  streetlightsYaml = stringify(streetlights(broker.url));
  writeFileSync(join(dir, 'streetlights.yaml'), streetlightsYaml);
  writeFileSync(join(dir, 'notifications.yaml'), stringify(notifications(httpBase)));
  writeFileSync(join(dir, 'broken.yaml'), stringify({ asyncapi: '2.1.0', info: { title: 'no version' }, channels: {} }));
  h = await adapterHarness();
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, secrets: V1_SECRETS, baseDirs: [dir] }));
});

after(async () => {
  await h?.close();
  await broker?.close();
  await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---- pure parts -----------------------------------------------------------------------------
test('the document: direction from the workflow side (2.x publish and 3.x send are sent), servers, bindings, channel parameters', async () => {
  const where = join(dir, 'streetlights.yaml');
  const doc = await loadDocument(where, async () => assert.fail('no fetch'));
  assert.deepEqual(findOperation(doc, 'onLightMeasured', where), {
    operationId: 'onLightMeasured',
    direction: 'send',
    channel: 'light/measured',
    server: { id: 'mosquitto', protocol: 'mqtt', url: broker.url },
    contentType: 'application/json',
    bindings: {},
    document: where,
  });
  assert.equal(findOperation(doc, 'lightStatus', where).direction, 'receive');
  assert.deepEqual(findOperation(doc, 'dimLight', where).bindings, { qos: 2, retain: true });
  const three = join(dir, 'notifications.yaml');
  const notify = findOperation(await loadDocument(three, async () => ''), 'notify', three);
  assert.equal(notify.direction, 'send');
  assert.match(notify.server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(channelAddress('/notes/{team}', { team: 'a b/c' }, 'http'), '/notes/a%20b%2Fc');
  assert.equal(channelAddress('light/{id}/dim', { id: 'main st 4' }, 'mqtt'), 'light/main st 4/dim');
  assert.equal(channelAddress('light/{id}/status', {}, 'mqtt', '+'), 'light/+/status');
  assert.throws(() => channelAddress('light/{id}/dim', {}, 'mqtt'), /the channel "light\/\{id\}\/dim" needs the argument "id"/);
  assert.throws(() => channelAddress('light/{id}/dim', { id: 'a/#' }, 'mqtt'), /an MQTT topic level cannot hold "\/", "\+" or "#"/);
});

test("the corpus' AsyncAPI 3.0 document (Kogito's asyncPublisher): refused for its id, which is not a URI; with one, sendWait goes to its Kafka server's topic wait", async () => {
  const kogito = join(CORPUS, 'kogito', 'specs', 'asyncAPI.yaml');
  await assert.rejects(loadDocument(kogito, async () => ''), /asyncAPI\.yaml is not a valid AsyncAPI document: "id" property must match format "uri" \(at id\)/);
  const fixed = join(dir, 'kogito-asyncAPI.yaml');
  writeFileSync(fixed, readFileSync(kogito, 'utf8').replace(/^id: oneConsumer$/m, 'id: urn:oneConsumer'));
  const doc = await loadDocument(fixed, async () => '');
  const op = findOperation(doc, 'sendWait', fixed);
  assert.deepEqual({ direction: op.direction, channel: op.channel, server: op.server }, { direction: 'send', channel: 'wait', server: { id: 'production', protocol: 'kafka', url: 'kafka://localhost:9092' } });
});

// ---- through the interpreter ----------------------------------------------------------------
const AUTH = [
  { name: 'lights', scheme: 'basic', properties: { username: 'lights', password: '${ $SECRETS.MQTT_PASSWORD }' } },
  { name: 'intruder', scheme: 'basic', properties: { username: 'lights', password: '${ $SECRETS.WRONG_PASSWORD }' } },
  { name: 'hooks', scheme: 'bearer', properties: { token: '${ $SECRETS.HOOK_TOKEN }' } },
];
const FUNCTIONS = () => [
  { name: 'dimByUrl', type: 'asyncapi', operation: `${httpBase}/docs/streetlights.yaml#dimLight`, authRef: { resource: 'hooks', invocation: 'lights' } },
  { name: 'publishLightMeasurements', type: 'asyncapi', operation: 'file://streetlights.yaml#onLightMeasured' },
  { name: 'dim', type: 'asyncapi', operation: 'streetlights.yaml#dimLight', authRef: 'lights' },
  { name: 'dimIntruder', type: 'asyncapi', operation: 'streetlights.yaml#dimLight', authRef: 'intruder' },
  { name: 'lightStatus', type: 'asyncapi', operation: 'streetlights.yaml#lightStatus' },
  { name: 'lightStatusQuick', type: 'asyncapi', operation: 'streetlights.yaml#lightStatus', metadata: { 'swflow.heartbeat': 'PT1S' } },
  { name: 'notify', type: 'asyncapi', operation: 'notifications.yaml#notify', authRef: 'hooks' },
  { name: 'latestNote', type: 'asyncapi', operation: 'notifications.yaml#latestNote', authRef: 'hooks' },
  { name: 'notifyAnonymous', type: 'asyncapi', operation: 'notifications.yaml#notify' },
  { name: 'audit', type: 'asyncapi', operation: 'notifications.yaml#audit' },
  { name: 'typo', type: 'asyncapi', operation: 'streetlights.yaml#onLightMesured' },
  { name: 'broken', type: 'asyncapi', operation: 'broken.yaml#anything' },
];

function oneState(id: string, actions: unknown[], extra: Record<string, unknown> = {}) {
  return { id, start: 'Call', secrets: Object.keys(SECRETS), auth: AUTH, functions: FUNCTIONS(), states: [{ name: 'Call', type: 'operation', actions, end: true }], ...extra };
}

test("the spec's example: the arguments published as the message on the operation's channel", async () => {
  packets.length = 0;
  const { result } = await h.run(
    oneState('aapipublish', [
      {
        name: 'Publish Light Measurements',
        functionRef: { refName: 'publishLightMeasurements', arguments: { id: '${ .currentLight.id }', lumens: '${ .currentLight.lumens }', sentAt: '2026-11-23T10:00:00Z' } },
        actionDataFilter: { toStateData: '${ .publication }' },
      },
    ]),
    { currentLight: { id: 7, lumens: 800 } },
  );
  assert.deepEqual(await result, {
    currentLight: { id: 7, lumens: 800 },
    publication: { published: true, operationId: 'onLightMeasured', protocol: 'mqtt', server: 'mosquitto', channel: 'light/measured', qos: 1 },
  });
  assert.deepEqual(packets.map((p) => [p.topic, JSON.parse(p.payload), p.qos]), [['light/measured', { id: 7, lumens: 800, sentAt: '2026-11-23T10:00:00Z' }, 1]]);
});

test('channel parameters from the arguments, QoS and retain from the MQTT binding, basic auth as MQTT credentials (no secret in history)', async () => {
  packets.length = 0;
  const { result, workflowId } = await h.run(oneState('aapidim', [{ functionRef: { refName: 'dim', arguments: { streetlightId: 'main-st-4', level: 30 } }, actionDataFilter: { results: '${ .channel }', toStateData: '${ .channel }' } }]));
  assert.deepEqual(await result, { channel: 'light/main-st-4/dim' });
  assert.deepEqual(packets.map((p) => [p.topic, JSON.parse(p.payload), p.qos, p.retain]), [['light/main-st-4/dim', { streetlightId: 'main-st-4', level: 30 }, 2, true]]);
  await assertNoSecrets(h.client, workflowId, Object.values(SECRETS), [], false);
});

test('a document by URL, fetched with the resource auth; the invocation auth for the broker', async () => {
  packets.length = 0;
  const { result } = await h.run(oneState('aapiurl', [{ functionRef: { refName: 'dimByUrl', arguments: { streetlightId: 'elm-1', level: 5 } }, actionDataFilter: { results: '${ .published }', toStateData: '${ .ok }' } }]));
  assert.deepEqual(await result, { ok: true });
  assert.deepEqual(packets.map((p) => p.topic), ['light/elm-1/dim']);
});

test('a broker that refuses the credentials: NotAuthorized, matched by onErrors; the password stays out of history', async () => {
  packets.length = 0;
  const { result, workflowId } = await h.run(
    oneState('aapiintruder', [], {
      errors: [{ name: 'Refused', code: 'NotAuthorized' }],
      states: [
        { name: 'Call', type: 'operation', actions: [{ functionRef: { refName: 'dimIntruder', arguments: { streetlightId: 'x', level: 0 } } }], onErrors: [{ errorRef: 'Refused', transition: 'Denied' }], end: true },
        { name: 'Denied', type: 'inject', data: { denied: true }, end: true },
      ],
    }),
  );
  assert.deepEqual(await result, { denied: true });
  assert.equal(packets.length, 0);
  await assertNoSecrets(h.client, workflowId, Object.values(SECRETS), [], false);
});

test('a subscribe operation returns the first message on its channel (a parameter without an argument is a wildcard)', async () => {
  const subscribed = new Promise<string>((resolve) => broker.broker.once('subscribe', (subs) => resolve(subs[0]!.topic)));
  const { result } = await h.run(oneState('aapireceive', [{ functionRef: { refName: 'lightStatus', arguments: {} }, actionDataFilter: { toStateData: '${ .status }' } }]));
  assert.equal(await subscribed, 'light/+/status');
  const client = await mqtt.connectAsync(broker.url);
  await client.publishAsync('light/main-st-4/status', JSON.stringify({ on: true, lumens: 650 }), { qos: 1 });
  await client.endAsync();
  assert.deepEqual(await result, { status: { on: true, lumens: 650 } });
});

test('a receive that gets no message ends at the action timeout (code timeout, for onErrors), and its subscription with it', async () => {
  const before = broker.broker.connectedClients;
  const { result } = await h.run(
    oneState('aapireceivetimeout', [], {
      errors: [{ name: 'Quiet', code: 'timeout' }],
      states: [
        {
          name: 'Call',
          type: 'operation',
          timeouts: { actionExecTimeout: 'PT2S' },
          actions: [{ functionRef: { refName: 'lightStatusQuick', arguments: { streetlightId: 'silent-1' } } }],
          onErrors: [{ errorRef: 'Quiet', transition: 'NoNews' }],
          end: true,
        },
        { name: 'NoNews', type: 'inject', data: { status: 'unknown' }, end: true },
      ],
    }),
  );
  assert.deepEqual(await result, { status: 'unknown' });
  for (let i = 0; i < 100 && broker.broker.connectedClients > before; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(broker.broker.connectedClients, before, 'the adapter disconnected from the broker');
});

test('an HTTP channel (AsyncAPI 3.0): a send POSTs the message to the channel path with the bearer token, a receive GETs it; a 401 is its status code', async () => {
  posted.length = 0;
  const { result } = await h.run(oneState('aapihttp', [{ functionRef: { refName: 'notify', arguments: { team: 'ops', text: 'light 4 is out' } }, actionDataFilter: { toStateData: '${ .sent }' } }]));
  assert.deepEqual(await result, { sent: { published: true, operationId: 'notify', protocol: 'http', server: 'hooks', channel: '/notifications/ops', status: 202 } });
  assert.deepEqual(posted, [{ method: 'POST', path: '/notifications/ops', body: '{"team":"ops","text":"light 4 is out"}', contentType: 'application/json', authorization: `Bearer ${SECRETS.HOOK_TOKEN}` }]);
  const latest = await h.run(oneState('aapihttpget', [{ functionRef: { refName: 'latestNote', arguments: { team: 'ops' } }, actionDataFilter: { toStateData: '${ .latest }' } }]));
  assert.deepEqual(await latest.result, { latest: { team: 'ops', text: 'light 4 is out' } });
  const anonymous = await h.run(oneState('aapihttp401', [{ functionRef: { refName: 'notifyAnonymous', arguments: { team: 'ops', text: 'x' } } }]));
  await assert.rejects(anonymous.result, (e: unknown) => /who are you\?.*\(code 401\)/.test(failureText(e)));
});

test('an unknown operationId, an unsupported protocol, an invalid document: non-retryable OperationErrors that say why', async () => {
  const cases: [string, RegExp][] = [
    ['typo', /streetlights\.yaml has no operation "onLightMesured"; its operations: onLightMeasured, dimLight, lightStatus/],
    ['audit', /operation "audit" has no server with a protocol the asyncapi adapter speaks \(mqtt, mqtts, secure-mqtt, http, https, amqp, amqps, kafka, kafka-secure\); its servers: stomp \(stomp\)/],
    ['broken', /broken\.yaml is not a valid AsyncAPI document: .*version/],
  ];
  for (const [fn, message] of cases) {
    const { result } = await h.run(oneState(`aapibad-${fn}`, [{ functionRef: { refName: fn, arguments: {} } }]));
    await assert.rejects(result, (e: unknown) => {
      assert.match(failureText(e), message);
      assert.match(failureText(e), /code OperationError/);
      return true;
    });
  }
});

// ---- 1.0 call: asyncapi (activity sw.asyncapiCall) -------------------------------------------
const v1Doc = (name: string, tasks: unknown[], use: Record<string, unknown> = {}) => ({
  document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' },
  use: { secrets: Object.keys(V1_SECRETS), ...use },
  do: tasks,
});

test("1.0 call: asyncapi — the spec's example: message.payload published by the operation on the named server", async () => {
  packets.length = 0;
  const publish = {
    call: 'asyncapi',
    with: { document: { endpoint: 'file://streetlights.yaml' }, operation: 'onLightMeasured', server: { name: 'mosquitto' }, message: { payload: { id: '${ .currentLight.id }', lumens: '${ .currentLight.lumens }' } } },
  };
  const { result } = await h.run(v1Doc('asyncapi-publish', [{ publishLightMeasurements: publish }]), { currentLight: { id: 7, lumens: 800 } });
  assert.deepEqual(await result, { published: true, operationId: 'onLightMeasured', protocol: 'mqtt', server: 'mosquitto', channel: 'light/measured', qos: 1 });
  assert.deepEqual(packets.map((p) => [p.topic, JSON.parse(p.payload), p.qos]), [['light/measured', { id: 7, lumens: 800 }, 1]]);
});

test('1.0 call: asyncapi — a secret-based basic policy (by name) as MQTT credentials, out of history; channel parameters from the payload; a refused login is a communication problem with status 401', async () => {
  packets.length = 0;
  logins.length = 0;
  const dim = (authentication: unknown) => ({ call: 'asyncapi', with: { document: { endpoint: 'file://streetlights.yaml' }, operation: 'dimLight', message: { payload: { streetlightId: 'main-st-4', level: 30 } }, authentication } });
  const { result, workflowId } = await h.run(v1Doc('asyncapi-dim', [{ dim: { ...dim({ use: 'lights' }), output: { as: '.channel' } } }], { authentications: { lights: { basic: { use: 'LIGHTS_BASIC' } } } }));
  assert.equal(await result, 'light/main-st-4/dim');
  assert.deepEqual(packets.map((p) => [p.topic, p.qos, p.retain]), [['light/main-st-4/dim', 2, true]]);
  assert.deepEqual(logins, ['lights']);
  await assertNoSecrets(h.client, workflowId, Object.values(V1_SECRETS), [], false);
  const intruder = await h.run(
    v1Doc('asyncapi-intruder', [{ guarded: { try: [{ dim: dim({ basic: { username: 'lights', password: 'guess' } }) }], catch: { errors: { with: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', status: 401 } }, do: [{ denied: { set: { denied: true } } }] } } }]),
  );
  assert.deepEqual(await intruder.result, { denied: true });
});

test('1.0 call: asyncapi — an HTTP channel (AsyncAPI 3.0): the bearer token from $secrets and message.headers go with the POST; a 401 is a communication problem with its status', async () => {
  posted.length = 0;
  const notify = (authentication?: unknown) => ({
    call: 'asyncapi',
    with: { document: { endpoint: 'file://notifications.yaml' }, operation: 'notify', message: { payload: { team: 'ops', text: 'light 4 is out' }, headers: { 'x-team': '${ .team }' } }, ...(authentication ? { authentication } : {}) },
  });
  const { result, workflowId } = await h.run(v1Doc('asyncapi-http', [{ notify: notify({ bearer: { token: '${ $secrets.HOOK_TOKEN }' } }) }]), { team: 'ops' });
  assert.deepEqual(await result, { published: true, operationId: 'notify', protocol: 'http', server: 'hooks', channel: '/notifications/ops', status: 202 });
  assert.deepEqual(posted, [{ method: 'POST', path: '/notifications/ops', body: '{"team":"ops","text":"light 4 is out"}', contentType: 'application/json', authorization: `Bearer ${SECRETS.HOOK_TOKEN}`, team: 'ops' }]);
  await assertNoSecrets(h.client, workflowId, Object.values(V1_SECRETS), [], false);
  const anonymous = await h.run(v1Doc('asyncapi-http-401', [{ notify: notify() }]), { team: 'ops' });
  await assert.rejects(anonymous.result, (e: unknown) => /errors\/communication","status":401/.test(failureText(e)));
});

test('1.0 call: asyncapi — a receive operation given a message is refused (subscriptions: asyncapi-subscription.test.ts)', async () => {
  const wrongWay = await h.run(v1Doc('asyncapi-wrong-way', [{ send: { call: 'asyncapi', with: { document: { endpoint: 'file://streetlights.yaml' }, operation: 'lightStatus', message: { payload: {} } } } }]));
  await assert.rejects(wrongWay.result, (e: unknown) => /operation "lightStatus" receives messages/.test(failureText(e)));
});
