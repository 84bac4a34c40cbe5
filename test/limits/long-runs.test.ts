/**
 * Runs that never hit Temporal's limits (51,200 events / 50 MB of history per run, 2,000
 * pending activities or children): the interpreter continues as new by itself, invisibly to
 * the definition and its result, and fans a large foreach out in batches or child workflows.
 *
 * The real dev server, the real interpreter worker, the real DSL; only the user's service is
 * a stand-in (it increments / doubles). Wall time and the worker process's peak RSS are
 * printed for the issue note.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@temporalio/client';
import { activityInfo } from '@temporalio/activity';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE, type FunctionCall } from '../../src/common/contracts';
import { callInterceptor } from '../../src/adapter-sdk/call';
import { loadDefinition } from '../../src/dsl';
import type { WorkflowDef } from '../../src/common/model';
import { bundleInterpreter, createInterpreterWorker, type WorkflowBundle } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { doubleEach } from '../workflow/scenarios';

// `npm test`: 3,000 loop iterations (~18,000 events: four runs, as the dev server suggests continuing
// as new every ~4,100 events) and a foreach of 5,000 items (past the 2,000 pending activities).
// SWFLOW_SOAK=1: the targets, 20,000 iterations (6.5 minutes on 2 cores: a sequential
// activity each) and 10,000 items. Other counts through the environment.
const SOAK = process.env.SWFLOW_SOAK === '1';
const LOOP_ITERATIONS = Number(process.env.SWFLOW_LOOP_ITERATIONS ?? (SOAK ? 20_000 : 3_000));
const FOREACH_ITEMS = Number(process.env.SWFLOW_FOREACH_ITEMS ?? (SOAK ? 10_000 : 5_000));

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundle;

before(async () => {
  env = await startDevEnv();
  bundle = await bundleInterpreter();
});

after(async () => {
  await env?.teardown();
});

async function normalized(doc: unknown): Promise<WorkflowDef> {
  const loaded = await loadDefinition(doc);
  assert.ok(loaded.definition, JSON.stringify(loaded.problems));
  return loaded.definition;
}

/** Runs one definition with the interpreter and the stand-in service; measures time and RSS. */
async function runMeasured(definition: WorkflowDef, input: unknown, service: (call: FunctionCall) => unknown) {
  const connection = env.nativeConnection as NativeConnection;
  const interpreter = await createInterpreterWorker({ connection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [], workflowBundle: bundle });
  const services = await Worker.create({
    connection,
    taskQueue: ADAPTER_TASK_QUEUE,
    maxConcurrentActivityTaskExecutions: 500,
    activities: { default: async (call: FunctionCall) => (void activityInfo(), service(call)) },
    interceptors: { activity: [callInterceptor] },
  });
  // RSS of this process (test harness, server client, both workers) when the run starts and at
  // its peak: the worker's share is at most the peak.
  const startRss = process.memoryUsage().rss;
  let peakRss = startRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  const started = performance.now();
  const client = env.client as Client;
  const workflowId = `${definition.id}-${Date.now()}`;
  try {
    const output = await interpreter.runUntil(
      services.runUntil(
        client.workflow.execute(definition.id, {
          taskQueue: INTERPRETER_TASK_QUEUE,
          workflowId,
          args: [input, { definition }],
          workflowExecutionTimeout: '40 minutes',
        }),
      ),
    );
    const wallSeconds = (performance.now() - started) / 1000;
    // How many runs the instance used: each continue-as-new starts a new run of the same id.
    let runs = 0;
    let largestHistory = 0;
    for await (const wf of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      runs++;
      largestHistory = Math.max(largestHistory, wf.historyLength);
    }
    return { output: output as any, wallSeconds, startRssMb: Math.round(startRss / 2 ** 20), peakRssMb: Math.round(peakRss / 2 ** 20), runs, largestHistory };
  } finally {
    clearInterval(sampler);
  }
}

test(`a loop of ${LOOP_ITERATIONS} iterations (switch back-edge + function call) completes with the right counter`, { timeout: 40 * 60_000 }, async () => {
  const definition = await normalized({
    id: 'counterloop',
    specVersion: '0.8',
    start: 'Increment',
    functions: [{ name: 'increment', operation: 'http://counter.example/api.json#increment' }],
    states: [
      {
        name: 'Increment',
        type: 'operation',
        actions: [{ functionRef: { refName: 'increment', arguments: { count: '${ .count }' } } }],
        transition: 'Check',
      },
      {
        name: 'Check',
        type: 'switch',
        dataConditions: [{ condition: `\${ .count < ${LOOP_ITERATIONS} }`, transition: 'Increment' }],
        defaultCondition: { end: true },
      },
    ],
  });
  const result = await runMeasured(definition, { count: 0, label: 'kept' }, (call) => ({
    count: (call.arguments as { count: number }).count + 1,
  }));
  console.log(`[limits] loop: ${JSON.stringify({ ...result, output: undefined })}`);
  assert.deepEqual(result.output, { count: LOOP_ITERATIONS, label: 'kept' });
  // Each iteration writes ≥ 6 events; from ~700 iterations on one run would pass the ~4,100
  // events at which the server suggests continuing as new.
  if (LOOP_ITERATIONS >= 1_000) assert.ok(result.runs > 1, `continued as new (runs: ${result.runs})`);
  assert.ok(result.largestHistory < 51_200, `no run near the event limit (largest: ${result.largestHistory})`);
});

test(`a foreach over ${FOREACH_ITEMS} items completes with all results in order`, { timeout: 40 * 60_000 }, async () => {
  const definition = await normalized(doubleEach({ id: 'bigforeach' }));
  const numbers = Array.from({ length: FOREACH_ITEMS }, (_, i) => i);
  const result = await runMeasured(definition, { numbers }, (call) => 2 * (call.arguments as { n: number }).n);
  console.log(`[limits] foreach: ${JSON.stringify({ ...result, output: undefined })}`);
  assert.equal(result.output.doubled.length, FOREACH_ITEMS);
  assert.deepEqual(result.output.doubled, numbers.map((n) => 2 * n));
});
