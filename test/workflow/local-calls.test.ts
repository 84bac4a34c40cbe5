/**
 * `swflow.local: true` (feature `local-calls`, src/dsl/metadata.ts): calls served by swflow's
 * built-in adapters run as local activities on the interpreter worker. On a real dev server with
 * the real built-in adapters (the interpreter worker's default) calling a real HTTP service: 1.0
 * `call: http` tasks and a 0.8 REST function, a secret that stays out of history, a service error
 * caught by the definition, retries; a worker without the feature keeps the calls on
 * `swflow-adapters`; validation refuses `swflow.local` where no built-in adapter serves the call.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { loadAnyDefinition } from '../../src/dsl';
import type { Json } from '../../src/common/model';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { historyText } from '../../src/testing/history';
import { FEATURE_LOCAL_CALLS, INTERPRETER_FEATURES } from '../../src/common/features';
import { builtinCallsHarness, saveHistory, type BuiltinCallsHarness } from './helpers';

const SECRETS = { apiKey: 'k-local-123' };
const OLD_QUEUE = 'swflow-before-local-calls';

let h: BuiltinCallsHarness;
const seen: { url: string; authorization?: string }[] = [];
let flaky = 0;

before(async () => {
  h = await builtinCallsHarness({
    name: 'local',
    respond: (req, res, url) => {
      seen.push({ url: req.url!, authorization: req.headers.authorization });
      if (req.url === '/fail') {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ message: `busy, said to ${req.headers.authorization}` }));
      }
      if (req.url?.startsWith('/flaky') && ++flaky === 1) {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end('{"message":"try again"}');
      }
      const i = Number(url.searchParams.get('i') ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ url: req.url, i, doubled: i * 2 }));
    },
    // The OpenAPI document the 0.8 REST function names (relative to the definition folder).
    api: {
      title: 'local',
      paths: {
        '/double': { get: { operationId: 'double', parameters: [{ name: 'i', in: 'query', schema: { type: 'integer' } }], responses: { '200': { description: 'ok' } } } },
        '/flaky': { get: { operationId: 'flaky', responses: { '200': { description: 'ok' } } } },
      },
    },
    workers: ({ connection, dir, bundle }) => [
      // The interpreter worker serves local calls with the built-in adapters (its default).
      createInterpreterWorker({ connection, definitions: [dir], workflowBundle: bundle, secrets: SECRETS }),
      // One from before the feature, and the adapter worker its calls go to.
      createInterpreterWorker({ connection, taskQueue: OLD_QUEUE, definitions: [dir], workflowBundle: bundle, features: INTERPRETER_FEATURES.filter((f) => f !== FEATURE_LOCAL_CALLS) }),
      createBuiltinAdapterWorker({ connection, baseDirs: [dir], secrets: SECRETS }),
    ],
  });
});

after(() => h?.close());

async function run(doc: unknown, input: Json = {}, taskQueue = INTERPRETER_TASK_QUEUE): Promise<{ output: Json; workflowId: string; history: string; events: { scheduled: number; markers: number; upserts: number } }> {
  const { output, workflowId } = await h.execute(doc, input, taskQueue);
  const history = await h.env.client.workflow.getHandle(workflowId).fetchHistory();
  const evs = history.events ?? [];
  return {
    output,
    workflowId,
    history: historyText(history),
    events: {
      scheduled: evs.filter((e) => e.activityTaskScheduledEventAttributes).length,
      markers: evs.filter((e) => e.markerRecordedEventAttributes).length,
      upserts: evs.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length,
    },
  };
}

const v1 = (name: string, tasks: unknown[]) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, use: { secrets: ['apiKey'] }, do: tasks });
const local = { 'swflow.local': true };

test('1.0: call http tasks marked swflow.local run as local activities (no activity task), with $secrets kept out of history; the replay fixture is recorded', async () => {
  seen.length = 0;
  const doc = v1('local-http', [
    { first: { call: 'http', metadata: local, with: { method: 'get', endpoint: `${h.base}/double?i=2` }, export: { as: '{ a: .doubled }' } } },
    {
      second: {
        call: 'http',
        metadata: local,
        with: { method: 'get', endpoint: { uri: `${h.base}/double?i=5`, authentication: { bearer: { token: '${ $secrets.apiKey }' } } } },
        output: { as: '{ b: .doubled, a: $context.a }' },
      },
    },
  ]);
  const r = await run(doc);
  assert.deepEqual(r.output, { b: 10, a: 4 });
  assert.equal(r.events.scheduled, 0, 'no activity was scheduled');
  assert.ok(r.events.markers >= 3, `the definition pin and two local calls are markers (${r.events.markers})`);
  assert.ok(r.events.upserts <= 1, `search attributes written once, at the end of the run's one workflow task, not per local call (${r.events.upserts})`);
  assert.deepEqual(
    seen.map((s) => s.url),
    ['/double?i=2', '/double?i=5'],
  );
  assert.equal(seen[1].authorization, `Bearer ${SECRETS.apiKey}`);
  assert.ok(!r.history.includes(SECRETS.apiKey), 'the secret is not in history');
  await saveHistory(h.env.client, r.workflowId, 'interpreter-v1-local-calls');
});

test('1.0: a local call\'s service error is the task\'s error (caught with its status); secrets it echoes are redacted', async () => {
  const doc = v1('local-fail', [
    {
      guarded: {
        try: [{ boom: { call: 'http', metadata: local, with: { method: 'get', endpoint: { uri: `${h.base}/fail`, authentication: { bearer: { token: '${ $secrets.apiKey }' } } } } } }],
        catch: { as: 'e', do: [{ seen: { set: { status: '${ $e.status }', instance: '${ $e.instance }' } } }] },
      },
    },
  ]);
  const r = await run(doc);
  assert.deepEqual(r.output, { status: 503, instance: '/do/0/guarded/try/0/boom' });
  assert.equal(r.events.scheduled, 0);
  assert.ok(!r.history.includes(SECRETS.apiKey), 'the echoed secret is not in history');
});

test('a workflow-wide default: document.metadata (1.0) or metadata (0.8) swflow.local: true, which a call\'s own swflow.local: false overrides', async () => {
  const doc = {
    document: { dsl: '1.0.3', namespace: 'tests', name: 'local-default', version: '0.1.0', metadata: local },
    do: [
      { near: { call: 'http', with: { method: 'get', endpoint: `${h.base}/double?i=3` } } },
      { far: { call: 'http', metadata: { 'swflow.local': false }, with: { method: 'get', endpoint: `${h.base}/double?i=4` }, output: { as: '.doubled' } } },
    ],
  };
  const r = await run(doc);
  assert.equal(r.output, 8);
  assert.equal(r.events.scheduled, 1, 'only the task that opted out is an activity');
  flaky = 1; // no failure this time
  const r08 = await run({ ...rest08('local-default-08', {}), metadata: { 'swflow.local': 'true' } }, { i: 2 });
  assert.equal((r08.output as { first: { doubled: number } }).first.doubled, 4);
  assert.equal(r08.events.scheduled, 0);
});

const rest08 = (id: string, metadata: Record<string, string>) => ({
  id,
  version: '1.0',
  specVersion: '0.8',
  start: 'Call',
  functions: [
    { name: 'double', operation: 'file://api.json#double', metadata },
    { name: 'flaky', operation: 'file://api.json#flaky', metadata },
  ],
  autoRetries: true,
  retries: [{ name: 'twice', delay: 'PT0.1S', maxAttempts: 2 }],
  states: [
    {
      name: 'Call',
      type: 'operation',
      actions: [
        { functionRef: { refName: 'double', arguments: { i: '${ .i }' } }, actionDataFilter: { toStateData: '.first' } },
        { functionRef: { refName: 'flaky' }, retryRef: 'twice', actionDataFilter: { results: '.url', toStateData: '.second' } },
      ],
      end: true,
    },
  ],
});

test('0.8: a REST function marked swflow.local runs as a local activity, with the definition\'s retries; the replay fixture is recorded', async () => {
  flaky = 0;
  const r = await run(rest08('local-rest', { 'swflow.local': 'true' }), { i: 21 });
  assert.deepEqual(r.output, { i: 21, first: { url: '/double?i=21', i: 21, doubled: 42 }, second: '/flaky' });
  assert.equal(flaky, 2, 'the flaky call failed once and was made again');
  assert.equal(r.events.scheduled, 0);
  await saveHistory(h.env.client, r.workflowId, 'interpreter-local-calls');
});

test('a worker without the local-calls feature keeps the same definition\'s calls on swflow-adapters', async () => {
  flaky = 0;
  const r = await run(rest08('local-rest-old', { 'swflow.local': 'true' }), { i: 1 }, OLD_QUEUE);
  assert.equal((r.output as { first: { doubled: number } }).first.doubled, 2);
  assert.equal(r.events.scheduled, 3, 'three activity tasks (one failed attempt)');
});

test('validation: swflow.local must be true or false, and only on calls the built-in adapters serve', async () => {
  const problems = async (doc: unknown) => (await loadAnyDefinition(doc)).problems.filter((p) => p.severity === 'error').map((p) => `${p.pointer}: ${p.message}`);
  const custom = { ...rest08('local-custom', {}), functions: [{ name: 'double', type: 'custom', operation: 'inventory.reserve', metadata: { 'swflow.local': 'true' } }, { name: 'flaky', operation: 'file://api.json#flaky', metadata: { 'swflow.local': 'yes' } }] };
  const p08 = await problems(custom);
  assert.ok(p08.some((p) => p.startsWith('/functions/0/metadata/swflow.local: swflow.local: only calls served by')), p08.join('\n'));
  assert.ok(p08.some((p) => p.startsWith('/functions/1/metadata/swflow.local: swflow.local: "yes" is not true or false')), p08.join('\n'));
  const p1 = await problems(v1('local-bad', [{ other: { call: 'inventory.reserve:1.0.0@default', metadata: local } }, { queued: { call: 'http', metadata: { ...local, worker: 'elsewhere' }, with: { method: 'get', endpoint: h.base } } }]));
  assert.ok(p1.some((p) => p.startsWith('/do/0/other/metadata/swflow.local')), p1.join('\n'));
  assert.ok(p1.some((p) => p.startsWith('/do/1/queued/metadata/swflow.local')), p1.join('\n'));
  const docLevel = await problems({ document: { dsl: '1.0.3', namespace: 'tests', name: 'local-doc-bad', version: '0.1.0', metadata: { 'swflow.local': 'sometimes' } }, do: [{ s: { set: { a: 1 } } }] });
  assert.ok(docLevel.some((p) => p.startsWith('/document/metadata/swflow.local: swflow.local: "sometimes" is not true or false')), docLevel.join('\n'));
  const wfLevel = await problems({ ...rest08('local-wf-bad', {}), metadata: { 'swflow.local': 'maybe' } });
  assert.ok(wfLevel.some((p) => p.startsWith('/metadata/swflow.local')), wfLevel.join('\n'));
});
