/** The Temporal server of `swflow test`: the time-skipping test server, else the dev server. */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { createLocalEnv } from '../platform/dev-server';
import { resolveTimeSkippingServer } from '../platform/test-server';

let runtimeInstalled = false;

/**
 * Keeps the SDK quiet (worker lifecycle lines, activity-failure warnings are expected in tests).
 * `SWFLOW_LOG_LEVEL` (TRACE..ERROR) overrides. Must run before anything touches the Runtime.
 */
export function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const level = (process.env.SWFLOW_LOG_LEVEL?.toUpperCase() as LogLevel | undefined) ?? 'ERROR';
  try {
    Runtime.install({
      logger: new DefaultLogger(level),
      telemetryOptions: { logging: { filter: { core: level, other: level }, forward: {} } },
    });
  } catch {
    // already installed by the host (e.g. a test file): keep theirs
  }
}

export interface TestServer {
  env: TestWorkflowEnvironment;
  timeSkipping: boolean;
  /** Why time skipping is not available, when it is not. */
  note?: string;
}

export async function startTestServer(log: (msg: string) => void = () => {}): Promise<TestServer> {
  installQuietRuntime();
  let why: string;
  try {
    const server = await resolveTimeSkippingServer(log);
    if (server || process.env.SWFLOW_TEST_DOWNLOAD === '1') {
      const env = await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: server ? { type: 'existing-path', path: server.path } : { type: 'cached-download' } },
      });
      return { env, timeSkipping: true };
    }
    why = 'no time-skipping test server (it needs Java and Maven)';
  } catch (err) {
    why = `the time-skipping test server did not start: ${(err as Error).message}`;
  }
  const env = await createLocalEnv(log);
  return { env, timeSkipping: false, note: `${why}; using the dev server instead: timers and delays take real time` };
}
