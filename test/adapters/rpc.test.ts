/**
 * The rpc adapter against a real gRPC server: @grpc/grpc-js serving test/fixtures/rpc/greeting.proto
 * (loaded with @grpc/proto-loader) on a free port, checking `authorization` metadata; a node:http
 * server hands out the same proto file by URL. Only the handlers stand in for the user's service.
 * Driven by the real interpreter on the dev server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Server, ServerCredentials, status, type ServerUnaryCall, type ServerWritableStream, type sendUnaryData, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { historyText } from '../../src/testing/history';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { closeRpcChannels } from '../../adapters/rpc';
import { resolveMethod } from '../../adapters/rpc/proto';
import { requestMessage } from '../../adapters/rpc/message';
import { assertNoSecrets } from '../helpers/leaks';
import { freePort } from '../helpers/ports';
import { adapterHarness, failureText, type AdapterHarness } from './harness';

const FIXTURES = join(__dirname, '..', 'fixtures', 'rpc');
const SECRETS = { GREETER_TOKEN: 'greeter-bearer-9c9c', GREETER_PASSWORD: 'greeter-pw-4d4d', SECRET_NAME: 'agent-s3cret-6b6b', CLIENT_SECRET: 'greeter-client-5a5a' };
/** A 1.0 secret-based basic policy's secret (`basic: { use: GREETER_BASIC }`). */
const V1_SECRETS = { ...SECRETS, GREETER_BASIC: JSON.stringify({ username: 'greeter', password: SECRETS.GREETER_PASSWORD }) };

// ---- the stand-in service -------------------------------------------------------------------
interface HelloRequest {
  name: string;
  language: string;
  inner_hello: { unknown: boolean } | null;
  visits: string;
}
const GREETINGS: Record<string, string> = { English: 'Hello from gRPC service', Spanish: 'Saludos desde gRPC service', Italian: 'Buongiorno' };
const reply = (r: HelloRequest) => ({
  message: `${GREETINGS[r.language] ?? GREETINGS.English} ${r.name}`,
  state: r.inner_hello?.unknown ? 'UNKNOWN' : 'SUCCESS',
  inner_message: { number: 23, state: 'SUCCESS' },
  visits: String(BigInt(r.visits || '0') + 1n),
});
const serverError = (code: status, details: string) => Object.assign(new Error(details), { code, details });

/** OAuth2 access tokens the token endpoint issued and the service still takes. */
const issued = new Set<string>();
let tokenRequests = 0;
const waiting: { cancelled: Promise<void>; name: string }[] = [];
const received: { method: string; request: unknown; authorization?: string }[] = [];

const greeter: UntypedServiceImplementation = {
  SayHello(call: ServerUnaryCall<HelloRequest, unknown>, done: sendUnaryData<unknown>) {
    received.push({ method: 'SayHello', request: call.request });
    const r = call.request;
    if (r.name === 'nobody') return done(serverError(status.NOT_FOUND, 'there is nobody to greet'));
    if (r.language === 'Klingon') return done(serverError(status.INVALID_ARGUMENT, `cannot greet ${r.name} in Klingon`));
    done(null, reply(r));
  },
  SayHelloToAll(call: ServerWritableStream<{ requests: HelloRequest[] }, unknown>) {
    received.push({ method: 'SayHelloToAll', request: call.request });
    for (const r of call.request.requests) call.write(reply(r));
    call.end();
  },
  WhoAmI(call: ServerUnaryCall<unknown, unknown>, done: sendUnaryData<unknown>) {
    const authorization = String(call.metadata.get('authorization')[0] ?? '');
    received.push({ method: 'WhoAmI', request: call.request, authorization });
    if (authorization === `Bearer ${SECRETS.GREETER_TOKEN}`) return done(null, { who: 'bearer' });
    if (issued.has(authorization.replace(/^Bearer /, ''))) return done(null, { who: 'oauth2 client' });
    const basic = /^Basic (.+)$/.exec(authorization)?.[1];
    if (basic && Buffer.from(basic, 'base64').toString() === `greeter:${SECRETS.GREETER_PASSWORD}`) return done(null, { who: 'basic greeter' });
    done(serverError(status.UNAUTHENTICATED, 'who are you?'));
  },
  DoNothing(_call: ServerUnaryCall<unknown, unknown>, done: sendUnaryData<unknown>) {
    done(null, {});
  },
  Wait(call: ServerUnaryCall<HelloRequest, unknown>) {
    // Never answers: the call ends when the client cancels it.
    waiting.push({ name: call.request.name, cancelled: new Promise((r) => call.on('cancelled', () => r())) });
  },
};

