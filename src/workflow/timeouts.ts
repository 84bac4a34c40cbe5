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

export function stateExecTimeout(def: WorkflowDef, state: StateDef): string | undefined {
  return state.timeouts?.stateExecTimeout?.total ?? def.timeouts?.stateExecTimeout?.total;
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
