/**
 * 1.0 authentication policies and schema resources end to end, on a real dev server with the
 * real interpreter and built-in adapter workers, against real local servers: an HTTP server doing
 * Digest authentication (RFC 7616, SHA-256 and MD5), an HTTPS server requiring a client
 * certificate (a CA, server and client certificates made with openssl here), an OAuth2 token
 * endpoint accepting the refresh_token grant and the client authentications client_secret_basic,
 * client_secret_jwt (HS256), private_key_jwt (RS256, ES256; the assertion's signature verified
 * with the client's public key), none, and JSON-encoded token requests; and an external JSON
 * Schema behind basic authentication checking a task's input. No secret reaches the history.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, createHmac, generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import { formatFinding, loadAnyDefinition } from '../../src/dsl';
import type { Json } from '../../src/common/model';
import { historyText } from '../../src/testing/history';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { assertNoSecrets } from '../helpers/leaks';
import { startDevEnv } from '../helpers/temporal';
import { loadAny, saveHistory, sharedBundle } from '../workflow/helpers';

const DIGEST_PW = 'digest-pw-5e5e';
const REFRESH = 'refresh-tok-7a7a';
const APP_SECRET = 'app-secret-3c3c';
const JWT_SECRET = 'jwt-shared-secret-0123456789abcdef';
const SCHEMA_PW = 'schema-pw-9d9d';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (k: KeyObject) => k.export({ type: 'pkcs8', format: 'pem' }) as string;

let env: TestWorkflowEnvironment;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let http: Server;
let https: HttpsServer;
let base = '';
let secureBase = '';
let dir = '';
let n = 0;
const issued = new Map<string, string>(); // token → how it was obtained
const tokenRequests: { encoding: string; grant: string; client: string; how: string }[] = [];
const digestNonces = new Set<string>();
let schemaFetches = 0;
let orderSchema: Json = { type: 'object', required: ['id', 'qty'], properties: { id: { type: 'string' }, qty: { type: 'integer', minimum: 1 } } };

function openssl(...args: string[]) {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate (CN=workflow-client), signed by the CA. */
function makeCertificates() {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=swflow test CA');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  for (const [name, cn] of [['server', '127.0.0.1'], ['client', 'workflow-client']]) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', ...(name === 'server' ? ['-extfile', 'san.ext'] : []));
  }
  // A client certificate the server's CA did not sign.
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'rogue.key', '-out', 'rogue.crt', '-days', '2', '-subj', '/CN=rogue');
}
const file = (name: string) => readFileSync(join(dir, name), 'utf8');

// ---------------------------------------------------------------- digest (server side, RFC 7616)

