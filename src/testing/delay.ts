/**
 * A mocked call's `delay` (FORMAT.md), made inside the mock activity. Every function call has a
 * heartbeat timeout (src/workflow/timeouts.ts) and the mock worker heartbeats by itself, but in
 * real time: under time skipping the server's clock jumps far ahead of it, so a long delay would
 * look like a lost worker. The delay therefore advances in steps shorter than the heartbeat
 * timeout, each followed by a heartbeat the server records before its clock moves on.
 *
 * A delay ends early when the call is cancelled (the run gave up on it: a task timeout, a
 * cancelled scope) or when the case ends (`signal`): it must not outlive its case (isolation.ts).
 */
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

/** Share of the heartbeat timeout the clock may advance between two recorded heartbeats. */
const STEP = 0.8;

/** The `sleep` of the mock service: `ms` of the server's time, unless `signal` (the case's) or the call is cancelled first. */
export function mockDelay(env: TestWorkflowEnvironment, timeSkipping: boolean): (ms: number, signal?: AbortSignal) => Promise<void> {
  return async (ms, caseSignal) => {
    const ctx = Context.current();
    const signal = caseSignal ? AbortSignal.any([caseSignal, ctx.cancellationSignal]) : ctx.cancellationSignal;
    const heartbeat = ctx.info.heartbeatTimeoutMs;
    if (!timeSkipping || !heartbeat || ms < heartbeat * STEP) return untilAborted(env.sleep(ms), signal);
    const step = Math.max(1, Math.floor(heartbeat * STEP));
    for (let left = ms; left > 0; left -= step) {
      await untilAborted(env.sleep(Math.min(step, left)), signal);
      // Throws ActivityCancelledError when the run asked for the call's cancellation.
      await env.client.activity.heartbeat(ctx.info.taskToken);
    }
  };
}

/**
 * `p`, or the abort reason as soon as `signal` is aborted. A server-side sleep left behind ends
 * on its own once time skips past it, taking back the time-skipping lock it let go of.
 */
async function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  p.catch(() => {}); // abandoned on abort: its failure is nobody's business
  try {
    return await Promise.race([p, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
