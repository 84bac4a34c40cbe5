/**
 * Feature `local-reads`: on a worker that serves built-in calls (`swflow start`, `swflow worker`),
 * a built-in call that only reads — 1.0 `call: http` with GET/HEAD/OPTIONS, a 0.8 REST function
 * whose OpenAPI operation is a GET — runs as a local activity without any metadata: no activity
 * task, one marker per call with its summary (what the Web UI lists), all reads of a run in one
 * workflow task. Writes (POST) stay activities on the run's own queue (`eager-calls`);
 * `swflow.local: false` (the call's or the document's) keeps a read an activity; a worker that
 * does not serve built-in calls pins runs without the feature. Real dev server, real adapters,
 * a real HTTP service. Records the replay fixtures of both front ends.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import type { Json } from '../../src/common/model';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { FEATURE_LOCAL_READS, FEATURE_V1_DIRECT_FRAMES } from '../../src/common/features';
import { builtinCallsHarness, callsOf, saveHistory, type BuiltinCallsHarness } from './helpers';

/** A queue served by an interpreter worker that does not serve built-in calls. */
const PLAIN_QUEUE = 'swflow-no-builtin-calls';

let h: BuiltinCallsHarness;
/** Requests the service received: `METHOD path`. */
const received: string[] = [];

before(async () => {
  const op = (operationId: string) => ({ operationId, parameters: [{ name: 'i', in: 'query', schema: { type: 'integer' } }], responses: { '200': { description: 'ok' } } });
  h = await builtinCallsHarness({
    name: 'local-reads',
    respond: (req, res, url) => {
      received.push(`${req.method} ${url.pathname}`);
      const i = Number(url.searchParams.get('i') ?? 0);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ i, doubled: i * 2, method: req.method }));
      }, Number(url.searchParams.get('delayMs') ?? 0));
    },
    api: { title: 'reads', paths: { '/double': { get: op('double') }, '/record': { post: op('record') } } },
    workers: ({ connection, dir, bundle }) => [
      createInterpreterWorker({ connection, definitions: [dir], workflowBundle: bundle, builtinCalls: true }),
      createInterpreterWorker({ connection, taskQueue: PLAIN_QUEUE, definitions: [dir], workflowBundle: bundle, builtinCalls: false }),
      createBuiltinAdapterWorker({ connection, baseDirs: [dir] }),
    ],
  });
});

after(() => h?.close());

/** Runs `doc` to its end: its output, its calls in history order (activities and local activities' markers), what its pin recorded and its workflow tasks. */
async function run(doc: unknown, input: Json = {}, taskQueue = INTERPRETER_TASK_QUEUE, byType = false) {
  const { output, workflowId } = await h.execute(doc, input, taskQueue, byType);
  const { calls, pinned, events } = await callsOf(h.env.client, workflowId);
  return { output, workflowId, calls, features: pinned.features ?? [], readFunctions: pinned.readFunctions, workflowTasks: events.filter((e) => e.workflowTaskCompletedEventAttributes).length };
}

const v1 = (name: string, tasks: unknown[], metadata?: Record<string, unknown>) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0', ...(metadata ? { metadata } : {}) }, do: tasks });

test('1.0: GET and HEAD calls run as local activities (markers with their summaries), a POST stays an activity on the run\'s queue; the replay fixture is recorded', async () => {
  received.length = 0;
  const doc = v1('local-reads-http', [
    { first: { call: 'http', with: { method: 'get', endpoint: `${h.base}/double?i=2` }, export: { as: '{ a: .doubled }' } } },
    { probe: { call: 'http', with: { method: 'HEAD', endpoint: `${h.base}/double?i=3` }, output: { as: '$context' } } },
    { second: { call: 'http', with: { method: 'get', endpoint: `${h.base}/double?i=5` }, export: { as: '$context + { b: .doubled }' } } },
    { write: { call: 'http', with: { method: 'post', endpoint: `${h.base}/record?i=1`, body: { x: 1 } }, output: { as: '{ a: $context.a, b: $context.b, written: .method }' } } },
  ]);
  const r = await run(doc);
  assert.deepEqual(r.output, { a: 4, b: 10, written: 'POST' });
  assert.ok(r.features.includes(FEATURE_LOCAL_READS));
  assert.deepEqual(r.calls, [
    { kind: 'local', type: 'sw.http', summary: `/do/0/first → GET ${h.base}/double?i=2` },
    { kind: 'local', type: 'sw.http', summary: `/do/1/probe → HEAD ${h.base}/double?i=3` },
    { kind: 'local', type: 'sw.http', summary: `/do/2/second → GET ${h.base}/double?i=5` },
    { kind: 'activity', type: 'sw.http', taskQueue: INTERPRETER_TASK_QUEUE, summary: `/do/3/write → POST ${h.base}/record?i=1` },
  ]);
  assert.deepEqual(received, ['GET /double', 'HEAD /double', 'GET /double', 'POST /record'], 'each call reached the service once');
  // The three reads complete inside one workflow task: the pin's, then the POST's round trip.
  assert.ok(r.workflowTasks <= 3, `${r.workflowTasks} workflow tasks`);
  await saveHistory(h.env.client, r.workflowId, 'interpreter-v1-local-reads');
});