function digestCheck(req: IncomingMessage, algorithms: ('SHA-256' | 'MD5')[]): { ok: true; algorithm: string } | { ok: false; challenge: string[] } {
  const challenge = () =>
    algorithms.map((a) => {
      const nonce = randomBytes(12).toString('hex');
      digestNonces.add(nonce);
      return `Digest realm="swflow tests", qop="auth", algorithm=${a}, nonce="${nonce}", opaque="op4que"`;
    });
  const h = req.headers.authorization ?? '';
  if (!h.startsWith('Digest ')) return { ok: false, challenge: challenge() };
  const p: Record<string, string> = {};
  for (const m of h.slice(7).matchAll(/([\w-]+)=(?:"([^"]*)"|([^,\s]*))/g)) p[m[1]] = m[2] ?? m[3];
  const algorithm = p.algorithm ?? 'MD5';
  if (!algorithms.includes(algorithm as 'MD5') || !digestNonces.has(p.nonce) || p.username !== 'ada' || p.opaque !== 'op4que' || p.uri !== req.url) return { ok: false, challenge: challenge() };
  const hash = (s: string) => createHash(algorithm === 'MD5' ? 'md5' : 'sha256').update(s).digest('hex');
  const ha1 = hash(`ada:swflow tests:${DIGEST_PW}`);
  const ha2 = hash(`${req.method}:${p.uri}`);
  const expected = hash(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${ha2}`);
  return expected === p.response ? { ok: true, algorithm } : { ok: false, challenge: challenge() };
}

// ---------------------------------------------------------------- the token endpoint

const CLIENT_KEYS: Record<string, { alg: string; key: KeyObject }> = { 'rsa-app': { alg: 'RS256', key: rsa.publicKey }, 'ec-app': { alg: 'ES256', key: ec.publicKey } };

/** Verifies a client assertion (RFC 7523): signature, iss = sub = client, aud = the token endpoint, not expired. */
function assertionClient(jwt: string, tokenUrl: string): { client: string; how: string } | undefined {
  const [h, c, s] = jwt.split('.');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString());
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
  if (claims.iss !== claims.sub || claims.aud !== tokenUrl || !(claims.exp > Date.now() / 1000) || typeof claims.jti !== 'string') return undefined;
  const input = Buffer.from(`${h}.${c}`);
  const sig = Buffer.from(s, 'base64url');
  if (header.alg === 'HS256') return claims.iss === 'jwt-app' && createHmac('sha256', JWT_SECRET).update(input).digest().equals(sig) ? { client: 'jwt-app', how: 'client_secret_jwt' } : undefined;
  const known = CLIENT_KEYS[claims.iss];
  if (!known || known.alg !== header.alg) return undefined;
  const ok = verify('sha256', input, header.alg === 'ES256' ? { key: known.key, dsaEncoding: 'ieee-p1363' } : known.key, sig);
  return ok ? { client: claims.iss, how: `private_key_jwt ${header.alg}` } : undefined;
}

function tokenEndpoint(req: IncomingMessage, body: string, json: (status: number, v: unknown) => void) {
  const isJson = /json/.test(req.headers['content-type'] ?? '');
  const form: Record<string, string> = isJson ? JSON.parse(body) : Object.fromEntries(new URLSearchParams(body));
  let who: { client: string; how: string } | undefined;
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
  if (basic) {
    const [id, secret] = Buffer.from(basic[1], 'base64').toString().split(':').map(decodeURIComponent);
    if (id === 'app' && secret === APP_SECRET) who = { client: 'app', how: 'client_secret_basic' };
  } else if (form.client_assertion_type === 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' && form.client_assertion) {
    who = assertionClient(form.client_assertion, `${base}/oauth2/token`);
  } else if (form.client_id === 'app' && form.client_secret === APP_SECRET) who = { client: 'app', how: 'client_secret_post' };
  else if (form.client_id === 'public-app' && form.client_secret === undefined) who = { client: 'public-app', how: 'none' };
  if (!who) return json(401, { error: 'invalid_client' });
  if (form.grant_type === 'refresh_token' && form.refresh_token !== REFRESH) return json(400, { error: 'invalid_grant' });
  if (form.grant_type !== 'refresh_token' && form.grant_type !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
  tokenRequests.push({ encoding: isJson ? 'json' : 'form', grant: form.grant_type, client: who.client, how: who.how });
  const token = `at-${randomBytes(8).toString('hex')}`;
  // (Grant names abbreviated: a secret-based policy's fields, the grant among them, are redacted from call results.)
  issued.set(token, `${who.client} via ${who.how} (${form.grant_type === 'refresh_token' ? 'rt' : 'cc'}, ${isJson ? 'json' : 'form'})`);
  json(200, { access_token: token, token_type: 'Bearer', expires_in: 600 });
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-auth-'));
  makeCertificates();
  http = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = (status: number, v: unknown, headers: Record<string, string | string[]> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(v));
      };
      const url = new URL(req.url!, base);
      if (url.pathname.startsWith('/digest/')) {
        const r = digestCheck(req, url.pathname === '/digest/md5' ? ['MD5'] : ['SHA-256', 'MD5']);
        return r.ok ? json(200, { user: 'ada', algorithm: r.algorithm }) : json(401, { message: 'digest needed' }, { 'www-authenticate': r.challenge });
      }
      if (url.pathname === '/oauth2/token' && req.method === 'POST') return tokenEndpoint(req, body, json);
      if (url.pathname === '/.well-known/openid-configuration') return json(200, { issuer: base, token_endpoint: `${base}/oauth2/token` });
      if (url.pathname === '/api/who') {
        const t = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        return t && issued.has(t) ? json(200, { who: issued.get(t) }) : json(401, { message: 'token needed' });
      }
      if (url.pathname === '/schemas/order.json') {
        schemaFetches++;
        if (req.headers.authorization !== `Basic ${Buffer.from(`schemas:${SCHEMA_PW}`).toString('base64')}`) return json(401, { message: 'schema needs basic auth' });
        return json(200, orderSchema, { 'content-type': 'application/schema+json' });
      }
      json(404, { message: 'no such thing' });
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  https = createHttpsServer({ key: file('server.key'), cert: file('server.crt'), ca: file('ca.crt'), requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ client: peer.subject?.CN ?? null, path: req.url }));
  });
  await new Promise<void>((r) => https.listen(0, '127.0.0.1', r));
  secureBase = `https://127.0.0.1:${(https.address() as AddressInfo).port}`;

  const secrets: Record<string, string> = {
    digestCreds: JSON.stringify({ username: 'ada', password: DIGEST_PW }),
    wrongDigest: JSON.stringify({ username: 'ada', password: 'not-the-password' }),
    clientCert: JSON.stringify({ certificate: file('client.crt'), key: file('client.key'), ca: file('ca.crt') }),
    refreshBasic: JSON.stringify({ authority: base, grant: 'refresh_token', subject: { token: REFRESH, type: 'urn:ietf:params:oauth:token-type:refresh_token' }, client: { id: 'app', secret: APP_SECRET, authentication: 'client_secret_basic' } }),
    jwtClient: JSON.stringify({ authority: base, grant: 'client_credentials', client: { id: 'jwt-app', secret: JWT_SECRET, authentication: 'client_secret_jwt' } }),
    rsaClient: JSON.stringify({ authority: base, grant: 'client_credentials', client: { id: 'rsa-app', secret: pem(rsa.privateKey), authentication: 'private_key_jwt' } }),
    ecClient: JSON.stringify({ authority: base, grant: 'client_credentials', client: { id: 'ec-app', secret: pem(ec.privateKey), authentication: 'private_key_jwt' } }),
    publicClient: JSON.stringify({ authority: base, grant: 'refresh_token', subject: { token: REFRESH, type: 'urn:ietf:params:oauth:token-type:refresh_token' }, client: { id: 'public-app', authentication: 'none' } }),
    jsonClient: JSON.stringify({ authority: base, grant: 'client_credentials', client: { id: 'app', secret: APP_SECRET }, request: { encoding: 'application/json' } }),
    schemaCreds: JSON.stringify({ username: 'schemas', password: SCHEMA_PW }),
  };
  env = await startDevEnv();
  workers = [
    await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle(), secrets }),
    await createBuiltinAdapterWorker({ connection: env.nativeConnection, secrets }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
  await new Promise<void>((r) => http.close(() => r()));
  await new Promise<void>((r) => https.close(() => r()));
});

const SECRET_NAMES = ['digestCreds', 'wrongDigest', 'clientCert', 'refreshBasic', 'jwtClient', 'rsaClient', 'ecClient', 'publicClient', 'jsonClient', 'schemaCreds'];
const allSecrets = () => [DIGEST_PW, REFRESH, APP_SECRET, JWT_SECRET, SCHEMA_PW, pem(rsa.privateKey), pem(ec.privateKey), file('client.key'), ...issued.keys()];

const docOf = (name: string, tasks: unknown[], authentications: Record<string, unknown> = {}) => ({
  document: { dsl: '1.0.3', namespace: 'auth', name, version: '0.1.0' },
  use: { secrets: SECRET_NAMES, authentications },
  do: tasks,
});
const get = (uri: string, auth: string) => ({ call: 'http', with: { method: 'get', endpoint: { uri, authentication: { use: auth } } } });

async function start(doc: unknown, input: Json = {}) {
  const definition = await loadAny(doc);
  const opts: StartOptions = { definition };
  return env.client.workflow.start(definition.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `auth-v1-${++n}`, args: [input, opts] });
}

