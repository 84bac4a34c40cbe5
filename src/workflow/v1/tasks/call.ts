/**
 * `call`: dispatches a call to what serves it. `http`, `openapi`, `grpc`, `asyncapi`, `mcp` and
 * `a2a` are kinds of ./calls/kinds.ts, each an adapter activity (`sw.http`, ...: the built-in
 * adapter worker, adapters/, on `swflow-adapters` or the task's `metadata.worker` queue) made by
 * ./calls/activity.ts; `<activity>:<version>@default` is that adapter activity
 * (./calls/custom.ts); a function of `use.functions`, a cataloged function or a function by URI
 * runs as its own task (./calls/function.ts).
 *
 * Adding a call kind is one module in ./calls and one line in its registry (./calls/kinds.ts),
 * never a branch here.
 */
import type { Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { FEATURE_V1_DIRECT_FRAMES } from '../../../common/features';
import { callAdapter, type CallKind } from './calls/activity';
import { defaultCatalogCall } from './calls/custom';
import { declaredFunction, pinnedFunction } from './calls/function';
import { builtinCallKind } from './calls/kinds';

export function runCall(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  if (!ctx.features.has(FEATURE_V1_DIRECT_FRAMES)) return framedCall(task, at, input, ctx);
  // v1-direct-frames: a built-in kind's task is its adapter call's own promise (no frame around it).
  let kind: CallKind | undefined;
  try {
    kind = builtinCallKind(task.call!, at, ctx.features);
  } catch (err) {
    return Promise.reject(err);
  }
  return kind ? callAdapter(task, at, input, ctx, kind) : framedCall(task, at, input, ctx);
}

/** The call in an async frame of its own (as every call before v1-direct-frames; functions and catalog calls still). */
async function framedCall(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const call = task.call!;
  // Every lookup is synchronous: the turns before a call's command is scheduled are ./calls/activity.ts's.
  const kind = builtinCallKind(call, at, ctx.features);
  if (kind) return callAdapter(task, at, input, ctx, kind);
  const pinned = pinnedFunction(call, ctx);
  const cataloged = pinned ? undefined : defaultCatalogCall(call);
  if (cataloged) return callAdapter(task, at, input, ctx, cataloged);
  const fn = pinned ?? declaredFunction(call, at, ctx);
  // A function runs as its own task on the evaluated `with`, named by the call.
  // (Inline, not a helper: an extra async frame would add microtask turns and reorder concurrent branches' commands.)
  const fnInput = task.with !== undefined ? await ctx.value(task.with, input, ctx.args(at, { input }), 'with') : input;
  const r = await ctx.runTask(call, fn, at.reference, fnInput, at.locals, call);
  return { output: r.output };
}
