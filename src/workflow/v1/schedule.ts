/**
 * A 1.0 document's `schedule` inside its run (`every`/`cron` are Temporal Schedules, outside:
 * src/client/schedules.ts).
 *
 * - `schedule.on` (feature `v1-schedule-on`): the gateway starts the run with the event that
 *   matched (signal-with-start, src/gateway/routing-v1.ts); the run first takes its starting
 *   events from the mailbox by the strategy (`one`, `any`, `all`, `until`, `correlate`: the
 *   same matching as `listen`), and its input is the array of those events (spec "Input of
 *   event-driven scheduled workflows": `$workflow.input[0]` is the first event). They are read
 *   as `schedule.on.read` says (after 1.0.3), whole CloudEvents (`envelope`) by default. Values a
 *   `correlate` fixes hold for the run's later `listen` tasks.
 * - `schedule.after` (feature `v1-schedule-after`): when the run completes it sleeps that long
 *   (a timer the Web UI shows as `/schedule/after → run again after …`) and continues as new with
 *   its original input: the next run starts under the same workflow id, on the latest version of
 *   the document (a run started by `<id>@<version>` keeps that version). A run that faults is
 *   not run again.
 */
import type { Json } from '../../common/model';
import type { ConsumptionStrategy, Task, V1Definition } from '../../common/model-v1';
import type { RunHost } from '../host/run-host';
import { summary as uiSummary } from '../host/tracker';
import { FEATURE_V1_SCHEDULE_AFTER, FEATURE_V1_SCHEDULE_ON } from '../../common/features';
import type { TaskContext } from './context';
import { durationIso, durationMs } from './durations';
import { runListen } from './tasks/listen';

type ScheduleOn = ConsumptionStrategy & { read?: 'data' | 'envelope' | 'raw' };

/** The run's input: the starting events of a `schedule.on` document, else `input` as given. */
export async function startingEvents(ctx: TaskContext, input: Json): Promise<Json> {
  const on = ctx.def.workflow.schedule?.on as ScheduleOn | undefined;
  if (!on || typeof on !== 'object' || !ctx.features.has(FEATURE_V1_SCHEDULE_ON)) return input;
  const { read, ...to } = on;
  const task: Task = { listen: { to, read: read ?? 'envelope' } };
  const { output } = await runListen(task, { name: 'schedule.on', reference: '/schedule/on', locals: {} }, input, ctx);
  return output;
}

/** With `schedule.after`: sleeps the delay, then the host starts the run again with `input` (throws ContinueAsNew). */
export async function runAgainAfter(host: RunHost, def: V1Definition, input: Json): Promise<void> {
  const after = def.workflow.schedule?.after as Parameters<typeof durationMs>[0] | undefined;
  if (after === undefined || after === null || !host.features.has(FEATURE_V1_SCHEDULE_AFTER)) return;
  await host.runAgainAfter(durationMs(after), uiSummary('/schedule/after', undefined, `run again after ${durationIso(after)}`), input);
}
