/**
 * The interpreter worker's sticky cache is bounded (issue 34, item 2): with 100 runs waiting for
 * an event (0.8 event states and 1.0 `listen`, correlated by a key) and the cache set to 20, the
 * worker never holds more than 20 runs; a run evicted from it still completes when its event
 * comes (its state is rebuilt by a replay of its history). The setting's parsing is checked too.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { WorkflowHandle } from '@temporalio/client';
import { EVENT_SIGNAL, INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import type { Definition } from '../../src/common/model';
import { createInterpreterWorker, DEFAULT_MAX_CACHED_WORKFLOWS, maxCachedWorkflows } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { ce, def, loadAny, sharedBundle } from '../workflow/helpers';

const CACHE = 20;
const RUNS = 100;

let env: TestWorkflowEnvironment | undefined;
let worker: Worker | undefined;
let running: Promise<void> | undefined;
let maxSeen = 0;
let sampler: NodeJS.Timeout | undefined;

before(async () => {
  env = await startDevEnv();
  worker = await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle(), maxCachedWorkflows: CACHE });
  running = worker.run();
  // The SDK's own count of cached runs, sampled all along.
  sampler = setInterval(() => (maxSeen = Math.max(maxSeen, worker!.getStatus().numCachedWorkflows)), 5);
});
after(async () => {
  clearInterval(sampler);
  worker?.shutdown();
  await running?.catch(() => {});
  await env?.teardown();
});

/** 0.8: an event state waiting for a `vitals` event of its patient (correlated by a context attribute). */
const v08 = () =>
  def({
    id: 'sticky-v08',
    start: 'Wait',
    events: [{ name: 'Vitals', type: 'vitals', correlation: [{ contextAttributeName: 'patientid' }] }],
    states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Vitals'], eventDataFilter: { toStateData: '${ .got }' } }], end: true }],
  });

/** 1.0: a `listen` for a `com.x.reading` of its room (correlated by `expect` over the input). */
const v10 = () =>
  loadAny({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'sticky-v10', version: '0.1.0' },
    do: [{ wait: { listen: { to: { one: { with: { type: 'com.x.reading' }, correlate: { room: { from: '${ .data.room }', expect: '${ .room }' } } } } } } }],
  });

/** Until every run has finished its first workflow task and waits (no task, no activity pending). */
async function allWaiting(handles: WorkflowHandle[], ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  for (const h of handles) {
    for (;;) {
      const d = await h.describe();
      if (d.historyLength >= 4 && !d.raw.pendingWorkflowTask && !(d.raw.pendingActivities?.length ?? 0)) break;
      if (Date.now() > until) throw new Error(`${h.workflowId} is not waiting after ${ms} ms (history ${d.historyLength} events)`);
      await delay(50);
    }
  }
}

test(`${RUNS} waiting runs with the sticky cache at ${CACHE}: at most ${CACHE} cached; an evicted run completes on its event`, async () => {
  const client = env!.client;
  const [d08, d10] = [await v08(), (await v10()) as Definition];
  const startOne = (i: number) =>
    i % 2 === 0
      ? client.workflow.start(d08.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `sticky-08-${i}`, args: [{}, { definition: d08 }] })
      : client.workflow.start(d10.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `sticky-10-${i}`, args: [{ room: `r${i}` }, { definition: d10 }] });
  // Run 0 first and waiting before the others: the least recently used, so evicted once 20 more are cached.
  const first = await startOne(0);
  await allWaiting([first]);
  const second = await startOne(1);
  await allWaiting([second]);
  const others: WorkflowHandle[] = [];
  for (let i = 2; i < RUNS; i += 10) others.push(...(await Promise.all(Array.from({ length: Math.min(10, RUNS - i) }, (_, k) => startOne(i + k)))));
  await allWaiting(others);
  const cachedWhileWaiting = worker!.getStatus().numCachedWorkflows;
  assert.ok(maxSeen <= CACHE, `the worker cached ${maxSeen} runs, over its bound of ${CACHE}`);
  assert.ok(cachedWhileWaiting >= 2, `the cache is in use (${cachedWhileWaiting} runs cached)`);

  // Events for the two oldest runs (evicted: 98 runs came after them): another patient's / room's first, then theirs.
  await first.signal(EVENT_SIGNAL, ce('vitals', 98.6, { patientid: 'P0' }));
  assert.deepEqual(await first.result(), { got: 98.6 }, 'the 0.8 run took its vitals event');
  await second.signal(EVENT_SIGNAL, ce('com.x.reading', { room: 'elsewhere', t: 1 }));
  await second.signal(EVENT_SIGNAL, ce('com.x.reading', { room: 'r1', t: 21 }));
  const out = (await second.result()) as unknown;
  assert.equal(JSON.stringify(out).includes('"t":21'), true, `the 1.0 run took its own room's reading: ${JSON.stringify(out)}`);
  assert.ok(!JSON.stringify(out).includes('elsewhere'), 'the other room\'s reading was not taken');
  assert.ok(maxSeen <= CACHE, `the worker cached ${maxSeen} runs, over its bound of ${CACHE}`);
  console.log(`sticky cache ${CACHE}: ${RUNS} waiting runs (0.8 event + 1.0 listen, correlated), at most ${maxSeen} cached (${cachedWhileWaiting} while all waited); 2 evicted runs completed on their events (replayed)`);
});

test('the cache bound: --max-cached-workflows, else SWFLOW_MAX_CACHED_WORKFLOWS, else the default; bad values name their source', () => {
  assert.equal(maxCachedWorkflows(undefined, {}), DEFAULT_MAX_CACHED_WORKFLOWS);
  assert.equal(maxCachedWorkflows(undefined, { SWFLOW_MAX_CACHED_WORKFLOWS: '250' }), 250);
  assert.equal(maxCachedWorkflows('0', { SWFLOW_MAX_CACHED_WORKFLOWS: '250' }), 0);
  assert.throws(() => maxCachedWorkflows('1', {}), /--max-cached-workflows must be 0 \(no sticky cache\) or a whole number of runs ≥ 2, not "1"/);
  assert.throws(() => maxCachedWorkflows(undefined, { SWFLOW_MAX_CACHED_WORKFLOWS: 'lots' }), /SWFLOW_MAX_CACHED_WORKFLOWS must be .* not "lots"/);
  assert.throws(() => maxCachedWorkflows('-5', {}), /--max-cached-workflows must be/);
  console.log(`cache bound setting: default ${DEFAULT_MAX_CACHED_WORKFLOWS}, env and flag read, 3 bad values refused`);
});
