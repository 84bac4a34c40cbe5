/**
 * A mocked call's `delay` (FORMAT.md), made inside the mock activity. Every function call has a
 * heartbeat timeout (src/workflow/timeouts.ts) and the mock worker heartbeats by itself, but in
 * real time: under time skipping the server's clock jumps far ahead of it, so a long delay would
 * look like a lost worker. The delay therefore advances in steps shorter than the heartbeat
 * timeout, each followed by a heartbeat the server records before its clock moves on.
 */
import { Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

/** Share of the heartbeat timeout the clock may advance between two recorded heartbeats. */
const STEP = 0.8;

/** The `sleep` of the mock service: `ms` of the server's time. */
export function mockDelay(env: TestWorkflowEnvironment, timeSkipping: boolean): (ms: number) => Promise<void> {
  return async (ms) => {
    const info = Context.current().info;
    const heartbeat = info.heartbeatTimeoutMs;
    if (!timeSkipping || !heartbeat || ms < heartbeat * STEP) return env.sleep(ms);
    const step = Math.max(1, Math.floor(heartbeat * STEP));
    for (let left = ms; left > 0; left -= step) {
      await env.sleep(Math.min(step, left));
      await env.client.activity.heartbeat(info.taskToken);
    }
  };
}
