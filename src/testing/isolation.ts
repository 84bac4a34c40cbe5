/**
 * What a case leaves behind ends with the case, so that a suite's results do not depend on the
 * order of its cases (cases share one Temporal server, whose time skipping is global).
 *
 * A case can end while some of its work is still going on: a mocked call in its `delay` when a
 * task `timeout` fired and was caught, a child run its parent abandoned, a run the runner gave up
 * on. The runner aborts the case's mock delays itself (the case's AbortSignal, mocks.ts and
 * delay.ts); this module terminates the case's runs that are still open and puts the
 * time-skipping server's lock back as it was before the case.
 *
 * Why the lock needs putting back: the time-skipping test server locks time skipping for every
 * activity it schedules and unlocks it only when a worker reports the activity's end. When the
 * run closes first (completed while a call it no longer waits for still runs, terminated, timed
 * out), that report is refused ("workflow completed") and the lock is never released: from then
 * on the server's clock only moves in real time, and every later case that waits on a timer
 * (`sleep: PT1H`) runs into the real-time limit. The server offers no way to see or drop that
 * lock, so the runner observes whether time skips and releases leaked locks one at a time until
 * it does.
 */
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { msToTs } from '@temporalio/common/lib/time';
import { runTree } from './history';

/** The reason given for the runs a case left open. */
export const CASE_ENDED = 'swflow test: the case ended';

/** Terminates the run `workflowId` and the child runs it (and they) started, those still open. */
export async function terminateOpenRuns(client: Client, workflowId: string): Promise<void> {
  try {
    for await (const run of runTree(client, workflowId)) {
      const handle = client.workflow.getHandle(run.workflowId);
      try {
        if ((await handle.describe()).status.name !== 'RUNNING') continue;
        await handle.terminate(CASE_ENDED);
      } catch {
        // closed in the meantime
      }
    }
  } catch {
    // never started (the case failed before its run), or gone
  }
}

/** Server time a probe asks to skip: far more than the probe waits in real time. */
const PROBE_SKIP_MS = 60_000;
/** Real time a probe waits for the server to skip {@link PROBE_SKIP_MS}. */
const PROBE_WAIT_MS = 1_000;
/** Leaked locks released at most after one case (each costs a probe of up to {@link PROBE_WAIT_MS}). */
const MAX_RELEASES = 20;

type TestService = NonNullable<TestWorkflowEnvironment['connection']['testService']>;

/**
 * Between cases the runner holds the server's time-skipping lock (time stands still but for real
 * time) and nothing else does. Releases the locks a case leaked until that holds again; returns
 * how many were released. Call it when none of the case's runs is open any more
 * ({@link terminateOpenRuns}) and its workers are stopped.
 */
export async function restoreTimeSkipping(env: TestWorkflowEnvironment): Promise<number> {
  const testService = env.connection.testService;
  if (!testService) return 0;
  for (let released = 0; ; released++) {
    if (await timeSkips(env, testService)) return released;
    if (released === MAX_RELEASES) {
      throw new Error(`time skipping stays locked after releasing ${MAX_RELEASES} locks a case left behind`);
    }
    await testService.unlockTimeSkipping({});
  }
}

/**
 * Whether the server's clock jumps when the runner lets go of its own lock: asks it to sleep
 * {@link PROBE_SKIP_MS} of server time, waiting {@link PROBE_WAIT_MS} of real time at most. A
 * sleep the server never finishes stays queued on it as a timer with no effect when it fires.
 */
async function timeSkips(env: TestWorkflowEnvironment, testService: TestService): Promise<boolean> {
  const before = await env.currentTimeMs();
  await testService.unlockTimeSkipping({});
  try {
    await env.connection.withDeadline(Date.now() + PROBE_WAIT_MS, () => testService.sleep({ duration: msToTs(PROBE_SKIP_MS) }));
    return true;
  } catch {
    // Deadline exceeded: the clock may still have jumped, and only the answer have been slow.
    return (await env.currentTimeMs()) - before >= PROBE_SKIP_MS;
  } finally {
    await testService.lockTimeSkipping({});
  }
}
