/**
 * The activity interceptors every swflow worker registers put no frame on a call's path when they
 * have nothing to do (bench/README.md, "The interpreter's own cost, like for like"): heartbeats for
 * a local activity or one without a heartbeat timeout, metrics when the process serves none,
 * tracing when it does not trace. What they do when they apply: heartbeat.test.ts,
 * test/metrics, test/tracing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Context } from '@temporalio/activity';
import { metricsInterceptor } from '../../src/metrics/interceptor';
import { metrics } from '../../src/metrics';
import { tracingCallInterceptor } from '../../src/tracing/interceptor';
import { tracing } from '../../src/tracing';
import { autoHeartbeat } from '../../src/worker/heartbeat';

const contextOf = (info: Partial<Context['info']>) => ({ info }) as unknown as Context;

test('autoHeartbeat: no interceptor for a local activity or one without a heartbeat timeout, one otherwise', () => {
  assert.deepEqual(autoHeartbeat(contextOf({ isLocal: true, heartbeatTimeoutMs: 30_000 })), {});
  assert.deepEqual(autoHeartbeat(contextOf({ isLocal: false, heartbeatTimeoutMs: undefined })), {});
  assert.equal(typeof autoHeartbeat(contextOf({ isLocal: false, heartbeatTimeoutMs: 30_000 })).inbound?.execute, 'function');
});

test('metrics and tracing: no interceptor in a process that serves no metrics and does not trace', () => {
  assert.equal(metrics(), undefined, 'this test process serves no metrics');
  assert.equal(tracing(), undefined, 'this test process does not trace');
  const ctx = contextOf({ isLocal: true });
  assert.deepEqual(metricsInterceptor(ctx), {});
  assert.deepEqual(tracingCallInterceptor(ctx), {});
});
