/**
 * The `sync-expressions` feature (src/common/features.ts) on concurrent work whose commands'
 * order depends on how many microtask turns each branch takes before it schedules its call:
 * parallel states, parallel actions, foreach iterations, 1.0 fork branches, each branch with a
 * different number of expressions before its call.
 *
 * Each scenario runs twice: on a worker acting as one from before the feature (its runs resolve
 * without it: the awaits kept) and on a current one. The `-legacy` fixtures were recorded by the
 * interpreter as it was before the feature existed; the run without the feature must schedule
 * the same activities in the same order, and both fixtures replay (test/workflow/replay.test.ts,
 * test/conformance). Flipping a legacy history's recorded features makes its replay fail: the
 * gate is what keeps those histories valid.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { startDevEnv } from '../helpers/temporal';
import { formatFinding, loadAnyDefinition } from '../../src/dsl';
import type { Json, WorkflowDef } from '../../src/common/model';
import { FEATURE_SYNC_EXPRESSIONS } from '../../src/common/features';
import { historyFromFixture } from '../../src/testing/history';
import { def, FIXTURES_DIR, harness, saveHistory, sharedBundle, workerWithout, type Harness } from './helpers';

let h: Harness;
/** A worker acting as one from before `sync-expressions`. */
let legacy: Awaited<ReturnType<typeof workerWithout>>;
before(async () => {
  h = await harness(await startDevEnv());
  legacy = await workerWithout(h.env, 'swflow-before-sync-expressions', [FEATURE_SYNC_EXPRESSIONS]);
});
after(async () => {
  await legacy?.stop();
  await h?.close();
  await h?.env.teardown();
});

type Event = {
  eventId?: unknown;
  workflowTaskCompletedEventAttributes?: unknown;
  activityTaskScheduledEventAttributes?: { workflowTaskCompletedEventId?: unknown } | null;
  userMetadata?: { summary?: { data?: Uint8Array | string | null } | null } | null;
};

/**
 * Summaries of the activities the first workflow task scheduled, in order: what the code decides
 * alone (later tasks also depend on which call's result came back first).
 */
function scheduledIn(events: Event[]): string[] {
  const first = String(events.find((e) => e.workflowTaskCompletedEventAttributes)?.eventId);
  const out: string[] = [];
  for (const e of events) {
    if (String(e.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId ?? '') !== first) continue;
    const data = e.userMetadata?.summary?.data;
    out.push(JSON.parse(typeof data === 'string' ? Buffer.from(data, 'base64').toString() : Buffer.from(data ?? []).toString()));
  }
  return out;
}

async function scheduled(workflowId: string): Promise<string[]> {
  return scheduledIn(((await h.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []) as never);
}

function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES_DIR, `${name}.json`), 'utf8');
}

/**
 * Runs `d` on the worker without the feature and on the current one; checks the run without it
 * schedules what the interpreter before the feature scheduled (the `-legacy` fixture) and both
 * compute the same output. Returns both runs' scheduled activities.
 */
async function bothWays(d: Promise<WorkflowDef>, input: Json, fixture: string, mocks: () => void): Promise<{ before: string[]; now: string[]; output: Json }> {
  const definition = await d;
  h.reset();
  mocks();
  const legacyId = `${fixture}-legacy-${Date.now()}`;
  const legacyOut = await h.env.client.workflow.execute(definition.id, { taskQueue: legacy.taskQueue, workflowId: legacyId, args: [input, { definition }] });
  await saveHistory(h.env.client, legacyId, `${fixture}-legacy`); // only written when missing
  const before = await scheduled(legacyId);
  assert.deepEqual(before, scheduledIn(JSON.parse(fixtureText(`${fixture}-legacy`)).events), 'without the feature, the same first commands in the same order as before it');
  h.reset();
  mocks();
  const out = await h.run(definition, input);
  await h.saveHistory(h.lastWorkflowId!, fixture);
  assert.deepEqual(out, legacyOut, 'the same output either way');
  return { before, now: await scheduled(h.lastWorkflowId!), output: out as Json };
}

function echo(name: string) {
  return (args: Json) => ({ [name]: args });
}

