/**
 * How a function call reaches its adapter: the activity type, the task queue and the header
 * that carries the call's context. One definition of these rules, shared by the interpreter
 * (which schedules the activity), the adapter SDK (which registers and serves it) and the test
 * runner. Sandbox-safe: no Node imports.
 */
import type { FunctionDef } from './model';
import { ADAPTER_TASK_QUEUE } from './contracts';

/**
 * The Temporal header that carries a call's {@link CallContext} (JSON payload): function,
 * workflow, state, action, secret-argument expressions, auth definitions. Headers are recorded
 * in history: it holds expressions, never secret values.
 */
export const CALL_HEADER = 'swflow-call';

/** The adapter name of swflow's built-in protocol adapters: `sw.rest`, `sw.graphql`, ... */
export const BUILTIN_ADAPTER = 'sw';

/**
 * The activity type a function is called as: for `custom` functions the `operation` itself
 * (CWM's `<adapter>.<activity>`), otherwise `sw.<type>` (`sw.rest`, `sw.graphql`, ...).
 */
export function activityTypeOf(fn: Pick<FunctionDef, 'type' | 'operation'>): string {
  return fn.type === 'custom' ? fn.operation : `${BUILTIN_ADAPTER}.${fn.type}`;
}

/** The task queue a function's calls go to: its `metadata.worker`, else `swflow-adapters`. */
export function taskQueueOf(fn: Pick<FunctionDef, 'metadata'>): string {
  return fn.metadata?.worker || ADAPTER_TASK_QUEUE;
}

/** The activity type an adapter registers for one of its activities: `<adapter>.<activity>`. */
export function adapterActivityType(adapter: string, activity: string): string {
  return `${adapter}.${activity}`;
}
