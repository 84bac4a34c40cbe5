/**
 * Automatic heartbeats for the activities of swflow's workers: while a call runs, the worker
 * heartbeats on its behalf, so the interpreter can give every function call a short heartbeat
 * timeout (default 30 s, function metadata `swflow.heartbeat`) and still let the call itself
 * run unlimited. A worker that is killed, loses its connection or hangs stops heartbeating,
 * and Temporal notices within the heartbeat timeout; the interpreter then makes the call again
 * (src/workflow/platform-failures.ts). Heartbeating also delivers cancellation to the running call.
 *
 * An activity that heartbeats by itself (with progress details) keeps doing so: its latest
 * details are the ones re-sent, never replaced. Self-contained: add it to any worker with
 *
 *   Worker.create({ ..., interceptors: { activity: [autoHeartbeat] } })
 */
import type { Context } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/** Heartbeats per heartbeat timeout (the SDK sends at most one per 80 % of it; the rest are coalesced). */
const BEATS_PER_TIMEOUT = 3;

/** Activity interceptors factory: heartbeats while the activity runs, when its heartbeat timeout is set (none for a local activity, which cannot heartbeat). */
export const autoHeartbeat: ActivityInterceptorsFactory = (ctx: Context) => {
  const timeout = ctx.info.heartbeatTimeoutMs;
  if (!timeout || ctx.info.isLocal) return {};
  return {
    inbound: {
      async execute(input, next) {
        const send = ctx.heartbeat;
        // The activity's own details win: remember the last ones it gave (or the previous attempt's).
        let details: unknown = ctx.info.heartbeatDetails;
        (ctx as { heartbeat: Context['heartbeat'] }).heartbeat = (d?: unknown) => {
          details = d;
          send(d);
        };
        // No beat at the start: the heartbeat timeout counts from the start anyway, and a beat is a
        // server round trip and a history-shard write, which made every short call ~3-5 ms slower
        // (bench/README.md, "Peer"). Calls shorter than a third of the timeout never heartbeat.
        const timer = setInterval(() => send(details), Math.max(100, Math.floor(timeout / BEATS_PER_TIMEOUT)));
        timer.unref();
        try {
          return await next(input);
        } finally {
          clearInterval(timer);
        }
      },
    },
  };
};
