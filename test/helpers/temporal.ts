/**
 * Real Temporal servers for tests: the dev server (from the resolved Temporal CLI) for most
 * tests, Temporal's Java time-skipping server where timers matter.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { resolveTimeSkippingServer } from '../../src/platform/test-server';
import { searchAttributeKeys } from '../../src/platform/search-attributes';

export async function startDevEnv(): Promise<TestWorkflowEnvironment> {
  const cli = await resolveTemporalCli((m) => console.error(m));
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: 'existing-path', path: cli.path } : { type: 'cached-download' },
      searchAttributes: searchAttributeKeys,
      log: { format: 'pretty', level: 'error' },
    },
  });
}

export async function startTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const server = await resolveTimeSkippingServer((m) => console.error(m));
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: server ? { type: 'existing-path', path: server.path } : { type: 'cached-download' } },
  });
}

/** Backwards-compatible name used by early tests. */
export const startTestEnv = startDevEnv;