let grpcServer: Server;
let address: string;
let http: HttpServer;
let protoUrl: string;
let httpBase: string;
let h: AdapterHarness;

before(async () => {
  const pkg = loadSync(join(FIXTURES, 'greeting.proto'), { keepCase: true, longs: String, enums: String, defaults: true });
  grpcServer = new Server();
  grpcServer.addService(pkg['greeting.Greeter'] as ServiceDefinition, greeter);
  const port = await new Promise<number>((resolve, reject) => grpcServer.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
  address = `127.0.0.1:${port}`;
  http = createHttpServer((req, res) => {
    if (req.url === '/oauth2/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        if (form.client_id !== 'greeter-app' || form.client_secret !== SECRETS.CLIENT_SECRET) return res.writeHead(401).end('{"error":"invalid_client"}');
        const token = `greeter-tok-${++tokenRequests}-${Math.random().toString(36).slice(2)}`;
        issued.add(token);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
      });
      return;
    }
    if (req.url === '/protos/greeting.proto') return res.writeHead(200, { 'content-type': 'text/plain' }).end(readFileSync(join(FIXTURES, 'greeting.proto')));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  httpBase = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  protoUrl = `${httpBase}/protos/greeting.proto`;
  h = await adapterHarness();
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, secrets: V1_SECRETS, baseDirs: [FIXTURES] }));
});

after(async () => {
  await h?.close();
  closeRpcChannels();
  grpcServer?.forceShutdown();
  await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
});

// ---- pure parts -----------------------------------------------------------------------------
test('the proto file: services by short or full name, arguments checked against the message (proto3 JSON and .proto names accepted)', async () => {
  const noFetch = async () => assert.fail('no fetch expected');
  const m = await resolveMethod('file://greeting.proto#Greeter#SayHello', [FIXTURES], noFetch);
  assert.equal(m.definition.path, '/greeting.Greeter/SayHello');
  assert.equal((await resolveMethod('greeting.proto#greeting.Greeter#SayHelloToAll', [FIXTURES], noFetch)).definition.responseStream, true);
  assert.deepEqual(requestMessage(m.requestType, { name: 'Ann', inner_hello: { unknown: true } }), { name: 'Ann', innerHello: { unknown: true } });
  assert.deepEqual(requestMessage(m.requestType, { innerHello: { unknown: false } }), { innerHello: { unknown: false } });
  assert.throws(() => requestMessage(m.requestType, { name: 'Ann', inner_hello: { unknwn: true } }), /message greeting\.InnerHello has no field "unknwn" \(at innerHello\); its fields: unknown/);
  assert.throws(() => requestMessage(m.requestType, 'Ann'), /must be an object \(message greeting\.HelloRequest\)/);
  await assert.rejects(resolveMethod('greeting.proto#Greeter#Chat', [FIXTURES], noFetch), /streams its requests; only unary and server-streaming methods/);
  await assert.rejects(resolveMethod('greeting.proto#Greeter#Shout', [FIXTURES], noFetch), /service greeting\.Greeter has no method "Shout"; its methods: SayHello, SayHelloToAll, WhoAmI, DoNothing, Wait, Chat/);
  await assert.rejects(resolveMethod('missing.proto#Greeter#SayHello', [FIXTURES], noFetch), /proto file "missing\.proto" not found/);
  await assert.rejects(resolveMethod('greeting.proto#SayHello', [FIXTURES], noFetch), /is not "<proto file URI>#<service>#<method>"/);
});

