/**
 * `for`: runs `do` once per item of `for.in` (an expression, or after 1.0.3 an inline array),
 * with `$<each>` (default `$item`) and `$<at>` (default `$index`); each iteration's output is
 * the next one's input (data threads through), the last one's is the task's output. `while`,
 * checked before each iteration with the item bound, stops the loop when false. `exit` inside
 * stops the loop; `end` ends the workflow.
 */
import type { Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { WorkflowError } from '../errors';

export async function runFor(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const f = task.for!;
  const each = f.each ?? 'item';
  const index = f.at ?? 'index';
  const collection = Array.isArray(f.in) ? f.in : ctx.sync ? ctx.expressionSync(f.in, input, ctx.args(at, { input }), 'for.in') : await ctx.expression(f.in, input, ctx.args(at, { input }), 'for.in');
  if (collection !== null && !Array.isArray(collection)) {
    throw WorkflowError.standard('expression', at.reference, `for.in must give an array, got ${typeof collection === 'object' ? 'an object' : JSON.stringify(collection)}`);
  }
  let data = input;
  for (let i = 0; i < (collection ?? []).length; i++) {
    const locals = { ...at.locals, [each]: collection![i], [index]: i };
    if (task.while !== undefined) {
      const args = ctx.args({ ...at, locals }, { input: data });
      if (!(ctx.sync ? ctx.conditionSync(task.while, data, args, 'while') : await ctx.condition(task.while, data, args, 'while'))) break;
    }
    const r = await ctx.runList(task.do!, `${at.reference}/do`, data, locals);
    data = r.output;
    if (r.end) return { output: data, then: 'end' };
    if (r.exited) break;
  }
  return { output: data };
}
