/**
 * Timeouts: stateExecTimeout (a state that runs too long raises a "timeout" error the
 * state's onErrors can handle), branchExecTimeout, actionExecTimeout resolution, and the
 * workflow's workflowExecTimeout. Every timer carries a summary.
 */
import { ActivityFailure, TimeoutFailure, type ActivityOptions } from '@temporalio/workflow';
import type { FunctionDef, StateDef, WorkflowDef } from '../common/model';
import { parseDuration } from '../common/duration';
import { HEARTBEAT_METADATA, heartbeatTimeoutMs } from '../common/metadata';
import { SwTimeoutError } from './v08/errors';
import { temporalEffects, type Effects } from './effects';

/**
 * "Unlimited" for a function call (spec 0.8: "if not defined, all the timeout settings should be
 * assumed to be 'unlimited'"): Temporal needs some activity timeout, so ten years.
 */
export const UNLIMITED_CALL_MS = 10 * 365 * 24 * 3600_000;

/** The start-to-close timeout of a call without actionExecTimeout on runs before the platform-failures feature. */
export const LEGACY_CALL_TIMEOUT_MS = 10 * 60_000;

/** The shortest heartbeat timeout scaled to a declared timeout: an adapter beats every third of it, and a beat is a server round trip. */
export const MIN_SCALED_HEARTBEAT_MS = 2_000;

/**
 * The heartbeat timeout (ms) of a call whose definition declares a timeout of `declaredMs`
 * (scaled-heartbeats): a third of it, at least {@link MIN_SCALED_HEARTBEAT_MS}, at most the
 * function's heartbeat timeout, so that a lost worker is noticed (and the call made again:
 * platform-failures.ts) before the declared timeout runs out and is not mistaken for it. An explicit
 * `swflow.heartbeat` is kept as written: it says how often that adapter can heartbeat (an
 * adapter that beats less often than a shorter timeout would be "lost" again and again).
 * Undefined: no heartbeat timeout (`off`).
 */
export function scaledHeartbeatMs(metadata: Record<string, string> | undefined, declaredMs: number | undefined): number | undefined {
  const configured = heartbeatTimeoutMs(metadata);
  const explicit = metadata?.[HEARTBEAT_METADATA] !== undefined && metadata[HEARTBEAT_METADATA] !== '';
  if (configured === undefined || explicit || declaredMs === undefined) return configured;
  return Math.min(configured, Math.max(MIN_SCALED_HEARTBEAT_MS, Math.floor(declaredMs / 3)));
}

/**
 * The timeouts of a function call's activity: start-to-close = the definition's actionExecTimeout
 * (per attempt: a call made again after a platform failure gets the whole of it again, as the
 * spec's "single action execution"), else {@link UNLIMITED_CALL_MS}; and the function's heartbeat
 * timeout (`metadata['swflow.heartbeat']`, default PT30S; none when `off`; with `scaled`, the
 * scaled-heartbeats feature, {@link scaledHeartbeatMs} of the actionExecTimeout), so that a lost
 * worker is noticed within it (platform-failures.ts) whatever the start-to-close is. A heartbeat timeout
 * not shorter than the start-to-close is left out (it would never fire first).
 */
export function callTimeouts(fn: FunctionDef, actionTimeout: string | undefined, scaled = false): Pick<ActivityOptions, 'startToCloseTimeout' | 'heartbeatTimeout'> {
  const startToClose = actionTimeout ? parseDuration(actionTimeout) : UNLIMITED_CALL_MS;
  const heartbeat = scaled ? scaledHeartbeatMs(fn.metadata, actionTimeout ? startToClose : undefined) : heartbeatTimeoutMs(fn.metadata);
  return { startToCloseTimeout: startToClose, ...(heartbeat !== undefined && heartbeat < startToClose ? { heartbeatTimeout: heartbeat } : {}) };
}

/**
 * The error of a call that ran out of the definition's actionExecTimeout (its start-to-close,
 * scaled-heartbeats): a timeout error naming the definition's timeout, not Temporal's.
 */
export function actionTimeoutError(err: unknown, actionTimeout: string): unknown {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (cause instanceof TimeoutFailure && cause.timeoutType === 'START_TO_CLOSE') return new SwTimeoutError(`the call did not finish within its actionExecTimeout ${actionTimeout}`);
  return err;
}

/**
 * Runs `fn`, cancelling it and raising SwTimeoutError(message) when `duration` passes first.
 * `effects`: the scopes and the timer (a fake in unit tests).
 */
export async function withTimeout<T>(duration: string | undefined, summary: string, message: string, fn: () => Promise<T>, effects: Effects = temporalEffects): Promise<T> {
  if (!duration) return fn();
  const ms = parseDuration(duration);
  let timedOut = false;
  const work = effects.scope();
  const timer = effects.scope();
  timer
    .run(() => effects.sleep(ms, summary))
    .then(() => {
      timedOut = true;
      work.cancel();
    })
    .catch(() => undefined);
  try {
    return await work.run(fn);
  } catch (err) {
    if (timedOut) throw new SwTimeoutError(message);
    throw err;
  } finally {
    if (!timedOut) timer.cancel();
  }
}

/**
 * The state's stateExecTimeout (the state's own, else the top-level one). `single` bounds one
 * execution of the state "not including retries" and `total` the execution including retries; the
 * 0.8 model has no state-level retries (retries are per action and happen inside the state's one
 * execution), so both bound the same execution and the shorter one applies.
 */
export function stateExecTimeout(def: WorkflowDef, state: StateDef): string | undefined {
  const t = state.timeouts?.stateExecTimeout ?? def.timeouts?.stateExecTimeout;
  if (!t) return undefined;
  const candidates = [t.single, t.total].filter((x): x is string => typeof x === 'string' && x !== '');
  if (!candidates.length) return undefined;
  return candidates.reduce((a, b) => (parseDuration(b) < parseDuration(a) ? b : a));
}

export function actionExecTimeout(def: WorkflowDef, state: StateDef, branch?: { timeouts?: { actionExecTimeout?: string } }): string | undefined {
  return branch?.timeouts?.actionExecTimeout ?? state.timeouts?.actionExecTimeout ?? def.timeouts?.actionExecTimeout;
}

export function branchExecTimeout(def: WorkflowDef, state: StateDef, branch?: { timeouts?: { branchExecTimeout?: string } }): string | undefined {
  return branch?.timeouts?.branchExecTimeout ?? state.timeouts?.branchExecTimeout ?? def.timeouts?.branchExecTimeout;
}

export function eventTimeout(def: WorkflowDef, state: StateDef): string | undefined {
  return state.timeouts?.eventTimeout ?? def.timeouts?.eventTimeout;
}