// ---- through the interpreter ----------------------------------------------------------------
const AUTH = () => [
  { name: 'greeterOauth', scheme: 'oauth2', properties: { authority: httpBase, grantType: 'clientCredentials', clientId: 'greeter-app', clientSecret: '${ $SECRETS.CLIENT_SECRET }' } },
  { name: 'greeterBearer', scheme: 'bearer', properties: { token: '${ $SECRETS.GREETER_TOKEN }' } },
  { name: 'greeterBasic', scheme: 'basic', properties: { username: 'greeter', password: '${ $SECRETS.GREETER_PASSWORD }' } },
];

const functions = () => [
  { name: 'sayHello', type: 'rpc', operation: 'file://greeting.proto#Greeter#SayHello', metadata: { address } },
  { name: 'sayHelloToAll', type: 'rpc', operation: 'greeting.proto#greeting.Greeter#SayHelloToAll', metadata: { address: `grpc://${address}` } },
  { name: 'doNothing', type: 'rpc', operation: 'greeting.proto#Greeter#DoNothing', metadata: { address } },
  // A short heartbeat timeout: the cancellation reaches the worker with its next heartbeat.
  { name: 'wait', type: 'rpc', operation: 'greeting.proto#Greeter#Wait', metadata: { address, 'swflow.heartbeat': 'PT2S' } },
  { name: 'whoBearer', type: 'rpc', operation: 'greeting.proto#Greeter#WhoAmI', metadata: { address }, authRef: 'greeterBearer' },
  { name: 'whoBasic', type: 'rpc', operation: 'greeting.proto#Greeter#WhoAmI', metadata: { address }, authRef: 'greeterBasic' },
  { name: 'whoOauth', type: 'rpc', operation: 'greeting.proto#Greeter#WhoAmI', metadata: { address }, authRef: 'greeterOauth' },
  { name: 'whoAnonymous', type: 'rpc', operation: 'greeting.proto#Greeter#WhoAmI', metadata: { address } },
  { name: 'sayHelloByUrl', type: 'rpc', operation: `${protoUrl}#Greeter#SayHello`, metadata: { address } },
  { name: 'nobodyHome', type: 'rpc', operation: 'greeting.proto#Greeter#SayHello', metadata: { address: `127.0.0.1:${closedPort}` } },
  { name: 'noAddress', type: 'rpc', operation: 'greeting.proto#Greeter#SayHello' },
];
let closedPort = 0;

function oneState(id: string, actions: unknown[], extra: Record<string, unknown> = {}) {
  return { id, start: 'Call', secrets: Object.keys(SECRETS), auth: AUTH(), functions: functions(), states: [{ name: 'Call', type: 'operation', actions, end: true }], ...extra };
}

test("Kogito's rpcgreet: a unary call, an Empty call, a server stream collected into an array", async () => {
  received.length = 0;
  const { result } = await h.run(
    oneState('rpcgreet', [
      { name: 'sayHello', functionRef: { refName: 'sayHello', arguments: { name: '${ .name }', language: '${ .language }', innerHello: { unknown: false }, visits: '9007199254740993' } } },
      { functionRef: 'doNothing' },
      {
        functionRef: { refName: 'sayHelloToAll', arguments: { requests: [{ name: 'Marc', language: 'Spanish', inner_hello: { unknown: true } }, { name: 'Marco', language: 'Italian' }] } },
        actionDataFilter: { results: '${ map(.message) }', toStateData: '${ .all }' },
      },
    ]),
    { name: 'John', language: 'English' },
  );
  assert.deepEqual(await result, {
    name: 'John',
    language: 'English',
    message: 'Hello from gRPC service John',
    state: 'SUCCESS',
    innerMessage: { number: 23, state: 'SUCCESS' },
    visits: '9007199254740994',
    all: ['Saludos desde gRPC service Marc', 'Buongiorno Marco'],
  });
  assert.deepEqual(received.map((r) => r.method), ['SayHello', 'SayHelloToAll']);
  assert.deepEqual(received[0]!.request, { name: 'John', language: 'English', inner_hello: { unknown: false }, visits: '9007199254740993' });
});

