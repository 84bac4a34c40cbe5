/**
 * Concurrent work whose commands' order depends on how many microtask turns each branch takes
 * before it schedules its call: parallel states, parallel actions, foreach iterations, 1.0 fork
 * branches, each branch with a different number of expressions before its call.
 *
 * Histories recorded here replay in test/workflow/replay.test.ts and test/conformance.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDevEnv } from '../helpers/temporal';
import { formatProblem, loadAnyDefinition } from '../../src/dsl';
import type { Json, WorkflowDef } from '../../src/dsl/model';
import { def, harness, type Harness } from './helpers';

let h: Harness;
before(async () => {
  h = await harness(await startDevEnv());
});
after(async () => {
  await h?.close();
  await h?.env.teardown();
});

/** The activities of a run in the order they were scheduled: `<function or url> <argument>`. */
async function scheduled(workflowId: string): Promise<string[]> {
  const history = await h.env.client.workflow.getHandle(workflowId).fetchHistory();
  const out: string[] = [];
  for (const e of history.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    if (!a) continue;
    out.push(a.activityType?.name ?? '?');
  }
  return out;
}

function echo(name: string) {
  return (args: Json) => ({ [name]: args });
}

// A branch that evaluates several expressions before its call, and one that evaluates none.
const parallel = def({
  id: 'ticks-parallel',
  start: 'P',
  functions: [
    { name: 'heavy', operation: 'x#heavy' },
    { name: 'light', operation: 'x#light' },
    { name: 'after', operation: 'x#after' },
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
    { name: 'heavy', operation: 'x#heavy' },
    { name: 'light', operation: 'x#light' },
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
    { name: 'first', operation: 'x#first' },
    { name: 'second', operation: 'x#second' },
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
  if (!definition) throw new Error(problems.map(formatProblem).join('; '));
  return definition as unknown as WorkflowDef;
}

// A branch that sets data and evaluates `with` before its call, one that calls at once, one that loops.
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
                  { callHeavy: { call: 'http', with: { method: 'get', endpoint: 'http://svc.test/heavy/{n}' } } },
                ],
              },
            },
            { light: { call: 'http', with: { method: 'get', endpoint: 'http://svc.test/light' } } },
            {
              loop: {
                for: { each: 'i', in: '${ [1, 2] }' },
                do: [{ callLoop: { call: 'http', with: { method: 'get', endpoint: '${ "http://svc.test/loop/" + ($i | tostring) }' } } }],
              },
            },
          ],
        },
      },
    },
  ],
});

test('a parallel state whose branches evaluate different numbers of expressions before their calls', async () => {
  h.reset();
  for (const f of ['heavy', 'light', 'after']) h.mocks[f] = echo(f);
  const out = await h.run(parallel, { n: 1 });
  assert.deepEqual(out, { n: 1, h: { a: 2, b: 2 }, ha: { from: 'heavy' }, l: {}, la: { from: 'light' } });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-ticks-parallel-legacy');
  assert.equal((await scheduled(h.lastWorkflowId!)).length, 4);
});

test('parallel actions of an operation state, one with a condition and filters', async () => {
  h.reset();
  for (const f of ['heavy', 'light']) h.mocks[f] = echo(f);
  const out = await h.run(parallelActions, { n: 3 });
  assert.deepEqual(out, { n: 3, h: { a: 4 }, l: {}, h2: { a: 3 } });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-ticks-parallel-actions-legacy');
});

test('foreach iterations in parallel, one skipping its first action', async () => {
  h.reset();
  for (const f of ['first', 'second']) h.mocks[f] = echo(f);
  const out = await h.run(foreach, { items: [1, 2, 3] });
  assert.deepEqual(out, { items: [1, 2, 3], out: [{ i: 1 }, { i: 2 }, { i: 3 }] });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-ticks-foreach-legacy');
});

test('1.0 fork branches: set then call, a call, a for loop of calls', async () => {
  h.reset();
  h.mocks.http = (args: any) => ({ url: args.endpoint?.uri ?? args.endpoint });
  const out = (await h.run(fork, { n: 1 })) as any;
  assert.deepEqual(out, [{ url: 'http://svc.test/heavy/2' }, { url: 'http://svc.test/light' }, { url: 'http://svc.test/loop/2' }]);
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-ticks-fork-legacy');
});
