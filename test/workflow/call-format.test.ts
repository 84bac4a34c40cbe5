/**
 * One wire format for 0.8 and 1.0 calls (features `v1-call-headers`, `minimal-secret-context`):
 * a 1.0 call's activity input is its evaluated `with` and its context the `swflow-call` header,
 * and a call's `secretContext` holds only what its secret expressions read. On a real dev server
 * with the real built-in adapter worker calling a real HTTP service, an adapter built on the SDK
 * for `@default` and 0.8 custom calls, and an interpreter worker from before the features (its
 * runs send the whole FunctionCall, which the same adapters still serve).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { defaultPayloadConverter } from '@temporalio/common';
import { INTERPRETER_TASK_QUEUE, type FunctionCall, type StartOptions } from '../../src/common/contracts';
import { CALL_HEADER } from '../../src/common/calls';
import type { Json } from '../../src/common/model';
import { createAdapterWorker, defineAdapter } from '../../src/adapter-sdk';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { FEATURE_MINIMAL_SECRET_CONTEXT, FEATURE_V1_CALL_HEADERS, INTERPRETER_FEATURES } from '../../src/common/features';
import { startDevEnv } from '../helpers/temporal';
import { assertNoSecrets } from '../helpers/leaks';
import { loadAny, saveHistory, sharedBundle } from './helpers';

const API_TOKEN = 's3cr3t-api-token-4e1';
const TENANT_KEYS = { acme: 'acme-key-8c2f0' };
const GREETER_KEY = 'greeter-key-71b9';
const SECRETS = { apiToken: API_TOKEN, keys: TENANT_KEYS, greeterKey: GREETER_KEY, greeterKeys: { acme: GREETER_KEY } };
const OLD_QUEUE = 'swflow-before-v1-call-headers';
const GREETER_QUEUE = 'greeter-call-format';
const INPUT_MARKER = 'INPUT-MARKER-93f1';
const DEFINITION_MARKER = 'DEFINITION-MARKER-7d1c';

let env: TestWorkflowEnvironment;
let server: Server;
let base = '';
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let n = 0;
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

before(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url!, headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, url: req.url }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = await startDevEnv();
  const bundle = await sharedBundle();
  const greeter = defineAdapter({
    name: 'greeter',
    activities: {
      // Never returns the key: says whether it is the right one.
      hello: (args: { name: string; key?: string }, ctx) => ({ greeting: `hello ${args.name}`, task: ctx.state, action: ctx.action ?? null, keyOk: args.key === GREETER_KEY }),
    },
  });
  workers = [
    await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: bundle, secrets: SECRETS }),
    // A worker from before the features: its runs send the whole FunctionCall as the input.
    await createInterpreterWorker({
      connection: env.nativeConnection,
      taskQueue: OLD_QUEUE,
      definitions: [],
      workflowBundle: bundle,
      features: INTERPRETER_FEATURES.filter((f) => f !== FEATURE_V1_CALL_HEADERS && f !== FEATURE_MINIMAL_SECRET_CONTEXT),
    }),
    await createBuiltinAdapterWorker({ connection: env.nativeConnection, secrets: SECRETS }),
    await createAdapterWorker({ connection: env.nativeConnection, taskQueue: GREETER_QUEUE, adapters: [greeter], secrets: SECRETS }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
  await new Promise<void>((r) => server.close(() => r()));
});

async function run(doc: unknown, input: Json, taskQueue = INTERPRETER_TASK_QUEUE): Promise<{ output: Json; workflowId: string }> {
  const definition = await loadAny(doc);
  const opts: StartOptions = { definition };
  const workflowId = `call-format-${++n}`;
  const output = (await env.client.workflow.execute(definition.id, { taskQueue, workflowId, args: [input, opts] })) as Json;
  return { output, workflowId };
}

/** The ActivityTaskScheduled events of a run: decoded input, decoded `swflow-call` header, and their text. */
async function scheduled(workflowId: string): Promise<{ type: string; input: unknown[]; header?: Record<string, Json>; text: string; bytes: number }[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => {
      const a = e.activityTaskScheduledEventAttributes!;
      const input = (a.input?.payloads ?? []).map((p) => defaultPayloadConverter.fromPayload(p as never));
      const raw = a.header?.fields?.[CALL_HEADER];
      const header = raw ? defaultPayloadConverter.fromPayload<Record<string, Json>>(raw as never) : undefined;
      return { type: a.activityType!.name!, input, header, text: JSON.stringify({ input, header }), bytes: JSON.stringify({ input, header }).length };
    });
}

