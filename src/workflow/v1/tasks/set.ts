/** `set`: the task's output is the given data (an object whose `${ }` are evaluated, or one expression). */
import type { Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';

export async function runSet(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const args = ctx.args(at, { input });
  const spec = task.set!;
  if (ctx.sync) return { output: typeof spec === 'string' ? ctx.expressionSync(spec, input, args, 'set') : ctx.valueSync(spec, input, args, 'set') };
  const output = typeof spec === 'string' ? await ctx.expression(spec, input, args, 'set') : await ctx.value(spec, input, args, 'set');
  return { output };
}
