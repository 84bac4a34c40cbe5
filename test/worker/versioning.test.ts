/**
 * Upgrades under running runs (docs/upgrades.md): Temporal Worker Versioning with two builds of
 * the interpreter against one real dev server. Build A is current and starts a run that waits
 * for an event; build B registers and becomes current; a new run starts on B while the old one,
 * pinned, finishes on A — every workflow task of each run is completed by its own build (the
 * worker identity and the deployment version recorded in history say which).
 *
 * Then the `swflow worker` command itself: --build-id with --set-current makes its build
 * current, --health-port serves /healthz and /readyz, and SIGTERM stops it cleanly.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { startDevEnv } from '../helpers/temporal';
import { ce, def, sharedBundle } from '../workflow/helpers';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { servingWorkerOptions, setCurrentVersion, shutdownGrace, workerDeployment } from '../../src/worker/deployment';

const ROOT = resolve(__dirname, '..', '..');
let env: TestWorkflowEnvironment;
const workers: { worker: Worker; running: Promise<void> }[] = [];

before(async () => {
  env = await startDevEnv();
});

after(async () => {
  for (const w of workers) {
    try { w.worker.shutdown(); } catch { /* stopped */ }
  }
  await Promise.allSettled(workers.map((w) => w.running));
  await env?.teardown();
});

