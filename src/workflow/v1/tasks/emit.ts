/**
 * `emit`: builds the CloudEvent in the workflow (deterministically: `id` from the effects' uuid4,
 * `time` from workflow time; after 1.0.3 the runtime generates `id` and `source` when absent)
 * and hands it to the interpreter worker's event sinks through the `swflow.produceEvent`
 * activity, as 0.8 produced events are. The output is the event (as the conformance kit expects).
 */
import type { Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { CloudEventJson } from '../../../common/contracts';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { scheduleProduceEvent } from '../../events/produce';

export async function runEmit(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const attrs = ((await ctx.value((task.emit!.event.with ?? {}) as Json, input, ctx.args(at, { input }), 'emit.event.with')) ?? {}) as Record<string, Json>;
  const ce: CloudEventJson = {
    specversion: '1.0',
    id: typeof attrs.id === 'string' ? attrs.id : ctx.effects.uuid4(),
    source: typeof attrs.source === 'string' ? attrs.source : `swflow/${ctx.def.id}`,
    type: String(attrs.type),
    time: typeof attrs.time === 'string' ? attrs.time : new Date(ctx.effects.now()).toISOString(),
  };
  for (const [k, v] of Object.entries(attrs)) if (!(k in ce) && v !== undefined) ce[k.toLowerCase()] = v;
  if (ce.data !== undefined && ce.datacontenttype === undefined) ce.datacontenttype = 'application/json';
  await scheduleProduceEvent(ctx.taskQueue, ce, ctx.summary(at.reference, `emit ${ce.type}`), ctx.effects);
  return { output: ce as unknown as Json };
}
