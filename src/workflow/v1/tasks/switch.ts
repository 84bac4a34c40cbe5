/**
 * `switch`: the first case whose `when` holds (a case without `when` is the default, taken when
 * no other matches) gives the flow directive; no match: the task's own `then`. The output is
 * the input.
 */
import { entryOf, type FlowDirective, type Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';

export async function runSwitch(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const args = ctx.args(at, { input });
  let fallback: FlowDirective | undefined;
  for (const item of task.switch!) {
    const [name, c] = entryOf(item);
    if (c.when === undefined) {
      fallback ??= c.then;
      continue;
    }
    const what = `switch case '${name}'`;
    if (ctx.sync ? ctx.conditionSync(c.when, input, args, what) : await ctx.condition(c.when, input, args, what)) return { output: input, then: c.then };
  }
  return { output: input, ...(fallback !== undefined ? { then: fallback } : {}) };
}
