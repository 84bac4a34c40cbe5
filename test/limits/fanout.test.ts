/**
 * Fan-outs with a call per item (issue 34, item 4) on a real dev server, the real interpreter
 * worker and its built-in HTTP calls to a local service: a 0.8 `foreach` split into chunk
 * children and a 1.0 `for` continuing as new between iterations keep every run's history and its
 * pending activities/children bounded, and a failure in one item names its index and its state/task
 * (features iteration-failure-index, v1-for-continue-as-new). Sizes are small (1,500 items across
 * three chunks; a history limit of 400 events for the `for`): bench/fanout.ts runs 100,000.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { startDevEnv } from '../helpers/temporal';
import { sharedBundle } from '../workflow/helpers';
import { fanoutDocuments, runsOf } from '../../bench/fanout-documents';

const ITEMS = 1_500;
const FAILING = 1_073;

let env: TestWorkflowEnvironment;
let service: Server;
let dir = '';
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let calls = 0;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-fanout-'));
  // GET /ok/<i> → { i }; GET /fail/<i> → 500 for item FAILING.
  service = createServer((req, res) => {
    calls++;
    const [, mode, i] = (req.url ?? '').split('/');
    const n = Number(i);
    res.setHeader('content-type', 'application/json');
    if (mode === 'fail' && n === FAILING) {
      res.statusCode = 500;
      res.end(JSON.stringify({ error: `item ${n} is broken` }));
    } else res.end(JSON.stringify({ i: n }));
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  for (const [file, text] of Object.entries(fanoutDocuments(base, { forHistoryLimit: 400 }))) writeFileSync(join(dir, file), text);
  env = await startDevEnv();
  workers = [await createInterpreterWorker({ connection: env.nativeConnection as NativeConnection, definitions: [dir], workflowBundle: await sharedBundle(), builtinCalls: true })];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
  await new Promise((r) => service?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const items = Array.from({ length: ITEMS }, (_, i) => i);
const sum = (ITEMS * (ITEMS - 1)) / 2;

/** The failure message of a run that must fail (bounded: the run's own result). */
async function failureOf(client: Client, type: string, workflowId: string, input: unknown): Promise<string> {
  const err = await client.workflow.execute(type, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [input], workflowExecutionTimeout: '10 minutes' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkflowFailedError, `the run failed (got ${String(err)})`);
  return (err.cause as Error | undefined)?.message ?? '';
}

test(`0.8 foreach, parallel with batchSize 100, over ${ITEMS} items with a GET each: results in order, 3 chunk children, pending bounded`, { timeout: 10 * 60_000 }, async () => {
  const client = env.client as Client;
  const workflowId = `foreach-ok-${Date.now()}`;
  const before = calls;
  const handle = await client.workflow.start('fanout08', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [{ items, mode: 'ok' }], workflowExecutionTimeout: '10 minutes' });
  const out = (await handle.result()) as { count: number; sum: number };
  const chain = await runsOf(client, workflowId, handle.firstExecutionRunId);
  console.log(`[fanout] 0.8 foreach ${ITEMS}: ${calls - before} calls, ${chain.children} chunk children, largest history ${chain.largestHistory} events, max pending activities ${chain.maxPendingActivities}, max pending children ${chain.maxPendingChildren}`);
  assert.deepEqual(out, { count: ITEMS, sum });
  assert.equal(chain.children, 3);
  assert.ok(chain.maxPendingActivities <= 2_000 && chain.maxPendingChildren <= 2_000, JSON.stringify(chain));
});

test(`0.8 foreach: item ${FAILING} of ${ITEMS} fails in the third chunk; the run's failure names the state and the item's index`, { timeout: 10 * 60_000 }, async () => {
  const message = await failureOf(env.client as Client, 'fanout08', `foreach-fail-${Date.now()}`, { items, mode: 'fail' });
  console.log(`[fanout] 0.8 foreach failure: ${message}`);
  assert.match(message, /state "FetchAll"/);
  assert.match(message, new RegExp(`\\[${FAILING}\\]`));
  assert.match(message, /500/);
});

test(`1.0 for over ${ITEMS} items with a GET each continues as new between iterations (history limit 400) and threads its data`, { timeout: 10 * 60_000 }, async () => {
  const client = env.client as Client;
  const workflowId = `for-ok-${Date.now()}`;
  const handle = await client.workflow.start('bench/fanout10', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [{ items, mode: 'ok', sum: 0, count: 0 }], workflowExecutionTimeout: '10 minutes' });
  const out = (await handle.result()) as { count: number; sum: number };
  const chain = await runsOf(client, workflowId, handle.firstExecutionRunId);
  console.log(`[fanout] 1.0 for ${ITEMS}: ${chain.runs} runs, largest history ${chain.largestHistory} events, max pending activities ${chain.maxPendingActivities}`);
  assert.deepEqual(out, { count: ITEMS, sum });
  assert.ok(chain.runs >= 3, `continued as new (runs: ${chain.runs})`);
  // The limit is checked between iterations against the history as of the workflow task's start,
  // and one task can hold many local calls (one marker each): a run ends some events past it,
  // but far below the ~1,550 events of the 1,500 calls in one run.
  assert.ok(chain.largestHistory < 1_100, `every run's history bounded (largest ${chain.largestHistory})`);
  assert.ok(chain.maxPendingActivities <= 2_000);
});

test(`1.0 for: iteration ${FAILING} of ${ITEMS} fails after continue-as-new; the run's failure names the task and the iteration`, { timeout: 10 * 60_000 }, async () => {
  const message = await failureOf(env.client as Client, 'bench/fanout10', `for-fail-${Date.now()}`, { items, mode: 'fail', sum: 0, count: 0 });
  console.log(`[fanout] 1.0 for failure: ${message}`);
  assert.match(message, new RegExp(`iteration ${FAILING} of ${ITEMS} of /do/0/fetchAll`));
  assert.match(message, /status 500/);
});
