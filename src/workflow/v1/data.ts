/**
 * The 1.0 data flow between tasks (spec "Data Flow"): data REPLACES, it is not merged.
 * `input.from` turns the raw input into the task's input ($input), `output.as` the raw output
 * into the task's output ($output, the next task's raw input), and `export.as` the output into
 * the new `$context`. Each is a runtime expression (a string: `${ }` or bare jq) or an object
 * whose `${ }` strings are evaluated; absent, the identity (for `export.as`: the context is kept).
 */
import type { Json } from '../../common/model';
import type { Args, TaskContext } from './context';

/** Evaluates a transformation: a string is an expression, anything else a template value. */
export function transformSync(ctx: TaskContext, spec: string | Json | undefined, data: Json, args: Args, what: string): Json {
  if (spec === undefined) return data;
  if (typeof spec === 'string') return ctx.expressionSync(spec, data, args, what);
  return ctx.valueSync(spec, data, args, what);
}

/** {@link transformSync} as runs without the `sync-expressions` feature await it (and the three below). */
export async function transform(ctx: TaskContext, spec: string | Json | undefined, data: Json, args: Args, what: string): Promise<Json> {
  if (spec === undefined) return data;
  if (typeof spec === 'string') return ctx.expression(spec, data, args, what);
  return ctx.value(spec, data, args, what);
}

/** `input.from` over the raw input. */
export function transformInput(ctx: TaskContext, from: string | Json | undefined, raw: Json, args: Args): Promise<Json> {
  return transform(ctx, from, raw, args, 'input.from');
}

/** `output.as` over the raw output. */
export function transformOutput(ctx: TaskContext, as: string | Json | undefined, raw: Json, args: Args): Promise<Json> {
  return transform(ctx, as, raw, args, 'output.as');
}

/** `input.from`, `output.as`, `export.as` evaluated synchronously (runs with `sync-expressions`). */
export const transformInputSync = (ctx: TaskContext, from: string | Json | undefined, raw: Json, args: Args): Json => transformSync(ctx, from, raw, args, 'input.from');
export const transformOutputSync = (ctx: TaskContext, as: string | Json | undefined, raw: Json, args: Args): Json => transformSync(ctx, as, raw, args, 'output.as');
export const exportContextSync = (ctx: TaskContext, as: string | Json | undefined, output: Json, context: Json, args: Args): Json =>
  as === undefined ? context : transformSync(ctx, as, output, args, 'export.as');

/** `export.as` over the (transformed) output: the new $context; absent, the context as it is. */
export function exportContext(ctx: TaskContext, as: string | Json | undefined, output: Json, context: Json, args: Args): Promise<Json> {
  if (as === undefined) return Promise.resolve(context);
  return transform(ctx, as, output, args, 'export.as');
}
