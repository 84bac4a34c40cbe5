/**
 * The heartbeat timeout scaled to a declared timeout (src/workflow/timeouts.ts, feature
 * scaled-heartbeats): pure functions, no server (the dev-server behaviour is in
 * test/workflow/platform-failures.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callTimeouts, MIN_SCALED_HEARTBEAT_MS, scaledHeartbeatMs, UNLIMITED_CALL_MS } from '../../../../src/workflow/timeouts';

test('scaledHeartbeatMs: a third of the declared timeout, at least 2 s, at most the default 30 s; an explicit swflow.heartbeat or `off` is kept', () => {
  assert.equal(scaledHeartbeatMs(undefined, undefined), 30_000, 'nothing declared: the default');
  assert.equal(scaledHeartbeatMs(undefined, 5_000), MIN_SCALED_HEARTBEAT_MS);
  assert.equal(scaledHeartbeatMs(undefined, 9_000), 3_000);
  assert.equal(scaledHeartbeatMs(undefined, 60_000), 20_000);
  assert.equal(scaledHeartbeatMs(undefined, 3_600_000), 30_000);
  assert.equal(scaledHeartbeatMs({ 'swflow.heartbeat': 'PT10S' }, 5_000), 10_000, 'the adapter says how often it beats');
  assert.equal(scaledHeartbeatMs({ 'swflow.heartbeat': 'off' }, 5_000), undefined);
});

test('callTimeouts: with the feature, actionExecTimeout is the start-to-close (per attempt) and the heartbeat is scaled; without it, as recorded runs had it', () => {
  const fn = { name: 'f', operation: 'x', type: 'rest' } as never;
  assert.deepEqual(callTimeouts(fn, 'PT5S', true), { startToCloseTimeout: 5_000, heartbeatTimeout: 2_000 });
  assert.deepEqual(callTimeouts(fn, 'PT5S'), { startToCloseTimeout: 5_000 }, 'before: a 30 s heartbeat timeout, longer than the call: none');
  assert.deepEqual(callTimeouts(fn, 'PT2S', true), { startToCloseTimeout: 2_000 }, 'a heartbeat timeout that would not fire first is left out');
  assert.deepEqual(callTimeouts(fn, undefined, true), { startToCloseTimeout: UNLIMITED_CALL_MS, heartbeatTimeout: 30_000 });
});