async function run(doc: unknown, input: Json = {}): Promise<{ output: Json; workflowId: string }> {
  const h = await start(doc, input);
  return { output: await h.result(), workflowId: h.workflowId };
}

async function fault(doc: unknown, input: Json = {}): Promise<{ problem: Record<string, Json>; workflowId: string }> {
  const h = await start(doc, input);
  try {
    await h.result();
  } catch (err) {
    assert.ok(err instanceof WorkflowFailedError, String(err));
    return { problem: (err.cause as ApplicationFailure).details![0] as Record<string, Json>, workflowId: h.workflowId };
  }
  assert.fail('the run did not fault');
}

test('digest: the 401 challenge answered (SHA-256 preferred, MD5 when only it is offered); a wrong password is a 401 communication error', async () => {
  const { output, workflowId } = await run(
    docOf('digest', [{ strong: get(`${base}/digest/sha?x=1`, 'dig') }, { md5: get(`${base}/digest/md5`, 'dig') }], { dig: { digest: { use: 'digestCreds' } } }),
  );
  assert.deepEqual(output, { user: 'ada', algorithm: 'MD5' });
  const both = await run(docOf('digest-sha', [{ strong: get(`${base}/digest/sha?x=1`, 'dig') }], { dig: { digest: { use: 'digestCreds' } } }));
  assert.deepEqual(both.output, { user: 'ada', algorithm: 'SHA-256' });
  const wrong = await fault(docOf('digest-wrong', [{ nope: get(`${base}/digest/sha`, 'bad') }], { bad: { digest: { use: 'wrongDigest' } } }));
  assert.equal(wrong.problem.status, 401);
  assert.match(String(wrong.problem.type), /errors\/communication$/);
  for (const id of [workflowId, both.workflowId, wrong.workflowId]) await assertNoSecrets(env.client, id, allSecrets(), [], false);
});

