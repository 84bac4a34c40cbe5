/**
 * Effects: every Temporal command an executor issues (activities, timers, conditions, child
 * workflows, cancellation scopes, deterministic ids and time) goes through this port, so a
 * state or task executor is a function of its context that a fake context can drive in a unit
 * test without a server (test/workflow/units/). The run host hands the real one,
 * {@link temporalEffects}, to both front ends.
 *
 * The real methods return the SDK's promises as they are (no `async` wrapper, no extra await):
 * an added microtask turn would change the order in which concurrent branches issue their
 * commands, and recorded histories must replay unchanged.
 */
import {
  CancellationScope,
  condition,
  executeChild,
  log,
  scheduleActivity,
  scheduleLocalActivity,
  sleep,
  startChild,
  uuid4,
  workflowInfo,
  type ActivityOptions,
  type ChildWorkflowOptions,
  type LocalActivityOptions,
  type WorkflowInfo,
} from '@temporalio/workflow';
import { scheduleLocalCall } from './interceptors';

/** A child workflow's options and its arguments. */
export type ChildOptions = ChildWorkflowOptions & { args?: unknown[] };

/** A cancellation scope: work run in it is cancelled together (a failed branch, a timeout). */
export interface Scope {
  run<T>(fn: () => Promise<T>): Promise<T>;
  cancel(): void;
}

export interface Effects {
  /** An activity (a call, an event produced, a process run). */
  activity<R>(type: string, args: unknown[], options: ActivityOptions): Promise<R>;
  /** A function call as a local activity on this worker (`swflow.local`). */
  localCall<R>(type: string, args: unknown[], options: ActivityOptions): Promise<R>;
  /** One of the interpreter's own local activities (data-schema validation, pinning). */
  localActivity<R>(type: string, args: unknown[], options: LocalActivityOptions): Promise<R>;
  /** A durable timer. */
  sleep(ms: number, summary?: string): Promise<void>;
  /** Waits until `fn` holds (re-checked after every signal and timer). */
  condition(fn: () => boolean): Promise<void>;
  /** Waits until `fn` holds or `timeoutMs` passes: false when the time passed first. */
  conditionWithin(fn: () => boolean, timeoutMs: number, summary?: string): Promise<boolean>;
  /** A child workflow, awaited to its result. */
  executeChild<R>(type: string, options: ChildOptions): Promise<R>;
  /** A child workflow, started only (resolves once it started). */
  startChild(type: string, options: ChildOptions): Promise<unknown>;
  /** A new cancellation scope under the current one. */
  scope(): Scope;
  /** Runs `fn` shielded from cancellation (compensation, runBefore). */
  nonCancellable<T>(fn: () => Promise<T>): Promise<T>;
  /** True when the current scope was cancelled (a cancelled call is not made again). */
  cancelled(): boolean;
  /** A deterministic UUID v4. */
  uuid4(): string;
  /** Workflow time, epoch ms: the run's clock. */
  now(): number;
  /** What Temporal says of the run now (ids, task queue, history length, continue-as-new suggested). */
  info(): WorkflowInfo;
  /** A warning in the worker's log (a call made again); absent: not logged. */
  warn?(message: string, attributes?: Record<string, unknown>): void;
}

export type { ActivityOptions, ChildWorkflowOptions, LocalActivityOptions, WorkflowInfo };

/** The run's clock as an ISO date (the times of lifecycle events). */
export function nowIso(effects: Effects): string {
  return new Date(effects.now()).toISOString();
}

const EFFECTS: readonly (keyof Effects)[] = ['activity', 'localCall', 'localActivity', 'sleep', 'condition', 'conditionWithin', 'executeChild', 'startChild', 'scope', 'nonCancellable', 'cancelled', 'uuid4', 'now', 'info', 'warn'];

/**
 * `effects` as a plain object of functions bound to it, for a wrapper to override some of:
 * `{ ...boundEffects(e), activity: … }` (a class's methods, such as a test's fake effects', do
 * not spread).
 */
export function boundEffects(effects: Effects): Effects {
  const out: Record<string, unknown> = {};
  for (const k of EFFECTS) {
    const f = effects[k];
    if (typeof f === 'function') out[k] = (f as (...args: unknown[]) => unknown).bind(effects);
  }
  return out as unknown as Effects;
}

/** The real effects: Temporal's workflow APIs. */
export const temporalEffects: Effects = {
  activity: (type, args, options) => scheduleActivity(type, args, options),
  localCall: (type, args, options) => scheduleLocalCall(type, args, options),
  localActivity: (type, args, options) => scheduleLocalActivity(type, args, options),
  sleep: (ms, summary) => sleep(ms, summary ? { summary } : undefined),
  condition: (fn) => condition(fn),
  conditionWithin: (fn, timeoutMs, summary) => condition(fn, timeoutMs, summary ? { summary } : {}),
  executeChild: (type, options) => executeChild(type, options),
  startChild: (type, options) => startChild(type, options),
  scope: () => new CancellationScope(),
  nonCancellable: (fn) => CancellationScope.nonCancellable(fn),
  cancelled: () => CancellationScope.current().consideredCancelled,
  uuid4: () => uuid4(),
  now: () => Date.now(),
  info: () => workflowInfo(),
  warn: (message, attributes) => log.warn(message, attributes),
};
