/**
 * `run`: `run.workflow` is a child workflow of the same generic workflow (type
 * `<namespace>/<name>@<version>`, `latest`: the highest version the worker knows), given the
 * definition when the run carries it (StartOptions.subflows); its input is `run.workflow.input`
 * (evaluated), else the task's input. `await: false` starts it and goes on (the child outlives
 * the parent), the output then being the input. Shell, script and container processes are not
 * run by the interpreter (see the conformance matrix).
 */
import { executeChild, ParentClosePolicy, startChild, uuid4 } from '@temporalio/workflow';
import type { Task } from '../../../dsl/v1/model';
import type { Json } from '../../../dsl/model';
import type { StartOptions } from '../../../common/contracts';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { WorkflowError } from '../errors';

export async function runRun(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const run = task.run!;
  const w = run.workflow;
  if (!w) {
    const kind = run.shell ? 'shell' : run.script ? 'script' : 'container';
    throw WorkflowError.standard('runtime', at.reference, `run.${kind} is not supported by this runtime (no worker serves it)`, 501);
  }
  const id = `${w.namespace}/${w.name}`;
  const type = w.version && w.version !== 'latest' ? `${id}@${w.version}` : id;
  const subflows = ctx.options.subflows ?? {};
  const definition = subflows[type] ?? subflows[id];
  const childInput = w.input !== undefined ? await ctx.value(w.input, input, ctx.args(at, { input }), 'run.workflow.input') : input;
  const startOptions: StartOptions = { ...(definition ? { definition } : {}), ...(ctx.options.subflows ? { subflows: ctx.options.subflows } : {}) };
  const options = {
    args: [childInput, startOptions] as [Json, StartOptions],
    workflowId: `${w.name}-${uuid4()}`,
    taskQueue: ctx.info.taskQueue,
    parentClosePolicy: run.await === false ? ParentClosePolicy.ABANDON : ParentClosePolicy.TERMINATE,
    staticSummary: ctx.summary(at.reference, `workflow ${type}`),
    staticDetails: `Subflow **${type}** of ${ctx.def.id} (task ${at.reference})`,
  };
  if (run.await === false) {
    await startChild(type, options);
    return { output: input };
  }
  return { output: await executeChild<(...a: any[]) => Promise<Json>>(type, options) };
}
