/**
 * Large data (issue 32) on the dev server with a directory store, or with SWFLOW_CLUSTER=1 on the
 * multi-process PostgreSQL cluster with a PostgreSQL store, with real `swflow worker` processes: a 0.8 and a 1.0
 * definition each take a 20 MB input, call a local service answering 8 MB ten times, and collect
 * 10,000 results of 2 KB. With the payload store (a directory) every run completes with the
 * exact expected output, no payload in any history is over the threshold, and a worker killed
 * with SIGKILL in the middle of a collection loses nothing. Without a store the same runs fail
 * with swflow's message naming the step and the size (not Temporal's "exceeds size limit").
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionOptions } from '../../src/client/connection';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { dataConverterOptions } from '../../src/codec';
import { startWorkflow } from '../../src/client/start';
import { DEFAULT_THRESHOLD } from '../../src/payloads/config';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevEnv } from '../helpers/temporal';
import { startPostgres, type TestPostgres } from '../helpers/postgres';
import { SERVING, SwflowProcess } from '../reliability/harness';
import { bigInput, expected, scenarioId, largestStoredPayload, startLargeService, writeDefinitions, type LargeService } from './scenarios';

let dir = '';
let storeUrl = '';
let env: TestWorkflowEnvironment;
let address = '';
let pg: TestPostgres | undefined;
let service: LargeService;
let connection: Connection;
let withStore: Client;
let noStore: Client;
const procs: SwflowProcess[] = [];
const STORE_QUEUE = 'swflow';
const PLAIN_QUEUE = 'no-store';

const worker = (queue: string, store: string) => {
  const p = new SwflowProcess(['worker', '--definitions', join(dir, 'defs'), '--no-schedules', '--task-queue', queue], address, { SWFLOW_PAYLOAD_STORE: store });
  procs.push(p);
  return p.ready(SERVING, 120_000);
};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-large-'));
  service = await startLargeService();
  mkdirSync(join(dir, 'defs'));
  writeDefinitions(join(dir, 'defs'), service.base);
  env = await startDevEnv();
  address = (env as unknown as { address: string }).address;
  // On the cluster, the database a production user already runs: a PostgreSQL store.
  if (process.env.SWFLOW_CLUSTER === '1') pg = await startPostgres();
  storeUrl = pg ? `${pg.url('postgres')}?table=large_payloads` : join(dir, 'payloads');
  // swflow's client options: histories of many payloads just under the threshold have pages over gRPC's default 4 MB.
  connection = await Connection.connect(connectionOptions({ address, namespace: 'default' }));
  withStore = new Client({ connection, ...dataConverterOptions({ ...process.env, SWFLOW_PAYLOAD_STORE: storeUrl }) });
  noStore = new Client({ connection, ...dataConverterOptions({ ...process.env, SWFLOW_PAYLOAD_STORE: 'none' }) });
  await Promise.all([worker(STORE_QUEUE, storeUrl), worker(PLAIN_QUEUE, 'none')]);
});

after(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  await connection?.close();
  await env?.teardown();
  await pg?.close();
  await service?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const runs: string[] = [];
async function runToEnd(client: Client, id: string, input: unknown, queue: string, workflowId = `${id.replace('/', '.')}-${queue}-${Date.now()}`): Promise<unknown> {
  const handle = await startWorkflow(client, { id, input: input as never, taskQueue: queue, workflowId });
  runs.push(workflowId);
  return handle.result().catch((err: unknown) => {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const chain: string[] = [];
    for (let e: any = err; e; e = e.cause) chain.push(String(e.message));
    throw Object.assign(new Error(`${workflowId}: ${chain.join(' ← ')}`), { chain: chain.join(' ← '), failed: err });
  });
}

test('with a payload store: a 20 MB input and ten 8 MB answers complete with the exact outputs, in 0.8 and 1.0', { timeout: 900_000 }, async () => {
  for (const dsl of ['08', '10']) {
    let t = Date.now();
    assert.deepEqual(await runToEnd(withStore, scenarioId('big-input', dsl), bigInput(), STORE_QUEUE), expected.bigInput());
    console.log(`large data ${dsl}: 20 MB input → output equal (${Date.now() - t} ms)`);
    t = Date.now();
    assert.deepEqual(await runToEnd(withStore, scenarioId('big-calls', dsl), {}, STORE_QUEUE), expected.bigCalls());
    console.log(`large data ${dsl}: ten 8 MB answers → output equal (${Date.now() - t} ms)`);
  }
});

test('with a payload store, a worker killed with SIGKILL in the middle of collecting 20 MB loses nothing (0.8 foreach: 10,000 results of 2 KB; 1.0 for: 100 of 200 KB)', { timeout: 900_000 }, async () => {
  const count = { '08': () => service.calls.item, '10': () => service.calls.itemV1 };
  // One after the other (at once, on one worker, they took 1.5× as long).
  for (const dsl of ['08', '10'] as const) {
    const t = Date.now();
    const before = count[dsl]();
    const called = () => count[dsl]() - before;
    const input = expected.collectInput(dsl);
    const result = runToEnd(withStore, scenarioId('collect', dsl), input, STORE_QUEUE);
    result.catch(() => undefined);
    // Killed once a third of the items were called; another worker takes over.
    const deadline = Date.now() + 300_000;
    while (called() < input.n / 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const victim = procs.find((p) => p.child.exitCode === null && p.child.signalCode === null && p.child.spawnargs.includes(STORE_QUEUE))!;
    assert.ok(called() >= input.n / 3, `a third of the items called within 300 s (${called()}); the worker: ${victim?.output.slice(-2000) ?? 'gone'}`);
    await victim.stop('SIGKILL');
    const killedAt = called();
    await worker(STORE_QUEUE, storeUrl);
    assert.deepEqual(await result, expected.collect(dsl));
    console.log(`large data ${dsl}: ${input.n} results (20 MB) collected, worker SIGKILLed after ${killedAt} calls, output equal; ${called()} calls in all (${Date.now() - t} ms)`);
  }
});

test('no payload in the histories of those runs is over the threshold (what the server stores)', async () => {
  const found = await largestStoredPayload(connection, 'default', runs);
  console.log(`large data: ${found.runs} runs, ${found.payloads} payloads in their histories, the largest ${found.largest} bytes (${found.where}); threshold ${DEFAULT_THRESHOLD}`);
  assert.ok(found.runs >= runs.length);
  assert.ok(found.largest < DEFAULT_THRESHOLD, `largest payload ${found.largest} at ${found.where}`);
});

test('without a store the same runs fail with swflow’s message naming the step and the size', { timeout: 600_000 }, async () => {
  // The input: refused by swflow's client before Temporal sees it.
  await assert.rejects(runToEnd(noStore, 'big-input-08', bigInput(), PLAIN_QUEUE), /the input of big-input-08 is 2\d\.\d MB, over the 2\.1 MB one Temporal payload may hold without a payload store/);
  const failure = async (id: string, input: unknown) => {
    const err = await runToEnd(noStore, id, input, PLAIN_QUEUE).then(
      () => assert.fail(`${id} completed without a store`),
      (e: unknown) => e,
    );
    assert.ok((err as { failed?: unknown }).failed instanceof WorkflowFailedError, String(err));
    return (err as { chain: string }).chain;
  };
  // The four at once (each fails on its own).
  const [calls08, calls10, collect08, collect10] = await Promise.all([failure('big-calls-08', {}), failure('large/big-calls-10', {}), failure('collect-08', expected.collectInput('08')), failure('large/collect-10', expected.collectInput('10'))]);
  assert.match(calls08, /Calls/, calls08);
  assert.match(calls08, /the result of \S+ is 8\.0 MB, over the 2\.1 MB one Temporal payload may hold without a payload store/, calls08);
  assert.match(calls10, /\/do\/0\/big0/, calls10);
  assert.match(calls10, /is 8\.0 MB, over the 2\.1 MB/, calls10);
  assert.match(collect08, /(output|carries).* is 2\d\.\d MB, over the 2\.1 MB/, collect08);
  assert.match(collect10, /\/do\/0\/each.* is \d+\.\d MB, over the 2\.1 MB/, collect10);
  for (const [what, m] of Object.entries({ calls08, calls10, collect08, collect10 })) console.log(`large data without a store: ${what}: ${m.slice(0, 300)}`);
});