const v1 = (name: string, tasks: unknown[]) => ({
  document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0', title: DEFINITION_MARKER },
  use: { secrets: ['apiToken', 'keys', 'greeterKey'] },
  do: tasks,
});

const bearerCall = () =>
  v1('bearer', [{ callApi: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/items` }, headers: { authorization: '${ "Bearer " + $secrets.apiToken }' } } } }]);

test('1.0 call: http with $secrets in a header: the service gets the secret; the activity input is the evaluated `with`, the header the context, with neither the secret, the input nor the definition', async () => {
  seen.length = 0;
  const { output, workflowId } = await run(bearerCall(), { note: INPUT_MARKER });
  assert.deepEqual(output, { ok: true, url: '/items' });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].headers.authorization, `Bearer ${API_TOKEN}`);
  const [call] = await scheduled(workflowId);
  assert.equal(call.type, 'sw.http');
  assert.deepEqual(call.input, [{ method: 'get', endpoint: { uri: `${base}/items` }, headers: { authorization: null } }]);
  const info = await env.client.workflow.getHandle(workflowId).describe();
  assert.deepEqual(call.header, {
    function: { name: 'http', type: 'http', operation: 'http', metadata: {} },
    secretArguments: { '/headers/authorization': '${ "Bearer " + $secrets.apiToken }' },
    workflow: { id: workflowId, instanceId: info.runId, definitionId: 'tests/bearer' },
    state: '/do/0/callApi',
    action: 'callApi',
    // call-ids: the logical call (the Idempotency-Key of a write derives from it).
    callId: `${info.runId}//do/0/callApi#1`,
  });
  assert.ok(!call.text.includes(INPUT_MARKER), 'the workflow input is not in the scheduled event');
  assert.ok(!call.text.includes(DEFINITION_MARKER), 'the definition is not in the scheduled event');
  await assertNoSecrets(env.client, workflowId, [API_TOKEN], [], false);
  await saveHistory(env.client, workflowId, 'interpreter-v1-call-headers');
});

test('1.0: a secret expression that reads the data and $workflow.id gets exactly those (not the rest of $workflow)', async () => {
  seen.length = 0;
  const doc = v1('tenant', [
    { callApi: { call: 'http', with: { method: 'get', endpoint: `${base}/tenant`, headers: { 'x-key': '${ $secrets.keys[.tenant] + "@" + $workflow.id }' } } } },
  ]);
  const input = { tenant: 'acme' };
  const { workflowId } = await run(doc, input);
  assert.equal(seen[0].headers['x-key'], `${TENANT_KEYS.acme}@${workflowId}`);
  const [call] = await scheduled(workflowId);
  assert.deepEqual(call.header!.secretContext, { data: input, scope: { variables: { workflow: { id: workflowId } } } });
  assert.ok(!call.text.includes(DEFINITION_MARKER));
  await assertNoSecrets(env.client, workflowId, [TENANT_KEYS.acme], [], false);
});

test('runs from before v1-call-headers send the whole FunctionCall (with the whole scope), and the adapters still serve it', async () => {
  seen.length = 0;
  const { output, workflowId } = await run(bearerCall(), { note: INPUT_MARKER }, OLD_QUEUE);
  assert.deepEqual(output, { ok: true, url: '/items' });
  assert.equal(seen[0].headers.authorization, `Bearer ${API_TOKEN}`);
  const [call] = await scheduled(workflowId);
  assert.equal(call.header, undefined);
  const fc = call.input[0] as FunctionCall;
  assert.deepEqual(fc.arguments, { method: 'get', endpoint: { uri: `${base}/items` }, headers: { authorization: null } });
  const variables = fc.secretContext!.scope.variables as Record<string, Record<string, Json>>;
  assert.ok(variables.workflow.definition, 'the old format ships $workflow with the definition');
  assert.ok(call.text.includes(INPUT_MARKER) && call.text.includes(DEFINITION_MARKER));
  await assertNoSecrets(env.client, workflowId, [API_TOKEN], [], false);
});

