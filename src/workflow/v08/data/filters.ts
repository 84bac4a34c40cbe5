/**
 * The spec's data filters (0.8, "Workflow Data"): state, action and event data filters.
 * Pure, synchronous functions of (data, filter) — they only evaluate expressions through
 * ../expr. Runs recorded without the `sync-expressions` feature await them (./filters-async.ts).
 */
import type { ActionDataFilterDef, EventDataFilterDef, Json, StateDataFilterDef } from '../../../common/model';
import type { CloudEventJson } from '../../../common/contracts';
import { evalExprSync, pathOfSync, type ExprScope } from '../../expressions';
import { merge, mergeAtPath } from './merge';

/** A filter result that selects nothing (null) leaves the data unfiltered, per spec. */
export function selected(result: Json, data: Json): Json {
  return result === null || result === undefined ? data : result;
}

export function filterStateInput(f: StateDataFilterDef | undefined, data: Json, scope: ExprScope, state: string): Json {
  if (!f?.input) return data;
  return selected(evalExprSync(f.input, data, scope, { state, what: 'stateDataFilter.input' }), data);
}

export function filterStateOutput(f: StateDataFilterDef | undefined, data: Json, scope: ExprScope, state: string): Json {
  if (!f?.output) return data;
  return selected(evalExprSync(f.output, data, scope, { state, what: 'stateDataFilter.output' }), data);
}

/** The data an action sees (`fromStateData`). */
export function actionInput(f: ActionDataFilterDef | undefined, data: Json, scope: ExprScope, state: string): Json {
  if (!f?.fromStateData) return data;
  return evalExprSync(f.fromStateData, data, scope, { state, what: 'actionDataFilter.fromStateData' });
}

/** The action's result as filtered by `results` (undefined when results are not used). */
export function filteredResults(f: ActionDataFilterDef | undefined, result: Json | undefined, scope: ExprScope, state: string): Json | undefined {
  if (f && f.useResults === false) return undefined;
  if (result === undefined || result === null) return undefined;
  if (!f?.results) return result;
  const v = evalExprSync(f.results, result, scope, { state, what: 'actionDataFilter.results' });
  return v === null ? undefined : v; // a results filter that selects nothing merges nothing
}

/** Merges an (already `results`-filtered) action result into the state data, at `toStateData` when given. */
export function mergeResults(f: ActionDataFilterDef | undefined, data: Json, value: Json | undefined, scope: ExprScope, state: string): Json {
  if (value === undefined) return data;
  if (f?.toStateData) {
    const path = pathOfSync(f.toStateData, data, scope, { state, what: 'actionDataFilter.toStateData' });
    return mergeAtPath(data, path, value);
  }
  return merge(data, value);
}

/** The payload event data filters see: `data` only, or the whole CloudEvent when the event is not dataOnly. */
export function eventPayload(event: CloudEventJson, dataOnly: boolean): Json | undefined {
  if (dataOnly) return event.data === undefined ? undefined : (event.data as Json);
  return JSON.parse(JSON.stringify(event)) as Json;
}

/** Merges a consumed event into the state data according to its eventDataFilter. */
export function mergeEvent(
  f: EventDataFilterDef | undefined,
  data: Json,
  event: CloudEventJson,
  dataOnly: boolean,
  scope: ExprScope,
  state: string,
): Json {
  if (f && f.useData === false) return data;
  const payload = eventPayload(event, dataOnly);
  if (payload === undefined || payload === null) return data;
  const value = f?.data ? evalExprSync(f.data, payload, scope, { state, what: 'eventDataFilter.data' }) : payload;
  if (value === null) return data;
  if (f?.toStateData) {
    const path = pathOfSync(f.toStateData, data, scope, { state, what: 'eventDataFilter.toStateData' });
    return mergeAtPath(data, path, value);
  }
  return merge(data, value);
}
