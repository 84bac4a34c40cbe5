/**
 * A walk of states that issues no command (an expression-function loop) yields every
 * TRANSITIONS_PER_TASK transitions with a 1 ms timer (feature `yield-long-walks`): before it, a
 * loop of a few thousand iterations ran in one workflow task past the SDK's 5 s limit, failed
 * the task, and failed it again on every retry: the run never finished. With `expression-work`
 * (new runs) the yield is a no-op local activity every STEPS_PER_TASK steps (or once the work of
 * an activation is done, test/workflow/never-stuck.test.ts): no timer. The timer path is tested on
 * a worker without `expression-work`, as runs recorded before it replay.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { loadAnyDefinition } from '../../src/dsl';
import { startDevEnv } from '../helpers/temporal';
import { FEATURE_EXPRESSION_WORK, FEATURE_YIELD_LONG_WALKS } from '../../src/common/features';
import { STEPS_PER_TASK, TRANSITIONS_PER_TASK } from '../../src/workflow/host/walk-budget';
import type { Definition, Json } from '../../src/common/model';
import { def, harness, saveHistory, workerWithout, type Harness } from './helpers';

let h: Harness;
let legacy: Awaited<ReturnType<typeof workerWithout>>;
let timers: Awaited<ReturnType<typeof workerWithout>>;
before(async () => {
  h = await harness(await startDevEnv());
  legacy = await workerWithout(h.env, 'swflow-before-yield-long-walks', [FEATURE_YIELD_LONG_WALKS]);
  timers = await workerWithout(h.env, 'swflow-before-expression-work', [FEATURE_EXPRESSION_WORK]);
});
after(async () => {
  await legacy?.stop();
  await timers?.stop();
  await h?.close();
  await h?.env.teardown();
});

/** Counts to `n` with an expression function and a switch back-edge: 2n - 1 transitions, no command. */
const counter = (id: string, n: number) =>
  def({
    id,
    start: 'Step',
    functions: [{ name: 'next', type: 'expression', operation: '.count + 1' }],
    states: [
      { name: 'Step', type: 'operation', actions: [{ functionRef: { refName: 'next' }, actionDataFilter: { toStateData: '${ .count }' } }], transition: 'Check' },
      { name: 'Check', type: 'switch', dataConditions: [{ condition: `\${ .count < ${n} }`, transition: 'Step' }], defaultCondition: { end: true } },
    ],
  });

async function history(client: Client, workflowId: string) {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return {
    yields: events.filter((e) => e.timerStartedEventAttributes).length,
    /** Local-activity markers but the pin's. */
    localYields: events.filter((e) => e.markerRecordedEventAttributes).length - 1,
    failedTasks: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
  };
}

/** Runs `d` on the worker without expression-work (the timer yields of runs recorded before it). */
async function runWithTimers(d: Awaited<ReturnType<typeof counter>> | Definition, input: Json): Promise<{ out: unknown; id: string }> {
  const id = `timers-${d.id.replace('/', '-')}-${Date.now()}`;
  const out = await h.env.client.workflow.execute(d.id, { taskQueue: timers.taskQueue, workflowId: id, args: [input, { definition: d }] });
  return { out, id };
}

test('a 3,000-iteration loop without commands completes, yielding every 500 transitions (timers, before expression-work)', async () => {
  const n = 3000;
  const { out, id } = await runWithTimers(await counter('long-walk', n), { count: 0 });
  assert.deepEqual(out, { count: n });
  const { yields, failedTasks } = await history(h.env.client, id);
  assert.equal(failedTasks, 0);
  assert.equal(yields, Math.floor((2 * n - 1) / TRANSITIONS_PER_TASK));
});

test('a new run yields by a local activity every 1,000 steps, with no timer', async () => {
  const n = 3000;
  assert.deepEqual(await h.run(counter('long-walk', n), { count: 0 }), { count: n });
  const { yields, localYields, failedTasks } = await history(h.env.client, h.lastWorkflowId!);
  assert.equal(failedTasks, 0);
  assert.equal(yields, 0);
  assert.equal(localYields, Math.floor((2 * n - 1) / (STEPS_PER_TASK + 1)));
});

test('the recorded history replays; a run from before the feature makes no timer', async () => {
  const timed = await runWithTimers(await counter('short-walk', 600), { count: 0 });
  assert.deepEqual(timed.out, { count: 600 });
  assert.equal((await history(h.env.client, timed.id)).yields, 2);
  await h.saveHistory(timed.id, 'interpreter-yield-long-walks');

  const d = await counter('short-walk', 600);
  const id = `short-walk-legacy-${Date.now()}`;
  assert.deepEqual(await h.env.client.workflow.execute(d.id, { taskQueue: legacy.taskQueue, workflowId: id, args: [{ count: 0 }, { definition: d }] }), { count: 600 });
  assert.equal((await history(h.env.client, id)).yields, 0);
  await saveHistory(h.env.client, id, 'interpreter-yield-long-walks-legacy');
});

test('1.0: a for loop of 1,500 set tasks yields every 500 tasks entered (timers), every 1,000 by a local activity in a new run', async () => {
  const { definition } = await loadAnyDefinition({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'long-for', version: '0.1.0' },
    do: [{ loop: { for: { in: '${ [range(1500)] }' }, do: [{ add: { set: { sum: '${ .sum + $item }' } } }] } }],
  });
  const timed = await runWithTimers(definition!, { sum: 0 });
  assert.deepEqual(timed.out, { sum: (1500 * 1499) / 2 });
  const before = await history(h.env.client, timed.id);
  assert.equal(before.failedTasks, 0);
  assert.equal(before.yields, Math.floor(1501 / TRANSITIONS_PER_TASK)); // the for task and its 1,500 iterations
  // A new run: one local yield after 1,000 of the 1,501 steps.
  const id = `long-for-${Date.now()}`;
  const out = await h.env.client.workflow.execute(definition!.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: id, args: [{ sum: 0 }, { definition: definition! }] });
  assert.deepEqual(out, { sum: (1500 * 1499) / 2 });
  const now = await history(h.env.client, id);
  assert.equal(now.failedTasks, 0);
  assert.equal(now.yields, 0);
  assert.equal(now.localYields, Math.floor(1501 / (STEPS_PER_TASK + 1)));
});
