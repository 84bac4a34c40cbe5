/** `wait`: a durable timer (inline duration, ISO 8601, or an expression yielding one); the output is the input. */
import type { Duration, Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { durationIso, durationMs, evaluatedDuration } from '../durations';
import { FEATURE_V1_DURATION_EXPRESSIONS } from '../../../common/features';

/** A duration, evaluating it first when it is an expression. */
export async function resolveDuration(d: Duration, at: TaskAt, input: Json, ctx: TaskContext, what: string): Promise<Duration> {
  if (typeof d === 'string' && d.includes('${')) return (await ctx.value(d, input, ctx.args(at, { input }), what)) as Duration;
  return d;
}

export async function runWait(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const written = task.wait!;
  let d = await resolveDuration(written, at, input, ctx, 'wait');
  // What an expression yielded must be a duration (was: taken as one, whatever it was).
  if (typeof written === 'string' && written.includes('${') && ctx.features.has(FEATURE_V1_DURATION_EXPRESSIONS)) d = evaluatedDuration(d as Json, written, 'wait');
  await ctx.effects.sleep(durationMs(d), ctx.summary(at.reference, `wait ${durationIso(d)}`));
  return { output: input };
}