test('certificate: the client certificate from a secret, or from files; one the server\'s CA did not sign is refused', async () => {
  const { output, workflowId } = await run(docOf('mtls', [{ hello: get(`${secureBase}/hello`, 'mtls') }], { mtls: { certificate: { use: 'clientCert' } } }));
  assert.deepEqual(output, { client: 'workflow-client', path: '/hello' });
  const files = { certificate: join(dir, 'client.crt'), key: pathToFileURL(join(dir, 'client.key')).toString(), ca: join(dir, 'ca.crt') };
  const fromFiles = await run(docOf('mtls-files', [{ hello: get(`${secureBase}/files`, 'mtls') }], { mtls: { certificate: files } }));
  assert.deepEqual(fromFiles.output, { client: 'workflow-client', path: '/files' });
  // The client trusts the server (ca) but presents a certificate of its own making: the server refuses the handshake.
  const refused = await fault(docOf('mtls-rogue', [{ hello: get(`${secureBase}/nope`, 'rogue') }], { rogue: { certificate: { certificate: join(dir, 'rogue.crt'), key: join(dir, 'rogue.key'), ca: join(dir, 'ca.crt') } } }));
  assert.match(String(refused.problem.type), /errors\/communication$/);
  assert.match(String(refused.problem.detail), new RegExp(`GET ${secureBase.replace(/[.:/]/g, '\\$&')}/nope failed`));
  await assertNoSecrets(env.client, workflowId, allSecrets(), [], false);
});

test('oauth2: refresh_token with client_secret_basic, client_secret_jwt, private_key_jwt (RS256, ES256), none, and a JSON-encoded token request', async () => {
  tokenRequests.length = 0;
  const auths = {
    refresh: { oauth2: { use: 'refreshBasic' } },
    jwt: { oauth2: { use: 'jwtClient' } },
    rsa: { oauth2: { use: 'rsaClient' } },
    ec: { oidc: { use: 'ecClient' } },
    pub: { oauth2: { use: 'publicClient' } },
    json: { oauth2: { use: 'jsonClient' } },
  };
  const names = Object.keys(auths);
  const tasks = names.map((name) => ({ [name]: { ...get(`${base}/api/who`, name), export: { as: `$context + { ${name}: .who }` } } }));
  const { output, workflowId } = await run({ ...docOf('oauth2-kinds', tasks, auths), output: { as: '$context' } });
  assert.deepEqual(output, {
    refresh: 'app via client_secret_basic (rt, form)',
    jwt: 'jwt-app via client_secret_jwt (cc, form)',
    rsa: 'rsa-app via private_key_jwt RS256 (cc, form)',
    ec: 'ec-app via private_key_jwt ES256 (cc, form)',
    pub: 'public-app via none (rt, form)',
    json: 'app via client_secret_post (cc, json)',
  });
  assert.equal(tokenRequests.length, names.length);
  await assertNoSecrets(env.client, workflowId, allSecrets(), [], false);
});