test('a proto file by URL', async () => {
  const { result } = await h.run(oneState('rpcurl', [{ functionRef: { refName: 'sayHelloByUrl', arguments: { name: 'Jan', language: 'Spanish' } }, actionDataFilter: { results: '${ .message }', toStateData: '${ .greeting }' } }]));
  assert.deepEqual(await result, { greeting: 'Saludos desde gRPC service Jan' });
});

test('a gRPC status is the error code onErrors matches (NOT_FOUND; UNAVAILABLE when nothing listens)', async () => {
  closedPort = await freePort();
  const { result } = await h.run(
    oneState('rpcnotfound', [], {
      errors: [
        { name: 'Nobody', code: 'NOT_FOUND' },
        { name: 'Down', code: 'UNAVAILABLE' },
      ],
      states: [
        { name: 'Call', type: 'operation', actions: [{ functionRef: { refName: 'sayHello', arguments: { name: 'nobody' } } }], onErrors: [{ errorRef: 'Nobody', transition: 'Again' }], end: true },
        { name: 'Again', type: 'operation', actions: [{ functionRef: { refName: 'nobodyHome', arguments: { name: 'Ann' } } }], onErrors: [{ errorRef: 'Down', transition: 'Handled' }], end: true },
        { name: 'Handled', type: 'inject', data: { handled: true }, end: true },
      ],
    }),
  );
  assert.deepEqual(await result, { handled: true });
});

test('the failure names the call and quotes the status; a secret argument echoed by the service is redacted', async () => {
  const { result, workflowId } = await h.run(oneState('rpcklingon', [{ name: 'greet', functionRef: { refName: 'sayHello', arguments: { name: '${ $SECRETS.SECRET_NAME }', language: 'Klingon' } } }]));
  await assert.rejects(result, (e: unknown) => {
    assert.match(failureText(e), /state "Call", action "greet", function "sayHello" failed: cannot greet \[redacted\] in Klingon \(code INVALID_ARGUMENT\)/);
    return true;
  });
  const history = await assertNoSecrets(h.client, workflowId, Object.values(SECRETS));
  assert.match(history, /gRPC greeting\.Greeter\/SayHello at 127\.0\.0\.1:\d+ answered INVALID_ARGUMENT \(3\): cannot greet \[redacted\] in Klingon/);
  assert.equal((received.at(-1)!.request as HelloRequest).name, SECRETS.SECRET_NAME, 'the service got the secret itself');
});

test('bearer and basic auth travel as authorization metadata, kept out of the history; without them UNAUTHENTICATED', async () => {
  const { result, workflowId } = await h.run(
    oneState('rpcauth', [
      { functionRef: 'whoBearer', actionDataFilter: { results: '${ .who }', toStateData: '${ .bearer }' } },
      { functionRef: 'whoBasic', actionDataFilter: { results: '${ .who }', toStateData: '${ .basic }' } },
    ]),
  );
  assert.deepEqual(await result, { bearer: 'bearer', basic: 'basic greeter' });
  await assertNoSecrets(h.client, workflowId, Object.values(SECRETS), [], false);
  const anonymous = await h.run(oneState('rpcanon', [{ functionRef: 'whoAnonymous' }]));
  await assert.rejects(anonymous.result, (e: unknown) => /who are you\? \(code UNAUTHENTICATED\)/.test(failureText(e)));
});

