/**
 * The data filters of ./filters.ts as runs recorded without the `sync-expressions` feature
 * evaluate them: each an async function awaiting its expression. Kept as they were: the
 * microtask turns they take decide the order in which concurrent branches issued their commands
 * in those runs' histories.
 */
import type { ActionDataFilterDef, EventDataFilterDef, Json, StateDataFilterDef } from '../../../common/model';
import type { CloudEventJson } from '../../../common/contracts';
import { evalExpr, pathOf, type ExprScope } from '../../expressions';
import { merge, mergeAtPath } from './merge';
import { eventPayload, selected } from './filters';

export async function filterStateInputAsync(f: StateDataFilterDef | undefined, data: Json, scope: ExprScope, state: string): Promise<Json> {
  if (!f?.input) return data;
  return selected(await evalExpr(f.input, data, scope, { state, what: 'stateDataFilter.input' }), data);
}

export async function filterStateOutputAsync(f: StateDataFilterDef | undefined, data: Json, scope: ExprScope, state: string): Promise<Json> {
  if (!f?.output) return data;
  return selected(await evalExpr(f.output, data, scope, { state, what: 'stateDataFilter.output' }), data);
}

/** The data an action sees (`fromStateData`). */
export async function actionInputAsync(f: ActionDataFilterDef | undefined, data: Json, scope: ExprScope, state: string): Promise<Json> {
  if (!f?.fromStateData) return data;
  return evalExpr(f.fromStateData, data, scope, { state, what: 'actionDataFilter.fromStateData' });
}

/** The action's result as filtered by `results` (undefined when results are not used). */
export async function filteredResultsAsync(f: ActionDataFilterDef | undefined, result: Json | undefined, scope: ExprScope, state: string): Promise<Json | undefined> {
  if (f && f.useResults === false) return undefined;
  if (result === undefined || result === null) return undefined;
  if (!f?.results) return result;
  const v = await evalExpr(f.results, result, scope, { state, what: 'actionDataFilter.results' });
  return v === null ? undefined : v; // a results filter that selects nothing merges nothing
}

/** Merges an (already `results`-filtered) action result into the state data, at `toStateData` when given. */
export async function mergeResultsAsync(f: ActionDataFilterDef | undefined, data: Json, value: Json | undefined, scope: ExprScope, state: string): Promise<Json> {
  if (value === undefined) return data;
  if (f?.toStateData) {
    const path = await pathOf(f.toStateData, data, scope, { state, what: 'actionDataFilter.toStateData' });
    return mergeAtPath(data, path, value);
  }
  return merge(data, value);
}

/** Merges a consumed event into the state data according to its eventDataFilter. */
export async function mergeEventAsync(
  f: EventDataFilterDef | undefined,
  data: Json,
  event: CloudEventJson,
  dataOnly: boolean,
  scope: ExprScope,
  state: string,
): Promise<Json> {
  if (f && f.useData === false) return data;
  const payload = eventPayload(event, dataOnly);
  if (payload === undefined || payload === null) return data;
  const value = f?.data ? await evalExpr(f.data, payload, scope, { state, what: 'eventDataFilter.data' }) : payload;
  if (value === null) return data;
  if (f?.toStateData) {
    const path = await pathOf(f.toStateData, data, scope, { state, what: 'eventDataFilter.toStateData' });
    return mergeAtPath(data, path, value);
  }
  return merge(data, value);
}