test('call <activity>:<version>@default reaches an adapter built on the SDK in both formats; its secret argument resolves in the worker', async () => {
  const doc = v1('greet', [{ hi: { call: 'greeter.hello:1.0.0@default', with: { name: '${ .who }', key: '${ $secrets.greeterKey }' }, metadata: { worker: GREETER_QUEUE } } }]);
  for (const queue of [INTERPRETER_TASK_QUEUE, OLD_QUEUE]) {
    const { output, workflowId } = await run(doc, { who: 'ada' }, queue);
    assert.deepEqual(output, { greeting: 'hello ada', task: '/do/0/hi', action: 'hi', keyOk: true }, queue);
    const [call] = await scheduled(workflowId);
    assert.equal(call.type, 'greeter.hello');
    if (queue === INTERPRETER_TASK_QUEUE) {
      assert.deepEqual(call.input, [{ name: 'ada', key: null }]);
      assert.equal(call.header!.state, '/do/0/hi');
      assert.deepEqual(call.header!.secretArguments, { '/key': '${ $secrets.greeterKey }' });
    } else assert.equal((call.input[0] as FunctionCall).state, '/do/0/hi');
    await assertNoSecrets(env.client, workflowId, [GREETER_KEY], [], false);
  }
});

test('1.0 swflow.local calls go out in the same format and are put back together on the interpreter worker', async () => {
  seen.length = 0;
  const doc = v1('local', [
    { near: { call: 'http', metadata: { 'swflow.local': true }, with: { method: 'get', endpoint: `${base}/near`, headers: { authorization: '${ "Bearer " + $secrets.apiToken }', 'x-key': '${ $secrets.keys[.tenant] }' } } } },
  ]);
  const { output, workflowId } = await run(doc, { tenant: 'acme' });
  assert.deepEqual(output, { ok: true, url: '/near' });
  assert.equal(seen[0].headers.authorization, `Bearer ${API_TOKEN}`);
  assert.equal(seen[0].headers['x-key'], TENANT_KEYS.acme);
  assert.equal((await scheduled(workflowId)).length, 0, 'a local activity');
  await assertNoSecrets(env.client, workflowId, [API_TOKEN, TENANT_KEYS.acme], [], false);
});

test('0.8: a secret argument ships only what it reads: nothing, or the one constant it names', async () => {
  const fn = { name: 'hello', type: 'custom', operation: 'greeter.hello', metadata: { worker: GREETER_QUEUE } };
  const doc = {
    id: 'minimal-secrets',
    version: '1.0',
    specVersion: '0.8',
    start: 'Greet',
    constants: { tenant: 'acme', note: DEFINITION_MARKER },
    secrets: ['greeterKey', 'greeterKeys'],
    functions: [fn],
    states: [
      {
        name: 'Greet',
        type: 'operation',
        actions: [
          { name: 'plain', functionRef: { refName: 'hello', arguments: { name: '${ .who }', key: '${ $SECRETS.greeterKey }' } }, actionDataFilter: { toStateData: '.plain' } },
          { name: 'byTenant', functionRef: { refName: 'hello', arguments: { name: '${ .who }', key: '${ $SECRETS.greeterKeys[$CONST.tenant] }' } }, actionDataFilter: { toStateData: '.byTenant' } },
        ],
        end: true,
      },
    ],
  };
  const { output, workflowId } = await run(doc, { who: 'ada', note: INPUT_MARKER });
  const out = output as Record<string, { keyOk: boolean; action: string }>;
  assert.equal(out.plain.keyOk, true);
  assert.equal(out.byTenant.keyOk, true);
  const [plain, byTenant] = await scheduled(workflowId);
  assert.deepEqual(plain.input, [{ name: 'ada', key: null }]);
  assert.equal(plain.header!.secretContext, undefined, 'nothing but the expression');
  assert.deepEqual(byTenant.header!.secretContext, { scope: { constants: { tenant: 'acme' } } });
  for (const call of [plain, byTenant]) assert.ok(!call.text.includes(INPUT_MARKER) && !call.text.includes(DEFINITION_MARKER), call.text);
  await assertNoSecrets(env.client, workflowId, [GREETER_KEY], [], false);
  await saveHistory(env.client, workflowId, 'interpreter-minimal-secret-context');

  // Before the feature: the whole action input and scope.
  const old = await run(doc, { who: 'ada', note: INPUT_MARKER }, OLD_QUEUE);
  const [oldPlain] = await scheduled(old.workflowId);
  assert.ok(oldPlain.text.includes(INPUT_MARKER) && oldPlain.text.includes(DEFINITION_MARKER));
  assert.ok(plain.bytes < oldPlain.bytes, `${plain.bytes} < ${oldPlain.bytes}`);
});