test('an OAuth2 token travels as metadata, cached per worker; on UNAUTHENTICATED a new one is fetched once', async () => {
  const who = (id: string) => h.run(oneState(id, [{ functionRef: 'whoOauth', actionDataFilter: { results: '${ .who }', toStateData: '${ .who }' } }]));
  const first = await who('rpcoauth1');
  assert.deepEqual(await first.result, { who: 'oauth2 client' });
  assert.equal(tokenRequests, 1);
  const firstToken = [...issued][0]!;
  issued.clear(); // the service no longer takes the cached token
  const second = await who('rpcoauth2');
  assert.deepEqual(await second.result, { who: 'oauth2 client' });
  assert.equal(tokenRequests, 2, 'one new token after UNAUTHENTICATED');
  await assertNoSecrets(h.client, second.workflowId, [...Object.values(SECRETS), firstToken, ...issued], [], false);
});

test('definition errors are non-retryable OperationErrors: an unknown field, a missing address', async () => {
  const before = received.length;
  for (const [i, [functionRef, message]] of ([
    [{ refName: 'sayHello', arguments: { nmae: 'Ann' } }, /message greeting\.HelloRequest has no field "nmae"; its fields: name, language, innerHello, visits/],
    [{ refName: 'noAddress', arguments: { name: 'Ann' } }, /function "noAddress" has no metadata\.address/],
  ] as const).entries()) {
    const { result } = await h.run(oneState(`rpcbad${i}`, [{ functionRef }]));
    await assert.rejects(result, (e: unknown) => {
      assert.match(failureText(e), message);
      assert.match(failureText(e), /code OperationError/);
      return true;
    });
  }
  assert.equal(received.length, before, 'nothing reached the service');
});

test('cancelling the run cancels the gRPC call', async () => {
  const handle = await h.start(oneState('rpcwait', [{ functionRef: { refName: 'wait', arguments: { name: 'Godot' } } }]));
  for (let i = 0; i < 200 && !waiting.some((w) => w.name === 'Godot'); i++) await new Promise((r) => setTimeout(r, 50));
  const call = waiting.find((w) => w.name === 'Godot');
  assert.ok(call, 'the call reached the service');
  await handle.cancel();
  await call.cancelled;
  await assert.rejects(handle.result());
  assert.ok(historyText(await handle.fetchHistory()).includes('ACTIVITY_TASK_CANCEL_REQUESTED'), 'the interpreter cancelled the activity');
});

// ---- 1.0 call: grpc (activity sw.grpc) -------------------------------------------------------
const v1Doc = (name: string, tasks: unknown[]) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, use: { secrets: Object.keys(SECRETS) }, do: tasks });
const grpcCall = (method: string, args: unknown, extra: Record<string, unknown> = {}) => ({
  call: 'grpc',
  with: { proto: { endpoint: 'file://greeting.proto' }, service: { name: 'greeting.Greeter', host: '127.0.0.1', port: Number(address.split(':')[1]), ...extra }, method, arguments: args },
});

test('1.0 call: grpc — the spec example: arguments from expressions, the response message as output; a proto file by URL', async () => {
  received.length = 0;
  const { result } = await h.run(
    v1Doc('grpc-greet', [
      { greet: { ...grpcCall('SayHello', { name: '${ .user.preferredDisplayName }', language: 'Spanish' }), output: { as: '.message' }, export: { as: '{ greeting: . }' } } },
      { byUrl: { call: 'grpc', with: { proto: { endpoint: { uri: protoUrl } }, service: { name: 'Greeter', host: '127.0.0.1', port: Number(address.split(':')[1]) }, method: 'SayHello', arguments: { name: 'Jan', language: 'Italian' } }, output: { as: '{ first: $context.greeting, second: .message }' } } },
    ]),
    { user: { preferredDisplayName: 'Ada' } },
  );
  assert.deepEqual(await result, { first: 'Saludos desde gRPC service Ada', second: 'Buongiorno Jan' });
  assert.deepEqual(received[0]!.request, { name: 'Ada', language: 'Spanish', inner_hello: null, visits: '0' });
});

