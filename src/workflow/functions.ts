/**
 * Function calls. Expression functions are evaluated in the workflow; every other function
 * is a Temporal activity (`sw.<type>`, or the operation for `custom`) on the function's
 * `metadata.worker` queue (else ADAPTER_TASK_QUEUE), receiving a {@link FunctionCall}.
 * Arguments that reference $SECRETS travel unevaluated in `secretArguments`.
 */
import { scheduleActivity, type ActivityOptions, type RetryPolicy } from '@temporalio/workflow';
import type { ActionDef, FunctionDef, Json, StateDef } from '../dsl/model';
import { ADAPTER_TASK_QUEUE, type FunctionCall } from '../common/contracts';
import { parseDuration } from '../dsl/duration';
import { evalExpr, evalValue, splitSecretArguments, type ExprScope } from './expr';
import { merge } from './data/merge';
import { nativeRetryOf, withRetries } from './retry';
import { throughPlatformFailures } from './platform';
import { callTimeouts, LEGACY_CALL_TIMEOUT_MS } from './timeouts';
import { FEATURE_PLATFORM_FAILURES } from './resolve';
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
  const platform = rt.features.has(FEATURE_PLATFORM_FAILURES);
  const options: ActivityOptions = {
    taskQueue: taskQueueOf(fn),
    ...(platform ? callTimeouts(fn, actionTimeout) : { startToCloseTimeout: actionTimeout ? parseDuration(actionTimeout) : LEGACY_CALL_TIMEOUT_MS }),
    retry: { maximumAttempts: 1 },
    summary,
  };
  const type = activityTypeOf(fn);
  // One execution of the call; a platform failure (a lost worker: platform.ts) makes it again,
  // outside the definition's retries. `retry` is the Temporal RetryPolicy that performs the
  // definition's strategy, when one does (retry.ts).
  const execute = (retry?: RetryPolicy): Promise<Json> => {
    const once = (again?: string) =>
      scheduleActivity<Json>(type, [call], { ...options, ...(retry ? { retry } : {}), ...(again ? { summary: `${summary} (again: ${again})`.slice(0, 200) } : {}) });
    return platform ? throughPlatformFailures(actionTimeout !== undefined, once) : once();
  };
  if (ref.invoke === 'async') {
    // Fire and forget: errors are ignored, the state does not wait.
    // The run still waits for them to settle before it closes (so the calls are really made).
    rt.background(execute());
    return undefined;
  }
  return withRetries(rt.def, action, summary, (_n, retry) => execute(retry), nativeRetryOf(rt.features));
}
