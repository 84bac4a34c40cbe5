/** `do`: the subtasks in sequence; the output is the last one's. `end` inside ends the workflow. */
import type { Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';

export async function runDo(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const r = await ctx.runList(task.do!, `${at.reference}/do`, input, at.locals);
  return { output: r.output, ...(r.end ? { then: 'end' } : {}) };
}
