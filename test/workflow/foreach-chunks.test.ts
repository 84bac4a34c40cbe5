/**
 * A foreach larger than its chunk size is fanned out to chunk child workflows. With the
 * `foreach-chunk-slices` feature each child gets its own elements and the state data without the
 * collection; a worker from before the feature gives each child the whole data (the child takes
 * its slice there). Same output either way; histories of parent and child for both replay
 * (the `-legacy` ones were recorded by the interpreter before the feature existed).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';
import { startDevEnv } from '../helpers/temporal';
import { FEATURE_FOREACH_CHUNK_SLICES } from '../../src/common/features';
import { def, harness, saveHistory, workerWithout, type Harness } from './helpers';
import { doubleEach } from './scenarios';

let h: Harness;
let legacy: Awaited<ReturnType<typeof workerWithout>>;
before(async () => {
  h = await harness(await startDevEnv());
  legacy = await workerWithout(h.env, 'swflow-before-chunk-slices', [FEATURE_FOREACH_CHUNK_SLICES]);
});
after(async () => {
  await legacy?.stop();
  await h?.close();
  await h?.env.teardown();
});

/** The chunk children a run started, in order: their workflow ids and inputs (data, StartOptions). */
async function children(client: Client, workflowId: string): Promise<{ id: string; data: any; options: any }[]> {
  const converter = client.options.loadedDataConverter.payloadConverter;
  const out: { id: string; data: any; options: any }[] = [];
  for (const e of (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? []) {
    const a = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (!a) continue;
    const [data, options] = (a.input?.payloads ?? []).map((p) => converter.fromPayload(p));
    out.push({ id: a.workflowId!, data, options });
  }
  return out;
}

// Eight numbers in chunks of three: three children (3 + 3 + 2), sequentially so the fixtures are stable.
const definition = def({ ...doubleEach({ id: 'chunked', mode: 'sequential', metadata: { 'swflow.foreachChunk': '3' } }) });
const numbers = [5, 1, 4, 2, 8, 7, 3, 6];
const input = { numbers, label: 'kept' };

test('chunk children get their elements and the data without the collection', async () => {
  h.reset();
  h.mocks.double = (a) => a.n * 2;
  const out = await h.run(definition, input);
  assert.deepEqual(out, { doubled: numbers.map((n) => n * 2) });
  const started = await children(h.env.client, h.lastWorkflowId!);
  assert.deepEqual(
    started.map((c) => c.data),
    [{ label: 'kept' }, { label: 'kept' }, { label: 'kept' }],
  );
  assert.deepEqual(
    started.map((c) => c.options.carried.foreachChunk),
    [
      { state: 'DoubleAll', offset: 0, count: 3, items: [5, 1, 4] },
      { state: 'DoubleAll', offset: 3, count: 3, items: [2, 8, 7] },
      { state: 'DoubleAll', offset: 6, count: 2, items: [3, 6] },
    ],
  );
  await h.saveHistory(h.lastWorkflowId!, 'interpreter-foreach-chunk-slices');
  await h.saveHistory(started[1].id, 'interpreter-foreach-chunk-slices-child');
});

test('a worker from before the feature gives every child the whole data; the same output', async () => {
  h.reset();
  h.mocks.double = (a) => a.n * 2;
  const d = await definition;
  const id = `chunked-legacy-${Date.now()}`;
  const out = await h.env.client.workflow.execute(d.id, { taskQueue: legacy.taskQueue, workflowId: id, args: [input, { definition: d }] });
  assert.deepEqual(out, { doubled: numbers.map((n) => n * 2) });
  const started = await children(h.env.client, id);
  assert.deepEqual(started.map((c) => c.data), [input, input, input]);
  assert.deepEqual(started.map((c) => c.options.carried.foreachChunk.items), [undefined, undefined, undefined]);
  await saveHistory(h.env.client, id, 'interpreter-foreach-chunks-legacy');
  await saveHistory(h.env.client, started[1].id, 'interpreter-foreach-chunks-legacy-child');
});

test('an inputCollection that computes the collection: children get the data as it is and their elements', async () => {
  h.reset();
  h.mocks.double = (a) => a.n * 2;
  const computed = def({
    ...doubleEach({ id: 'chunked-computed', mode: 'sequential', metadata: { 'swflow.foreachChunk': '3' } }),
    states: [{ ...doubleEach({ id: 'x' }).states[0], inputCollection: '${ [range(.n)] }', stateDataFilter: { output: '${ { doubled } }' } }],
  });
  assert.deepEqual(await h.run(computed, { n: 4 }), { doubled: [0, 2, 4, 6] });
  const started = await children(h.env.client, h.lastWorkflowId!);
  assert.deepEqual(started.map((c) => c.data), [{ n: 4 }, { n: 4 }]);
  assert.deepEqual(started.map((c) => c.options.carried.foreachChunk.items), [[0, 1, 2], [3]]);
});