// A branch that evaluates several expressions before its call, and one that evaluates none.
const parallel = def({
  id: 'ticks-parallel',
  start: 'P',
  functions: [
    { name: 'heavy', type: 'custom', operation: 'ticks.heavy' },
    { name: 'light', type: 'custom', operation: 'ticks.light' },
    { name: 'after', type: 'custom', operation: 'ticks.after' },
  ],
  states: [
    {
      name: 'P',
      type: 'parallel',
      branches: [
        {
          name: 'Heavy',
          actions: [
            {
              condition: '${ .n > 0 }',
              functionRef: { refName: 'heavy', arguments: { a: '${ .n + 1 }', b: '${ .n * 2 }' } },
              actionDataFilter: { fromStateData: '${ {n} }', results: '${ .heavy }', toStateData: '${ .h }' },
            },
            { functionRef: { refName: 'after', arguments: { from: 'heavy' } }, actionDataFilter: { results: '${ .after }', toStateData: '${ .ha }' } },
          ],
        },
        {
          name: 'Light',
          actions: [
            { functionRef: 'light', actionDataFilter: { results: '${ .light }', toStateData: '${ .l }' } },
            { functionRef: { refName: 'after', arguments: { from: 'light' } }, actionDataFilter: { results: '${ .after }', toStateData: '${ .la }' } },
          ],
        },
      ],
      end: true,
    },
  ],
});

const parallelActions = def({
  id: 'ticks-parallel-actions',
  start: 'O',
  functions: [
    { name: 'heavy', type: 'custom', operation: 'ticks.heavy' },
    { name: 'light', type: 'custom', operation: 'ticks.light' },
  ],
  states: [
    {
      name: 'O',
      type: 'operation',
      actionMode: 'parallel',
      stateDataFilter: { input: '${ . }' },
      actions: [
        { condition: '${ .n > 0 }', functionRef: { refName: 'heavy', arguments: { a: '${ .n + 1 }' } }, actionDataFilter: { fromStateData: '${ . }', results: '${ .heavy }', toStateData: '${ .h }' } },
        { functionRef: 'light', actionDataFilter: { results: '${ .light }', toStateData: '${ .l }' } },
        { functionRef: { refName: 'heavy', arguments: { a: '${ .n }' } }, actionDataFilter: { results: '${ .heavy }', toStateData: '${ .h2 }' } },
      ],
      end: true,
    },
  ],
});

// Iteration 2 skips its first action (condition false), so its second call goes out earlier.
const foreach = def({
  id: 'ticks-foreach',
  start: 'F',
  functions: [
    { name: 'first', type: 'custom', operation: 'ticks.first' },
    { name: 'second', type: 'custom', operation: 'ticks.second' },
  ],
  states: [
    {
      name: 'F',
      type: 'foreach',
      inputCollection: '${ .items }',
      iterationParam: 'item',
      outputCollection: '${ .out }',
      actions: [
        { condition: '${ $item != 2 }', functionRef: { refName: 'first', arguments: { i: '${ $item }' } }, actionDataFilter: { results: '${ .first }' } },
        { functionRef: { refName: 'second', arguments: { i: '${ $item }' } }, actionDataFilter: { results: '${ .second }' } },
      ],
      end: true,
    },
  ],
});

/** A 1.0 definition (the harness starts any pinned definition; its types name the 0.8 one). */
async function v1(doc: unknown): Promise<WorkflowDef> {
  const { definition, problems } = await loadAnyDefinition(doc, { source: 'test' });
  if (!definition) throw new Error(problems.map(formatFinding).join('; '));
  return definition as unknown as WorkflowDef;
}

// A branch that sets data and evaluates `with` before its call, one that calls at once, one that
// loops. Each calls its own activity type (Core checks a replayed command's activity type).
const fork = v1({
  document: { dsl: '1.0.3', namespace: 'ticks', name: 'fork', version: '1.0.0' },
  do: [
    {
      branches: {
        fork: {
          branches: [
            {
              heavy: {
                do: [
                  { prepare: { set: { n: '${ .n + 1 }', m: '${ .n * 2 }' } } },
                  { callHeavy: { call: 'ticks.heavy:1.0.0@default', with: { n: '${ .n }' } } },
                ],
              },
            },
            { light: { call: 'http', with: { method: 'get', endpoint: 'http://svc.test/light' } } },
            {
              loop: {
                for: { each: 'i', in: '${ [1, 2] }' },
                do: [{ callLoop: { call: 'ticks.loop:1.0.0@default', with: { i: '${ $i }' } } }],
              },
            },
          ],
        },
      },
    },
  ],
});

test('a parallel state whose branches evaluate different numbers of expressions before their calls', async () => {
  const r = await bothWays(parallel, { n: 1 }, 'interpreter-ticks-parallel', () => {
    for (const f of ['heavy', 'light', 'after']) h.mocks[f] = echo(f);
  });
  assert.deepEqual(r.output, { n: 1, h: { a: 2, b: 2 }, ha: { from: 'heavy' }, l: {}, la: { from: 'light' } });
  // Awaited expressions held the heavy branch back; evaluated at once, branches go in definition order.
  assert.deepEqual(r.before, ['P › Light › action 1 → light', 'P › Heavy › action 1 → heavy']);
  assert.deepEqual(r.now, ['P › Heavy › action 1 → heavy', 'P › Light › action 1 → light']);
});

