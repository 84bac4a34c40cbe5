/**
 * The interpreter's sandbox captures no stacks by default (src/workflow/stack-traces.ts, preloaded
 * by bundleInterpreter): the SDK's per-promise stack capture is what it saves. A run waiting for an
 * event answers the `__stack_trace` query with no frames; a bundle made with stack traces on
 * (SWFLOW_WORKFLOW_STACK_TRACES=1) names the interpreter's functions there. Both bundles run the
 * same definition to the same result. Real dev server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { EVENT_SIGNAL, STATE_QUERY, type InstanceState, type StartOptions } from '../../src/common/contracts';
import { bundleInterpreter, createInterpreterWorker, workflowStackTraces } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { startDevEnv } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { loadAny, sharedBundle } from './helpers';

const WITH_STACKS = 'swflow-with-stacks';
let env: TestWorkflowEnvironment;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];

const waiting = {
  id: 'waitsforgo',
  version: '1.0',
  specVersion: '0.8',
  start: 'Wait',
  events: [{ name: 'Go', type: 'test.go', source: 'test' }],
  states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'], eventDataFilter: { data: '${ .go }' } }], end: true }],
};

before(async () => {
  env = await startDevEnv();
  const stacked = await bundleInterpreter({ stackTraces: true });
  workers = [
    await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle() }),
    await createInterpreterWorker({ connection: env.nativeConnection, taskQueue: WITH_STACKS, definitions: [], workflowBundle: stacked }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
});

test('SWFLOW_WORKFLOW_STACK_TRACES turns stack traces on', () => {
  assert.equal(workflowStackTraces({}), false);
  assert.equal(workflowStackTraces({ SWFLOW_WORKFLOW_STACK_TRACES: '1' }), true);
  assert.equal(workflowStackTraces({ SWFLOW_WORKFLOW_STACK_TRACES: '0' }), false);
});

async function stackOfWaitingRun(taskQueue: string, workflowId: string): Promise<string> {
  const definition = await loadAny(waiting);
  const handle = await env.client.workflow.start('waitsforgo', { taskQueue, workflowId, args: [{}, { definition } satisfies StartOptions] });
  // Wait until the run is blocked on the event, then ask where it is.
  await waitFor('the wait for the event', async () => ((await handle.query<InstanceState>(STATE_QUERY)).awaitedEvents.length ? true : undefined));
  const stack = await handle.query<string>('__stack_trace');
  await handle.signal(EVENT_SIGNAL, { specversion: '1.0', id: `${workflowId}-go`, type: 'test.go', source: 'test', data: { go: { done: true } } });
  assert.deepEqual(await handle.result(), { done: true });
  return stack;
}

test('by default the sandbox captures no stack frames', async () => {
  const stack = await stackOfWaitingRun('swflow', 'stacks-default');
  assert.doesNotMatch(stack, /\bat\b/, `expected no frames, got:\n${stack}`);
});

test('with stack traces on, the waiting run names the interpreter', async () => {
  const stack = await stackOfWaitingRun(WITH_STACKS, 'stacks-on');
  assert.match(stack, /\bat\b.*(src\/workflow|webpack)/s, `expected interpreter frames, got:\n${stack}`);
});
