/**
 * The 1.0 HTTP adapter's pure parts: request building (query, headers, body, basic/bearer and
 * secret-based authentication) and response shaping (content, raw, response; status ranges).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequest } from '../../adapters/http/request';
import { digestAuthorization, parseDigestChallenges } from '../../src/adapter-sdk/digest';
import { ConfigurationError, shapeOutput, statusProblem, tokenAuthentication, type Json, type ReceivedResponse, type TokenSource } from '../../src/adapter-sdk';

/** A secret store as the activity context's `secret` reads it. */
const store = (values: Record<string, Json>) => ({ secret: (name: string) => values[name], redact: () => undefined });

const res = (status: number, body: string, type = 'application/json'): ReceivedResponse => ({ status, statusText: 'X', headers: { 'content-type': type }, body: new TextEncoder().encode(body) });

test('request: method, query appended, headers lower-cased, JSON body, authentication', () => {
  const r = httpRequest({ method: 'post', endpoint: { uri: 'http://h/p?a=1', authentication: { basic: { username: 'u', password: 'p' } } }, query: { b: 2, c: null }, headers: { 'X-K': 'v' }, body: { n: 1 } }, store({}));
  assert.equal(r.method, 'POST');
  assert.equal(r.url, 'http://h/p?a=1&b=2');
  assert.equal(r.headers['x-k'], 'v');
  assert.equal(r.headers.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.body, '{"n":1}');
  const s = httpRequest({ method: 'get', endpoint: { uri: 'http://h', authentication: { bearer: { use: 'tok' } } } }, store({ tok: '{"token":"t1"}' }));
  assert.equal(s.headers.authorization, 'Bearer t1');
  assert.throws(() => httpRequest({ method: 'get', endpoint: { uri: 'http://h', authentication: { basic: { use: 'nope' } } } }, store({})), ConfigurationError);
  assert.equal(httpRequest({ method: 'get', endpoint: { uri: 'http://h', authentication: { digest: { username: 'u', password: 'p' } } } }, store({})).headers.authorization, undefined, 'digest answers a challenge: no header up front');
  assert.equal(httpRequest({ method: 'get', endpoint: { uri: 'http://h', authentication: { oauth2: {} } } }, store({})).headers.authorization, undefined, 'an OAuth2 token is the worker\'s to request');
});

test('digest (RFC 7616 section 3.9.1): the Authorization answer for MD5 and SHA-256; the strongest challenge first', () => {
  const challenge = (algorithm: string) =>
    `Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=${algorithm}, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`;
  const offered = parseDigestChallenges(`${challenge('MD5')}, ${challenge('SHA-256')}, Basic realm="x"`);
  assert.deepEqual(offered.map((c) => c.algorithm), ['SHA-256', 'MD5']);
  const answer = (i: number) => digestAuthorization(offered[i], 'Mufasa', 'Circle of Life', 'GET', '/dir/index.html', 1, 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ');
  assert.match(answer(0), /response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"/);
  assert.match(answer(1), /response="8ca523f5e9506fed4657c9700eebdbec"/);
  assert.match(answer(1), /^Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf[^"]+", uri="\/dir\/index.html", algorithm=MD5, response="[0-9a-f]+", qop=auth, nc=00000001, cnonce="f2[^"]+", opaque="FQhe[^"]+"$/);
  assert.deepEqual(parseDigestChallenges('Digest realm="r", nonce="n", qop="auth-int"'), [], 'auth-int only: not answered');
});

test('tokenAuthentication: oauth2/oidc policies as the SDK\'s oauth2 auth, requested lazily; unsupported ones refused clearly', async () => {
  const asked: unknown[] = [];
  const source = {
    ...store({ idp: '{"authority":"http://idp","client":{"id":"c","secret":"s"}}' }),
    authorize: async (def: unknown) => (asked.push(def), { headers: async () => ({ authorization: 'Bearer t' }) }) as never,
    fetch: async () => new Response(JSON.stringify({ token_endpoint: 'http://idp/token' }), { status: 200 }),
  } as unknown as TokenSource;
  assert.equal(await tokenAuthentication({ basic: { username: 'u', password: 'p' } }, source), undefined);
  const auth = await tokenAuthentication({ oauth2: { authority: 'http://idp', grant: 'password', client: { id: 'c', secret: 's', authentication: 'client_secret_basic' }, username: 'u', password: 'p', scopes: ['a'], endpoints: { token: '/t' } } }, source);
  assert.deepEqual(asked, [], 'no token request before the call is sent');
  assert.deepEqual(await auth!.headers(), { authorization: 'Bearer t' });
  await (await tokenAuthentication({ oidc: { use: 'idp' } }, source))!.headers();
  assert.deepEqual(asked, [
    { name: 'oauth2', scheme: 'oauth2', properties: { grantType: 'password', authority: 'http://idp', clientId: 'c', clientSecret: 's', scopes: ['a'], username: 'u', password: 'p', metadata: { tokenEndpoint: '/t', clientAuthentication: 'client_secret_basic' } } },
    { name: 'oidc', scheme: 'oauth2', properties: { grantType: 'clientCredentials', authority: 'http://idp', clientId: 'c', clientSecret: 's', metadata: { tokenEndpoint: 'http://idp/token', clientAuthentication: 'client_secret_post' } } },
  ]);
  await assert.rejects(tokenAuthentication({ oauth2: { authority: 'http://idp', grant: 'authorization_code' } }, source), /'authorization_code' grant needs a user agent/);
  await assert.rejects(tokenAuthentication({ oauth2: { authority: 'http://idp', grant: 'refresh_token', client: { id: 'c' } } }, source), /takes the refresh token from 'subject.token'/);
  asked.length = 0;
  await (await tokenAuthentication({ oauth2: { authority: 'http://idp', grant: 'refresh_token', subject: { token: 'rt', type: 'urn:ietf:params:oauth:token-type:refresh_token' }, client: { id: 'c', assertion: 'a.b.c', authentication: 'private_key_jwt' }, request: { encoding: 'application/json' } } }, source))!.headers();
  assert.deepEqual(asked, [
    { name: 'oauth2', scheme: 'oauth2', properties: { grantType: 'refreshToken', authority: 'http://idp', clientId: 'c', clientAssertion: 'a.b.c', refreshToken: 'rt', metadata: { clientAuthentication: 'private_key_jwt', requestEncoding: 'application/json' } } },
  ]);
  await assert.rejects(tokenAuthentication({ oauth2: { use: 'nope' } }, source), ConfigurationError);
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
