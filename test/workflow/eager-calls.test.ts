/**
 * Feature `eager-calls`: a call served by swflow's built-in adapters (without `metadata.worker`,
 * not `swflow.local`) is an activity on the run's own task queue, which the interpreter worker
 * serves with the built-in adapters (and the server hands back eagerly). On a real dev server
 * with the real adapters calling a real HTTP service, 1.0 `call: http` and a 0.8 REST function:
 * every call is still an activity in history (the Web UI's list) with its summary; a call naming a
 * worker stays on that worker's queue; a worker that does not serve built-in calls
 * (`builtinCalls: false`, `swflow worker --no-eager-calls`) pins runs without the feature, whose
 * calls go to `swflow-adapters`. (The calls here write, POST: reads run locally, local-reads.test.ts.) Feature `state-at-waits`: consecutive calls write SwState once.
 * Records the replay fixtures of both front ends.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import type { Json } from '../../src/common/model';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { FEATURE_EAGER_CALLS, FEATURE_STATE_AT_WAITS } from '../../src/common/features';
import { builtinCallsHarness, callsOf, saveHistory, type BuiltinCallsHarness } from './helpers';

/** A queue served by an interpreter worker that does not serve built-in calls. */
const NO_EAGER_QUEUE = 'swflow-no-eager-calls';
/** A named worker's queue (`metadata.worker`). */
const NAMED_QUEUE = 'eager-calls-named';

let h: BuiltinCallsHarness;

before(async () => {
  h = await builtinCallsHarness({
    name: 'eager',
    respond: (_req, res, url) => {
      const i = Number(url.searchParams.get('i') ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ i, doubled: i * 2 }));
    },
    api: { title: 'eager', paths: { '/double': { post: { operationId: 'double', parameters: [{ name: 'i', in: 'query', schema: { type: 'integer' } }], responses: { '200': { description: 'ok' } } } } } },
    workers: ({ connection, dir, bundle }) => [
      // The interpreter worker of `swflow start` / `swflow worker`: it serves built-in calls on its own queue.
      createInterpreterWorker({ connection, definitions: [dir], workflowBundle: bundle, builtinCalls: true }),
      // `swflow worker --no-eager-calls` (and the API's default).
      createInterpreterWorker({ connection, taskQueue: NO_EAGER_QUEUE, definitions: [dir], workflowBundle: bundle, builtinCalls: false }),
      createBuiltinAdapterWorker({ connection, baseDirs: [dir] }),
      createBuiltinAdapterWorker({ connection, baseDirs: [dir], taskQueue: NAMED_QUEUE }),
    ],
  });
});

after(() => h?.close());

/** Runs `doc` to its end; its output, and the activities its history shows (what the Web UI lists). */
async function run(doc: unknown, input: Json = {}, taskQueue = INTERPRETER_TASK_QUEUE) {
  const { output, workflowId } = await h.execute(doc, input, taskQueue);
  const { calls, pinned, events } = await callsOf(h.env.client, workflowId);
  const scheduled = calls.filter((c) => c.kind === 'activity').map(({ type, taskQueue, summary }) => ({ type, taskQueue, summary }));
  return { output, workflowId, scheduled, completed: events.filter((e) => e.activityTaskCompletedEventAttributes).length, features: pinned.features ?? [] };
}

const v1 = (name: string, tasks: unknown[]) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, do: tasks });

