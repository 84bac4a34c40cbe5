/**
 * Failures of the platform, kept apart from the user's errors. A function call is a Temporal
 * activity served by an adapter worker; it can end without any answer from the service:
 * - a heartbeat timeout: the worker running the call was killed (kill -9, OOM, a deploy), lost its
 *   connection to Temporal, or hangs (timeouts.ts gives every call a heartbeat timeout);
 * - a start-to-close timeout the definition did not set (swflow's "unlimited" is a very long one);
 * - a worker shutdown: the worker stopped before the call ended (failure type `WorkerShutdown`,
 *   reported by the Core-based SDKs: TypeScript, Python, .NET, Ruby; the Go and Java SDKs leave
 *   the call to its heartbeat timeout).
 * Such a call is scheduled again — at least once, however often, whatever the definition's
 * retries say — and is not an attempt of the definition's retry strategy: `retries`,
 * `retryableErrors`, `nonRetryableErrors`, `autoRetries` and `onErrors` govern the errors the
 * service (or an expression, or a timeout the definition set) raised. The service may therefore
 * see a call more than once (the lost worker may even have finished it): at-least-once.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { temporalEffects, type Effects } from './effects';

/** The failure type the Core-based Temporal SDKs report for a call cut short by its worker's shutdown. */
export const WORKER_SHUTDOWN_TYPE = 'WorkerShutdown';

/**
 * Why `err` is a platform failure (a short phrase for summaries and logs), or undefined when it is
 * the service's error, or a timeout the definition set (`definitionTimeout`: the call's
 * start-to-close is the definition's actionExecTimeout).
 */
export function platformFailure(err: unknown, definitionTimeout: boolean): string | undefined {
  if (!(err instanceof ActivityFailure)) return undefined;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure) {
    if (cause.timeoutType === 'HEARTBEAT') return 'its worker stopped heartbeating (heartbeat timeout)';
    if (cause.timeoutType === 'START_TO_CLOSE' && !definitionTimeout) return 'it outlived the start-to-close timeout swflow sets for "unlimited"';
    return undefined;
  }
  if (cause instanceof ApplicationFailure && cause.type === WORKER_SHUTDOWN_TYPE) return 'its worker shut down during the call';
  return undefined;
}

/**
 * Runs `call` (one activity execution; `again` says why it is a repeat, for its summary; `lost`
 * is the platform failure that ended the previous one) until it ends otherwise than by a platform
 * failure, and returns or throws that outcome. `effects`: where cancellation is read and the
 * repeat logged (a fake in unit tests).
 */
export async function throughPlatformFailures<T>(definitionTimeout: boolean, call: (again?: string, lost?: unknown) => Promise<T>, effects: Effects = temporalEffects): Promise<T> {
  let again: string | undefined;
  let lost: unknown;
  for (;;) {
    try {
      return await call(again, lost);
    } catch (err) {
      const why = platformFailure(err, definitionTimeout);
      if (why === undefined || effects.cancelled()) throw err;
      effects.warn?.(`a function call is made again: ${why}`, { activityType: (err as ActivityFailure).activityType, activityId: (err as ActivityFailure).activityId });
      again = why;
      lost = err;
    }
  }
}

/** The last heartbeat details of an activity that timed out on its heartbeat, if it recorded any. */
export function lastHeartbeatDetails(err: unknown): unknown {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  return cause instanceof TimeoutFailure && cause.timeoutType === 'HEARTBEAT' ? cause.lastHeartbeatDetails : undefined;
}
