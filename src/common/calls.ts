/**
 * How a function call reaches its adapter: the activity type, the task queue and the header
 * that carries the call's context. One definition of these rules, shared by the interpreter
 * (which schedules the activity), the adapter SDK (which registers and serves it) and the test
 * runner. Sandbox-safe: no Node imports.
 */
import type { FunctionDef } from './model';
import { ADAPTER_TASK_QUEUE } from './contracts';
import { BUILTIN_ADAPTER, FUNCTION_ACTIVITY_OF_TYPE } from './call-kinds';

/**
 * The Temporal header that carries a call's {@link CallContext} (JSON payload): function,
 * workflow, state, action, secret-argument expressions, auth definitions. Headers are recorded
 * in history: it holds expressions, never secret values.
 */
export const CALL_HEADER = 'swflow-call';

/**
 * The activity type a function is called as: for `custom` functions the `operation` itself
 * (CWM's `<adapter>.<activity>`), otherwise its type's (./call-kinds.ts: `sw.rest`,
 * `sw.graphql`, ...), `sw.<type>` for an extension type.
 */
export function activityTypeOf(fn: Pick<FunctionDef, 'type' | 'operation'>): string {
  if (fn.type === 'custom') return fn.operation;
  return Object.hasOwn(FUNCTION_ACTIVITY_OF_TYPE, fn.type) ? FUNCTION_ACTIVITY_OF_TYPE[fn.type]! : adapterActivityType(BUILTIN_ADAPTER, fn.type);
}

/** The task queue a function's calls go to: its `metadata.worker`, else `swflow-adapters`. */
export function taskQueueOf(fn: Pick<FunctionDef, 'metadata'>): string {
  return fn.metadata?.worker || ADAPTER_TASK_QUEUE;
}

/** The activity type an adapter registers for one of its activities: `<adapter>.<activity>`. */
export function adapterActivityType(adapter: string, activity: string): string {
  return `${adapter}.${activity}`;
}

/** The HTTP methods that only read (RFC 9110 §9.2.1 "safe"): a call with one may be made again. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether `method` (any case) is a safe HTTP method; an expression or a missing method is not. */
export function isSafeMethod(method: unknown): boolean {
  return typeof method === 'string' && SAFE_METHODS.has(method.trim().toUpperCase());
}

/**
 * Whether a 0.8 function's calls only read (feature `local-reads`): a `rest` function the run's
 * resolve found to be a safe operation of its OpenAPI document (`readFunctions`), a `graphql`
 * query (`<endpoint>#query#<field>`), an `odata` query (the adapter only GETs).
 */
export function functionReads(fn: Pick<FunctionDef, 'name' | 'type' | 'operation'>, readFunctions: ReadonlySet<string>): boolean {
  if (fn.type === 'odata') return true;
  if (fn.type === 'graphql') return fn.operation.split('#')[1] === 'query';
  if (fn.type === 'rest') return readFunctions.has(fn.name);
  return false;
}
