/**
 * Timeouts: stateExecTimeout (a state that runs too long raises a "timeout" error the
 * state's onErrors can handle), branchExecTimeout, actionExecTimeout resolution, and the
 * workflow's workflowExecTimeout. Every timer carries a summary.
 */
import { CancellationScope, sleep } from '@temporalio/workflow';
import type { StateDef, WorkflowDef } from '../dsl/model';
import { parseDuration } from '../dsl/duration';
import { SwTimeoutError } from './errors';

/** Runs `fn`, cancelling it and raising SwTimeoutError(message) when `duration` passes first. */
export async function withTimeout<T>(duration: string | undefined, summary: string, message: string, fn: () => Promise<T>): Promise<T> {
  if (!duration) return fn();
  const ms = parseDuration(duration);
  let timedOut = false;
  const work = new CancellationScope();
  const timer = new CancellationScope();
  timer
    .run(() => sleep(ms, { summary }))
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
