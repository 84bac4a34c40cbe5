/**
 * The 1.0 HTTP adapter's pure parts: request building (query, headers, body, basic/bearer and
 * secret-based authentication through the SDK's authenticationHeader) and response shaping
 * (content, raw, response; status ranges).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallError, httpRequest } from '../../adapters/http/request';
import { authenticationHeader, shapeOutput, statusProblem, type Json, type ReceivedResponse } from '../../src/adapter';

/** authenticationHeader with a secret store, recording what it marks for redaction. */
function auth(secrets: Record<string, Json>, redacted: unknown[] = []): (policy: Json | undefined) => string | undefined {
  return (policy) => authenticationHeader(policy, { secret: (name) => secrets[name], redact: (...v) => redacted.push(...v) });
}

const res = (status: number, body: string, type = 'application/json'): ReceivedResponse => ({ status, statusText: 'X', headers: { 'content-type': type }, body: new TextEncoder().encode(body) });

test('request: method, query appended, headers lower-cased, JSON body, authentication', () => {
  const redacted: unknown[] = [];
  const r = httpRequest({ method: 'post', endpoint: { uri: 'http://h/p?a=1', authentication: { basic: { username: 'u', password: 'p' } } }, query: { b: 2, c: null }, headers: { 'X-K': 'v' }, body: { n: 1 } }, auth({}, redacted));
  assert.equal(r.method, 'POST');
  assert.equal(r.url, 'http://h/p?a=1&b=2');
  assert.equal(r.headers['x-k'], 'v');
  assert.equal(r.headers.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.body, '{"n":1}');
  assert.ok(redacted.includes('p') && redacted.includes('u:p'), 'the password is marked for redaction');
  const s = httpRequest({ method: 'get', endpoint: { uri: 'http://h', authentication: { bearer: { use: 'tok' } } } }, auth({ tok: '{"token":"t1"}' }));
  assert.equal(s.headers.authorization, 'Bearer t1');
  assert.throws(() => httpRequest({ method: 'get', endpoint: { uri: 'http://h', authentication: { basic: { use: 'nope' } } } }, auth({})), /secret 'nope' is not available/);
  assert.throws(() => httpRequest({ method: 'get', endpoint: { uri: 'not a url' } }), CallError);
  assert.throws(() => httpRequest({ method: 'get', endpoint: { uri: 'http://h', authentication: { oauth2: {} } } }, auth({})), /not supported yet/);
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