test('oauth2 authorization_code is refused at validation: it needs a user agent', async () => {
  const r = await loadAnyDefinition(
    docOf('authcode', [{ a: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/api/who`, authentication: { oauth2: { authority: base, grant: 'authorization_code', client: { id: 'app' } } } } } } }]),
  );
  const text = r.problems.map(formatFinding).join('\n');
  assert.match(text, /error: oauth2 grant 'authorization_code' cannot be used by a workflow: it needs a user agent.*at \/do\/0\/a\/with\/endpoint\/authentication\/oauth2\/grant/);
});

test('schema resource: an external JSON Schema behind basic authentication checks a task input; fetched by the worker once, pinned in the history', async () => {
  const schema = { format: 'json', resource: { name: 'order', endpoint: { uri: `${base}/schemas/order.json`, authentication: { use: 'schemaAuth' } } } };
  const doc = (name: string) =>
    docOf(name, [{ check: { input: { schema }, set: '${ . + { checked: 1 } }' } }, { again: { input: { schema }, set: '${ . + { again: true } }' } }], { schemaAuth: { basic: { use: 'schemaCreds' } } });
  schemaFetches = 0;
  const good = await run(doc('schema-good'), { id: 'o-1', qty: 2 });
  assert.deepEqual(good.output, { id: 'o-1', qty: 2, checked: 1, again: true });
  const history = historyText(await env.client.workflow.getHandle(good.workflowId).fetchHistory());
  // The definition names the schema's URL only: its content in the history is the recorded fetch.
  assert.ok(history.includes('minimum'), 'the fetched schema is recorded in the run history');
  await saveHistory(env.client, good.workflowId, 'interpreter-v1-schema-resource'); // replayed by test/workflow/replay.test.ts
  const bad = await fault(doc('schema-bad'), { id: 'o-2', qty: 0 });
  assert.match(String(bad.problem.type), /errors\/validation$/);
  assert.equal(bad.problem.instance, '/do/0/check');
  assert.match(String(bad.problem.detail), /the task input does not match its schema: \/qty: must be >= 1/);
  assert.equal(schemaFetches, 1, 'the worker fetched the schema once (cached per worker)');
  for (const id of [good.workflowId, bad.workflowId]) await assertNoSecrets(env.client, id, allSecrets(), [], false);
});

test('schema resource: a file: URI; a refused fetch is an authentication error naming the URL', async () => {
  const path = join(dir, 'qty.schema.json');
  writeFileSync(path, JSON.stringify({ type: 'object', properties: { qty: { type: 'integer', maximum: 5 } } }));
  const fileDoc = docOf('schema-file', [{ check: { input: { schema: { format: 'json', resource: { endpoint: pathToFileURL(path).toString() } } }, set: { fine: true } } }]);
  assert.deepEqual((await run(fileDoc, { qty: 3 })).output, { fine: true });
  const tooMany = await fault(fileDoc, { qty: 9 });
  assert.match(String(tooMany.problem.detail), /\/qty: must be <= 5/);
  const noAuth = await fault(docOf('schema-401', [{ check: { input: { schema: { format: 'json', resource: { endpoint: `${base}/schemas/order.json` } } }, set: { x: 1 } } }]), { id: 'x', qty: 1 });
  assert.match(String(noAuth.problem.type), /errors\/authentication$/);
  assert.equal(noAuth.problem.status, 401);
  assert.ok(String(noAuth.problem.detail).includes(`${base}/schemas/order.json`), String(noAuth.problem.detail));
});