test('1.0: each call http is an activity on the run\'s own queue, with its summary in history; the replay fixture is recorded', async () => {
  const doc = v1('eager-http', [
    { first: { call: 'http', with: { method: 'post', endpoint: `${h.base}/double?i=2` }, export: { as: '{ a: .doubled }' } } },
    { second: { call: 'http', with: { method: 'post', endpoint: `${h.base}/double?i=5` }, output: { as: '{ b: .doubled, a: $context.a }' } } },
  ]);
  const r = await run(doc);
  assert.deepEqual(r.output, { b: 10, a: 4 });
  assert.ok(r.features.includes(FEATURE_EAGER_CALLS));
  assert.deepEqual(r.scheduled, [
    { type: 'sw.http', taskQueue: INTERPRETER_TASK_QUEUE, summary: `/do/0/first → POST ${h.base}/double?i=2` },
    { type: 'sw.http', taskQueue: INTERPRETER_TASK_QUEUE, summary: `/do/1/second → POST ${h.base}/double?i=5` },
  ]);
  assert.equal(r.completed, 2, 'both calls completed as activities');
  await saveHistory(h.env.client, r.workflowId, 'interpreter-v1-eager-calls');
});

test('0.8: a REST function call is an activity on the run\'s own queue, with its summary; the replay fixture is recorded', async () => {
  const doc = {
    id: 'eager-rest-08',
    version: '1.0',
    specVersion: '0.8',
    start: 'Call',
    functions: [{ name: 'double', operation: 'file://api.json#double' }],
    states: [{ name: 'Call', type: 'operation', actions: [{ name: 'twice', functionRef: { refName: 'double', arguments: { i: '${ .i }' } }, actionDataFilter: { toStateData: '.out' } }], end: true }],
  };
  const r = await run(doc, { i: 21 });
  assert.equal((r.output as { out: { doubled: number } }).out.doubled, 42);
  assert.deepEqual(r.scheduled, [{ type: 'sw.rest', taskQueue: INTERPRETER_TASK_QUEUE, summary: 'Call › twice → double' }]);
  await saveHistory(h.env.client, r.workflowId, 'interpreter-eager-calls');
});

test('a call naming metadata.worker stays on that queue', async () => {
  const doc = v1('eager-named', [{ far: { call: 'http', metadata: { worker: NAMED_QUEUE }, with: { method: 'post', endpoint: `${h.base}/double?i=3` }, output: { as: '.doubled' } } }]);
  const r = await run(doc);
  assert.equal(r.output, 6);
  assert.deepEqual(r.scheduled.map((s) => s.taskQueue), [NAMED_QUEUE]);
});

test('a worker that does not serve built-in calls pins runs without eager-calls: their calls go to swflow-adapters', async () => {
  const doc = v1('eager-off', [{ near: { call: 'http', with: { method: 'post', endpoint: `${h.base}/double?i=4` }, output: { as: '.doubled' } } }]);
  const r = await run(doc, {}, NO_EAGER_QUEUE);
  assert.equal(r.output, 8);
  assert.ok(!r.features.includes(FEATURE_EAGER_CALLS));
  assert.deepEqual(r.scheduled.map((s) => s.taskQueue), [ADAPTER_TASK_QUEUE]);
});

test('state-at-waits: consecutive calls write SwState once, before the first; a wait writes its own; the end writes the last task', async () => {
  const call = (i: number) => ({ call: 'http', with: { method: 'post', endpoint: `${h.base}/double?i=${i}` } });
  const doc = v1('state-at-waits', [{ a: call(1) }, { b: call(2) }, { pause: { wait: { milliseconds: 10 } } }, { c: call(3) }, { d: call(4) }]);
  const r = await run(doc);
  assert.ok(r.features.includes(FEATURE_STATE_AT_WAITS));
  assert.equal(r.scheduled.length, 4);
  const handle = h.env.client.workflow.getHandle(r.workflowId);
  const evs = (await handle.fetchHistory()).events ?? [];
  const conv = h.env.client.options.loadedDataConverter.payloadConverter;
  const written = evs
    .map((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.SwState)
    .filter((p) => p !== undefined)
    .map((p) => conv.fromPayload(p!));
  assert.deepEqual(written, ['/do/0/a', '/do/2/pause', '/do/3/c', '/do/4/d']);
  assert.deepEqual((await handle.describe()).searchAttributes.SwState, ['/do/4/d']);
  await saveHistory(h.env.client, r.workflowId, 'interpreter-v1-state-at-waits');
});
