/**
 * Call ids (feature `call-ids`, src/workflow/call-ids.ts) against a real HTTP service that honours
 * the `Idempotency-Key`, on the default path (the interpreter worker serving built-in calls) on
 * the dev server: a definition retry that makes the call again as a NEW activity (0.8 `retryRef`
 * retried by a timer, 1.0 `try`/`catch.retry`) carries the first attempt's key, so the service
 * performs the write once; a write that failed its run and is made again by `swflow redrive` (a
 * reset: a new run) keeps its key; two iterations of a loop are two calls with two keys. (kill -9 of the
 * worker mid-write: test/reliability/write-kill.test.ts.)
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { formatFinding, loadAnyDefinition, loadDefinition } from '../../src/dsl';
import { installQuietRuntime } from '../../src/testing/env';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { idempotencyKey } from '../../src/adapter-sdk';
import { redrive } from '../../src/operations/redrive';
import { startDevEnv } from '../helpers/temporal';

// ---- the service: honours the key (a key seen before is answered from its first answer, not performed again);
// a path listed in `failFirst` answers 503 to its first request, before performing anything.
interface Seen {
  path: string;
  key: string | undefined;
  status: number;
  performed: boolean;
}
const seen: Seen[] = [];
const answered = new Map<string, unknown>();
const failFirst = new Set<string>();
let performed = 0;
let server: Server;
let base: string;

/** An OpenAPI document with one POST operation, `placeOrder`, at `path`. */
const openapi = (path: string) => ({
  openapi: '3.0.3',
  info: { title: 'orders', version: '1' },
  servers: [{ url: base }],
  paths: { [path]: { post: { operationId: 'placeOrder', requestBody: { content: { 'application/json': {} } } } } },
});

let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;

