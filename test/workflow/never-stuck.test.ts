/**
 * A run is never stuck on its own work (issue 44, feature `expression-work`), on a real dev server
 * and the interpreter worker:
 * - a 1.0 `for` appending a ~110-byte record per iteration to `.acc` over 2,000 items completes
 *   (before: one activation ran past the SDK's 5 s, its workflow task was retried forever);
 * - an expression that cannot finish (`[range(1e9)]`) fails its task with an `expression` error
 *   naming the task and the expression, with no failed workflow task;
 * - a heavy run (expressions of ~0.1 s each, 60 iterations) does not starve the worker's other
 *   runs: ordinary runs started beside it finish while it is still working.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { WorkflowFailedError } from '@temporalio/client';
import { startDevEnv } from '../helpers/temporal';
import { randomUUID } from 'node:crypto';
import type { Definition, Json } from '../../src/common/model';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { harness, loadAny, type Harness } from './helpers';

let h: Harness;
before(async () => {
  h = await harness(await startDevEnv());
});
after(async () => {
  await h?.close();
  await h?.env.teardown();
});

/** Starts a 1.0 definition on the interpreter's queue (the definition travels with the start). */
function start(d: Definition, input: Json): Promise<WorkflowHandle> {
  return h.env.client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `${d.id.replace('/', '-')}-${randomUUID().slice(0, 8)}`, args: [input, { definition: d }] });
}

const doc = (name: string, tasks: unknown[]) => loadAny({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, do: tasks });

async function failedTasks(client: Client, workflowId: string): Promise<number> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events.filter((e) => e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes).length;
}

/** The failure a run ended with (it must fail), as text: its message and details. */
async function failureOf(handle: WorkflowHandle): Promise<string> {
  const err = await handle.result().then(
    () => assert.fail('the run completed'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkflowFailedError);
  return JSON.stringify({ message: err.cause?.message, details: (err.cause as { details?: unknown })?.details });
}

const collect = (n: number) =>
  doc('collect', [
    {
      loop: {
        for: { in: `\${ [range(${n})] }` },
        do: [{ add: { set: { acc: '${ .acc + [{ id: $index, name: ("item-" + ($item | tostring)), note: "a record of about one hundred and ten bytes, give or take" }] }' } } }],
      },
    },
  ]);

test('a 1.0 for collecting 2,000 records completes, with no failed workflow task', async () => {
  const handle = await start(await collect(2000), { acc: [] });
  const out = (await handle.result()) as { acc: { id: number; name: string }[] };
  assert.equal(out.acc.length, 2000);
  assert.deepEqual(out.acc[1999].name, 'item-1999');
  assert.equal(await failedTasks(h.env.client, handle.workflowId), 0);
});

test('the walk yields by a no-op local activity, not a timer; the recorded history replays', async () => {
  // 1,201 tasks entered: past the 1,000 steps of one activation.
  const d = await doc('small-collect', [{ loop: { for: { in: '${ [range(1200)] }' }, do: [{ add: { set: { acc: '${ .acc + [$index] }' } } }] } }]);
  const handle = await start(d, { acc: [] });
  assert.equal(((await handle.result()) as { acc: number[] }).acc.length, 1200);
  const events = (await handle.fetchHistory()).events ?? [];
  assert.equal(events.filter((e) => e.timerStartedEventAttributes).length, 0);
  assert.equal(events.filter((e) => e.markerRecordedEventAttributes).length, 2); // the pin, one yield
  await h.saveHistory(handle.workflowId, 'interpreter-expression-work-yield');
});

test('an expression that cannot finish fails its task with an expression error naming the task and the expression', async () => {
  const handle = await start(await doc('slow', [{ fine: { set: { a: 1 } } }, { slow: { set: { n: '${ [range(1e9)] | length }' } } }]), {});
  const text = await failureOf(handle);
  assert.match(text, /\/do\/1\/slow/, text);
  assert.match(text, /range\(1e9\)/, text);
  assert.match(text, /did not finish within 4000000 jq steps/, text);
  assert.match(text, /expression/, text);
  assert.equal(await failedTasks(h.env.client, handle.workflowId), 0);
  await h.saveHistory(handle.workflowId, 'interpreter-expression-work-fuel');
});

test('a for over a million generated items fails its task with a clear error, at once', async () => {
  const handle = await start(await doc('million', [{ loop: { for: { in: '${ [range(1000000)] }' }, do: [{ add: { set: { n: '${ $index }' } } }] } }]), {});
  const text = await failureOf(handle);
  assert.match(text, /\/do\/0\/loop/, text);
  assert.match(text, /for\.in/, text);
  assert.match(text, /did not finish within/, text);
  assert.equal(await failedTasks(h.env.client, handle.workflowId), 0);
});

test('a heavy run does not starve the worker: ordinary runs beside it finish while it works', async () => {
  // Each iteration ~2.4 million jq steps (under the 4 million of one evaluation), 60 of them.
  const heavy = await doc('heavy', [{ loop: { for: { in: '${ [range(60)] }' }, do: [{ sum: { set: { total: '${ reduce range(200000) as $i (0; . + $i) }' } } }] } }]);
  const ordinary = await doc('ordinary', [{ a: { set: { x: '${ 1 }' } } }, { b: { set: { y: '${ .x + 1 }' } } }, { c: { set: '${ {z: (.y * 2)} }' } }]);
  const heavyRun = await start(heavy, {});
  let heavyDone = false;
  const heavyResult = heavyRun.result().finally(() => (heavyDone = true));
  // Several, so that some share the heavy run's workflow thread.
  const started = Date.now();
  const ordinaries = await Promise.all(Array.from({ length: 6 }, () => start(ordinary, {})));
  const outs = await Promise.all(ordinaries.map((o) => o.result()));
  const took = Date.now() - started;
  for (const o of outs) assert.deepEqual(o, { z: 4 });
  assert.ok(!heavyDone, `the heavy run ended first (ordinary runs took ${took} ms)`);
  assert.ok(took < 5000, `ordinary runs took ${took} ms beside the heavy one`);
  assert.deepEqual(await heavyResult, { total: (200000 * 199999) / 2 });
  assert.equal(await failedTasks(h.env.client, heavyRun.workflowId), 0);
});
