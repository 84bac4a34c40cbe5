/**
 * Admission at the gateway's HTTP intake (src/gateway/admission.ts), over real HTTP to a real
 * gateway, the dev server and the interpreter: with the bound small, a burst of concurrent events
 * gets some 503s with Retry-After at once, never more deliveries in flight than the bound, and
 * nothing is lost (every 202'd event started its run, no 503'd one did, each 503'd one sent again
 * arrives); queued events get their Temporal deadline from their turn, not their arrival.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { loadDefinition } from '../../src/dsl';
import type { WorkflowDef } from '../../src/common/model';
import { Admission, admissionBounds, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_QUEUE_WAIT_MS, DEFAULT_MAX_QUEUED } from '../../src/gateway/admission';
import { startGateway, type Gateway } from '../../src/gateway/server';
import { enableMetrics } from '../../src/metrics';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;
let defs: WorkflowDef[];
const gateways: Gateway[] = [];

before(async () => {
  // Each `tick` with a new `key` starts a run named by it, which ends with the event's data.
  const loaded = await loadDefinition({
    specVersion: '0.8',
    id: 'tally',
    start: 'Take',
    events: [{ name: 'Tick', type: 'tick', source: 'load', correlation: [{ contextAttributeName: 'key' }] }],
    states: [{ name: 'Take', type: 'event', onEvents: [{ eventRefs: ['Tick'], eventDataFilter: { toStateData: '${ .tick }' } }], end: true }],
  });
  assert.ok(loaded.definition, JSON.stringify(loaded.problems));
  defs = [loaded.definition];
  env = await startDevEnv();
  client = env.client as Client;
  worker = await createInterpreterWorker({ connection: env.nativeConnection as NativeConnection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: defs, workflowBundle: await bundleInterpreter() });
  running = worker.run();
});

after(async () => {
  for (const g of gateways) await g?.close();
  worker?.shutdown();
  await running;
  await env?.teardown();
});

const tick = (key: string) => ({ specversion: '1.0', id: randomUUID(), type: 'tick', source: 'load', key, data: { key } });
const post = async (url: string, e: unknown) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify(e) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { error?: string } };
};
const runId = (key: string) => `tally/key=${key}`;

async function started(key: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(runId(key)).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

test('the bounds: options, then the environment, then the defaults; a bad value says where it came from', async () => {
  assert.deepEqual(admissionBounds({}), { maxInFlight: DEFAULT_MAX_IN_FLIGHT, maxQueued: DEFAULT_MAX_QUEUED, maxQueueWaitMs: DEFAULT_MAX_QUEUE_WAIT_MS });
  process.env.SWFLOW_GATEWAY_MAX_IN_FLIGHT = '8';
  process.env.SWFLOW_GATEWAY_MAX_QUEUED = '0';
  try {
    assert.deepEqual(admissionBounds({}), { maxInFlight: 8, maxQueued: 0, maxQueueWaitMs: DEFAULT_MAX_QUEUE_WAIT_MS });
    assert.deepEqual(admissionBounds({ maxInFlight: 3, maxQueued: 5, maxQueueWaitMs: 0 }), { maxInFlight: 3, maxQueued: 5, maxQueueWaitMs: 0 });
    process.env.SWFLOW_GATEWAY_MAX_IN_FLIGHT = 'many';
    assert.throws(() => admissionBounds({}), /SWFLOW_GATEWAY_MAX_IN_FLIGHT must be a whole number ≥ 1, not "many"/);
  } finally {
    delete process.env.SWFLOW_GATEWAY_MAX_IN_FLIGHT;
    delete process.env.SWFLOW_GATEWAY_MAX_QUEUED;
  }
  assert.throws(() => admissionBounds({ maxInFlight: 0 }), /--max-in-flight \(the gateway option\) must be a whole number ≥ 1/);
  // Turns go in arrival order; beyond the queue, refused.
  const a = new Admission({ maxInFlight: 1, maxQueued: 1 });
  const order: number[] = [];
  const first = a.enter()!;
  const second = a.enter()!;
  assert.equal(a.enter(), undefined, 'the third is refused');
  assert.equal(a.refused, 1);
  assert.ok(a.retryAfterSeconds() >= 1);
  const done = Promise.all([second.then((release) => (order.push(2), release())), first.then((release) => (order.push(1), setTimeout(release, 5)))]);
  await done;
  // Beyond the expected wait, refused though the queue has room: the turns ahead at the measured pace.
  const slow = new Admission({ maxInFlight: 1, maxQueued: 100, maxQueueWaitMs: 120 });
  const held = slow.enter()!;
  const release = await held;
  await new Promise((r) => setTimeout(r, 100));
  release(); // one turn of ~100 ms measured (with the 50 ms start: ~55 ms)
  const turns = [slow.enter()!];
  let queued = 0;
  for (let i = 0; i < 10 && slow.enter() !== undefined; i++) queued++;
  assert.ok(queued >= 1 && queued < 10, `queued until the expected wait passed 120 ms (${queued} queued, ${slow.expectedWaitMs()} ms expected)`);
  assert.equal(slow.refused, 1);
  (await turns[0])();
  slow.close();
  assert.deepEqual(order, [1, 2], 'the second waits for the first to release');
  assert.equal(a.inFlight, 0);
  a.close();
  console.log(`admission bounds: defaults ${DEFAULT_MAX_IN_FLIGHT} in flight / ${DEFAULT_MAX_QUEUED} queued / ${DEFAULT_MAX_QUEUE_WAIT_MS} ms expected wait, env and options override, bad values named; a request past the expected wait refused though the queue had room`);
});

test('bound 2, no queue: a burst of concurrent events gets 503 + Retry-After at once for some, none lost', async () => {
  const metrics = enableMetrics();
  const refusedTotal = async () => Number(/swflow_gateway_requests_refused_busy_total (\d+)/.exec(await metrics.registry.getSingleMetricAsString('swflow_gateway_requests_refused_busy_total'))![1]);
  const refusedBefore = await refusedTotal();
  const g = await startGateway({ client, definitions: async () => defs, port: 0, maxInFlight: 2, maxQueued: 0 });
  gateways.push(g);
  const keys = Array.from({ length: 60 }, (_, i) => `b${i}-${randomUUID().slice(0, 8)}`);
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, g.admission.inFlight)), 1);
  const t0 = performance.now();
  const answers = await Promise.all(keys.map(async (key) => ({ key, ...(await post(g.url, tick(key))), ms: performance.now() - t0 })));
  clearInterval(sampler);
  const accepted = answers.filter((a) => a.status === 202);
  const busy = answers.filter((a) => a.status === 503);
  assert.equal(accepted.length + busy.length, keys.length, `only 202 and 503: ${JSON.stringify(answers.filter((a) => a.status !== 202 && a.status !== 503).slice(0, 3))}`);
  assert.ok(busy.length > 0, 'some events were refused while both turns were taken');
  assert.ok(accepted.length >= 2, 'the first two were delivered');
  assert.ok(peak <= 2, `at most 2 deliveries in flight (saw ${peak})`);
  for (const b of busy) {
    assert.match(b.retryAfter ?? '', /^[1-9][0-9]*$/, 'a 503 for a full gateway carries Retry-After in seconds');
    assert.match(b.body.error ?? '', /nothing was delivered, send it again in \d+ s/);
  }
  assert.equal(g.admission.refused, busy.length);
  // Nothing refused reached Temporal; everything accepted did.
  for (const b of busy) assert.equal(await started(b.key), false, `${b.key} was refused, so it started nothing`);
  for (const a of accepted) assert.deepEqual(await client.workflow.getHandle(runId(a.key)).result(), { tick: { key: a.key } });
  assert.equal((await refusedTotal()) - refusedBefore, busy.length, 'the metric counts the refusals');

  // Each refused event sent again (after its Retry-After, one at a time) arrives.
  let resends = 0;
  for (const b of busy) {
    for (let attempt = 0; ; attempt++) {
      assert.ok(attempt < 20, `${b.key} accepted within 20 resends`);
      resends++;
      const again = await post(g.url, tick(b.key));
      if (again.status === 202) break;
      assert.equal(again.status, 503);
      await new Promise((r) => setTimeout(r, 1000 * Number(again.retryAfter)));
    }
    assert.deepEqual(await client.workflow.getHandle(runId(b.key)).result(), { tick: { key: b.key } });
  }
  console.log(`admission burst: ${keys.length} concurrent events with 2 in flight, no queue: ${accepted.length} × 202, ${busy.length} × 503 + Retry-After (max in flight seen ${peak}, answered within ${Math.round(Math.max(...answers.map((a) => a.ms)))} ms); ${resends} resends, all ${keys.length} runs got their event`);
});

test('queued events wait for their turn and get the Temporal deadline from it: none is answered 503', async () => {
  const timeoutMs = 1_000;
  const g = await startGateway({ client, definitions: async () => defs, port: 0, maxInFlight: 1, maxQueued: 1_000, maxQueueWaitMs: 0, temporalTimeoutMs: timeoutMs });
  gateways.push(g);
  const keys = Array.from({ length: 150 }, (_, i) => `q${i}-${randomUUID().slice(0, 8)}`);
  let peak = 0;
  let peakQueued = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, g.admission.inFlight);
    peakQueued = Math.max(peakQueued, g.admission.queued);
  }, 1);
  const t0 = performance.now();
  const answers = await Promise.all(keys.map(async (key) => ({ key, ...(await post(g.url, tick(key))), ms: performance.now() - t0 })));
  clearInterval(sampler);
  const slowest = Math.max(...answers.map((a) => a.ms));
  assert.deepEqual(answers.filter((a) => a.status !== 202).map((a) => [a.key, a.status, a.body.error]), [], 'every queued event accepted');
  assert.ok(peak <= 1, `one delivery at a time (saw ${peak})`);
  assert.ok(peakQueued > 1, `events queued (saw ${peakQueued})`);
  // The point of the test: the last events waited longer than the deadline, counted from arrival they would have been 503.
  assert.ok(slowest > timeoutMs, `the burst took ${Math.round(slowest)} ms, longer than the ${timeoutMs} ms deadline`);
  for (const a of answers) assert.deepEqual(await client.workflow.getHandle(runId(a.key)).result(), { tick: { key: a.key } });
  console.log(`admission queue: ${keys.length} concurrent events, 1 in flight, up to ${peakQueued} queued, the last answered 202 after ${Math.round(slowest)} ms (deadline ${timeoutMs} ms from each turn); all ${keys.length} runs got their event`);
});
