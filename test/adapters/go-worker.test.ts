/**
 * Adapters in any Temporal language: a workflow whose functions live on two named queues,
 * served by two adapter workers — one written with Temporal's Go SDK
 * (examples/adapters/go-stock, built here with the Go toolchain), one with swflow's adapter SDK.
 * The Go activity receives the evaluated arguments as its input and reads the call's context
 * from the `swflow-call` header; its error type is the code `onErrors` matches; the history shows
 * each activity on its queue.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createAdapterWorker, defineAdapter } from '../../src/adapter-sdk';
import { PROJECT_ROOT } from '../../src/platform/paths';
import { buildGoProgram } from '../helpers/go-build';
import { adapterHarness, type AdapterHarness } from './harness';

const GO_QUEUE = 'stock-go';
const TS_QUEUE = 'pricing-ts';
let h: AdapterHarness;
let go: ChildProcess;
let goLog = '';

before(async () => {
  const binary = await buildGoProgram(join(PROJECT_ROOT, 'examples', 'adapters', 'go-stock'), (m) => console.error(m));
  h = await adapterHarness();
  const pricing = defineAdapter({ name: 'pricing', activities: { quote: (args: { count: number }) => ({ price: args.count * 5, by: 'typescript' }) } });
  h.serve(await createAdapterWorker({ connection: h.connection, taskQueue: TS_QUEUE, adapters: [pricing] }));
  go = spawn(binary, ['-address', h.env.address, '-task-queue', GO_QUEUE], { stdio: ['ignore', 'pipe', 'pipe'] });
  go.stdout!.on('data', (d) => (goLog += d));
  go.stderr!.on('data', (d) => (goLog += d));
  for (let i = 0; i < 200 && !goLog.includes('serving stock.Count'); i++) await new Promise((r) => setTimeout(r, 50));
  assert.match(goLog, /serving stock\.Count/, `the Go worker started: ${goLog}`);
});

after(async () => {
  go?.kill('SIGINT');
  await h?.close();
});

const definition = () => ({
  id: 'twoqueues',
  start: 'Count',
  errors: [{ name: 'Nothing', code: 'EmptyList' }],
  functions: [
    { name: 'countItems', type: 'custom', operation: 'stock.Count', metadata: { worker: GO_QUEUE } },
    { name: 'quote', type: 'custom', operation: 'pricing.quote', metadata: { worker: TS_QUEUE } },
  ],
  states: [
    {
      name: 'Count',
      type: 'operation',
      actions: [{ name: 'count', functionRef: { refName: 'countItems', arguments: { items: '${ .items }' } }, actionDataFilter: { toStateData: '${ .stock }' } }],
      onErrors: [{ errorRef: 'Nothing', transition: 'Empty' }],
      transition: 'Quote',
    },
    { name: 'Quote', type: 'operation', actions: [{ functionRef: { refName: 'quote', arguments: { count: '${ .stock.count }' } }, actionDataFilter: { toStateData: '${ .quote }' } }], end: true },
    { name: 'Empty', type: 'inject', data: { empty: true }, end: true },
  ],
});

test('two queues, two workers (Go and TypeScript): each activity runs on its queue with what CWM sends', async () => {
  const { result, workflowId } = await h.run(definition(), { items: ['a', 'b', 'c'] });
  assert.deepEqual(await result, {
    items: ['a', 'b', 'c'],
    stock: { count: 3, by: 'go', state: 'Count', action: 'count', function: 'countItems', taskQueue: GO_QUEUE },
    quote: { price: 15, by: 'typescript' },
  });
  const events = (await h.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : []));
  assert.deepEqual(
    scheduled.map((a) => `${a.activityType?.name} on ${a.taskQueue?.name}`),
    [`stock.Count on ${GO_QUEUE}`, `pricing.quote on ${TS_QUEUE}`],
  );
});

test("the Go adapter's error type is the code onErrors matches", async () => {
  const { result } = await h.run(definition(), { items: [] });
  assert.deepEqual(await result, { items: [], empty: true });
});
