/**
 * Real Temporal servers for tests: the dev server (from the resolved Temporal CLI) for most
 * tests, Temporal's Java time-skipping server where timers matter.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLocalEnv } from '../../src/platform/dev-server';
import { resolveTimeSkippingServer } from '../../src/platform/test-server';

/**
 * The dev server; with SWFLOW_CLUSTER=1, the multi-process PostgreSQL cluster instead
 * (src/platform/cluster.ts): the one `npm test` started (SWFLOW_CLUSTER_ADDRESS), else one for
 * this file, stopped by the environment's teardown.
 */
/** A test of `npm run test:unit` must not start a server (test/run.ts UNIT). */
function refuseInUnits(): void {
  if (process.env.SWFLOW_UNIT === '1') throw new Error('a test of `npm run test:unit` (test/run.ts UNIT) started a Temporal server: it belongs outside the unit list');
}

export async function startDevEnv(): Promise<TestWorkflowEnvironment> {
  refuseInUnits();
  if (process.env.SWFLOW_CLUSTER === '1') return clusterEnv();
  return createLocalEnv((m) => console.error(m));
}

async function clusterEnv(): Promise<TestWorkflowEnvironment> {
  const shared = process.env.SWFLOW_CLUSTER_ADDRESS;
  if (shared) return TestWorkflowEnvironment.createFromExistingServer({ address: shared, namespace: 'default' });
  const { startCluster } = await import('../../src/platform/cluster');
  const cluster = await startCluster({ fastDisk: true, log: (m) => console.error(m) });
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: cluster.address, namespace: 'default' });
  const teardown = env.teardown.bind(env);
  env.teardown = async () => {
    await teardown();
    await cluster.stop();
  };
  return env;
}

export async function startTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  refuseInUnits();
  const server = await resolveTimeSkippingServer((m) => console.error(m));
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: server ? { type: 'existing-path', path: server.path } : { type: 'cached-download' } },
  });
}

/** Backwards-compatible name used by early tests. */
export const startTestEnv = startDevEnv;
