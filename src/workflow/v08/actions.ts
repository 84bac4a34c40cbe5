/**
 * Actions: condition, sleep before/after, actionDataFilter, and the three kinds
 * (functionRef, subFlowRef, eventRef). Results are merged into the state data per spec.
 */
import type { ActionDef, Json, StateDef } from '../../common/model';
import { parseDuration } from '../../common/duration';
import { evalCondition, evalConditionSync, type ExprScope } from '../expressions';
import { actionInput, eventPayload, filteredResults, mergeResults } from './data/filters';
import { actionInputAsync, filteredResultsAsync, mergeResultsAsync } from './data/filters-async';
import { callExpressionFunction, callFunction, functionOf } from './functions';
import { runSubflow } from './subflows';
import { buildEvent, emitEvent } from '../events/produce';
import { ActionError, SwTimeoutError, classify, isCancellation, type ErrorSite } from './errors';
import { actionLabel } from '../host/tracker';
import type { StateContext } from './states/context';

/** Where actions run: the run's context, their state, and what a branch or iteration adds. */
export interface ActionCtx {
  ctx: StateContext;
  state: StateDef;
  /** Extra expression variables ($<iterationParam> in foreach). */
  vars?: Record<string, Json>;
  actionTimeout?: string;
  /** Prefix for labels (a parallel branch name). */
  branch?: string;
}

export interface ActionOutcome {
  skipped: boolean;
  /** The raw result; undefined when there is none (async invocations, no results). */
  result?: Json;
}

function siteOf(state: StateDef, action: ActionDef, label: string): ErrorSite {
  const site: ErrorSite = { state: state.name, action: label };
  if (action.functionRef) site.function = action.functionRef.refName;
  if (action.subFlowRef) site.subflow = action.subFlowRef.workflowId;
  if (action.eventRef) site.event = action.eventRef.produceEventRef;
  return site;
}

export async function invokeAction(ac: ActionCtx, action: ActionDef, index: number, data: Json): Promise<ActionOutcome> {
  const { ctx, state } = ac;
  const label = (ac.branch ? `${ac.branch} › ` : '') + actionLabel(action, index);
  const scope: ExprScope = ctx.scope(ac.vars);
  const site = siteOf(state, action, label);
  try {
    if (action.condition) {
      const site = { state: state.name, what: `action "${label}" condition` };
      if (!(ctx.sync ? evalConditionSync(action.condition, data, scope, site) : await evalCondition(action.condition, data, scope, site))) return { skipped: true };
    }
    if (action.sleep?.before) await ctx.effects.sleep(parseDuration(action.sleep.before), ctx.summary(state.name, label, `sleep ${action.sleep.before} before`));
    const input = ctx.sync ? actionInput(action.actionDataFilter, data, scope, state.name) : await actionInputAsync(action.actionDataFilter, data, scope, state.name);
    let result: Json | undefined;
    // With sync-expressions an expression function is evaluated here and now, not awaited.
    const fn = ctx.sync && action.functionRef ? functionOf(ctx, action.functionRef.refName) : undefined;
    if (fn?.type === 'expression') result = callExpressionFunction(state, fn, action, label, input, scope);
    else if (action.functionRef) result = await callFunction(ctx, state, action, label, input, scope, ac.actionTimeout);
    else if (action.subFlowRef) result = await runSubflow(ctx, state, action, label, input, ac.actionTimeout);
    else if (action.eventRef) {
      const er = action.eventRef;
      const summary = ctx.summary(state.name, label, `produce ${er.produceEventRef}`);
      const ce = await buildEvent(ctx, er.produceEventRef, er.data, er.contextAttributes, input, scope, state.name);
      await emitEvent(ctx, ce, summary);
      if (er.consumeEventRef && er.invoke !== 'async') {
        // Spec: consumeEventTimeout, "if not defined it should be set to the actionExecutionTimeout"
        // (the branch's, state's or workflow's); then the state's/workflow's eventTimeout.
        const timeout = er.consumeEventTimeout ?? ac.actionTimeout ?? state.timeouts?.eventTimeout ?? ctx.def.timeouts?.eventTimeout;
        const got = await ctx.mailbox.take([er.consumeEventRef], timeout ? parseDuration(timeout) : undefined, ctx.summary(state.name, label, `wait for ${er.consumeEventRef}`));
        if (!got) throw new SwTimeoutError(`no "${er.consumeEventRef}" event within ${timeout} (${er.consumeEventTimeout ? 'consumeEventTimeout' : ac.actionTimeout ? 'actionExecTimeout' : 'eventTimeout'})`);
        result = eventPayload(got.event, got.def.dataOnly);
      }
    }
    if (action.sleep?.after) await ctx.effects.sleep(parseDuration(action.sleep.after), ctx.summary(state.name, label, `sleep ${action.sleep.after} after`));
    return { skipped: false, result };
  } catch (err) {
    if (isCancellation(err) || err instanceof ActionError) throw err;
    throw new ActionError(classify(err), site);
  }
}

/** Merges an action's outcome into the state data (actionDataFilter results/toStateData/useResults). */
export function applyAction(ac: ActionCtx, action: ActionDef, data: Json, outcome: ActionOutcome): Json {
  if (outcome.skipped) return data;
  const scope = ac.ctx.scope(ac.vars);
  const value = filteredResults(action.actionDataFilter, outcome.result, scope, ac.state.name);
  return mergeResults(action.actionDataFilter, data, value, scope, ac.state.name);
}

/** {@link applyAction} as runs without the `sync-expressions` feature await it (kept for their replay). */
export async function applyActionAsync(ac: ActionCtx, action: ActionDef, data: Json, outcome: ActionOutcome): Promise<Json> {
  if (outcome.skipped) return data;
  const scope = ac.ctx.scope(ac.vars);
  const value = await filteredResultsAsync(action.actionDataFilter, outcome.result, scope, ac.state.name);
  return mergeResultsAsync(action.actionDataFilter, data, value, scope, ac.state.name);
}

/** Runs actions sequentially or in parallel; returns the resulting state data. */
export async function runActions(ac: ActionCtx, actions: ActionDef[], mode: 'sequential' | 'parallel', data: Json, onData?: (d: Json) => void): Promise<Json> {
  if (mode === 'parallel' && actions.length > 1) {
    // One failing action cancels the others (then the state's error handling sees the failure).
    const scope = ac.ctx.effects.scope();
    let outcomes: ActionOutcome[];
    try {
      outcomes = await scope.run(() => Promise.all(actions.map((a, i) => invokeAction(ac, a, i, data))));
    } catch (err) {
      scope.cancel();
      throw err;
    }
    for (let i = 0; i < actions.length; i++) {
      data = ac.ctx.sync ? applyAction(ac, actions[i], data, outcomes[i]) : await applyActionAsync(ac, actions[i], data, outcomes[i]);
      onData?.(data);
    }
    return data;
  }
  for (let i = 0; i < actions.length; i++) {
    const outcome = await invokeAction(ac, actions[i], i, data);
    data = ac.ctx.sync ? applyAction(ac, actions[i], data, outcome) : await applyActionAsync(ac, actions[i], data, outcome);
    onData?.(data);
  }
  return data;
}
