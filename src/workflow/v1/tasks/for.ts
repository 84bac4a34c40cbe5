/**
 * `for`: runs `do` once per item of `for.in` (an expression, or after 1.0.3 an inline array),
 * with `$<each>` (default `$item`) and `$<at>` (default `$index`); each iteration's output is
 * the next one's input (data threads through), the last one's is the task's output. `while`,
 * checked before each iteration with the item bound, stops the loop when false. `exit` inside
 * stops the loop; `end` ends the workflow.
 *
 * A `for` of the top-level list continues as new between two iterations when the history grows
 * long (v1-for-continue-as-new: the next run resumes at the next iteration with the data threaded
 * so far); an error leaving an iteration names it (iteration-failure-index).
 */
import type { Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { isCancellation, ContinueAsNew } from '@temporalio/workflow';
import { FEATURE_ITERATION_FAILURE_INDEX } from '../../../common/features';
import { toWorkflowError, WorkflowError } from '../errors';

export async function runFor(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const f = task.for!;
  const each = f.each ?? 'item';
  const index = f.at ?? 'index';
  const collection = Array.isArray(f.in) ? f.in : ctx.sync ? ctx.expressionSync(f.in, input, ctx.args(at, { input }), 'for.in') : await ctx.expression(f.in, input, ctx.args(at, { input }), 'for.in');
  if (collection !== null && !Array.isArray(collection)) {
    throw WorkflowError.standard('expression', at.reference, `for.in must give an array, got ${typeof collection === 'object' ? 'an object' : JSON.stringify(collection)}`);
  }
  const items = collection ?? [];
  const resumed = ctx.forResume?.(at.reference);
  const indexed = ctx.features.has(FEATURE_ITERATION_FAILURE_INDEX);
  let data = resumed ? resumed.data : input;
  for (let i = resumed?.next ?? 0; i < items.length; i++) {
    const locals = { ...at.locals, [each]: items[i], [index]: i };
    if (task.while !== undefined) {
      const args = ctx.args({ ...at, locals }, { input: data });
      if (!(ctx.sync ? ctx.conditionSync(task.while, data, args, 'while') : await ctx.condition(task.while, data, args, 'while'))) break;
    }
    const r = indexed ? await ctx.runList(task.do!, `${at.reference}/do`, data, locals).catch((err) => Promise.reject(iterationError(err, at.reference, i, items.length))) : await ctx.runList(task.do!, `${at.reference}/do`, data, locals);
    data = r.output;
    if (r.end) return { output: data, then: 'end' };
    if (r.exited) break;
    if (i + 1 < items.length) {
      const checkpoint = ctx.forCheckpoint?.(at.reference, i + 1, data);
      if (checkpoint) await checkpoint;
    }
  }
  return { output: data };
}

/** An error leaving iteration `i`, its detail naming the iteration (the instance stays the failing task's pointer). */
function iterationError(err: unknown, reference: string, i: number, total: number): unknown {
  if (isCancellation(err) || err instanceof ContinueAsNew) return err;
  const { problem } = toWorkflowError(err, reference);
  const where = `iteration ${i} of ${total} of ${reference}`;
  return new WorkflowError({ ...problem, detail: problem.detail ? `${where}: ${problem.detail}` : where });
}
