/**
 * Real Temporal servers for tests: the dev server (from the resolved Temporal CLI) for most
 * tests, Temporal's Java time-skipping server where timers matter.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { createLocalEnv } from '../../src/platform/dev-server';
import { resolveTimeSkippingServer } from '../../src/platform/test-server';

export async function startDevEnv(): Promise<TestWorkflowEnvironment> {
  return createLocalEnv((m) => console.error(m));
}

export async function startTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const server = await resolveTimeSkippingServer((m) => console.error(m));
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: server ? { type: 'existing-path', path: server.path } : { type: 'cached-download' } },
  });
}

/** Backwards-compatible name used by early tests. */
export const startTestEnv = startDevEnv;
