/**
 * Function calls. Expression functions are evaluated in the workflow; every other function
 * is a Temporal activity (`sw.<type>`, or the operation for `custom`) on the function's
 * `metadata.worker` queue (else ADAPTER_TASK_QUEUE), receiving a {@link FunctionCall}.
 * Arguments that reference $SECRETS travel unevaluated in `secretArguments`.
 */
import { scheduleActivity, type ActivityOptions } from '@temporalio/workflow';
import type { ActionDef, FunctionDef, Json, StateDef } from '../dsl/model';
import { ADAPTER_TASK_QUEUE, type FunctionCall } from '../common/contracts';
import { parseDuration } from '../dsl/duration';
import { evalExpr, evalValue, splitSecretArguments, type ExprScope } from './expr';
import { merge } from './data/merge';
import { withRetries } from './retry';
import { FEATURE_NATIVE_RETRY_POLICY } from './resolve';
import type { Runtime } from './runtime';

export function activityTypeOf(fn: FunctionDef): string {
  return fn.type === 'custom' ? fn.operation : `sw.${fn.type}`;
}

export function taskQueueOf(fn: FunctionDef): string {
  return fn.metadata?.worker || ADAPTER_TASK_QUEUE;
}

export async function callFunction(
  rt: Runtime,
  state: StateDef,
  action: ActionDef,
  label: string,
  input: Json,
  scope: ExprScope,
  actionTimeout: string | undefined,
): Promise<Json | undefined> {
  const ref = action.functionRef!;
  const fn = rt.def.functions.find((f) => f.name === ref.refName);
  if (!fn) throw new Error(`Unknown function "${ref.refName}"`);
  const site = { state: state.name, what: `action "${label}" arguments` };

  if (fn.type === 'expression') {
    let data = input;
    if (ref.arguments && Object.keys(ref.arguments).length) data = merge(input, (await evalValue(ref.arguments, input, scope, site)) ?? null);
    return evalExpr(fn.operation, data, scope, { state: state.name, what: `expression function "${fn.name}"` });
  }

  const split = splitSecretArguments(ref.arguments ?? {}, scope.functions);
  const args = (await evalValue(split.arguments, input, scope, site)) ?? {};
  const secrets = split.secretArguments ?? {};
  const info = rt.info;
  const call: FunctionCall = {
    function: { name: fn.name, type: fn.type, operation: fn.operation, metadata: fn.metadata ?? {}, ...(fn.authRef !== undefined ? { authRef: fn.authRef } : {}) },
    arguments: args,
    ...(ref.selectionSet ? { selectionSet: ref.selectionSet } : {}),
    ...(Object.keys(secrets).length ? { secretArguments: secrets } : {}),
    workflow: { id: info.workflowId, instanceId: info.runId, definitionId: rt.def.id },
    state: state.name,
    action: action.name ?? action.id ?? label,
  };
  const summary = rt.summary(state.name, label, fn.name);
  const options: ActivityOptions = {
    taskQueue: taskQueueOf(fn),
    startToCloseTimeout: actionTimeout ? parseDuration(actionTimeout) : rt.defaultActivityTimeoutMs,
    retry: { maximumAttempts: 1 },
    summary,
  };
  const type = activityTypeOf(fn);
  if (ref.invoke === 'async') {
    // Fire and forget: errors are ignored, the state does not wait.
    // The run still waits for them to settle before it closes (so the calls are really made).
    rt.background(scheduleActivity(type, [call], options));
    return undefined;
  }
  // `retry` is the activity's Temporal RetryPolicy when it expresses the strategy exactly (see retry.ts).
  return withRetries(rt.def, action, summary, (_n, retry) => scheduleActivity<Json>(type, [call], retry ? { ...options, retry } : options), rt.features.has(FEATURE_NATIVE_RETRY_POLICY));
}
