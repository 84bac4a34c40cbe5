/**
 * Workflow interceptors of the interpreter (registered by the worker's bundle,
 * `workflowInterceptorModules`):
 * - before every command that makes the run wait (an activity, a local activity, a timer, a
 *   child workflow, continue-as-new), the search attributes that changed are written, as one
 *   event (see Tracker in host/tracker.ts);
 * - a function call's context goes out as the `swflow-call` header of its activity (or local
 *   activity: `swflow.local` calls)
 *   (functions.ts hands it over with {@link withCallContext});
 * - each activation is noted first, so the run sees where a reset (a redrive) re-did its history
 *   (host/redrive.ts);
 * - in a traced run, a call is scheduled with its step's span (or its 0.8 action's) active, so
 *   the StartActivity span of Temporal's OpenTelemetry interceptors (after these) is its child
 *   (host/tracing.ts).
 */
import { defaultPayloadConverter, scheduleLocalActivity, type ActivityOptions, type Payload, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import type { CallContext } from '../common/contracts';
import { CALL_HEADER } from '../common/calls';
import { beforeBlocking, drawDetails } from './host/tracker';
import { aroundCall } from './host/tracing';
import { noteActivation } from './host/resets';

/** Call contexts by the identity of the args array they go out with (see withCallContext). */
const contexts = new WeakMap<unknown[], CallContext>();

/**
 * Marks an activity's args array as a function call with this context: the outbound interceptor
 * sends the context as the `swflow-call` header. (scheduleActivity has no header parameter; the
 * array is the one thing that reaches the interceptor unchanged.)
 */
export function withCallContext(args: unknown[], context: CallContext): unknown[] {
  contexts.set(args, context);
  return args;
}

/** The context an args array goes out with (its `swflow-call` header), if it is a call's. */
export function callContextOf(args: unknown[]): CallContext | undefined {
  return contexts.get(args);
}

/** Args arrays of local calls (`swflow.local`): see {@link scheduleLocalCall}. */
const localCalls = new WeakSet<unknown[]>();

/**
 * A function call (0.8 or 1.0, `swflow.local`) as a local activity on this worker, with the
 * options its activity would have had, less what a local activity has not (a task queue, a
 * heartbeat timeout). Scheduling it does not write the changed search attributes, since the run
 * does not block on the server (consecutive local calls run in one workflow task): they are
 * written at the run's next real block or its end, as one upsert. Only runs with the
 * `local-calls` feature make local calls, so no recorded history changes.
 */
export function scheduleLocalCall<R>(type: string, args: unknown[], options: ActivityOptions): Promise<R> {
  const { taskQueue: _queue, heartbeatTimeout: _heartbeat, ...local } = options;
  localCalls.add(args);
  return scheduleLocalActivity<R>(type, args, local);
}

/** A call of an older run, sent whole as the activity's input (no `swflow-call` header): its state and action. */
function wholeCall(args: unknown[]): { state?: string; action?: string } | undefined {
  const c = args[0] as { state?: unknown; action?: unknown; workflow?: unknown } | undefined;
  return c && typeof c === 'object' && typeof c.state === 'string' && c.workflow ? { state: c.state, action: typeof c.action === 'string' ? c.action : undefined } : undefined;
}

/** An activity (or local activity) goes out: a call's with its `swflow-call` header, within its step's span when the run is traced. */
function sendCall<I extends { args: unknown[]; headers: Record<string, Payload> }, R>(input: I, next: (input: I) => Promise<R>): Promise<R> {
  const context = contexts.get(input.args);
  const call = context ?? wholeCall(input.args);
  return aroundCall(call?.state, call?.action, () => (context ? next({ ...input, headers: { ...input.headers, [CALL_HEADER]: defaultPayloadConverter.toPayload(context) } }) : next(input)));
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  // Each activation, before its jobs: a reset (a redrive) shows as a new randomness seed (host/redrive.ts).
  internals: [
    {
      activate(input, next) {
        noteActivation(input.activation);
        return next(input);
      },
      // The current details once per activation, however many steps and calls it saw.
      concludeActivation(input, next) {
        drawDetails();
        return next(input);
      },
    },
  ],
  outbound: [
    {
      scheduleActivity(input, next) {
        // A function call (it has a call context) or another wait: see Tracker.flushBeforeCall.
        beforeBlocking(contexts.has(input.args as unknown[]) ? 'call' : 'wait');
        return sendCall(input, next);
      },
      scheduleLocalActivity(input, next) {
        if (!localCalls.has(input.args as unknown[])) beforeBlocking();
        return sendCall(input, next);
      },
      startTimer(input, next) {
        beforeBlocking();
        return next(input);
      },
      startChildWorkflowExecution(input, next) {
        beforeBlocking();
        return next(input);
      },
      continueAsNew(input, next) {
        beforeBlocking();
        return next(input);
      },
    },
  ],
});
