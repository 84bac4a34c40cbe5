/**
 * Function calls. Expression functions are evaluated in the workflow; every other function
 * is a Temporal activity (`activityTypeOf`: `sw.<type>`, or the operation for `custom`) on the
 * function's queue (`taskQueueOf`: `metadata.worker`, else ADAPTER_TASK_QUEUE).
 * Arguments that reference $SECRETS travel unevaluated in `secretArguments`.
 *
 * With the `call-context-headers` feature the activity's input is the evaluated arguments alone
 * and the rest of the {@link FunctionCall} goes in the `swflow-call` header (interceptors.ts);
 * runs recorded before it send the whole FunctionCall as the input (and no secretContext/auth).
 */
import type { ActivityOptions, RetryPolicy } from '@temporalio/workflow';
import type { ActionDef, AuthDef, FunctionDef, Json, StateDef, WorkflowDef } from '../../common/model';
import type { FunctionCall } from '../../common/contracts';
import { activityTypeOf, functionReads, taskQueueOf } from '../../common/calls';
import { isLocalCall, servedByBuiltinAdapters } from '../../common/metadata';
import { parseDuration } from '../../common/duration';
import { evalExpr, evalExprSync, evalValue, evalValueSync, splitSecretArguments, SwExpressionError, type ExprScope, type ExprSite } from '../expressions';
import { merge } from './data/merge';
import { nativeRetryOf, withRetries } from './retry';
import { throughPlatformFailures } from '../platform-failures';
import { actionTimeoutError, callTimeouts, LEGACY_CALL_TIMEOUT_MS } from '../timeouts';
import { FEATURE_CALL_CONTEXT_HEADERS, FEATURE_CALL_IDS, FEATURE_EAGER_CALLS, FEATURE_LOCAL_CALLS, FEATURE_LOCAL_READS, FEATURE_PLATFORM_FAILURES, FEATURE_SCALED_HEARTBEATS, FEATURE_SELECTION_SET_EXPRESSIONS } from '../../common/features';
import { callActivityArgs, secretContextOfCall } from '../call-context';
import { nextCallId } from '../call-ids';
import type { StateContext } from './states/context';

const NO_READS: ReadonlySet<string> = new Set();

/** The document part of an operation (before the first `#`), which functions may share. */
const documentOf = (operation: string): string => operation.split('#')[0];

/**
 * The auth definitions a function's `authRef` names. For the resource (its document), the spec
 * says a resource auth given by any function with the same document applies to all of them.
 */
function authOf(def: WorkflowDef, fn: FunctionDef): FunctionCall['auth'] {
  const byName = (name: string | undefined): AuthDef | undefined => (name ? def.auth.find((a) => a.name === name) : undefined);
  const ref = fn.authRef;
  const invocation = byName(typeof ref === 'string' ? ref : ref?.invocation);
  const sharing = def.functions.find((f) => f.type === fn.type && typeof f.authRef === 'object' && documentOf(f.operation) === documentOf(fn.operation));
  const resource = byName(typeof ref === 'object' ? ref.resource : typeof sharing?.authRef === 'object' ? sharing.authRef.resource : undefined);
  if (!invocation && !resource) return undefined;
  return { ...(invocation ? { invocation } : {}), ...(resource ? { resource } : {}) };
}

