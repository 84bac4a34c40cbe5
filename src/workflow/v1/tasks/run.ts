/**
 * `run`: `run.workflow` is a child workflow of the same generic workflow (type
 * `<namespace>/<name>@<version>`, `latest`: the highest version the worker knows), given the
 * definition when the run carries it (StartOptions.subflows); its input is `run.workflow.input`
 * (evaluated), else the task's input. `await: false` starts it and goes on (the child outlives
 * the parent), the output then being the input.
 *
 * `run.shell` / `run.script` are activities (`sw.run.shell`, `sw.run.script`) on the opt-in
 * `swflow-processes` queue (or the task's `metadata.worker`), which no worker serves unless its
 * operator starts one (they execute arbitrary code): the command or code, `arguments`,
 * `environment` and `stdin` are evaluated here, the process runs there. `run.container`
 * (feature `v1-run-container`; before, a runtime error) is `sw.run.container` on the same queue:
 * the process worker runs the image with its container engine (podman by default).
 */
import { ParentClosePolicy } from '@temporalio/workflow';
import type { Duration, Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import { PROCESS_TASK_QUEUE, type FunctionCall, type StartOptions } from '../../../common/contracts';
import { CALL_ACTIVITY_TIMEOUT_MS } from './calls/activity';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { WorkflowError } from '../errors';
import { durationMs } from '../durations';
import { FEATURE_V1_RUN_CONTAINER } from '../../../common/features';
import { PROCESS_ACTIVITY_OF_KIND } from '../../../common/call-kinds';

export async function runRun(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const run = task.run!;
  const w = run.workflow;
  if (run.shell || run.script) return runProcess(task, at, input, ctx);
  if (run.container && ctx.features.has(FEATURE_V1_RUN_CONTAINER)) return runProcess(task, at, input, ctx);
  if (!w) throw WorkflowError.standard('runtime', at.reference, 'run.container is not supported by this runtime', 501);
  const id = `${w.namespace}/${w.name}`;
  const type = w.version && w.version !== 'latest' ? `${id}@${w.version}` : id;
  const subflows = ctx.subflows ?? {};
  const definition = subflows[type] ?? subflows[id];
  const childInput = w.input !== undefined ? await ctx.value(w.input, input, ctx.args(at, { input }), 'run.workflow.input') : input;
  const startOptions: StartOptions = { ...(definition ? { definition } : {}), ...(ctx.subflows ? { subflows: ctx.subflows } : {}) };
  const options = {
    args: [childInput, startOptions] as [Json, StartOptions],
    workflowId: `${w.name}-${ctx.effects.uuid4()}`,
    taskQueue: ctx.taskQueue,
    parentClosePolicy: run.await === false ? ParentClosePolicy.ABANDON : ParentClosePolicy.TERMINATE,
    staticSummary: ctx.summary(at.reference, `workflow ${type}`),
    staticDetails: `Subflow **${type}** of ${ctx.def.id} (task ${at.reference})`,
  };
  if (run.await === false) {
    await ctx.effects.startChild(type, options);
    return { output: input };
  }
  return { output: await ctx.effects.executeChild<Json>(type, options) };
}

async function runProcess(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const run = task.run!;
  const kind = run.shell ? 'shell' : run.script ? 'script' : 'container';
  const p = (run.shell ?? run.script ?? run.container)! as Record<string, Json>;
  const spec = (await ctx.value(
    {
      kind,
      code: (p.command ?? p.code ?? '') as Json,
      ...(p.language ? { language: p.language } : {}),
      arguments: (p.arguments ?? []) as Json,
      environment: (p.environment ?? {}) as Json,
      ...(p.stdin !== undefined ? { stdin: p.stdin } : {}),
      return: run.return ?? 'stdout',
      ...(kind === 'container' ? containerFields(p, at, ctx) : {}),
    },
    input,
    ctx.args(at, { input }),
    `run.${kind}`,
  )) as Record<string, Json>;
  if (typeof spec.stdin !== 'string' && spec.stdin !== undefined) spec.stdin = JSON.stringify(spec.stdin);
  const call: FunctionCall = {
    function: { name: kind, type: 'custom', operation: `run.${kind}`, metadata: {} },
    arguments: spec,
    workflow: { id: ctx.workflowId, instanceId: ctx.runId, definitionId: ctx.def.id },
    state: at.reference,
    action: at.name,
  };
  const queue = typeof task.metadata?.worker === 'string' ? task.metadata.worker : PROCESS_TASK_QUEUE;
  const done = ctx.effects.activity<Json>(PROCESS_ACTIVITY_OF_KIND[kind], [call], {
    taskQueue: queue,
    startToCloseTimeout: CALL_ACTIVITY_TIMEOUT_MS,
    retry: { maximumAttempts: 1 },
    summary: ctx.summary(at.reference, `run ${kind} on ${queue}`),
  });
  if (run.await === false) {
    done.catch(() => undefined); // not awaited: its outcome does not matter to the task
    return { output: input };
  }
  return { output: await done };
}

/**
 * A container's own fields: image, ports, volumes, pull policy, and its lifetime (`cleanup`,
 * `after` in ms); its name is the task's `name` (an expression), else the reference's convention
 * `{workflow.name}-{uuid}.{workflow.namespace}-{task.name}` (a name `eventually` can remove it by).
 */
function containerFields(p: Record<string, Json>, at: TaskAt, ctx: TaskContext): Record<string, Json> {
  const lifetime = (p.lifetime ?? {}) as { cleanup?: string; after?: Duration };
  const doc = ctx.def.workflow.document;
  const name = p.name ?? `${doc.name}-${ctx.effects.uuid4()}.${doc.namespace}-${at.name}`.replace(/[^A-Za-z0-9_.-]/g, '-');
  return {
    image: p.image ?? '',
    name,
    ports: (p.ports ?? {}) as Json,
    volumes: (p.volumes ?? {}) as Json,
    ...(p.pullPolicy ? { pullPolicy: p.pullPolicy } : {}),
    cleanup: lifetime.cleanup ?? 'never',
    ...(lifetime.after !== undefined ? { afterMs: durationMs(lifetime.after) } : {}),
  };
}
