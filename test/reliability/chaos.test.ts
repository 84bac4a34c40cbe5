/**
 * Chaos: instances loop (a call of a counting HTTP service, then a timer) while swflow's processes
 * are killed with SIGKILL and started again: `swflow worker` and `swflow adapters` (real CLI
 * processes), then the Temporal dev server itself (restarted on its SQLite file and port). Every
 * instance completes with the right output; the service saw each call at least once (at-least-once:
 * a call whose worker died may have been made twice). One definition declares retries, one none.
 * Fast: 20 instances, 3 kills of the workers, 1 of the server; SWFLOW_SOAK=1: 200 instances,
 * 10 kills, 2 of the server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, Connection, WorkflowHandle } from '@temporalio/client';
import { setTimeout as delay } from 'node:timers/promises';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { CountingService, definitionsDir, loopDefinition, LOOPS, RestartableServer, SOAK, startAdapters, startWorker, type SwflowProcess } from './harness';

const INSTANCES = SOAK ? 200 : 20;
const KILLS = SOAK ? 10 : 3;
const SERVER_KILLS = SOAK ? 2 : 1;

const service = new CountingService();
let server: RestartableServer;
let dir: string;
let worker: SwflowProcess;
let adapters: SwflowProcess;
let connection: Connection;
let client: Client;

before(async () => {
  await service.start();
  server = await RestartableServer.start();
  dir = definitionsDir({ 'loop-retries': loopDefinition('loop-retries', service, true), 'loop-plain': loopDefinition('loop-plain', service, false) });
  [worker, adapters] = await Promise.all([startWorker(server.address, dir), startAdapters(server.address, dir)]);
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
});

after(async () => {
  await Promise.all([worker?.stop('SIGKILL'), adapters?.stop('SIGKILL')]);
  await connection?.close();
  await server?.server.stop();
  await service.stop();
});

let batch = 0;
async function startInstances(): Promise<WorkflowHandle[]> {
  batch++;
  return Promise.all(
    Array.from({ length: INSTANCES }, (_, k) => {
      const type = k % 2 ? 'loop-plain' : 'loop-retries';
      return client.workflow.start(type, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `${type}-${batch}-${k}`, args: [{ id: `${batch}-${k}`, i: 0 }] });
    }),
  );
}

/** Waits until the service has seen `n` more calls than now (the instances are making progress). */
async function progress(n: number): Promise<void> {
  const target = service.total + n;
  while (service.total < target) await delay(50);
}

async function checkAll(handles: WorkflowHandle[]): Promise<void> {
  const outputs = await Promise.all(handles.map((h) => h.result()));
  handles.forEach((h, k) => {
    const id = `${batch}-${k}`;
    const out = outputs[k] as { id: string; i: number; last: number };
    assert.equal(out.id, id, h.workflowId);
    assert.equal(out.i, LOOPS, `${h.workflowId}: ${JSON.stringify(out)}`);
    const hits = service.hits.get(id) ?? 0;
    assert.ok(hits >= LOOPS, `${h.workflowId}: the service saw ${hits} calls, fewer than the ${LOOPS} made`);
    assert.ok(out.last >= LOOPS && out.last <= hits, `${h.workflowId}: the last answer ${out.last} (of ${hits} calls)`);
  });
  const extra = handles.reduce((a, _, k) => a + (service.hits.get(`${batch}-${k}`) ?? 0), 0) - INSTANCES * LOOPS;
  console.log(`# ${INSTANCES} instances completed, ${INSTANCES * LOOPS} calls made, ${extra} repeated (at-least-once)`);
}

test(`kill -9 of swflow worker and swflow adapters, ${KILLS} times, while ${INSTANCES} instances loop: all complete, every call made`, async () => {
  const handles = await startInstances();
  for (let k = 0; k < KILLS; k++) {
    await progress(Math.max(3, Math.floor(INSTANCES / 4)));
    if (k % 2 === 0) {
      await adapters.stop('SIGKILL');
      adapters = await startAdapters(server.address, dir);
    } else {
      await worker.stop('SIGKILL');
      worker = await startWorker(server.address, dir);
    }
  }
  await checkAll(handles);
});

test(`kill -9 of the Temporal dev server, ${SERVER_KILLS} time(s), restarted on its SQLite file: nothing lost`, async () => {
  const handles = await startInstances();
  for (let k = 0; k < SERVER_KILLS; k++) {
    await progress(Math.max(3, Math.floor(INSTANCES / 4)));
    await server.kill9();
    await server.restart();
  }
  await checkAll(handles);
  // The workers reconnected by themselves.
  assert.equal(worker.child.exitCode, null, worker.output);
  assert.equal(adapters.child.exitCode, null, adapters.output);
});