/** The `${ }` strings of auth definitions' properties (what the adapter evaluates with the call's secretContext). */
function authExpressions(auth: FunctionCall['auth']): string[] {
  const out: string[] = [];
  const walk = (v: Json | undefined): void => {
    if (typeof v === 'string') {
      if (v.includes('${')) out.push(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(auth?.invocation?.properties);
  walk(auth?.resource?.properties);
  return out;
}

/**
 * A graphql action's selection set with its `${ }` evaluated ("Expressions must be evaluated
 * before executing the operation", spec 0.8): interpolated into the text, strings as they are and
 * other values as JSON (`age(useDogYears: ${ .isPetADog })` → `age(useDogYears: true)`).
 */
function evalSelectionSet(selectionSet: string, input: Json, scope: ExprScope, site: ExprSite): string {
  return checkedSelectionSet(evalValueSync(selectionSet, input, scope, site), selectionSet, site);
}

/** {@link evalSelectionSet} as runs without the `sync-expressions` feature await it (kept for their replay). */
async function evalSelectionSetAsync(selectionSet: string, input: Json, scope: ExprScope, site: ExprSite): Promise<string> {
  const value = await evalValue(selectionSet, input, scope, site);
  return checkedSelectionSet(value, selectionSet, site);
}

function checkedSelectionSet(value: Json | undefined, selectionSet: string, site: ExprSite): string {
  if (typeof value !== 'string') throw new SwExpressionError(`Expression ${JSON.stringify(selectionSet)} (state "${site.state}", ${site.what}) gave ${JSON.stringify(value)}, not a selection set (a string)`, selectionSet, site);
  return value;
}

/** The function an action's functionRef names, if the definition has it. */
export function functionOf(ctx: StateContext, name: string): FunctionDef | undefined {
  return ctx.def.functions.find((f) => f.name === name);
}

/**
 * An expression function's result, evaluated in the workflow: its operation over the action's
 * input merged with the evaluated arguments.
 */
export function callExpressionFunction(state: StateDef, fn: FunctionDef, action: ActionDef, label: string, input: Json, scope: ExprScope): Json {
  const ref = action.functionRef!;
  let data = input;
  if (ref.arguments && Object.keys(ref.arguments).length) data = merge(input, evalValueSync(ref.arguments, input, scope, { state: state.name, what: `action "${label}" arguments` }) ?? null);
  return evalExprSync(fn.operation, data, scope, { state: state.name, what: `expression function "${fn.name}"` });
}

export async function callFunction(
  ctx: StateContext,
  state: StateDef,
  action: ActionDef,
  label: string,
  input: Json,
  scope: ExprScope,
  actionTimeout: string | undefined,
): Promise<Json | undefined> {
  const ref = action.functionRef!;
  const fn = ctx.def.functions.find((f) => f.name === ref.refName);
  if (!fn) throw new Error(`Unknown function "${ref.refName}"`);
  const site = { state: state.name, what: `action "${label}" arguments` };

  if (fn.type === 'expression') {
    let data = input;
    if (ref.arguments && Object.keys(ref.arguments).length) data = merge(input, (await evalValue(ref.arguments, input, scope, site)) ?? null);
    return evalExpr(fn.operation, data, scope, { state: state.name, what: `expression function "${fn.name}"` });
  }

  const split = splitSecretArguments(ref.arguments ?? {}, scope.functions);
  const args = (ctx.sync ? evalValueSync(split.arguments, input, scope, site) : await evalValue(split.arguments, input, scope, site)) ?? {};
  const secrets = split.secretArguments ?? {};
  const selectionSite = { state: state.name, what: `action "${label}" selectionSet` };
  const selectionSet =
    ref.selectionSet && ctx.features.has(FEATURE_SELECTION_SET_EXPRESSIONS)
      ? ctx.sync
        ? evalSelectionSet(ref.selectionSet, input, scope, selectionSite)
        : await evalSelectionSetAsync(ref.selectionSet, input, scope, selectionSite)
      : ref.selectionSet;
  const info = ctx.info;
  const withHeaders = ctx.features.has(FEATURE_CALL_CONTEXT_HEADERS);
  const auth = withHeaders ? authOf(ctx.def, fn) : undefined;
  const call: FunctionCall = {
    function: { name: fn.name, type: fn.type, operation: fn.operation, metadata: fn.metadata ?? {}, ...(fn.authRef !== undefined ? { authRef: fn.authRef } : {}) },
    arguments: args,
    ...(selectionSet ? { selectionSet } : {}),
    ...(Object.keys(secrets).length ? { secretArguments: secrets } : {}),
    // What the secret expressions (and auth properties) read besides $SECRETS: the action's input and scope
    // (with minimal-secret-context: only what they read).
    ...(withHeaders && (Object.keys(secrets).length || auth) ? secretContextOfCall(ctx.features, [...Object.values(secrets), ...authExpressions(auth)], input, scope) : {}),
    ...(auth ? { auth } : {}),
    workflow: { id: info.workflowId, instanceId: info.runId, definitionId: ctx.def.id },
    state: state.name,
    action: action.name ?? action.id ?? label,
    // call-ids: one id for this call however often it is made (its retries are inside this function).
    ...(withHeaders && ctx.features.has(FEATURE_CALL_IDS) ? { callId: nextCallId(`${state.name}/${label}`, ctx.effects) } : {}),
  };
  const summary = ctx.summary(state.name, label, fn.name);
  const platform = ctx.features.has(FEATURE_PLATFORM_FAILURES);
  // scaled-heartbeats: the heartbeat timeout scaled to the actionExecTimeout, whose running out is named as such.
  const scaled = platform && ctx.features.has(FEATURE_SCALED_HEARTBEATS);
  // `swflow.local`: a local activity on this worker (the interpreter worker serves the built-in adapters);
  // local-reads: so are calls that only read, unless the metadata says `swflow.local: false`.
  const reads = ctx.features.has(FEATURE_LOCAL_READS) && functionReads(fn, ctx.readFunctions ?? NO_READS);
  const local = ctx.features.has(FEATURE_LOCAL_CALLS) && servedByBuiltinAdapters(fn) && isLocalCall(fn.metadata, ctx.def.metadata, reads);
  // eager-calls: a built-in call is an activity on the run's own queue (no taskQueue: the
  // workflow's), which the server hands back eagerly to the worker that scheduled it.
  const eager = !local && ctx.features.has(FEATURE_EAGER_CALLS) && servedByBuiltinAdapters(fn);
  const options: ActivityOptions = {
    ...(eager ? {} : { taskQueue: taskQueueOf(fn) }),
    ...(platform ? callTimeouts(fn, actionTimeout, scaled) : { startToCloseTimeout: actionTimeout ? parseDuration(actionTimeout) : LEGACY_CALL_TIMEOUT_MS }),
    retry: { maximumAttempts: 1 },
    summary,
  };
  const type = activityTypeOf(fn);
  // One args array per attempt: the interceptor finds the call's context by the array's identity.
  const activityArgs = (): unknown[] => callActivityArgs(call, withHeaders);
  // One execution of the call; a platform failure (a lost worker: platform-failures.ts) makes it again,
  // outside the definition's retries. `retry` is the Temporal RetryPolicy that performs the
  // definition's strategy, when one does (retry.ts).
  const { effects } = ctx;
  const execute = (retry?: RetryPolicy): Promise<Json> => {
    const once = (again?: string) => {
      const opts = { ...options, ...(retry ? { retry } : {}), ...(again ? { summary: `${summary} (again: ${again})`.slice(0, 200) } : {}) };
      return local ? effects.localCall<Json>(type, activityArgs(), opts) : effects.activity<Json>(type, activityArgs(), opts);
    };
    if (!platform) return once();
    const made = throughPlatformFailures(actionTimeout !== undefined, once, effects);
    return scaled && actionTimeout !== undefined ? made.catch((err) => Promise.reject(actionTimeoutError(err, actionTimeout))) : made;
  };
  if (ref.invoke === 'async') {
    // Fire and forget: errors are ignored, the state does not wait.
    // The run still waits for them to settle before it closes (so the calls are really made).
    ctx.background(execute());
    return undefined;
  }
  return withRetries(ctx.def, action, summary, (_n, retry) => execute(retry), nativeRetryOf(ctx.features), effects);
}
