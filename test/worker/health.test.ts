/**
 * The workers' health endpoints (src/worker/health.ts) on a real interpreter worker against a
 * real dev server: /readyz follows the worker's life (not started, polling, stopped), /healthz
 * stays up, bad ports are refused with the option's name.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { healthPort, startHealthServer } from '../../src/worker/health';
import { startDevEnv } from '../helpers/temporal';
import { sharedBundle } from '../workflow/helpers';

let env: TestWorkflowEnvironment;

before(async () => {
  env = await startDevEnv();
});

after(async () => {
  await env?.teardown();
});

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

test('/readyz is 503 before the worker polls, 200 while it does, 503 once stopped; /healthz 200 throughout', async () => {
  const worker = await createInterpreterWorker({ connection: env.nativeConnection, taskQueue: 'health-test', definitions: [], workflowBundle: await sharedBundle() });
  const server = await startHealthServer(0, { workers: () => [worker], connection: () => env.nativeConnection });
  try {
    assert.deepEqual(await get(`${server.url}/readyz`), { status: 503, body: { ok: false, error: 'worker state INITIALIZED', states: ['INITIALIZED'] } });
    assert.equal((await get(`${server.url}/healthz`)).status, 200);
    const running = worker.run();
    const deadline = Date.now() + 10_000;
    while (worker.getState() !== 'RUNNING' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await get(`${server.url}/readyz`), { status: 200, body: { ok: true, states: ['RUNNING'] } });
    worker.shutdown();
    await running;
    const stopped = await get(`${server.url}/readyz`);
    assert.equal(stopped.status, 503);
    assert.match(String(stopped.body.error), /worker state STOPPED/);
    assert.deepEqual(await get(`${server.url}/healthz`), { status: 200, body: { ok: true, states: ['STOPPED'] } });
    assert.equal((await fetch(`${server.url}/readyz`, { method: 'POST' })).status, 405);
  } finally {
    await server.close();
  }
});

test('no workers yet: not ready; a bad port names where it came from', async () => {
  const server = await startHealthServer(0, { workers: () => [] });
  try {
    assert.deepEqual(await get(`${server.url}/readyz`), { status: 503, body: { ok: false, error: 'the workers have not started yet', states: [] } });
  } finally {
    await server.close();
  }
  assert.throws(() => healthPort('http'), /--health-port must be a port number \(0-65535\), not "http"/);
  const saved = process.env.SWFLOW_HEALTH_PORT;
  process.env.SWFLOW_HEALTH_PORT = '70000';
  try {
    assert.throws(() => healthPort(), /SWFLOW_HEALTH_PORT must be a port number/);
  } finally {
    if (saved === undefined) delete process.env.SWFLOW_HEALTH_PORT;
    else process.env.SWFLOW_HEALTH_PORT = saved;
  }
  assert.equal(healthPort('8081'), 8081);
});
