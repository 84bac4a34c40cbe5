/** Control flow on the Java time-skipping server: sleep, parallel, subflows, continueAs, terminate, timeouts, retries with long delays. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { WorkflowFailedError } from '@temporalio/client';
import { startTimeSkippingEnv } from '../helpers/temporal';
import { ce, def, harness, serviceError, type Harness } from './helpers';
import { doubleEach, retryUntilSuccess, workChild } from './scenarios';

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
  await retryUntilSuccess(h, 'PT10S', 'interpreter-retry-pt10s-timeskipping');
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

const child = def(workChild);

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

test('workflowExecTimeout (interrupt) cancels the flow, runs runBefore, fails the run', async () => {
  h.reset();
  h.mocks.report = () => ({ reported: true });
  const d = def({
    id: 'wftimeout',
    start: 'Long',
    timeouts: { workflowExecTimeout: { duration: 'PT10M', interrupt: true, runBefore: 'Report' } },
    functions: [{ name: 'report', operation: 'x#report' }],
    states: [
      { name: 'Long', type: 'sleep', duration: 'PT1H', end: true },
      { name: 'Report', type: 'operation', actions: [{ functionRef: 'report' }], end: true },
    ],
  });
  await assert.rejects(h.run(d), (e: any) => /workflowExecTimeout/.test(e.cause?.message ?? ''));
  assert.deepEqual(h.calls.map((c) => c.function), ['report']);
});

test('keepActive: the instance stays after its flow ends until workflowExecTimeout, then completes', async () => {
  h.reset();
  const d = def({
    id: 'keepactive',
    keepActive: true,
    start: 'A',
    timeouts: { workflowExecTimeout: { duration: 'P1D', interrupt: false } },
    states: [{ name: 'A', type: 'inject', data: { a: 1 }, end: true }],
  });
  const handle = await h.start(d);
  await new Promise((r) => setTimeout(r, 500));
  const desc = await handle.describe();
  assert.equal(desc.status.name, 'RUNNING');
  assert.deepEqual(await handle.result(), { a: 1 });
});

test('dataInputSchema with failOnValidationErrors fails the run before any state', async () => {
  h.reset();
  const d = def({
    id: 'schema',
    start: 'A',
    dataInputSchema: { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } }, failOnValidationErrors: true },
    states: [{ name: 'A', type: 'inject', data: { ok: true }, end: true }],
  });
  await assert.rejects(h.run(d, { nom: 1 }), (e: any) => /dataInputSchema/.test(e.cause?.message ?? '') && /name/.test(e.cause?.message ?? ''));
  assert.deepEqual(await h.run(d, { name: 'x' }), { name: 'x', ok: true });
});

test('invoke async: fire and forget, errors ignored', async () => {
  h.reset();
  h.mocks.notify = () => {
    throw serviceError('500', 'ignored');
  };
  const d = def({
    id: 'asyncfn',
    start: 'A',
    functions: [{ name: 'notify', operation: 'x#notify' }],
    states: [{ name: 'A', type: 'operation', actions: [{ functionRef: { refName: 'notify', invoke: 'async' } }], transition: 'B' }, { name: 'B', type: 'inject', data: { b: true }, end: true }],
  });
  assert.deepEqual(await h.run(d, { x: 1 }), { x: 1, b: true });
  assert.equal(h.calls.length, 1, 'the run does not close before its async calls were made');
});

test('automatic continue-as-new at a transition when the history grows; state, events and correlation carry over', async () => {
  h.reset();
  const d = def({
    id: 'longloop',
    metadata: { 'swflow.historyLimit': '15' },
    start: 'Check',
    events: [{ name: 'Tick', type: 'tick', correlation: [{ contextAttributeName: 'key' }] }],
    states: [
      { name: 'Check', type: 'switch', dataConditions: [{ condition: '${ .i >= 4 }', end: true }], defaultCondition: { transition: 'Wait' } },
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Tick'], eventDataFilter: { useData: false } }], transition: 'Inc' },
      { name: 'Inc', type: 'sleep', duration: 'PT1M', stateDataFilter: { output: '${ .i += 1 }' }, transition: 'Check' },
    ],
  });
  const ticks = [1, 2, 3, 4].map(() => ce('tick', null, { key: 'K1' }));
  const handle = await h.start(d, { i: 0 });
  const firstRunId = handle.firstExecutionRunId;
  for (const t of ticks) await handle.signal('swflow.event', t);
  // an event with another correlation key is never consumed; the run still ends
  await handle.signal('swflow.event', ce('tick', null, { key: 'OTHER' }));
  assert.deepEqual(await handle.result(), { i: 4 });
  const last = await handle.describe();
  assert.notEqual(last.runId, firstRunId, 'continued as new at least once');
  const state: any = await handle.query('state');
  assert.ok(state.statesEntered.length > 0);
});

test('search attributes on the time-skipping server: only upserted when the server has them registered', async () => {
  h.reset();
  const d = def({ id: 'sa-check', version: '3', start: 'A', states: [{ name: 'A', type: 'inject', data: { a: 1 }, end: true }] });
  assert.deepEqual(await h.run(d), { a: 1 });
  const handle = h.env.client.workflow.getHandle(h.lastWorkflowId!);
  const history = await handle.fetchHistory();
  const marker = history.events!.find((e: any) => e.markerRecordedEventAttributes);
  const pinned: any = h.env.client.options.loadedDataConverter.payloadConverter.fromPayload((marker!.markerRecordedEventAttributes!.details as any).result.payloads[0]);
  const desc = await handle.describe();
  if (pinned.searchAttributes.includes('SwDefinitionId')) assert.deepEqual(desc.searchAttributes.SwDefinitionId, ['sa-check']);
  else assert.equal(desc.searchAttributes.SwDefinitionId, undefined);
  console.log(`time-skipping server registered search attributes: ${JSON.stringify(pinned.searchAttributes)}`);
});

test('a large foreach is fanned out to chunk child workflows; results stay in input order', async () => {
  for (const mode of ['parallel', 'sequential'] as const) {
    h.reset();
    h.mocks.double = (a) => a.n * 2;
    const d = def(doubleEach({ id: `bigfe-${mode}`, mode, metadata: { 'swflow.foreachChunk': '3' } }));
    const numbers = [5, 1, 4, 2, 8, 7, 3, 6];
    assert.deepEqual(await h.run(d, { numbers }), { doubled: numbers.map((n) => n * 2) });
    assert.equal(h.calls.length, 8);
    if (mode === 'sequential') assert.deepEqual(h.calls.map((c) => (c.arguments as any).n), numbers);
    const history = await h.env.client.workflow.getHandle(h.lastWorkflowId!).fetchHistory();
    assert.equal(history.events!.filter((e: any) => e.childWorkflowExecutionCompletedEventAttributes).length, 3);
  }
});