test('1.0 v1-direct-frames: a fork\'s calls are scheduled in the new order (a named policy after the plain call and the function\'s task); the replay fixture is recorded', async () => {
  received.length = 0;
  const doc = {
    ...v1('direct-frames', [
      {
        all: {
          fork: {
            branches: [
              { auth: { call: 'http', with: { method: 'post', endpoint: { uri: `${h.base}/record?i=0`, authentication: { use: 'token' } }, body: { i: 0 } } } },
              { plain: { call: 'http', with: { method: 'post', endpoint: `${h.base}/record?i=1`, body: { i: 1 } } } },
              { fn: { call: 'double', with: { i: 2 } } },
            ],
          },
          output: { as: '[.[] | .i]' },
        },
      },
    ]),
    use: {
      authentications: { token: { bearer: { token: '${ .token }' } } },
      functions: { double: { call: 'http', with: { method: 'get', endpoint: `${h.base}/double?i=2` } } },
    },
  };
  const r = await run(doc, { token: 'tk' });
  const history = await saveHistory(h.env.client, r.workflowId, 'interpreter-v1-direct-frames');
  assert.ok(r.features.includes(FEATURE_V1_DIRECT_FRAMES), 'a new run is pinned with v1-direct-frames');
  assert.deepEqual(r.output, [0, 1, 2]);
  // Scheduled (activity ids and local activities' sequence numbers share one counter): the plain
  // call first, the function's task (a read: a local activity) next, the policy's call last. An
  // activity, a local activity, an activity: a replay with the old frames, which scheduled the
  // policy's call before the function's, fails on the ids instead of mixing up their results.
  const conv = h.env.client.options.loadedDataConverter.payloadConverter;
  const scheduled: [number, string][] = [];
  for (const e of history.events ?? []) {
    const summary = e.userMetadata?.summary ? (conv.fromPayload(e.userMetadata.summary) as string) : '';
    if (e.activityTaskScheduledEventAttributes) scheduled.push([Number(e.activityTaskScheduledEventAttributes.activityId), summary]);
    const m = e.markerRecordedEventAttributes;
    if (m && summary.startsWith('/do/')) scheduled.push([Number((conv.fromPayload(m.details!.data!.payloads![0]) as { seq: number }).seq), summary]);
  }
  assert.deepEqual(
    scheduled.sort((a, b) => a[0] - b[0]).map(([, summary]) => summary),
    [`/do/0/all/fork/branches/1/plain → POST ${h.base}/record?i=1`, `/do/0/all/fork/branches/2/fn → GET ${h.base}/double?i=2`, `/do/0/all/fork/branches/0/auth → POST ${h.base}/record?i=0`],
  );
});

