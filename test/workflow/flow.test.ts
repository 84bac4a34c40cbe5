/** Control flow on the Java time-skipping server: sleep, parallel, subflows, continueAs, terminate, timeouts, retries with long delays. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { startTimeSkippingEnv } from '../helpers/temporal';
import { def, harness, serviceError, type Harness } from './helpers';

let h: Harness;
before(async () => {
  h = await harness(await startTimeSkippingEnv());
});
after(async () => {
  await h?.close();
  await h?.env.teardown();
});

test('sleep state of an hour keeps the data (time skipped)', async () => {
  h.reset();
  const d = def({
    id: 'sleepy',
    start: 'Nap',
    states: [
      { name: 'Nap', type: 'sleep', duration: 'PT1H', transition: 'Done' },
      { name: 'Done', type: 'inject', data: { rested: true }, end: true },
    ],
  });
  const t0 = Date.now();
  assert.deepEqual(await h.run(d, { who: 'me' }), { who: 'me', rested: true });
  assert.ok(Date.now() - t0 < 20000);
});

test('retries with a PT10S delay, three attempts', async () => {
  h.reset();
  let n = 0;
  h.mocks.charge = () => {
    if (++n < 3) throw serviceError('503', 'Service Unavailable');
    return { id: 'r-1' };
  };
  const d = def({
    id: 'retrying',
    start: 'Charge',
    errors: [{ name: 'Service unavailable', code: '503' }],
    retries: [{ name: 'ThreeTimes', delay: 'PT10S', maxAttempts: 3 }],
    functions: [{ name: 'charge', operation: 'x#charge' }],
    states: [
      {
        name: 'Charge',
        type: 'operation',
        actions: [{ functionRef: { refName: 'charge', arguments: { amount: '${ .amount }' } }, retryRef: 'ThreeTimes', retryableErrors: ['Service unavailable'], actionDataFilter: { results: '${ { receipt: .id } }' } }],
        end: true,
      },
    ],
  });
  assert.deepEqual(await h.run(d, { amount: 42 }), { amount: 42, receipt: 'r-1' });
  assert.equal(h.calls.length, 3);
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-retry-pt10s-timeskipping');
});

test('retries exhausted → the run fails with the service message', async () => {
  h.reset();
  h.mocks.charge = () => {
    throw serviceError('503', 'still down');
  };
  const d = def({
    id: 'retrying2',
    start: 'Charge',
    errors: [{ name: 'Unavailable', code: '503' }],
    retries: [{ name: 'Twice', delay: 'PT1M', multiplier: 2, maxAttempts: 2 }],
    functions: [{ name: 'charge', operation: 'x#charge' }],
    states: [{ name: 'Charge', type: 'operation', actions: [{ functionRef: 'charge', retryRef: 'Twice', retryableErrors: ['Unavailable'] }], end: true }],
  });
  await assert.rejects(h.run(d), (e: any) => e instanceof WorkflowFailedError && /still down/.test(e.cause?.message ?? ""));
  assert.equal(h.calls.length, 2);
});

test('parallel allOf merges all branches; atLeast cancels unfinished branches', async () => {
  h.reset();
  h.mocks.fast = () => ({ fast: true });
  h.mocks.slow = () => ({ slow: true });
  const d = (completionType: string) =>
    def({
      id: `par-${completionType}`,
      start: 'P',
      functions: [
        { name: 'fast', operation: 'x#fast' },
        { name: 'slow', operation: 'x#slow' },
      ],
      states: [
        {
          name: 'P',
          type: 'parallel',
          completionType,
          numCompleted: 1,
          branches: [
            { name: 'Fast', actions: [{ functionRef: 'fast' }] },
            { name: 'Slow', actions: [{ functionRef: 'slow', sleep: { before: 'PT1H' } }] },
          ],
          end: true,
        },
      ],
    });
  assert.deepEqual(await h.run(d('allOf'), { x: 1 }), { x: 1, fast: true, slow: true });
  h.reset();
  h.mocks.fast = () => ({ fast: true });
  h.mocks.slow = () => ({ slow: true });
  assert.deepEqual(await h.run(d('atLeast'), { x: 1 }), { x: 1, fast: true });
  assert.deepEqual(h.calls.map((c) => c.function), ['fast']);
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-parallel-atleast');
});

test('operation with parallel actions merges in definition order', async () => {
  h.reset();
  h.mocks.a = () => ({ list: ['a'], a: 1 });
  h.mocks.b = () => ({ list: ['b'], b: 1 });
  const d = def({
    id: 'paractions',
    start: 'O',
    functions: [
      { name: 'a', operation: 'x#a' },
      { name: 'b', operation: 'x#b' },
    ],
    states: [{ name: 'O', type: 'operation', actionMode: 'parallel', actions: [{ functionRef: 'a', sleep: { before: 'PT5S' } }, { functionRef: 'b' }], end: true }],
  });
  assert.deepEqual(await h.run(d, {}), { list: ['a', 'b'], a: 1, b: 1 });
});

const child = def({
  id: 'child',
  version: '2.0',
  start: 'Work',
  functions: [{ name: 'work', operation: 'x#work' }],
  states: [{ name: 'Work', type: 'operation', actions: [{ functionRef: { refName: 'work', arguments: { n: '${ .n }' } } }], end: true }],
});

test('subflow (sync): child workflow result merged; version selects the definition', async () => {
  h.reset();
  h.mocks.work = (a) => ({ doubled: a.n * 2 });
  const d = def({
    id: 'parent',
    start: 'Call',
    states: [{ name: 'Call', type: 'operation', actions: [{ subFlowRef: { workflowId: 'child', version: '2.0' }, actionDataFilter: { results: '${ .doubled }', toStateData: '${ .r }' } }], end: true }],
  });
  assert.deepEqual(await h.run(d, { n: 21 }, { subflows: { 'child@2.0': child } }), { n: 21, r: 42 });
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-subflow-sync');
});

test('subflow (async, onParentComplete continue): parent does not wait', async () => {
  h.reset();
  h.mocks.work = () => ({ done: true });
  const d = def({
    id: 'parent2',
    start: 'Call',
    states: [{ name: 'Call', type: 'operation', actions: [{ subFlowRef: { workflowId: 'child', invoke: 'async', onParentComplete: 'continue' } }], end: true }],
  });
  assert.deepEqual(await h.run(d, { n: 1 }, { subflows: { child } }), { n: 1 });
});

test('subflow failure is an error of the parent action', async () => {
  h.reset();
  h.mocks.work = () => {
    throw serviceError('E1', 'child broke');
  };
  const d = def({
    id: 'parent3',
    start: 'Call',
    errors: [{ name: 'Broke', code: 'E1' }],
    states: [
      { name: 'Call', type: 'operation', actions: [{ subFlowRef: 'child' }], onErrors: [{ errorRef: 'Broke', transition: 'Handled' }], end: true },
      { name: 'Handled', type: 'inject', data: { handled: true }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d, { n: 1 }, { subflows: { child } }), { n: 1, handled: true });
});

test('continueAs: continues as another definition with data', async () => {
  h.reset();
  h.mocks.work = (a) => ({ result: a.n + 1 });
  const d = def({
    id: 'first',
    start: 'A',
    states: [{ name: 'A', type: 'inject', data: { n: 1 }, end: { continueAs: { workflowId: 'child', version: '2.0', data: '${ { n: (.n + 10) } }' } } }],
  });
  assert.deepEqual(await h.run(d, {}, { subflows: { 'child@2.0': child } }), { n: 11, result: 12 });
});

test('continueAs itself (loop with a counter)', async () => {
  h.reset();
  const d = def({
    id: 'looper',
    start: 'Check',
    states: [
      { name: 'Check', type: 'switch', dataConditions: [{ condition: '${ .i >= 3 }', end: true }], defaultCondition: { transition: 'Inc' } },
      { name: 'Inc', type: 'inject', data: {}, stateDataFilter: { output: '${ .i += 1 }' }, end: { continueAs: { workflowId: 'looper' } } },
    ],
  });
  assert.deepEqual(await h.run(d, { i: 0 }), { i: 3 });
});

test('terminate ends the run at once; keepActive is ignored then', async () => {
  h.reset();
  const d = def({
    id: 'term',
    keepActive: true,
    start: 'A',
    states: [{ name: 'A', type: 'inject', data: { t: 1 }, end: { terminate: true } }],
  });
  assert.deepEqual(await h.run(d), { t: 1 });
});

test('stateExecTimeout raises a timeout error that onErrors handles', async () => {
  h.reset();
  h.mocks.slow = () => ({ slow: true });
  const d = def({
    id: 'stimeout',
    start: 'S',
    errors: [{ name: 'timeout', code: 'timeout' }],
    functions: [{ name: 'slow', operation: 'x#slow' }],
    states: [
      { name: 'S', type: 'operation', timeouts: { stateExecTimeout: { total: 'PT1M' } }, actions: [{ functionRef: 'slow', sleep: { before: 'PT2H' } }], onErrors: [{ errorRef: 'timeout', transition: 'T' }], end: true },
      { name: 'T', type: 'inject', data: { timedOut: true }, end: true },
    ],
  });
  assert.deepEqual(await h.run(d), { timedOut: true });
  assert.equal(h.calls.length, 0);
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-state-exec-timeout');
});

test('action condition false skips the action', async () => {
  h.reset();
  h.mocks.f = () => ({ called: true });
  const d = def({
    id: 'cond',
    start: 'S',
    functions: [{ name: 'f', operation: 'x#f' }],
    states: [{ name: 'S', type: 'operation', actions: [{ functionRef: 'f', condition: '${ .go }' }], end: true }],
  });
  assert.deepEqual(await h.run(d, { go: false }), { go: false });
  assert.deepEqual(await h.run(d, { go: true }), { go: true, called: true });
});

test('foreach over a non-array fails with a clear message', async () => {
  h.reset();
  const d = def({
    id: 'badfe',
    start: 'E',
    states: [{ name: 'E', type: 'foreach', inputCollection: '${ .nope }', actions: [], end: true }],
  });
  await assert.rejects(h.run(d), (e: any) => /inputCollection/.test(e.cause?.message) && /"E"/.test(e.cause?.message));
});
