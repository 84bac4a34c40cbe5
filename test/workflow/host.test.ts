/**
 * The run host (src/workflow/host): what belongs to a run works the same for 0.8 and 1.0 —
 * suspension and resumption (signal and `swflow suspend|resume`), lifecycle CloudEvents (0.8
 * runs publish them too since `host-lifecycle`), a cancelled run's status and event, the state
 * query. On a real dev server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { EVENT_SIGNAL, RESUME_SIGNAL, STATE_QUERY, SUSPEND_SIGNAL, type InstanceState } from '../../src/common/contracts';
import type { Definition, Json } from '../../src/common/model';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { startDevEnv } from '../helpers/temporal';
import { waitFor } from '../helpers/wait';
import { def, loadAny, saveHistory, sharedBundle } from './helpers';

const ROOT = join(__dirname, '..', '..');
const QUEUE = 'swflow-host';
let env: TestWorkflowEnvironment;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let n = 0;
const lifecycle: { type: string; subject?: string; data: Record<string, Json> }[] = [];

before(async () => {
  env = await startDevEnv();
  workers = [
    await createInterpreterWorker({
      connection: env.nativeConnection,
      taskQueue: QUEUE,
      definitions: [],
      workflowBundle: await sharedBundle(),
      lifecycleEvents: true,
      eventSinks: [async (e) => void lifecycle.push({ type: e.type, subject: e.subject, data: e.data as Record<string, Json> })],
    }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
});

const short = (t: string) => t.replace(/^io\.serverlessworkflow\.|\.v1$/g, '');
const eventsOf = (workflowId: string) => lifecycle.filter((e) => String(e.data.name ?? e.data.workflow).startsWith(`${workflowId}.`));
const sleepMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `swflow <args>` as a child process (not spawnSync: the worker runs in this process and must keep polling). */
async function cli(...args: string[]): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), ...args], { cwd: ROOT, env: { ...process.env, TEMPORAL_ADDRESS: env.address }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  assert.equal(code, 0, `swflow ${args.join(' ')}: ${err}`);
  return out;
}

/**
 * Suspends a run while its first step waits (a timer, or an event that `wake` then sends),
 * checks that the wait's end does not start the next step while suspended, then resumes it and
 * returns its output.
 */
async function suspendDuringWait(definition: Definition, viaCli: boolean, wake?: (workflowId: string) => Promise<void>): Promise<{ out: Json; during: InstanceState; workflowId: string }> {
  const workflowId = `host-${++n}`;
  const handle = await env.client.workflow.start(definition.id, { taskQueue: QUEUE, workflowId, args: [{ n: 1 }, { definition }] });
  await waitFor('the first step', async () => ((await handle.query<InstanceState>(STATE_QUERY)).currentStates.length ? true : undefined));
  if (viaCli) assert.match(await cli('suspend', workflowId), /suspend sent to host-\d+: the run is suspended/);
  else await handle.signal(SUSPEND_SIGNAL);
  if (wake) await wake(workflowId);
  await sleepMs(3_000); // the wait ended meanwhile
  const during = await handle.query<InstanceState>(STATE_QUERY);
  if (viaCli) assert.match(await cli('resume', workflowId), /resume sent to host-\d+: the run is (running|completed)/);
  else await handle.signal(RESUME_SIGNAL);
  return { out: await handle.result(), during, workflowId };
}

test('a 0.8 run suspended while it waits for an event starts no next state until resumed (swflow suspend / resume)', async () => {
  const d = await def({
    id: 'host-sleepy',
    version: '1.0',
    start: 'Wait',
    events: [{ name: 'Go', type: 'go' }],
    states: [
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'] }], transition: 'After' },
      { name: 'After', type: 'inject', data: { after: true }, end: true },
    ],
  });
  const wake = (id: string) => env.client.workflow.getHandle(id).signal(EVENT_SIGNAL, { specversion: '1.0', id: 'go-1', source: 'test', type: 'go', data: { went: 1 } });
  const { out, during, workflowId } = await suspendDuringWait(d, true, wake);
  await saveHistory(env.client, workflowId, 'interpreter-host-suspend-lifecycle');
  assert.equal(during.status, 'suspended');
  assert.deepEqual(during.statesEntered, ['Wait']);
  assert.deepEqual(during.awaitedEvents, [], 'the event was consumed while suspended');
  assert.deepEqual(out, { n: 1, went: 1, after: true });
  const line = eventsOf(workflowId).map((e) => `${short(e.type)}${e.subject ? ` ${e.subject}` : ''}${e.data.status ? ` ${e.data.status}` : ''}`);
  assert.deepEqual(line, [
    'workflow.started',
    'workflow.status-changed running',
    'task.created /states/0',
    'task.started /states/0',
    'workflow.status-changed suspended',
    'workflow.suspended',
    'task.suspended /states/0',
    'task.completed /states/0',
    'workflow.status-changed running',
    'workflow.resumed',
    'task.created /states/1',
    'task.started /states/1',
    'task.completed /states/1',
    'workflow.status-changed completed',
    'workflow.completed',
  ]);
  const started = eventsOf(workflowId)[0];
  assert.equal(started.data.name, `${workflowId}.host-sleepy`);
  assert.deepEqual(started.data.definition, { name: 'host-sleepy', namespace: 'swflow', version: '1.0' });
});