test('parallel actions of an operation state, one with a condition and filters', async () => {
  const r = await bothWays(parallelActions, { n: 3 }, 'interpreter-ticks-parallel-actions', () => {
    for (const f of ['heavy', 'light']) h.mocks[f] = echo(f);
  });
  assert.deepEqual(r.output, { n: 3, h: { a: 4 }, l: {}, h2: { a: 3 } });
  assert.deepEqual(r.before, ['O › action 2 → light', 'O › action 3 → heavy', 'O › action 1 → heavy']);
  assert.deepEqual(r.now, ['O › action 1 → heavy', 'O › action 2 → light', 'O › action 3 → heavy']);
});

test('foreach iterations in parallel, one skipping its first action', async () => {
  const r = await bothWays(foreach, { items: [1, 2, 3] }, 'interpreter-ticks-foreach', () => {
    for (const f of ['first', 'second']) h.mocks[f] = echo(f);
  });
  assert.deepEqual(r.output, { items: [1, 2, 3], out: [{ i: 1 }, { i: 2 }, { i: 3 }] });
  // The iterations evaluate the same expressions: their first calls go out in the same order either way.
  assert.deepEqual(r.now, ['F › [0] › action 1 → first', 'F › [2] › action 1 → first', 'F › [1] › action 2 → second']);
  assert.deepEqual(r.before, r.now);
});

test('1.0 fork branches: set then call, a call, a for loop of calls', async () => {
  const r = await bothWays(fork, { n: 1 }, 'interpreter-ticks-fork', () => {
    h.mocks['ticks.heavy:1.0.0@default'] = (args) => ({ heavy: args });
    h.mocks.http = (args: any) => ({ light: args.endpoint?.uri ?? args.endpoint });
    h.mocks['ticks.loop:1.0.0@default'] = (args) => ({ loop: args });
  });
  assert.deepEqual(r.output, [{ heavy: { n: 2 } }, { light: 'http://svc.test/light' }, { loop: { i: 2 } }]);
  // Without awaits on expressions the loop's call (no awaits left before it) went first, the http
  // call (which awaited its authentication step) next, the set-then-call branch last (the
  // interpreter-ticks-fork fixture). With v1-direct-frames too (a current worker), the http call
  // has no authentication step nor call frame left: it goes first, the loop's call next
  // (call-kinds.test.ts pins the same for every call kind).
  assert.deepEqual(r.before, ['/do/0/branches/fork/branches/1/light → GET http://svc.test/light', '/do/0/branches/fork/branches/2/loop/do/0/callLoop → ticks.loop', '/do/0/branches/fork/branches/0/heavy/do/1/callHeavy → ticks.heavy']);
  assert.deepEqual(r.now, ['/do/0/branches/fork/branches/1/light → GET http://svc.test/light', '/do/0/branches/fork/branches/2/loop/do/0/callLoop → ticks.loop', '/do/0/branches/fork/branches/0/heavy/do/1/callHeavy → ticks.heavy']);
});

/** A fixture's history with the features its resolve marker recorded changed by `edit`. */
function withFeatures(name: string, edit: (features: string[]) => string[]) {
  const doc = JSON.parse(fixtureText(name));
  const marker = doc.events.find((e: any) => e.markerRecordedEventAttributes?.details?.result);
  const payload = marker.markerRecordedEventAttributes.details.result.payloads[0];
  const result = JSON.parse(Buffer.from(payload.data, 'base64').toString());
  result.features = edit(result.features);
  payload.data = Buffer.from(JSON.stringify(result)).toString('base64');
  return historyFromFixture(JSON.stringify(doc));
}

test('a history recorded without the feature does not replay with it: the feature gate is what keeps it valid', async () => {
  const bundle = await sharedBundle();
  for (const name of ['interpreter-ticks-parallel-legacy', 'interpreter-ticks-parallel-actions-legacy', 'interpreter-ticks-fork-legacy']) {
    // As recorded: replays.
    await Worker.runReplayHistory({ workflowBundle: bundle }, withFeatures(name, (f) => f), name);
    // Replayed as if the run had started with the feature: its commands come in another order.
    await assert.rejects(Worker.runReplayHistory({ workflowBundle: bundle }, withFeatures(name, (f) => [...f, FEATURE_SYNC_EXPRESSIONS]), name), /nondeterminism/i, name);
  }
});