test('0.8: a REST function whose OpenAPI operation is a GET runs locally (found when the run is pinned); a POST operation stays an activity; the replay fixture is recorded', async () => {
  const doc = {
    id: 'local-reads-08',
    version: '1.0',
    specVersion: '0.8',
    start: 'Call',
    functions: [
      { name: 'double', operation: 'file://api.json#double' },
      { name: 'record', operation: 'file://api.json#record' },
    ],
    states: [
      {
        name: 'Call',
        type: 'operation',
        actions: [
          { name: 'twice', functionRef: { refName: 'double', arguments: { i: '${ .i }' } }, actionDataFilter: { results: '${ .doubled }', toStateData: '${ .out }' } },
          { name: 'note', functionRef: { refName: 'record', arguments: { i: '${ .out }' } }, actionDataFilter: { results: '${ .method }', toStateData: '${ .written }' } },
        ],
        end: true,
      },
    ],
  };
  writeFileSync(join(h.dir, 'local-reads-08.sw.json'), JSON.stringify(doc));
  const r = await run(doc, { i: 21 }, INTERPRETER_TASK_QUEUE, true);
  assert.deepEqual(r.output, { i: 21, out: 42, written: 'POST' });
  assert.deepEqual(r.readFunctions, ['double'], 'the pin lists the functions that only read');
  assert.deepEqual(r.calls, [
    { kind: 'local', type: 'sw.rest', summary: 'Call › twice → double' },
    { kind: 'activity', type: 'sw.rest', taskQueue: INTERPRETER_TASK_QUEUE, summary: 'Call › note → record' },
  ]);
  await saveHistory(h.env.client, r.workflowId, 'interpreter-local-reads');
});

test('swflow.local: false on the call, or on the document, keeps a read an activity', async () => {
  const get = (i: number, metadata?: Record<string, unknown>) => ({ call: 'http', ...(metadata ? { metadata } : {}), with: { method: 'get', endpoint: `${h.base}/double?i=${i}` }, output: { as: '.doubled' } });
  const own = await run(v1('local-reads-off-call', [{ a: get(1, { 'swflow.local': false }) }]));
  assert.equal(own.output, 2);
  assert.deepEqual(own.calls.map((c) => [c.kind, c.taskQueue]), [['activity', INTERPRETER_TASK_QUEUE]]);
  const byDoc = await run(v1('local-reads-off-doc', [{ a: get(2) }, { b: get(3, { 'swflow.local': true }) }], { 'swflow.local': false }));
  assert.equal(byDoc.output, 6);
  assert.deepEqual(byDoc.calls.map((c) => c.kind), ['activity', 'local'], "the call's own true wins over the document's false");
});

test('a worker that does not serve built-in calls pins runs without local-reads: a GET goes to swflow-adapters', async () => {
  const r = await run(v1('local-reads-plain', [{ a: { call: 'http', with: { method: 'get', endpoint: `${h.base}/double?i=4` }, output: { as: '.doubled' } } }]), {}, PLAIN_QUEUE);
  assert.equal(r.output, 8);
  assert.ok(!r.features.includes(FEATURE_LOCAL_READS));
  assert.deepEqual(r.calls.map((c) => [c.kind, c.taskQueue]), [['activity', ADAPTER_TASK_QUEUE]]);
});

test('0.8: a REST function whose document cannot be read when the run is pinned is not a read: its call is an activity and fails with the document problem', async () => {
  const doc = {
    id: 'local-reads-missing',
    version: '1.0',
    specVersion: '0.8',
    start: 'Call',
    functions: [{ name: 'gone', operation: 'file://no-such-api.json#double' }],
    states: [{ name: 'Call', type: 'operation', actions: [{ name: 'try', functionRef: { refName: 'gone' } }], end: true }],
  };
  writeFileSync(join(h.dir, 'local-reads-missing.sw.json'), JSON.stringify(doc));
  const definition = await h.load(doc);
  const handle = await h.env.client.workflow.start(definition.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: 'local-reads-missing', args: [{}] });
  await assert.rejects(handle.result(), (err: Error) => /no-such-api\.json/.test(`${err.message} ${(err.cause as Error | undefined)?.message ?? ''} ${((err.cause as Error | undefined)?.cause as Error | undefined)?.message ?? ''}`));
  const evs = (await handle.fetchHistory()).events ?? [];
  assert.ok(evs.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sw.rest'), 'the call was an activity');
});

test('a read that outlasts the workflow task timeout (10 s) is made once: the worker keeps its workflow task alive meanwhile', async () => {
  received.length = 0;
  const doc = v1('local-reads-long', [{ slow: { call: 'http', with: { method: 'get', endpoint: `${h.base}/slow?i=7&delayMs=12000` }, output: { as: '.doubled' } } }]);
  const r = await run(doc);
  assert.equal(r.output, 14);
  assert.deepEqual(r.calls.map((c) => c.kind), ['local']);
  assert.deepEqual(received, ['GET /slow'], 'one request: the read was not made again');
});