test('a 1.0 run suspended during a wait starts no next task until resumed (signals)', async () => {
  const d = await loadAny({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'host-wait', version: '0.1.0' },
    do: [{ nap: { wait: { seconds: 2 } } }, { after: { set: { after: true } } }],
  });
  const { out, during, workflowId } = await suspendDuringWait(d, false);
  await saveHistory(env.client, workflowId, 'interpreter-v1-host-suspend-lifecycle');
  assert.equal(during.status, 'suspended');
  assert.deepEqual(during.statesEntered, ['nap']);
  assert.deepEqual(out, { after: true });
  const types = eventsOf(workflowId).map((e) => short(e.type));
  assert.ok(types.indexOf('workflow.suspended') < types.indexOf('workflow.resumed'), types.join(' '));
  assert.ok(types.indexOf('workflow.resumed') < types.lastIndexOf('task.started'), 'the next task started after the resumption');
});

test('a cancelled run says so: status cancelled, workflow.cancelled published (both DSLs)', async () => {
  const v08 = await def({
    id: 'host-waiter',
    start: 'Wait',
    events: [{ name: 'Go', type: 'go' }],
    states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'] }], end: true }],
  });
  const v1 = await loadAny({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'host-listener', version: '0.1.0' },
    do: [{ hear: { listen: { to: { one: { with: { type: 'go' } } } } } }],
  });
  for (const definition of [v08, v1]) {
    const workflowId = `host-${++n}`;
    const handle = await env.client.workflow.start(definition.id, { taskQueue: QUEUE, workflowId, args: [{}, { definition }] });
    await waitFor('the wait', async () => ((await handle.query<InstanceState>(STATE_QUERY)).awaitedEvents.length ? true : undefined));
    await handle.cancel();
    await assert.rejects(handle.result());
    assert.equal((await handle.query<InstanceState>(STATE_QUERY)).status, 'cancelled');
    const types = await waitFor('workflow.cancelled', async () => {
      const t = eventsOf(workflowId).map((e) => short(e.type));
      return t.includes('workflow.cancelled') ? t : undefined;
    });
    assert.deepEqual(types.slice(-2), ['workflow.status-changed', 'workflow.cancelled']);
    await saveHistory(env.client, workflowId, `interpreter-${definition === v1 ? 'v1-' : ''}host-cancelled-lifecycle`);
  }
});

test('correlation lifecycle events: started while a correlated wait begins, completed with the keys (both DSLs)', async () => {
  const v08 = await def({
    id: 'host-correlated',
    start: 'Wait',
    events: [{ name: 'Paid', type: 'paid', correlation: [{ contextAttributeName: 'orderid' }] }],
    states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Paid'] }], end: true }],
  });
  const v1 = await loadAny({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'host-correlated', version: '0.1.0' },
    do: [{ hear: { listen: { to: { one: { with: { type: 'paid' }, correlate: { orderId: { from: '.orderid' } } } } } } }],
  });
  for (const [definition, keys] of [
    [v08, { orderid: '7' }],
    [v1, { orderId: '7' }],
  ] as const) {
    const workflowId = `host-${++n}`;
    const handle = await env.client.workflow.start(definition.id, { taskQueue: QUEUE, workflowId, args: [{}, { definition }] });
    await waitFor('the wait', async () => ((await handle.query<InstanceState>(STATE_QUERY)).awaitedEvents.length ? true : undefined));
    await handle.signal(EVENT_SIGNAL, { specversion: '1.0', id: `p-${n}`, source: 'test', type: 'paid', orderid: '7', data: { paid: true } });
    await handle.result();
    const events = await waitFor('workflow.completed', async () => (eventsOf(workflowId).some((e) => short(e.type) === 'workflow.completed') ? eventsOf(workflowId) : undefined));
    const types = events.map((e) => short(e.type));
    const started = types.indexOf('workflow.correlation-started');
    const completed = types.indexOf('workflow.correlation-completed');
    assert.ok(started >= 0 && completed > started, types.join(' '));
    assert.deepEqual(events[completed].data.correlationKeys, keys);
    if (definition === v08) await saveHistory(env.client, workflowId, 'interpreter-host-correlation-lifecycle');
    else await saveHistory(env.client, workflowId, 'interpreter-v1-host-correlation-lifecycle');
  }
});
