/**
 * Timeouts: stateExecTimeout (a state that runs too long raises a "timeout" error the
 * state's onErrors can handle), branchExecTimeout, actionExecTimeout resolution, and the
 * workflow's workflowExecTimeout. Every timer carries a summary.
 */
import type { ActivityOptions } from '@temporalio/workflow';
import type { FunctionDef, StateDef, WorkflowDef } from '../common/model';
import { parseDuration } from '../common/duration';
import { heartbeatTimeoutMs } from '../common/metadata';
import { SwTimeoutError } from './errors';
import { temporalEffects, type Effects } from './effects';

/**
 * "Unlimited" for a function call (spec 0.8: "if not defined, all the timeout settings should be
 * assumed to be 'unlimited'"): Temporal needs some activity timeout, so ten years.
 */
export const UNLIMITED_CALL_MS = 10 * 365 * 24 * 3600_000;

/** The start-to-close timeout of a call without actionExecTimeout on runs before the platform-failures feature. */
export const LEGACY_CALL_TIMEOUT_MS = 10 * 60_000;

/**
 * The timeouts of a function call's activity: start-to-close = the definition's actionExecTimeout
 * (per attempt), else {@link UNLIMITED_CALL_MS}; and the function's heartbeat timeout
 * (`metadata['swflow.heartbeat']`, default PT30S; none when `off`), so that a lost worker is
 * noticed within it (platform.ts) whatever the start-to-close is.
 */
export function callTimeouts(fn: FunctionDef, actionTimeout: string | undefined): Pick<ActivityOptions, 'startToCloseTimeout' | 'heartbeatTimeout'> {
  const startToClose = actionTimeout ? parseDuration(actionTimeout) : UNLIMITED_CALL_MS;
  const heartbeat = heartbeatTimeoutMs(fn.metadata);
  return { startToCloseTimeout: startToClose, ...(heartbeat !== undefined && heartbeat < startToClose ? { heartbeatTimeout: heartbeat } : {}) };
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
