/**
 * Auth definitions (`auth`, `authRef`) through the interpreter, against a real local service
 * with a real OAuth2 token endpoint: basic, bearer, oauth2 client credentials and password
 * grants (tokens cached per worker, refreshed once on a 401), OpenAPI `security` schemes
 * (http basic/bearer, apiKey in the query), a resource auth for fetching the OpenAPI document
 * and the documents its `$ref`s point to, and a user adapter using the same resolved auth.
 * No credential, and no token obtained, appears in the history or describe output.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineAdapter } from '../../src/adapter-sdk';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { assertNoSecrets } from '../helpers/leaks';
import { adapterHarness, failureText, type AdapterHarness } from './harness';

const SECRETS = { ALICE_PW: 'alice-pw-8d1e', BEARER: 'static-bearer-77aa', CLIENT_SECRET: 'client-s3cret-4b4b', DOCS_TOKEN: 'docs-token-1c1c', WRONG: 'wrong-secret-9999' };

let service: Server;
let base: string;
let h: AdapterHarness;
const issued = new Set<string>();
const tokenRequests: Record<string, string>[] = [];
const docFetches: { path: string; authorization?: string }[] = [];

function api(serverUrl: string) {
  const who = (operationId: string, security?: unknown[]) => ({ get: { operationId, ...(security ? { security } : {}), responses: { '200': { $ref: 'common.json#/responses/Who' } } } });
  return {
    openapi: '3.0.3',
    info: { title: 'secured', version: '1' },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic' },
        bearerAuth: { type: 'http', scheme: 'bearer' },
        keyAuth: { type: 'apiKey', in: 'query', name: 'api_key' },
      },
    },
    paths: {
      '/basic/whoami': who('basicWho', [{ basicAuth: [] }]),
      '/bearer/whoami': who('bearerWho', [{ bearerAuth: [] }]),
      '/key/whoami': who('keyWho', [{ keyAuth: [] }]),
      // An external $ref: a path item in another document (fetched with the resource auth).
      '/plain/whoami': { $ref: 'paths.json#/plainWho' },
    },
  };
}

function bearerOf(req: IncomingMessage): string | undefined {
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  return m?.[1];
}

before(async () => {
  service = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url!, base);
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (url.pathname.startsWith('/docs/')) {
        docFetches.push({ path: url.pathname, authorization: req.headers.authorization });
        if (bearerOf(req) !== SECRETS.DOCS_TOKEN) return json(401, { message: 'documents need the docs token' });
        if (url.pathname === '/docs/api.json') return json(200, api(base));
        if (url.pathname === '/docs/common.json') return json(200, { responses: { Who: { description: 'who you are' } } });
        if (url.pathname === '/docs/paths.json') return json(200, { plainWho: { get: { operationId: 'plainWho', responses: { '200': { $ref: 'common.json#/responses/Who' } } } } });
        return json(404, { message: 'no such document' });
      }
      if (url.pathname === '/oauth2/token' && req.method === 'POST') {
        const form = Object.fromEntries(new URLSearchParams(body));
        tokenRequests.push(form);
        if (form.client_id !== 'app' || form.client_secret !== SECRETS.CLIENT_SECRET) return json(401, { error: 'invalid_client', echo: form });
        if (form.grant_type === 'password' && (form.username !== 'alice' || form.password !== SECRETS.ALICE_PW)) return json(400, { error: 'invalid_grant' });
        if (form.grant_type !== 'password' && form.grant_type !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
        const token = `tok-${randomBytes(6).toString('hex')}`;
        issued.add(token);
        return json(200, { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: form.scope });
      }
      const who = (name: string) => json(200, { who: name });
      if (url.pathname === '/basic/whoami') {
        return req.headers.authorization === `Basic ${Buffer.from(`alice:${SECRETS.ALICE_PW}`).toString('base64')}` ? who('alice (basic)') : json(401, { message: 'basic auth needed' });
      }
      const token = url.pathname === '/key/whoami' ? url.searchParams.get('api_key') ?? undefined : bearerOf(req);
      if (token === SECRETS.BEARER) return who('static bearer');
      if (token && issued.has(token)) return who('oauth2 client');
      json(401, { message: 'unauthorized' });
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  h = await adapterHarness();
  // A user adapter calling the same service with the function's auth, as any protocol adapter would.
  const whoami = defineAdapter({
    name: 'who',
    activities: { ask: async (args: { path: string }, ctx) => (await ctx.http({ method: 'GET', url: `${base}${args.path}` })).body },
  });
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, secrets: SECRETS, adapters: [whoami] }));
});

after(async () => {
  await h?.close();
  await new Promise<void>((r) => service.close(() => r()));
});

const AUTH = () => [
  { name: 'basicAlice', scheme: 'basic', properties: { username: 'alice', password: '${ $SECRETS.ALICE_PW }' } },
  { name: 'staticBearer', scheme: 'bearer', properties: { token: '${ $SECRETS.BEARER }' } },
  { name: 'cc', scheme: 'oauth2', properties: { authority: base, grantType: 'clientCredentials', clientId: 'app', clientSecret: '${ $SECRETS.CLIENT_SECRET }', scopes: ['who:read'] } },
  { name: 'pw', scheme: 'oauth2', properties: { authority: base, grantType: 'password', clientId: 'app', clientSecret: '${ $SECRETS.CLIENT_SECRET }', username: 'alice', password: '${ $SECRETS.ALICE_PW }' } },
  { name: 'badClient', scheme: 'oauth2', properties: { authority: base, grantType: 'clientCredentials', clientId: 'app', clientSecret: '${ $SECRETS.WRONG }' } },
  { name: 'docs', scheme: 'bearer', properties: { token: '${ $SECRETS.DOCS_TOKEN }' } },
];

const doc = (id: string, fns: { name: string; op: string; authRef: unknown }[]) => ({
  id,
  start: 'Ask',
  secrets: Object.keys(SECRETS),
  auth: AUTH(),
  functions: fns.map((f) => ({ name: f.name, operation: f.op.startsWith('who.') ? f.op : `${base}/docs/api.json#${f.op}`, ...(f.op.startsWith('who.') ? { type: 'custom' } : {}), authRef: f.authRef })),
  states: [
    {
      name: 'Ask',
      type: 'operation',
      actions: fns.map((f) => ({
        name: f.name,
        functionRef: { refName: f.name, ...(f.op.startsWith('who.') ? { arguments: { path: '/bearer/whoami' } } : {}) },
        actionDataFilter: { results: '${ .who }', toStateData: `\${ .${f.name} }` },
      })),
      end: true,
    },
  ],
});

const allSecrets = () => [...Object.values(SECRETS), Buffer.from(`alice:${SECRETS.ALICE_PW}`).toString('base64'), ...issued];

test('basic, bearer and apiKey credentials per the OpenAPI security schemes; documents and their $refs fetched with the resource auth', async () => {
  docFetches.length = 0;
  const { result, workflowId } = await h.run(
    doc('authschemes', [
      { name: 'basicWho', op: 'basicWho', authRef: { resource: 'docs', invocation: 'basicAlice' } },
      { name: 'bearerWho', op: 'bearerWho', authRef: 'staticBearer' },
      { name: 'keyWho', op: 'keyWho', authRef: 'staticBearer' },
    ]),
  );
  assert.deepEqual(await result, { basicWho: 'alice (basic)', bearerWho: 'static bearer', keyWho: 'static bearer' });
  // The root document and the documents its $refs name, each with the docs token.
  assert.deepEqual([...new Set(docFetches.map((d) => d.path))].sort(), ['/docs/api.json', '/docs/common.json', '/docs/paths.json']);
  assert.ok(docFetches.every((d) => d.authorization === `Bearer ${SECRETS.DOCS_TOKEN}`));
  await assertNoSecrets(h.client, workflowId, allSecrets(), [], false);
});

test('oauth2 client credentials and password grants against the token endpoint; tokens cached per worker', async () => {
  tokenRequests.length = 0;
  const fns = [
    { name: 'ccWho', op: 'bearerWho', authRef: { resource: 'docs', invocation: 'cc' } },
    { name: 'pwWho', op: 'bearerWho', authRef: 'pw' },
    // Through an external $ref, without a security declaration: Authorization as is.
    { name: 'plainWho', op: 'plainWho', authRef: 'cc' },
  ];
  const first = await h.run(doc('oauthgrants', fns));
  assert.deepEqual(await first.result, { ccWho: 'oauth2 client', pwWho: 'oauth2 client', plainWho: 'oauth2 client' });
  assert.deepEqual(tokenRequests.map((r) => r.grant_type).sort(), ['client_credentials', 'password']);
  assert.equal(tokenRequests.find((r) => r.grant_type === 'client_credentials')?.scope, 'who:read');
  const again = await h.run(doc('oauthgrants', fns));
  await again.result;
  assert.equal(tokenRequests.length, 2, 'the second run used the cached tokens');
  await assertNoSecrets(h.client, first.workflowId, allSecrets(), [], false);
});

test('a 401 with an oauth2 token gets a new token once; a user adapter gets the same resolved auth', async () => {
  tokenRequests.length = 0;
  const { result } = await h.run(doc('oauthwarmup', [{ name: 'viaAdapter', op: 'who.ask', authRef: 'cc' }]));
  assert.deepEqual(await result, { viaAdapter: 'oauth2 client' });
  const before = tokenRequests.length;
  issued.clear(); // the server forgets every token it gave: the cached one now gets a 401
  const second = await h.run(doc('oauthrefresh', [{ name: 'viaAdapter', op: 'who.ask', authRef: 'cc' }]));
  assert.deepEqual(await second.result, { viaAdapter: 'oauth2 client' });
  assert.equal(tokenRequests.length, before + 1, 'one new token after the 401');
  await assertNoSecrets(h.client, second.workflowId, allSecrets(), [], false);
});

test('a token endpoint that refuses fails the call with AuthError, the echoed client secret redacted', async () => {
  const { result, workflowId } = await h.run(doc('oauthrefused', [{ name: 'refused', op: 'who.ask', authRef: 'badClient' }]));
  await assert.rejects(result, (e: unknown) => {
    assert.match(failureText(e), /auth "badClient": the token endpoint answered 401 Unauthorized \(code AuthError\)/);
    return true;
  });
  await assertNoSecrets(h.client, workflowId, allSecrets());
});
