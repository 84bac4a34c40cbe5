/**
 * A walk of states that issues no command (an expression-function loop) yields every
 * TRANSITIONS_PER_TASK transitions with a 1 ms timer (feature `yield-long-walks`): before it, a
 * loop of a few thousand iterations ran in one workflow task past the SDK's 5 s limit, failed
 * the task, and failed it again on every retry: the run never finished.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { loadAnyDefinition } from '../../src/dsl';
import { startDevEnv } from '../helpers/temporal';
import { FEATURE_YIELD_LONG_WALKS } from '../../src/common/features';
import { TRANSITIONS_PER_TASK } from '../../src/workflow/host/walk-budget';
import { def, harness, saveHistory, workerWithout, type Harness } from './helpers';

let h: Harness;
let legacy: Awaited<ReturnType<typeof workerWithout>>;
before(async () => {
  h = await harness(await startDevEnv());
  legacy = await workerWithout(h.env, 'swflow-before-yield-long-walks', [FEATURE_YIELD_LONG_WALKS]);
});
after(async () => {
  await legacy?.stop();
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
    failedTasks: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
  };
}

test('a 3,000-iteration loop without commands completes, yielding every 500 transitions', async () => {
  const n = 3000;
  assert.deepEqual(await h.run(counter('long-walk', n), { count: 0 }), { count: n });
  const { yields, failedTasks } = await history(h.env.client, h.lastWorkflowId!);
  assert.equal(failedTasks, 0);
  assert.equal(yields, Math.floor((2 * n - 1) / TRANSITIONS_PER_TASK));
});

test('the recorded history replays; a run from before the feature makes no timer', async () => {
  assert.deepEqual(await h.run(counter('short-walk', 600), { count: 0 }), { count: 600 });
  assert.equal((await history(h.env.client, h.lastWorkflowId!)).yields, 2);
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-yield-long-walks');

  const d = await counter('short-walk', 600);
  const id = `short-walk-legacy-${Date.now()}`;
  assert.deepEqual(await h.env.client.workflow.execute(d.id, { taskQueue: legacy.taskQueue, workflowId: id, args: [{ count: 0 }, { definition: d }] }), { count: 600 });
  assert.equal((await history(h.env.client, id)).yields, 0);
  await saveHistory(h.env.client, id, 'interpreter-yield-long-walks-legacy');
});

test('1.0: a for loop of 1,500 set tasks yields every 500 tasks entered', async () => {
  const { definition } = await loadAnyDefinition({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'long-for', version: '0.1.0' },
    do: [{ loop: { for: { in: '${ [range(1500)] }' }, do: [{ add: { set: { sum: '${ .sum + $item }' } } }] } }],
  });
  const id = `long-for-${Date.now()}`;
  const out = await h.env.client.workflow.execute(definition!.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: id, args: [{ sum: 0 }, { definition: definition! }] });
  assert.deepEqual(out, { sum: (1500 * 1499) / 2 });
  const { yields, failedTasks } = await history(h.env.client, id);
  assert.equal(failedTasks, 0);
  assert.equal(yields, Math.floor(1501 / TRANSITIONS_PER_TASK)); // the for task and its 1,500 iterations
});
