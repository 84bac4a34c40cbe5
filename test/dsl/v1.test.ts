/**
 * Loading Serverless Workflow 1.0 documents: every example of the specification validates (what
 * swflow cannot run yet is a warning, an error with --strict), and the rules the schema cannot
 * say are errors located `file:line:col`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatFinding, loadAnyDefinition, loadAnyDefinitionFile, loadDefinition } from '../../src/dsl';
import { isV1Definition } from '../../src/common/model-v1';

const EXAMPLES = resolve(__dirname, '..', '..', '..', 'shared', 'specs', 'serverless-workflow-1.0.3', 'examples');
const BROKEN = join(__dirname, 'fixtures', 'v1', 'broken.sw.yaml');

test('every 1.0.3 example validates', async () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));
  assert.ok(files.length > 60);
  for (const f of files) {
    const r = await loadAnyDefinitionFile(join(EXAMPLES, f));
    assert.ok(r.definition && isV1Definition(r.definition), `${f}: ${r.problems.map(formatFinding).join('; ')}`);
  }
});

test('what a document needs to run (an opt-in worker) is an info, accepted with --strict; what swflow cannot run is a warning, an error with --strict', async () => {
  const container = join(EXAMPLES, 'run-container.yaml');
  const lax = await loadAnyDefinitionFile(container);
  assert.ok(lax.definition);
  assert.match(lax.problems.map(formatFinding).join('\n'), /run-container\.yaml:10:11: info: 'run\.container' runs only where a worker serves the opt-in process queue/);
  const strict = await loadAnyDefinitionFile(container, { strict: true });
  assert.ok(strict.definition, 'an info never refuses the document');
  const every = { document: { dsl: '1.0.3', namespace: 'tests', name: 'every', version: '0.1.0' }, schedule: { every: '${ .x }' }, do: [{ a: { set: { a: 1 } } }] };
  assert.ok((await loadAnyDefinition(every)).definition);
  assert.equal((await loadAnyDefinition(every, { strict: true })).definition, undefined);
  // supported now: no warning
  assert.deepEqual((await loadAnyDefinitionFile(join(EXAMPLES, 'call-grpc.yaml'))).problems, []);
  assert.deepEqual((await loadAnyDefinitionFile(join(EXAMPLES, 'call-asyncapi-publish.yaml'))).problems, []);
  for (const f of ['call-asyncapi-subscribe-consume-amount.yaml', 'call-asyncapi-subscribe-consume-until.yaml', 'call-asyncapi-subscribe-consume-while.yaml', 'call-mcp.yaml']) {
    assert.deepEqual((await loadAnyDefinitionFile(join(EXAMPLES, f))).problems, [], f);
  }
});

test('call: mcp: the HTTP transport endpoint\'s authentication is checked as any call\'s, located', async () => {
  const doc = (auth: unknown) => ({ document: { dsl: '1.0.3', namespace: 'tests', name: 'mcp', version: '0.1.0' }, do: [{ c: { call: 'mcp', with: { method: 'tools/list', transport: { http: { endpoint: { uri: 'http://h/mcp', authentication: auth } } } } } }] });
  const problems = async (auth: unknown) => (await loadAnyDefinition(doc(auth))).problems.map(formatFinding).join('\n');
  assert.equal(await problems({ bearer: { token: 't' } }), '');
  assert.equal(await problems({ digest: { username: 'u', password: 'p' } }), '');
  assert.match(await problems({ use: 'nope' }), /error: unknown authentication 'nope' at \/do\/0\/c\/with\/transport\/http\/endpoint\/authentication\/use/);
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
  assert.match((await loadAnyDefinition(doc({ certificate: { key: '/etc/client.key' } }))).problems.map(formatFinding).join('\n'), /error: .* at \/do\/0\/c\/with\/endpoint\/authentication\/certificate/);
});

test('call a2a: the spec\'s example loads clean; it needs agentCard or server; its authentication is checked; never swflow.local', async () => {
  const doc = (w: Record<string, unknown>, metadata?: Record<string, unknown>) => ({ document: { dsl: '1.0.3', namespace: 'tests', name: 'a2a', version: '0.1.0' }, do: [{ ask: { call: 'a2a', ...(metadata ? { metadata } : {}), with: { method: 'message/send', parameters: { message: { parts: [{ kind: 'text', text: 'hi' }] } }, ...w } } }] });
  const problems = async (w: Record<string, unknown>, metadata?: Record<string, unknown>) => (await loadAnyDefinition(doc(w, metadata))).problems.map(formatFinding).join('\n');
  assert.equal(await problems({ agentCard: { endpoint: 'https://example.com/.well-known/agent-card.json' } }), '');
  assert.equal(await problems({ server: { uri: 'https://example.com/a2a', authentication: { bearer: { token: 't' } } } }), '');
  assert.match(await problems({}), /error: call: a2a needs 'agentCard' or 'server' at \/do\/0\/ask\/with/);
  assert.match(await problems({ agentCard: { endpoint: { uri: 'https://x/card.json', authentication: { use: 'nope' } } } }), /error: unknown authentication 'nope' at \/do\/0\/ask\/with\/agentCard\/endpoint\/authentication\/use/);
  assert.match(await problems({ server: 'https://x/a2a' }, { 'swflow.local': true }), /swflow\.local: only call: http, openapi, grpc, asyncapi and mcp[\s\S]*call: a2a follows long agent tasks/);
});

test('the rules the schema cannot say, located', async () => {
  const r = await loadAnyDefinitionFile(BROKEN);
  assert.equal(r.definition, undefined);
  const text = r.problems.map(formatFinding).join('\n');
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
  assert.ok(r.definition, r.problems.map(formatFinding).join('; '));
  assert.equal(r.definition!.id, 'test/after-103');
});

test('after 1.0.3: schedule.on.read accepted, run.workflow requires namespace; extensions and loose evaluation load without warnings, their mistakes located', async () => {
  const h = { dsl: '1.0.3', namespace: 't', name: 'x', version: '0.1.0' };
  const ok = async (doc: unknown) => {
    const r = await loadAnyDefinition(doc as never);
    assert.ok(r.definition, r.problems.map(formatFinding).join('; '));
    assert.deepEqual(r.problems, []);
  };
  await ok({ document: h, schedule: { on: { one: { with: { type: 'com.example.start' } }, read: 'envelope' } }, do: [{ s: { set: { a: 1 } } }] });
  await ok({ document: h, evaluate: { language: 'jq', mode: 'loose' }, do: [{ s: { set: { a: '.x' } } }] });
  await ok({ document: h, use: { extensions: [{ log: { extend: 'all', when: '$task.reference != null', before: [{ a: { set: { b: 1 } } }], after: [{ a: { set: { b: 2 }, then: 'exit' } }] } }, { mock: { extend: 'composite' } }] }, do: [{ s: { set: { a: 1 } } }] });
  const subflow = await loadAnyDefinition({ document: h, do: [{ r: { run: { workflow: { name: 'n', version: '1.0.0' } } } }] } as never);
  assert.equal(subflow.definition, undefined);
  assert.match(subflow.problems.map(formatFinding).join('\n'), /'workflow' is missing required property 'namespace' at \/do\/0\/r\/run\/workflow/);
  const bad = await loadAnyDefinition({
    document: h,
    use: { extensions: [{ log: { extend: 'all', when: '$task.x ==', before: [{ a: { set: { b: 1 }, then: 'nowhere' } }, { a: { set: { b: 2 } } }] } }, { log: { extend: 'banana' } }] },
    do: [{ s: { set: { a: 1 } } }],
  } as never);
  assert.equal(bad.definition, undefined);
  const text = bad.problems.map(formatFinding).join('\n');
  for (const re of [
    /'extend' must be one of: "call", "composite", .*"all" at \/use\/extensions\/1\/log\/extend/,
    /duplicate task name 'a' at \/use\/extensions\/0\/log\/before\/1\/a/,
    /'then' names task 'nowhere', which is not in this task list at \/use\/extensions\/0\/log\/before\/0\/a\/then/,
    /duplicate extension name 'log' at \/use\/extensions\/1\/log/,
    /invalid runtime expression: .* at \/use\/extensions\/0\/log\/when/,
  ]) assert.match(text, re);
  assert.equal(bad.problems.length, 5, text);
});

test('loadDefinition (0.8 family) refuses a 1.0 document, pointing to loadAnyDefinition', async () => {
  const r = await loadDefinition({ document: { dsl: '1.0.3', namespace: 'a', name: 'b', version: '1.0.0' }, do: [{ s: { set: { a: 1 } } }] });
  assert.equal(r.definition, undefined);
  assert.match(r.problems.map(formatFinding).join(''), /loadAnyDefinition/);
});