before(async () => {
  installQuietRuntime();
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const [path, query] = (req.url ?? '').split('?');
      if (path === '/openapi.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(openapi(new URLSearchParams(query).get('path')!)));
      const header = req.headers['idempotency-key'];
      const key = Array.isArray(header) ? header.join(',') : header;
      const reply = (status: number, body: unknown, done: boolean) => {
        seen.push({ path, key, status, performed: done });
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      if (failFirst.delete(path)) return reply(503, { message: 'busy, try again' }, false);
      if (key && answered.has(key)) return reply(201, answered.get(key), false);
      const body = { order: ++performed };
      if (key) answered.set(key, body);
      reply(201, body, true);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = await startDevEnv();
  client = env.client as Client;
  worker = await createInterpreterWorker({ connection: env.nativeConnection as NativeConnection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [], builtinCalls: true, workflowBundle: await bundleInterpreter() });
  running = worker.run();
});

after(async () => {
  worker?.shutdown();
  await running?.catch(() => undefined);
  await env?.teardown();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

/** The workflow ids started, in order. */
const ids: string[] = [];

async function run(doc: Record<string, unknown>) {
  seen.length = 0;
  const loaded = doc.document ? await loadAnyDefinition(doc) : await loadDefinition({ specVersion: '0.8', ...doc } as never);
  assert.ok(loaded.definition, loaded.problems.map(formatFinding).join('\n'));
  const workflowId = `callids-${randomUUID().slice(0, 8)}`;
  ids.push(workflowId);
  const handle = await client.workflow.start(loaded.definition.id, {
    taskQueue: INTERPRETER_TASK_QUEUE,
    workflowId,
    args: [{}, { definition: loaded.definition }],
    workflowExecutionTimeout: '1 minute',
  });
  const result = await handle.result();
  const events = (await handle.fetchHistory()).events ?? [];
  const activities = events.filter((e) => e.activityTaskScheduledEventAttributes).length;
  return { handle, result, activities };
}

/** The key the adapters derive from a call id (sent as a structured-field string). */
const keyOf = (workflowId: string, callId: string) => `"${idempotencyKey({ workflowNamespace: 'default', workflowExecution: { workflowId, runId: 'ignored' }, activityId: 'ignored' }, callId)}"`;

const post = (path: string, metadata?: Record<string, unknown>) => ({ call: 'http', ...(metadata ? { metadata } : {}), with: { method: 'post', endpoint: `${base}${path}`, body: { item: 'book' } } });

for (const local of [false, true]) {
  const kind = local ? 'local activity' : 'activity';
  test(`1.0 try/catch.retry of a POST (${kind}): the retry is a new ${kind} with the first attempt's key; the write is performed once`, async () => {
    failFirst.add('/orders/retried');
    const { handle, result, activities } = await run({
      document: { dsl: '1.0.0', namespace: 'callids', name: `retry-${local ? 'local' : 'activity'}`, version: '1.0.0' },
      do: [
        {
          place: {
            try: [{ create: post('/orders/retried', local ? { 'swflow.local': true } : undefined) }],
            catch: { errors: { with: { status: 503 } }, retry: { delay: { milliseconds: 100 }, limit: { attempt: { count: 3 } } } },
          },
        },
      ],
    });
    assert.deepEqual(
      seen.map((s) => `${s.path} ${s.status}`),
      ['/orders/retried 503', '/orders/retried 201'],
    );
    assert.equal(seen[1].key, seen[0].key, 'the retry carries the first attempt\'s key');
    assert.equal(seen[0].key, keyOf(handle.workflowId, `${handle.firstExecutionRunId}//do/0/place/try/0/create#1`), 'derived from the call id');
    assert.equal(activities, local ? 0 : 2, 'each attempt its own activity (or local activity)');
    assert.equal(seen.filter((s) => s.performed).length, 1, 'performed once');
    assert.deepEqual(result, { order: performed });
    console.log(`call-ids 1.0 try retry (${kind}): 2 requests (503, 201), ${activities} activities, one key ${seen[0].key}, performed once`);
  });
}

test('0.8 retryRef retried by a timer (finite maxAttempts): a new activity per attempt, one key', async () => {
  failFirst.add('/orders/timer');
  const { handle, activities } = await run({
    id: 'callids-timer',
    version: '1.0',
    start: 'Place',
    autoRetries: true,
    retries: [{ name: 'twice', delay: 'PT0.1S', maxAttempts: 3 }],
    states: [{ name: 'Place', type: 'operation', actions: [{ name: 'create', functionRef: { refName: 'placeOrder', arguments: { item: 'book' } }, retryRef: 'twice' }], end: true }],
    ...restFunction('/orders/timer'),
  });
  assert.deepEqual(
    seen.map((s) => `${s.path} ${s.status}`),
    ['/orders/timer 503', '/orders/timer 201'],
  );
  assert.equal(activities, 2, 'a timer between two activities');
  assert.equal(seen[1].key, seen[0].key, 'the timer retry carries the first attempt\'s key');
  assert.equal(seen[0].key, keyOf(handle.workflowId, `${handle.firstExecutionRunId}/Place/create#1`));
  console.log(`call-ids 0.8 timer retry: 2 requests (503, 201) in ${activities} activities, one key ${seen[0].key}`);
});

test('two iterations of a loop (1.0 for) and two steps: a key each, every write performed', async () => {
  const before = performed;
  const { handle } = await run({
    document: { dsl: '1.0.0', namespace: 'callids', name: 'loop', version: '1.0.0' },
    do: [{ each: { for: { each: 'item', in: '${ [1, 2] }' }, do: [{ create: post('/orders/loop') }] } }, { last: post('/orders/last') }],
  });
  assert.equal(seen.length, 3, JSON.stringify(seen));
  assert.equal(new Set(seen.map((s) => s.key)).size, 3, 'three calls, three keys');
  assert.equal(performed - before, 3, 'each performed');
  assert.equal(seen[1].key, keyOf(handle.workflowId, `${handle.firstExecutionRunId}//do/0/each/do/0/create#2`), 'the second iteration is the step\'s second call');
  console.log(`call-ids loop: 2 iterations + 1 step = 3 requests, 3 keys, 3 writes performed`);
});

test('a write made again by swflow redrive (a reset, another run id): the same key', async () => {
  failFirst.add('/orders/redriven');
  const doc = {
    document: { dsl: '1.0.0', namespace: 'callids', name: 'redriven', version: '1.0.0' },
    do: [{ first: post('/orders/first') }, { create: post('/orders/redriven') }],
  };
  const failed = await run(doc).then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(failed, 'the run fails on the 503');
  const requestsBefore = [...seen];
  seen.length = 0;
  const workflowId = [...new Set(ids)].at(-1)!;
  const redriven = await redrive(client, { workflowId });
  assert.ok(redriven.newRunId);
  const result = await client.workflow.getHandle(workflowId, redriven.newRunId).result();
  const again = seen.filter((s) => s.path === '/orders/redriven');
  assert.deepEqual(
    [...requestsBefore, ...seen].filter((s) => s.path === '/orders/redriven').map((s) => s.status),
    [503, 201],
    JSON.stringify({ requestsBefore, seen }),
  );
  assert.equal(again[0].key, requestsBefore.find((s) => s.path === '/orders/redriven')!.key, 'the new run sends the failed run\'s key');
  assert.notEqual(redriven.newRunId, redriven.runId);
  assert.deepEqual(result, { order: performed });
  console.log(`call-ids redrive: the write failed (503) in run ${redriven.runId.slice(0, 8)}, made again by the redriven run ${redriven.newRunId!.slice(0, 8)} with the same key ${again[0].key}; ${redriven.reused} call(s) reused from the ledger`);
});

/** A 0.8 rest function POSTing to `path` (its OpenAPI document served by the service). */
function restFunction(path: string) {
  return { functions: [{ name: 'placeOrder', type: 'rest', operation: `${base}/openapi.json?path=${encodeURIComponent(path)}#placeOrder` }] };
}
