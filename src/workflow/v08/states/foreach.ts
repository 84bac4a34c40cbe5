/**
 * ForEach state: runs its actions once per element of inputCollection, in parallel (default,
 * at most batchSize at a time) or sequentially. Each iteration's data is the state data plus
 * `<iterationParam>: element`, and the element is also the expression variable
 * `$<iterationParam>`. An iteration's result is the merge of its actions' (filtered) results,
 * or — when its actions write with toStateData / return nothing — its data without the
 * iteration parameter. Results go to outputCollection in input order.
 *
 * Temporal's limits (events per run, pending activities) are kept invisible: at most
 * MAX_IN_FLIGHT iterations run at once in one run, and a collection larger than the chunk size
 * (FOREACH_CHUNK, or metadata `swflow.foreachChunk`) is fanned out to child workflows of the
 * same generic workflow, each running one slice of the iterations (StartOptions.carried). With
 * the `foreach-chunk-slices` feature a child gets its slice and the state data without the
 * collection (when inputCollection designates a path in it): the iterations of a chunked foreach
 * do not see the collection itself in their data. Before it, every child got the whole data and
 * took its slice of the collection there. With `iteration-failure-index` a chunk's failure is
 * raised in the parent as the failing iteration's own error (its site names `[index]`).
 */
import type { ForEachState, Json } from '../../../common/model';
import type { StartOptions } from '../../../common/contracts';
import { evalExpr, evalExprSync, pathOf, pathOfSync } from '../../expressions';
import { getAtPath, isObject, merge, setAtPath, withoutPath } from '../data/merge';
import { filteredResults, mergeResults } from '../data/filters';
import { filteredResultsAsync, mergeResultsAsync } from '../data/filters-async';
import { invokeAction } from '../actions';
import { ActionError, iterationFailure } from '../errors';
import { actionExecTimeout } from '../../timeouts';
import { FEATURE_FOREACH_CHUNK_SLICES, FEATURE_ITERATION_FAILURE_INDEX } from '../../../common/features';
import type { Effects } from '../../effects';
import type { Holder, StateContext } from './context';

/** Iterations per run; larger collections are split across child workflows. */
export const FOREACH_CHUNK = 500;
/** Iterations in flight at once in one run (below Temporal's 2,000 pending activities). */
export const MAX_IN_FLIGHT = 200;
/** Chunk child workflows in flight at once (parallel mode). */
export const MAX_CHUNKS_IN_FLIGHT = 8;

/** What a foreach chunk child receives in StartOptions.carried. */
export interface ForEachChunk {
  foreachChunk: {
    state: string;
    offset: number;
    count: number;
    /**
     * The chunk's elements (`foreach-chunk-slices`); the child's input is then the state data
     * without the collection. Absent: the child evaluates inputCollection over its input (the
     * whole state data) and takes elements offset..offset+count-1.
     */
    items?: Json[];
  };
}

function chunkSize(ctx: StateContext): number {
  const v = Number(ctx.def.metadata?.['swflow.foreachChunk']);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : FOREACH_CHUNK;
}

/** The state's inputCollection over its data (an `inputCollection` error when it is not an array). */
function collection(ctx: StateContext, state: ForEachState, input: Json): Json[] {
  return checkedCollection(evalExprSync(state.inputCollection, input, ctx.scope(), { state: state.name, what: 'inputCollection' }), state);
}

/** {@link collection} as runs without the `sync-expressions` feature await it (kept for their replay). */
async function collectionAsync(ctx: StateContext, state: ForEachState, input: Json): Promise<Json[]> {
  const coll = await evalExpr(state.inputCollection, input, ctx.scope(), { state: state.name, what: 'inputCollection' });
  return checkedCollection(coll, state);
}

function checkedCollection(coll: Json, state: ForEachState): Json[] {
  if (!Array.isArray(coll)) {
    throw new ActionError(
      { kind: 'runtime', code: 'inputCollection', message: `inputCollection ${JSON.stringify(state.inputCollection)} selected ${coll === null ? 'nothing' : typeof coll}, not an array` },
      { state: state.name },
    );
  }
  return coll;
}

/**
 * Runs `n` tasks with at most `width` at a time; results in index order. The first failure
 * fails the whole pool: no further task starts and the running ones are cancelled (`settle`:
 * waited for), their later failures ignored, so the state's error handling sees exactly one error.
 */
async function pool<T>(effects: Effects, n: number, width: number, task: (i: number) => Promise<T>, settle = false): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  let failed = false;
  const scope = effects.scope();
  const worker = async () => {
    while (next < n && !failed) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  let workers: Promise<void>[] = [];
  try {
    await scope.run(() => Promise.all((workers = Array.from({ length: Math.min(Math.max(1, width), n) }, worker))));
  } catch (err) {
    failed = true;
    // With iteration-failure-index the iterations running end by themselves before the failure
    // goes on (none starts after it): cancelling local calls in flight (reads) next to the one that
    // failed hit the SDK's "[TMPRL1100] Nondeterminism error: Invalid transition in state machine",
    // failing the workflow task again and again (a 1,500-item foreach never failed).
    if (settle) await Promise.allSettled(workers);
    else scope.cancel();
    throw err;
  }
  return out;
}

