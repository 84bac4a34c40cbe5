/**
 * ForEach state: runs its actions once per element of inputCollection, in parallel (default,
 * at most batchSize at a time) or sequentially. Each iteration's data is the state data plus
 * `<iterationParam>: element`, and the element is also the expression variable
 * `$<iterationParam>`. An iteration's result is the merge of its actions' (filtered) results,
 * or — when its actions write with toStateData / return nothing — its data without the
 * iteration parameter. Results go to outputCollection in input order.
 */
import type { ForEachState, Json } from '../../dsl/model';
import { evalExpr, pathOf } from '../expr';
import { getAtPath, isObject, merge, setAtPath } from '../data/merge';
import { filteredResults, mergeResults } from '../data/filters';
import { invokeAction } from '../actions';
import { ActionError } from '../errors';
import { actionExecTimeout } from '../timeouts';
import type { Holder, Runtime } from '../runtime';

export async function runForEach(rt: Runtime, state: ForEachState, h: Holder): Promise<void> {
  const input = h.data;
  const coll = await evalExpr(state.inputCollection, input, rt.scope(), { state: state.name, what: 'inputCollection' });
  if (!Array.isArray(coll)) {
    throw new ActionError(
      { kind: 'runtime', code: 'inputCollection', message: `inputCollection ${JSON.stringify(state.inputCollection)} selected ${coll === null ? 'nothing' : typeof coll}, not an array` },
      { state: state.name },
    );
  }
  const param = state.iterationParam || 'item';
  const actionTimeout = actionExecTimeout(rt.def, state);

  const iterate = async (item: Json, i: number): Promise<Json> => {
    const vars = { [param]: item };
    const ctx = { rt, state, vars, actionTimeout, branch: `[${i}]` };
    let data: Json = isObject(input) ? { ...input, [param]: item } : { [param]: item };
    let contribution: Json | undefined;
    let wroteToPath = false;
    for (const [j, action] of state.actions.entries()) {
      const outcome = await invokeAction(ctx, action, j, data);
      if (outcome.skipped) continue;
      const value = await filteredResults(action.actionDataFilter, outcome.result, rt.scope(vars), state.name);
      if (action.actionDataFilter?.toStateData) wroteToPath = true;
      else if (value !== undefined) contribution = contribution === undefined ? value : merge(contribution, value);
      data = await mergeResults(action.actionDataFilter, data, value, rt.scope(vars), state.name);
    }
    if (contribution !== undefined && !wroteToPath) return contribution;
    if (isObject(data)) {
      const { [param]: _drop, ...rest } = data;
      return rest;
    }
    return data;
  };

  const results: Json[] = new Array(coll.length).fill(null);
  const width = state.mode === 'sequential' ? 1 : Math.max(1, state.batchSize ?? coll.length);
  let next = 0;
  const worker = async () => {
    while (next < coll.length) {
      const i = next++;
      results[i] = await iterate(coll[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, coll.length) }, worker));

  if (state.outputCollection) {
    const path = await pathOf(state.outputCollection, h.data, rt.scope(), { state: state.name, what: 'outputCollection' });
    const existing = getAtPath(h.data, path);
    h.data = setAtPath(h.data, path, Array.isArray(existing) ? [...existing, ...results] : results);
  }
}
