/** `raise`: raises the error (inline, or `use.errors` by name), its `${ }` fields evaluated; `instance` defaults to the task. */
import type { ErrorDef, Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { raised } from '../errors';

export async function runRaise(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const ref = task.raise!.error;
  const def = typeof ref === 'string' ? ctx.def.workflow.use?.errors?.[ref] : ref;
  if (!def) throw new Error(`unknown error '${String(ref)}'`); // validation rules this out
  const evaluated = (await ctx.value(def as unknown as Json, input, ctx.args(at, { input }), 'raise.error')) as unknown as ErrorDef;
  throw raised(evaluated, at.reference);
}