test('1.0 call: grpc — service.authentication (bearer from $secrets, a secret-based basic policy by name) as authorization metadata, out of history; a gRPC status is an RFC 7807 problem catch filters on', async () => {
  const { result, workflowId } = await h.run({
    ...v1Doc('grpc-auth', [
      { bearer: { ...grpcCall('WhoAmI', {}, { authentication: { bearer: { token: '${ $secrets.GREETER_TOKEN }' } } }), export: { as: '{ bearer: .who }' } } },
      { basic: { ...grpcCall('WhoAmI', {}, { authentication: { use: 'greeterBasic' } }), output: { as: '{ bearer: $context.bearer, basic: .who }' }, export: { as: '.' } } },
      {
        guarded: {
          try: [{ nobody: grpcCall('SayHello', { name: 'nobody' }) }],
          catch: { errors: { with: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', status: 404 } }, as: 'e', do: [{ handled: { set: { bearer: '${ $context.bearer }', basic: '${ $context.basic }', caught: '${ $e.title }', detail: '${ $e.detail }' } } }] },
        },
      },
    ]),
    use: { secrets: Object.keys(V1_SECRETS), authentications: { greeterBasic: { basic: { use: 'GREETER_BASIC' } } } },
  });
  const out = (await result) as Record<string, string>;
  // 'basic greeter': the service knew the caller, whose name, a field of the secret, is redacted from what the call returns
  assert.deepEqual({ ...out, detail: undefined }, { bearer: 'bearer', basic: 'basic [redacted]', caught: 'NOT_FOUND', detail: undefined });
  assert.match(out.detail!, /gRPC greeting\.Greeter\/SayHello at 127\.0\.0\.1:\d+ answered NOT_FOUND \(5\): there is nobody to greet/);
  await assertNoSecrets(h.client, workflowId, Object.values(V1_SECRETS), [], false);
  const anonymous = await h.run(v1Doc('grpc-anon', [{ who: grpcCall('WhoAmI', {}) }]));
  await assert.rejects(anonymous.result, (e: unknown) => /UNAUTHENTICATED/.test(failureText(e)) && /errors\/communication","status":401/.test(failureText(e)));
});

test('1.0 call: grpc — a definition problem (no such method) is a non-retryable configuration problem', async () => {
  const { result } = await h.run(v1Doc('grpc-bad', [{ shout: grpcCall('Shout', {}) }]));
  await assert.rejects(result, (e: unknown) => /errors\/configuration/.test(failureText(e)) && /has no method "Shout"/.test(failureText(e)));
});

test('1.0 call: grpc — an oauth2 client_credentials policy: the token from the local token endpoint travels as metadata; a refused client is an authentication problem', async () => {
  const oauth2 = (secret: string) => ({ oauth2: { authority: httpBase, grant: 'client_credentials', client: { id: 'greeter-app', secret } } });
  const { result, workflowId } = await h.run(v1Doc('grpc-oauth2', [{ who: { ...grpcCall('WhoAmI', {}, { authentication: oauth2('${ $secrets.CLIENT_SECRET }') }), output: { as: '.who' } } }]));
  assert.equal(await result, 'oauth2 client');
  await assertNoSecrets(h.client, workflowId, Object.values(V1_SECRETS), [], false);
  const refused = await h.run(v1Doc('grpc-oauth2-refused', [{ who: grpcCall('WhoAmI', {}, { authentication: oauth2('wrong') }) }]));
  await assert.rejects(refused.result, (e: unknown) => /errors\/authentication/.test(failureText(e)) && /invalid_client|401/.test(failureText(e)));
});
