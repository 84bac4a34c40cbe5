/**
 * Loading Serverless Workflow 1.0 documents: every example of the specification validates (what
 * swflow cannot run yet is a warning, an error with --strict), and the rules the schema cannot
 * say are errors located `file:line:col`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatProblem, loadAnyDefinition, loadAnyDefinitionFile, loadDefinition } from '../../src/dsl';
import { isV1Definition } from '../../src/dsl/v1/model';

const EXAMPLES = resolve(__dirname, '..', '..', '..', 'shared', 'specs', 'serverless-workflow-1.0.3', 'examples');
const BROKEN = join(__dirname, 'fixtures', 'v1', 'broken.sw.yaml');

test('every 1.0.3 example validates', async () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));
  assert.ok(files.length > 60);
  for (const f of files) {
    const r = await loadAnyDefinitionFile(join(EXAMPLES, f));
    assert.ok(r.definition && isV1Definition(r.definition), `${f}: ${r.problems.map(formatProblem).join('; ')}`);
  }
});

test('unsupported constructs are warnings, errors with --strict', async () => {
  const subscribe = join(EXAMPLES, 'call-asyncapi-subscribe-consume-amount.yaml');
  const lax = await loadAnyDefinitionFile(subscribe);
  assert.ok(lax.definition);
  assert.match(lax.problems.map(formatProblem).join('\n'), /call-asyncapi-subscribe-consume-amount\.yaml:15:11: warning: 'call: asyncapi' with a subscription is not supported yet/);
  const strict = await loadAnyDefinitionFile(subscribe, { strict: true });
  assert.equal(strict.definition, undefined);
  // supported now: no warning
  assert.deepEqual((await loadAnyDefinitionFile(join(EXAMPLES, 'call-grpc.yaml'))).problems, []);
  assert.deepEqual((await loadAnyDefinitionFile(join(EXAMPLES, 'call-asyncapi-publish.yaml'))).problems, []);
});

test('authentication: every policy, grant and client authentication loads clean, except authorization_code (no user agent) and a refresh_token grant without its token', async () => {
  const doc = (auth: unknown) => ({ document: { dsl: '1.0.3', namespace: 'tests', name: 'auth', version: '0.1.0' }, do: [{ c: { call: 'http', with: { method: 'get', endpoint: { uri: 'http://h', authentication: auth } } } }] });
  const warnings = async (auth: unknown) => (await loadAnyDefinition(doc(auth))).problems.map((p) => p.message);
  assert.deepEqual(await warnings({ oauth2: { authority: 'http://idp', grant: 'client_credentials', client: { id: 'a', secret: 'b', authentication: 'client_secret_basic' } } }), []);
  assert.deepEqual(await warnings({ oidc: { authority: 'http://idp', grant: 'password', username: 'u', password: 'p', client: { id: 'a' } } }), []);
  assert.deepEqual(await warnings({ oauth2: { authority: 'http://idp', grant: 'refresh_token', subject: { token: 'r', type: 'urn:ietf:params:oauth:token-type:refresh_token' }, client: { id: 'a', authentication: 'private_key_jwt', assertion: 'x.y.z' }, request: { encoding: 'application/json' } } }), []);
  assert.deepEqual(await warnings({ oidc: { authority: 'http://idp', grant: 'client_credentials', client: { id: 'a', authentication: 'none' } } }), []);
  assert.deepEqual(await warnings({ digest: { username: 'u', password: 'p' } }), []);
  assert.deepEqual(await warnings({ certificate: { certificate: '/etc/client.crt', key: '/etc/client.key' } }), []);
  assert.match((await warnings({ oauth2: { authority: 'http://idp', grant: 'authorization_code', client: { id: 'a' } } })).join('\n'), /oauth2 grant 'authorization_code' cannot be used by a workflow: it needs a user agent/);
  assert.match((await warnings({ oidc: { authority: 'http://idp', grant: 'refresh_token', client: { id: 'a' } } })).join('\n'), /oidc grant 'refresh_token' takes the refresh token from 'subject.token'/);
  assert.match((await loadAnyDefinition(doc({ certificate: { key: '/etc/client.key' } }))).problems.map(formatProblem).join('\n'), /error: .* at \/do\/0\/c\/with\/endpoint\/authentication\/certificate/);
});

test('the rules the schema cannot say, located', async () => {
  const r = await loadAnyDefinitionFile(BROKEN);
  assert.equal(r.definition, undefined);
  const text = r.problems.map(formatProblem).join('\n');
  for (const re of [
    /broken\.sw\.yaml:12:12: error: invalid runtime expression/,
    /broken\.sw\.yaml:13:13: error: 'then' names task 'nowhere', which is not in this task list/,
    /broken\.sw\.yaml:14:5: error: duplicate task name 'first'/,
    /broken\.sw\.yaml:15:13: error: 'wait' must be an object or a string/,
    /broken\.sw\.yaml:17:13: error: unknown function 'missingFunction'/,
    /broken\.sw\.yaml:20:16: error: unknown error 'missingError' \(use\.errors defines: notFound\)/,
    /broken\.sw\.yaml:23:16: error: \$secrets may only be used in the arguments \(with\) of a call/,
    /broken\.sw\.yaml:26:7: error: unknown property 'thn'/,
    /broken\.sw\.yaml:31:19: error: 'then' names task 'first', which is not in this task list/,
  ]) assert.match(text, re);
  assert.equal(r.problems.filter((p) => p.severity === 'error').length, 9, text);
});

test('changes after 1.0.3 are accepted: catch.then, for.in arrays, emit without source', async () => {
  const doc = {
    document: { dsl: '1.0.3', namespace: 'test', name: 'after-103', version: '0.1.0' },
    do: [
      { loop: { for: { in: [1, 2] }, do: [{ noop: { set: { x: 1 } } }] } },
      { guarded: { try: [{ boom: { raise: { error: { type: 'https://example.com/e', status: 400 } } } }], catch: { then: 'last' } } },
      { skipped: { emit: { event: { with: { type: 'com.example.skipped' } } } } },
      { last: { set: { done: true } } },
    ],
  };
  const r = await loadAnyDefinition(doc);
  assert.ok(r.definition, r.problems.map(formatProblem).join('; '));
  assert.equal(r.definition!.id, 'test/after-103');
});

test('loadDefinition (0.8 family) refuses a 1.0 document, pointing to loadAnyDefinition', async () => {
  const r = await loadDefinition({ document: { dsl: '1.0.3', namespace: 'a', name: 'b', version: '1.0.0' }, do: [{ s: { set: { a: 1 } } }] });
  assert.equal(r.definition, undefined);
  assert.match(r.problems.map(formatProblem).join(''), /loadAnyDefinition/);
});
