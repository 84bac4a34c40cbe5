/**
 * The 1.0 HTTP adapter's pure parts: request building (query, headers, body, basic/bearer and
 * secret-based authentication through the SDK's authenticationHeader) and response shaping
 * (content, raw, response; status ranges).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallError, httpRequest } from '../../adapters/http/request';
import { authentication, shapeOutput, statusProblem, type AuthenticationContext, type ReceivedResponse } from '../../src/adapter';

const res = (status: number, body: string, type = 'application/json'): ReceivedResponse => ({ status, statusText: 'X', headers: { 'content-type': type }, body: new TextEncoder().encode(body) });

test('request: method, query appended, headers lower-cased, JSON body; definition problems', () => {
  const r = httpRequest({ method: 'post', endpoint: { uri: 'http://h/p?a=1', authentication: { basic: { username: 'u', password: 'p' } } }, query: { b: 2, c: null }, headers: { 'X-K': 'v' }, body: { n: 1 } });
  assert.equal(r.method, 'POST');
  assert.equal(r.url, 'http://h/p?a=1&b=2');
  assert.equal(r.headers['x-k'], 'v');
  assert.equal(r.headers.authorization, undefined, 'credentials are the SDK\'s to send');
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.body, '{"n":1}');
  assert.throws(() => httpRequest({ method: 'get', endpoint: { uri: 'not a url' } }), CallError);
  assert.throws(() => httpRequest({ endpoint: 'http://h' }), /no method/);
});

test('authentication: policies the SDK resolves, and the clear errors of those it cannot', async () => {
  const asked: unknown[] = [];
  const ctx = {
    secret: (name: string) => ({ tok: '{"token":"t1"}' })[name],
    redact: () => {},
    authorize: async (def: unknown) => (asked.push(def), undefined as never),
    fetch: async () => new Response('{}', { status: 404 }),
  } as unknown as AuthenticationContext;
  await authentication({ bearer: { use: 'tok' } }, ctx);
  await authentication({ oauth2: { authority: 'http://idp', grant: 'password', client: { id: 'c', secret: 's', authentication: 'client_secret_basic' }, username: 'u', password: 'p', scopes: ['a'], endpoints: { token: '/t' } } }, ctx);
  assert.deepEqual(asked, [
    { name: 'bearer', scheme: 'bearer', properties: { token: 't1' } },
    { name: 'oauth2', scheme: 'oauth2', properties: { grantType: 'password', authority: 'http://idp', clientId: 'c', clientSecret: 's', scopes: ['a'], username: 'u', password: 'p', metadata: { tokenEndpoint: '/t', clientAuthentication: 'client_secret_basic' } } },
  ]);
  await assert.rejects(authentication({ basic: { use: 'nope' } }, ctx), /secret 'nope' is not available/);
  await assert.rejects(authentication({ digest: { username: 'u', password: 'p' } }, ctx), /'digest' authentication is not supported yet/);
  await assert.rejects(authentication({ oauth2: { authority: 'http://idp', grant: 'authorization_code' } }, ctx), /grant 'authorization_code' is not supported/);
  await assert.rejects(authentication({ oidc: { authority: 'http://idp', client: { id: 'c' } } }, ctx), /openid-configuration answered 404 without a token_endpoint/);
});

test('response: content decoded by content type, raw base-64, the response object; accepted statuses', () => {
  const req = { method: 'GET', url: 'http://h/x', headers: {} };
  assert.deepEqual(shapeOutput(undefined, req, res(200, '{"a":1}')), { a: 1 });
  assert.equal(shapeOutput('content', req, res(200, 'hi', 'text/plain')), 'hi');
  assert.equal(shapeOutput('content', req, res(200, 'bin', 'application/octet-stream')), Buffer.from('bin').toString('base64'));
  assert.equal(shapeOutput('raw', req, res(200, '{"a":1}')), Buffer.from('{"a":1}').toString('base64'));
  assert.deepEqual(shapeOutput('response', req, res(201, '{"a":1}')), { request: { method: 'GET', uri: 'http://h/x', headers: {} }, statusCode: 201, headers: { 'content-type': 'application/json' }, content: { a: 1 } });
  assert.equal(statusProblem(res(204, ''), req, false), undefined);
  assert.equal(statusProblem(res(302, ''), req, false)?.status, 302);
  assert.equal(statusProblem(res(302, ''), req, true), undefined);
  assert.equal(statusProblem(res(404, 'nope'), req, true)?.type, 'https://serverlessworkflow.io/spec/1.0.0/errors/communication');
});
