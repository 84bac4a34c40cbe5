/**
 * Automatic heartbeats (src/worker/heartbeat.ts): unit tests with the SDK's MockActivityEnvironment
 * (no server), then on a real dev server: a call longer than its heartbeat timeout survives on a
 * worker with the interceptor, and is cut and made again on one without it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { heartbeat } from '@temporalio/activity';
import { MockActivityEnvironment, type TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { autoHeartbeat } from '../../src/worker/heartbeat';
import { startDevEnv } from '../helpers/temporal';
import { def, harness, type Harness } from '../workflow/helpers';

test('heartbeats while the activity runs, re-sending its own latest details (never replacing them)', async () => {
  const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 300 }, { interceptors: [autoHeartbeat] });
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  const result = await env.run(async () => {
    await delay(250);
    heartbeat({ progress: 1 });
    await delay(250);
    return 'done';
  });
  assert.equal(result, 'done');
  const own = beats.findIndex((d) => JSON.stringify(d) === '{"progress":1}');
  assert.ok(own > 1, `automatic heartbeats before the activity's own: ${JSON.stringify(beats)}`);
  assert.ok(beats.slice(0, own).every((d) => d === undefined));
  assert.ok(beats.length > own + 1 && beats.slice(own).every((d) => JSON.stringify(d) === '{"progress":1}'), JSON.stringify(beats));
  const count = beats.length;
  await delay(300);
  assert.equal(beats.length, count, 'no heartbeat after the activity ended');
});

test('a call shorter than a third of its heartbeat timeout sends no heartbeat (none at the start: each is a server write)', async () => {
  const env = new MockActivityEnvironment({ heartbeatTimeoutMs: 3_000 }, { interceptors: [autoHeartbeat] });
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  assert.equal(await env.run(async () => (await delay(150), 'quick')), 'quick');
  assert.deepEqual(beats, []);
});

test('does nothing for an activity without a heartbeat timeout', async () => {
  const env = new MockActivityEnvironment({ heartbeatTimeoutMs: undefined }, { interceptors: [autoHeartbeat] });
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  await env.run(async () => delay(200));
  assert.deepEqual(beats, []);
});

let h: Harness;
let env: TestWorkflowEnvironment;
let bare: Worker;
let bareRun: Promise<void>;
let bareCalls = 0;
before(async () => {
  env = await startDevEnv();
  h = await harness(env); // its mock workers heartbeat automatically, as swflow's workers do
  // a worker without the interceptor: an adapter that does not heartbeat
  bare = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'no-heartbeats',
    activities: {
      default: async () => {
        if (++bareCalls === 1) await delay(6_000); // cut by the 2 s heartbeat timeout
        return { bare: bareCalls };
      },
    },
  });
  bareRun = bare.run();
});
after(async () => {
  bare?.shutdown();
  await bareRun;
  await h?.close();
  await env?.teardown();
});

test('a call longer than its heartbeat timeout completes on a heartbeating worker, and is cut and made again on one that does not heartbeat', async () => {
  h.reset();
  h.mocks.slow = async () => {
    await delay(6_000);
    return { slow: true };
  };
  const d = def({
    id: 'heartbeats',
    start: 'S',
    functions: [
      { name: 'slow', operation: 'x#slow', metadata: { 'swflow.heartbeat': 'PT2S' } },
      { name: 'silent', type: 'custom', operation: 'silent.op', metadata: { worker: 'no-heartbeats', 'swflow.heartbeat': 'PT2S' } },
    ],
    states: [{ name: 'S', type: 'operation', actions: [{ functionRef: 'slow' }, { functionRef: 'silent' }], end: true }],
  });
  assert.deepEqual(await h.run(d), { slow: true, bare: 2 });
  assert.equal(h.calls.length, 1, 'the heartbeating call ran once');
  assert.equal(bareCalls, 2, 'the silent call was cut at its heartbeat timeout and made again');
  const events = (await env.client.workflow.getHandle(h.lastWorkflowId!).fetchHistory()).events ?? [];
  assert.equal(events.filter((e) => e.activityTaskTimedOutEventAttributes).length, 1);
});