/** Runs the iterations of items[0..] (global indices offset..) in this run. */
export async function iterate(ctx: StateContext, state: ForEachState, input: Json, items: Json[], offset: number): Promise<Json[]> {
  const param = state.iterationParam || 'item';
  const actionTimeout = actionExecTimeout(ctx.def, state);
  const one = async (item: Json, index: number): Promise<Json> => {
    const vars = { [param]: item };
    const ac = { ctx, state, vars, actionTimeout, branch: `[${index}]` };
    let data: Json = isObject(input) ? { ...input, [param]: item } : { [param]: item };
    let contribution: Json | undefined;
    let wroteToPath = false;
    for (const [j, action] of state.actions.entries()) {
      const outcome = await invokeAction(ac, action, j, data);
      if (outcome.skipped) continue;
      const f = action.actionDataFilter;
      const value = ctx.sync ? filteredResults(f, outcome.result, ctx.scope(vars), state.name) : await filteredResultsAsync(f, outcome.result, ctx.scope(vars), state.name);
      if (f?.toStateData) wroteToPath = true;
      else if (value !== undefined) contribution = contribution === undefined ? value : merge(contribution, value);
      data = ctx.sync ? mergeResults(f, data, value, ctx.scope(vars), state.name) : await mergeResultsAsync(f, data, value, ctx.scope(vars), state.name);
    }
    if (contribution !== undefined && !wroteToPath) return contribution;
    if (isObject(data)) {
      const { [param]: _drop, ...rest } = data;
      return rest;
    }
    return data;
  };
  const width = state.mode === 'sequential' ? 1 : Math.min(state.batchSize ?? MAX_IN_FLIGHT, MAX_IN_FLIGHT);
  return pool(ctx.effects, items.length, width, (i) => one(items[i], offset + i), ctx.features.has(FEATURE_ITERATION_FAILURE_INDEX));
}

/** The iterations of a chunk child workflow (see ForEachChunk). */
export async function runForEachChunk(ctx: StateContext, chunk: ForEachChunk['foreachChunk'], input: Json): Promise<Json[]> {
  const state = ctx.state(chunk.state) as ForEachState;
  if (chunk.items) return iterate(ctx, state, input, chunk.items, chunk.offset);
  const coll = ctx.sync ? collection(ctx, state, input) : await collectionAsync(ctx, state, input);
  return iterate(ctx, state, input, coll.slice(chunk.offset, chunk.offset + chunk.count), chunk.offset);
}

/**
 * The state data without the collection, for chunk children that get their elements apart; the
 * data as it is when inputCollection computes the collection rather than designating a path.
 */
function withoutCollection(ctx: StateContext, state: ForEachState, input: Json): Json {
  try {
    return withoutPath(input, pathOfSync(state.inputCollection, input, ctx.scope(), { state: state.name, what: 'inputCollection' }));
  } catch {
    return input;
  }
}

async function fanOut(ctx: StateContext, state: ForEachState, input: Json, coll: Json[], size: number): Promise<Json[]> {
  const total = coll.length;
  const slices = ctx.features.has(FEATURE_FOREACH_CHUNK_SLICES);
  const indexed = ctx.features.has(FEATURE_ITERATION_FAILURE_INDEX);
  const data = slices ? withoutCollection(ctx, state, input) : input;
  const chunks = Math.ceil(total / size);
  const width = state.mode === 'sequential' ? 1 : Math.max(1, Math.min(MAX_CHUNKS_IN_FLIGHT, Math.ceil((state.batchSize ?? Infinity) / size)));
  const parts = await pool(ctx.effects, chunks, width, (c) => {
    const offset = c * size;
    const count = Math.min(size, total - offset);
    const opts: StartOptions = {
      definition: ctx.def,
      ...(ctx.options.subflows ? { subflows: ctx.options.subflows } : {}),
      carried: { foreachChunk: { state: state.name, offset, count, ...(slices ? { items: coll.slice(offset, offset + count) } : {}) } },
    };
    const child = ctx.effects.executeChild<Json[]>(ctx.info.workflowType, {
      args: [data, opts],
      workflowId: `${ctx.def.id}-foreach-${ctx.effects.uuid4()}`,
      taskQueue: ctx.info.taskQueue,
      staticSummary: ctx.summary(state.name, undefined, `iterations ${offset}–${offset + count - 1} of ${total}`),
    });
    // The failing iteration's own error (its index in the action's label), not "a child failed".
    return indexed ? child.catch((err) => Promise.reject(iterationFailure(err) ?? err)) : child;
  });
  return parts.flat();
}

export async function runForEach(state: ForEachState, h: Holder, ctx: StateContext): Promise<void> {
  const input = h.data;
  const coll = ctx.sync ? collection(ctx, state, input) : await collectionAsync(ctx, state, input);
  const size = chunkSize(ctx);
  const results = coll.length > size ? await fanOut(ctx, state, input, coll, size) : await iterate(ctx, state, input, coll, 0);
  if (state.outputCollection) {
    const site = { state: state.name, what: 'outputCollection' };
    const path = ctx.sync ? pathOfSync(state.outputCollection, h.data, ctx.scope(), site) : await pathOf(state.outputCollection, h.data, ctx.scope(), site);
    const existing = getAtPath(h.data, path);
    h.data = setAtPath(h.data, path, Array.isArray(existing) ? [...existing, ...results] : results);
  }
}