const waiting = def({
  id: 'upgrade',
  version: '1.0',
  start: 'Wait',
  events: [{ name: 'Go', type: 'go' }],
  states: [
    { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'], eventDataFilter: { toStateData: '${ .go }' } }], transition: 'Done' },
    { name: 'Done', type: 'inject', data: { done: true }, end: true },
  ],
});

async function build(taskQueue: string, deploymentName: string, buildId: string): Promise<void> {
  const worker = await createInterpreterWorker({
    connection: env.nativeConnection,
    taskQueue,
    definitions: [],
    workflowBundle: await sharedBundle(),
    workerOptions: { identity: `build-${buildId}`, ...servingWorkerOptions({ deploymentName, buildId }, true, {}) },
  });
  workers.push({ worker, running: worker.run() });
}

async function firstTaskDone(workflowId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    if (history.events?.some((e) => e.workflowTaskCompletedEventAttributes)) return;
    if (Date.now() > deadline) throw new Error(`${workflowId}: no workflow task completed within 20 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Who completed each workflow task of a run: `identity buildId`. */
async function completedBy(workflowId: string): Promise<string[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.workflowTaskCompletedEventAttributes)
    .filter((a): a is NonNullable<typeof a> => Boolean(a))
    .map((a) => `${a.identity} ${a.deploymentVersion?.buildId ?? '?'}`);
}

test('a new build takes new runs while the old build finishes its pinned runs', async () => {
  const taskQueue = `versioning-${randomUUID().slice(0, 8)}`;
  const deploymentName = `swflow-test-${randomUUID().slice(0, 8)}`;
  const definition = await waiting;
  const start = (id: string) => env.client.workflow.start('upgrade', { taskQueue, workflowId: id, args: [{}, { definition }] });

  await build(taskQueue, deploymentName, 'A');
  await setCurrentVersion(env.nativeConnection, 'default', { deploymentName, buildId: 'A' });
  const old = await start(`old-${randomUUID().slice(0, 8)}`);
  await firstTaskDone(old.workflowId);

  await build(taskQueue, deploymentName, 'B');
  await setCurrentVersion(env.nativeConnection, 'default', { deploymentName, buildId: 'B' });
  const current = await env.nativeConnection.workflowService.describeWorkerDeployment({ namespace: 'default', deploymentName });
  assert.equal(current.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId, 'B');

  const fresh = await start(`new-${randomUUID().slice(0, 8)}`);
  await firstTaskDone(fresh.workflowId);
  // Both builds keep serving: the old run, woken now, must go back to A, not to the current B.
  await old.signal('swflow.event', ce('go', { n: 1 }));
  await fresh.signal('swflow.event', ce('go', { n: 2 }));
  assert.deepEqual(await old.result(), { go: { n: 1 }, done: true });
  assert.deepEqual(await fresh.result(), { go: { n: 2 }, done: true });

  const oldBy = await completedBy(old.workflowId);
  const freshBy = await completedBy(fresh.workflowId);
  assert.ok(oldBy.length >= 2, `old run: ${oldBy.join(', ')}`);
  assert.deepEqual([...new Set(oldBy)], ['build-A A'], `the old run's tasks: ${oldBy.join(', ')}`);
  assert.deepEqual([...new Set(freshBy)], ['build-B B'], `the new run's tasks: ${freshBy.join(', ')}`);
  const described = await old.describe();
  assert.equal(described.raw.workflowExecutionInfo?.versioningInfo?.behavior, 1 /* VERSIONING_BEHAVIOR_PINNED */);
});

test('versioning and shutdown options: environment, flags and clear errors', () => {
  assert.equal(workerDeployment({}, {}), undefined);
  assert.deepEqual(workerDeployment({}, { SWFLOW_BUILD_ID: 'v1.2.3' }), { version: { deploymentName: 'swflow', buildId: 'v1.2.3' }, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' });
  assert.deepEqual(workerDeployment({ buildId: 'b', deploymentName: 'orders', versioningBehavior: 'auto-upgrade' }, { SWFLOW_BUILD_ID: 'ignored' }), { version: { deploymentName: 'orders', buildId: 'b' }, useWorkerVersioning: true, defaultVersioningBehavior: 'AUTO_UPGRADE' });
  assert.throws(() => workerDeployment({ deploymentName: 'x' }, {}), /--deployment-name is set but no build id/);
  assert.throws(() => workerDeployment({}, { SWFLOW_BUILD_ID: 'b', SWFLOW_VERSIONING_BEHAVIOR: 'sometimes' }), /SWFLOW_VERSIONING_BEHAVIOR must be pinned or auto-upgrade/);
  assert.throws(() => workerDeployment({ buildId: 'has space' }, {}), /--build-id: build id "has space"/);
  assert.throws(() => workerDeployment({ buildId: 'b', deploymentName: 'a.b' }, {}), /no dot/);
  assert.equal(shutdownGrace({}, { SWFLOW_SHUTDOWN_GRACE: '30s' }), '30s');
  assert.equal(shutdownGrace({ shutdownGrace: '1500' }, {}), '1500ms');
  assert.throws(() => shutdownGrace({}, { SWFLOW_SHUTDOWN_GRACE: 'soon' }), /SWFLOW_SHUTDOWN_GRACE must be a duration/);
  assert.deepEqual(servingWorkerOptions({ buildId: 'b', shutdownGrace: '5s' }, false, {}), { shutdownGraceTime: '5s' });
});

test('`swflow worker --build-id --set-current --health-port` becomes current, answers probes and stops on SIGTERM', async () => {
  const deploymentName = `swflow-cli-${randomUUID().slice(0, 8)}`;
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'worker', '--definitions', 'examples', '--no-schedules', '-q', `cli-${deploymentName}`, '--health-port', '0', '--build-id', 'cli-1', '--deployment-name', deploymentName, '--set-current', '--shutdown-grace', '5s'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  try {
    const deadline = Date.now() + 60_000;
    while (!/is the current version/.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the worker did not become current: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = /health at (http:\/\/[^/\s]+)\/healthz/.exec(output)?.[1];
    assert.ok(url, output);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200, await ready.clone().text());
    assert.deepEqual(await ready.json(), { ok: true, states: ['RUNNING'] });
    assert.equal((await fetch(`${url}/nothing`)).status, 404);
    const described = await env.nativeConnection.workflowService.describeWorkerDeployment({ namespace: 'default', deploymentName });
    assert.equal(described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId, 'cli-1');
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
