/**
 * The 0.8 foreach state (v08/states/foreach.ts): batchSize, sequential mode, inputCollection
 * errors, chunks as child workflows.
 * Without a server: a definition through the real loader, the real state pipeline over the
 * fake effects of ../fake-context.ts (Temporal on a virtual clock), the real jq engine; data in,
 * and out the data, the commands (types, inputs, summaries, times) and the transition chosen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionError } from '../../../../src/workflow/v08/errors';
import { INTERPRETER_FEATURES } from '../../../../src/common/features';
import type { Json } from '../../../../src/common/model';
import { definition, FakeRun } from '../fake-context';
import type { ActivityCommand } from '../fake-effects';
import { functions, argsOf, serviceError } from './support';

const foreachDef = (extra: Record<string, unknown>) =>
  definition({
    functions,
    states: [
      {
        name: 'Each',
        type: 'foreach',
        inputCollection: '${ .orders }',
        outputCollection: '${ .priced }',
        iterationParam: 'order',
        actions: [{ name: 'q', functionRef: { refName: 'quote', arguments: { sku: '${ $order.sku }', n: '${ .order.n }', cur: '${ .currency }' } }, actionDataFilter: { results: '${ {sku: .sku, total: .total} }' } }],
        ...extra,
        end: true,
      },
    ],
  });

/** Each order takes n seconds; the total is n × 10. */
const answeringOrders = (run: FakeRun) => (args: unknown[]) => {
  const a = args[0] as { sku: string; n: number; cur: string };
  return run.effects.after(a.n * 1000, { sku: a.sku, total: a.n * 10, cur: a.cur });
};

const orders = [
  { sku: 'a', n: 3 },
  { sku: 'b', n: 1 },
  { sku: 'c', n: 1 },
];

test('foreach, batchSize: at most batchSize iterations at once, results in input order in outputCollection', async () => {
  const run = new FakeRun(await foreachDef({ batchSize: 2 }));
  run.effects.activities['*'] = answeringOrders(run);
  const out = await run.exec('Each', { orders, currency: 'EUR', priced: [{ sku: 'old', total: 0 }] });
  assert.deepEqual(out.data, {
    orders,
    currency: 'EUR',
    priced: [
      { sku: 'old', total: 0 },
      { sku: 'a', total: 30 },
      { sku: 'b', total: 10 },
      { sku: 'c', total: 10 },
    ],
  });
  assert.deepEqual(
    run.effects.commands.map((c) => [argsOf(c), (c as ActivityCommand).options.summary, c.at]),
    [
      [{ sku: 'a', n: 3, cur: 'EUR' }, 'Each › [0] › q → quote', 0],
      [{ sku: 'b', n: 1, cur: 'EUR' }, 'Each › [1] › q → quote', 0],
      [{ sku: 'c', n: 1, cur: 'EUR' }, 'Each › [2] › q → quote', 1000], // when b's slot freed
    ],
  );
  assert.equal(run.effects.elapsed, 3000);
});

test('foreach, sequential, awaited expressions (runs before sync-expressions): one iteration after the other; no outputCollection leaves the data', async () => {
  const features = INTERPRETER_FEATURES.filter((f) => f !== 'sync-expressions');
  const run = new FakeRun(await foreachDef({ mode: 'sequential', outputCollection: undefined }), { features });
  run.effects.activities['*'] = answeringOrders(run);
  assert.equal(run.sync, false);
  const out = await run.exec('Each', { orders, currency: 'USD' });
  assert.deepEqual(out.data, { orders, currency: 'USD' });
  assert.deepEqual(run.effects.commands.map((c) => c.at), [0, 3000, 4000]);
});

test('foreach: an inputCollection that is not an array is an inputCollection error; a failed iteration fails the state and starts no other', async () => {
  const run = new FakeRun(await foreachDef({}));
  run.effects.activities['*'] = answeringOrders(run);
  const err = await run.exec('Each', { orders: { not: 'a list' } }).catch((e: unknown) => e);
  assert.ok(err instanceof ActionError);
  assert.deepEqual(err.error, { kind: 'runtime', code: 'inputCollection', message: 'inputCollection "${ .orders }" selected object, not an array' });
  assert.deepEqual(run.effects.commands, []);

  for (const indexed of [true, false]) {
    const features = indexed ? INTERPRETER_FEATURES : INTERPRETER_FEATURES.filter((f) => f !== 'iteration-failure-index');
    const failing = new FakeRun(await foreachDef({ batchSize: 2 }), { features });
    failing.effects.activities['*'] = (args) => {
      if ((args[0] as { sku: string }).sku === 'b') throw serviceError('409', 'sold out');
      return answeringOrders(failing)(args);
    };
    const e2 = await failing.exec('Each', { orders }).catch((e: unknown) => e);
    assert.ok(e2 instanceof ActionError);
    assert.equal(e2.message, 'state "Each", action "[1] › q", function "quote" failed: sold out (code 409)');
    // b fails at once and c never starts; a (still running) is waited for with iteration-failure-index
    // (cancelling local calls in flight failed the workflow task), cancelled by runs without it.
    assert.deepEqual(failing.effects.commands.map((c) => (argsOf(c) as { sku: string }).sku), ['a', 'b']);
    assert.equal(failing.effects.outstanding, 0);
    assert.equal(failing.effects.elapsed, indexed ? 3000 : 0);
  }
});

test('foreach over more elements than a chunk: child workflows of the same type, each with its slice and the data without the collection', async () => {
  const def = await foreachDef({ batchSize: 2 });
  def.metadata['swflow.foreachChunk'] = '2';
  const run = new FakeRun(def);
  run.effects.children['*'] = (options) => {
    const items = (options.args![1] as { carried: { foreachChunk: { items: { sku: string }[] } } }).carried.foreachChunk.items;
    return run.effects.after(100, items.map((o) => ({ sku: o.sku, total: 0 })));
  };
  const out = await run.exec('Each', { orders, currency: 'EUR' });
  assert.deepEqual((out.data as { priced: Json }).priced, [
    { sku: 'a', total: 0 },
    { sku: 'b', total: 0 },
    { sku: 'c', total: 0 },
  ]);
  assert.deepEqual(run.effects.issued(), [0, 1].map((c) => ({
    kind: 'executeChild',
    type: 'unit',
    options: {
      args: [{ currency: 'EUR' }, { definition: def, carried: { foreachChunk: { state: 'Each', offset: c * 2, count: c ? 1 : 2, items: c ? [orders[2]] : orders.slice(0, 2) } } }],
      workflowId: `unit-foreach-00000000-0000-4000-8000-00000000000${c + 1}`,
      taskQueue: 'swflow',
      staticSummary: c ? 'Each → iterations 2–2 of 3' : 'Each → iterations 0–1 of 3',
    },
  })));
  // batchSize 2 over chunks of 2: one chunk child at a time.
  assert.deepEqual(run.effects.commands.map((c) => c.at), [0, 100]);
});
