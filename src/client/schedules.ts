/**
 * Scheduled starts (0.8 `start.schedule`; 1.0 `schedule.every` / `schedule.cron`) as Temporal Schedules: the server itself starts
 * the runs (they show in the Web UI's Schedules page and in `temporal schedule list`), so no
 * swflow process has to be up at the scheduled time, only a worker to run them.
 *
 * One Schedule per served definition id (its latest version), id `swflow/<definition id>` (on
 * another task queue than `swflow`: `swflow@<queue>/<definition id>`). `syncSchedules` makes the
 * server match the definitions: creates the missing, updates the changed (a fingerprint of what
 * the Schedule is made from sits in its note), deletes those whose definition is gone. It only
 * touches Schedules it made for the same task queue (memo `swflow`): the workers of one task
 * queue serve the same definitions, other queues' and hand-made Schedules are left alone.
 *
 * Mapping (src/dsl/v08/schedule.ts reads the definition's values):
 * - `interval` `R/<start>/<period>` → an interval of `<period>` aligned on `<start>` (offset),
 *   from `<start>`; `R/<period>/<end>` → until `<end>`; `R/<period>` → every `<period>` since
 *   the Unix epoch (the spec lets the runtime choose where a duration-only interval starts;
 *   Temporal's choice is the epoch: the first run comes within one period).
 * - `cron` → a cron expression in Temporal's 7-field form; `validUntil` → the Schedule's end.
 * - `timezone` → the Schedule's time zone (default UTC).
 * - 1.0: `every` → an interval of that duration (since the Unix epoch, as `R/<period>`); `cron`
 *   → a cron expression as above (UTC). `after` and `on` are not Schedules: the run itself continues as new after `after`, and the gateway starts runs by `on` (src/workflow/v1/schedule.ts, src/gateway/routing-v1.ts).
 * - A 0.8 definition whose start state is an event state gets no Schedule: its instances start
 *   from its events, through the gateway (the spec: scheduling it "would need an event service").
 * - Runs start with `{}` as data input, on the interpreter task queue, one run per scheduled
 *   time even when the previous is still running (the spec: an instance "at the start of each
 *   time interval"), with the definition's workflowExecTimeout.
 */
import { createHash } from 'node:crypto';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptions, type ScheduleSpec } from '@temporalio/client';
import type { Definition, ScheduleDef } from '../common/model';
import { isV1Definition } from '../common/model-v1';
import { durationMs, isDurationExpression } from '../workflow/v1/durations';
import { parseCron, parseDateTime, parseInterval } from '../dsl/v08/schedule';
import { parseDuration } from '../common/duration';
import { INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { latestVersions } from '../definitions/registry';
import { definitionTitle } from './start';

/** What marks a Schedule as made by swflow (its memo `swflow`). */
interface ManagedMemo {
  definitionId: string;
  taskQueue: string;
}

const NOTE_PREFIX = 'managed by swflow from the definition';

export interface SyncReport {
  created: string[];
  updated: string[];
  deleted: string[];
  unchanged: string[];
  /** Schedules that could not be made (the server refused the spec), with the reason. */
  problems: { scheduleId: string; problem: string }[];
}

export interface ManagedSchedule {
  scheduleId: string;
  definitionId: string;
  taskQueue: string;
  paused: boolean;
  nextActionTimes: Date[];
  recentActions: Date[];
  note?: string;
}

/** The Schedule id of a definition on a task queue. */
export function scheduleIdOf(definitionId: string, taskQueue = INTERPRETER_TASK_QUEUE): string {
  return taskQueue === INTERPRETER_TASK_QUEUE ? `swflow/${definitionId}` : `swflow@${taskQueue}/${definitionId}`;
}

/** A definition's schedule as a Temporal ScheduleSpec; throws with the reason when it cannot be one. */
export function scheduleSpecOf(schedule: ScheduleDef): ScheduleSpec {
  const spec: ScheduleSpec = {};
  const timezone = schedule.timezone;
  if (timezone) spec.timezone = timezone;
  if (schedule.interval !== undefined) {
    const r = parseInterval(schedule.interval, timezone);
    if (r.problem !== undefined) throw new Error(`invalid schedule interval: ${r.problem}`);
    const { everyMs, start, end } = r.value;
    spec.intervals = [{ every: everyMs, ...(start !== undefined ? { offset: ((start % everyMs) + everyMs) % everyMs } : {}) }];
    if (start !== undefined) spec.startAt = new Date(start);
    if (end !== undefined) spec.endAt = new Date(end);
  }
  if (schedule.cron) {
    const r = parseCron(schedule.cron.expression);
    if (r.problem !== undefined) throw new Error(`invalid cron expression: ${r.problem}`);
    const f = r.value;
    spec.cronExpressions = [[f.second, f.minute, f.hour, f.dayOfMonth, f.month, f.dayOfWeek, f.year].join(' ')];
    if (schedule.cron.validUntil) {
      const until = parseDateTime(schedule.cron.validUntil, timezone);
      if (until.problem !== undefined) throw new Error(`invalid validUntil: ${until.problem}`);
      spec.endAt = new Date(until.value);
    }
  }
  return spec;
}

/** A 1.0 document's `schedule` (`every` or `cron`) as a Temporal ScheduleSpec; throws with the reason when it cannot be one. */
export function v1ScheduleSpecOf(schedule: Record<string, unknown>): ScheduleSpec {
  if (schedule.every !== undefined) {
    if (isDurationExpression(schedule.every)) throw new Error(`schedule.every ${JSON.stringify(schedule.every)} is a runtime expression: a Temporal Schedule's interval is fixed when it is made, before any run has data to evaluate it on`);
    const every = durationMs(schedule.every as Parameters<typeof durationMs>[0]);
    if (!(every > 0)) throw new Error('invalid schedule: every must be a positive duration');
    return { intervals: [{ every }] };
  }
  if (typeof schedule.cron === 'string') return scheduleSpecOf({ cron: { expression: schedule.cron } });
  throw new Error("the schedule gives neither 'every' nor 'cron' (the only forms served as Temporal Schedules)");
}

/** The schedule of a definition that has one swflow serves as a Temporal Schedule. */
function scheduleOf(def: Definition): { spec: () => ScheduleSpec; source: unknown; timeout?: string } | undefined {
  if (isV1Definition(def)) {
    const s = def.workflow.schedule;
    if (!s || (s.every === undefined && s.cron === undefined)) return undefined;
    return { spec: () => v1ScheduleSpecOf(s), source: s };
  }
  if (!def.start.schedule) return undefined;
  // An event start state's instances start from its events (the gateway); its schedule is not used (validation warns).
  if (def.states.find((s) => s.name === def.start.stateName)?.type === 'event') return undefined;
  return { spec: () => scheduleSpecOf(def.start.schedule!), source: def.start.schedule, timeout: def.timeouts?.workflowExecTimeout?.duration };
}

function scheduleOptions(def: Definition, taskQueue: string): ScheduleOptions & { state: { note: string } } {
  const schedule = scheduleOf(def)!;
  const timeout = schedule.timeout;
  const spec = schedule.spec();
  const action = {
    type: 'startWorkflow' as const,
    workflowType: def.id,
    taskQueue,
    args: [{}],
    workflowId: `${def.id}/scheduled`,
    staticSummary: `Serverless Workflow ${definitionTitle(def)} (scheduled)`,
    ...(timeout ? { workflowExecutionTimeout: parseDuration(timeout) } : {}),
  };
  const policies = { overlap: ScheduleOverlapPolicy.ALLOW_ALL };
  const fingerprint = createHash('sha256').update(JSON.stringify({ schedule: schedule.source, action, policies })).digest('hex').slice(0, 16);
  const memo: ManagedMemo = { definitionId: def.id, taskQueue };
  return {
    scheduleId: scheduleIdOf(def.id, taskQueue),
    spec,
    action,
    policies,
    memo: { swflow: memo },
    state: { note: `${NOTE_PREFIX} ${definitionTitle(def)} [${fingerprint}]` },
  };
}

/** The Schedules swflow made for this task queue. */
export async function listSchedules(client: Client, taskQueue = INTERPRETER_TASK_QUEUE): Promise<ManagedSchedule[]> {
  const out: ManagedSchedule[] = [];
  for await (const s of client.schedule.list()) {
    const memo = s.memo?.swflow as ManagedMemo | undefined;
    if (!memo || memo.taskQueue !== taskQueue) continue;
    out.push({
      scheduleId: s.scheduleId,
      definitionId: memo.definitionId,
      taskQueue: memo.taskQueue,
      paused: s.state.paused,
      note: s.state.note,
      nextActionTimes: s.info?.nextActionTimes ?? [],
      recentActions: (s.info?.recentActions ?? []).map((a) => a.takenAt),
    });
  }
  return out.sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
}

/** The scheduled definitions among `definitions`: the latest version of each id that has a schedule (0.8 `start.schedule`, 1.0 `schedule.every`/`cron`). */
export function scheduledDefinitions(definitions: Definition[]): Definition[] {
  return latestVersions(definitions).filter((d) => scheduleOf(d) !== undefined);
}

/** Makes the server's swflow Schedules (of `taskQueue`) match the scheduled definitions. */
export async function syncSchedules(client: Client, definitions: Definition[], opts: { taskQueue?: string } = {}): Promise<SyncReport> {
  const taskQueue = opts.taskQueue ?? INTERPRETER_TASK_QUEUE;
  const report: SyncReport = { created: [], updated: [], deleted: [], unchanged: [], problems: [] };
  const desired = new Map<string, Definition>();
  for (const d of scheduledDefinitions(definitions)) desired.set(scheduleIdOf(d.id, taskQueue), d);
  // Listing is eventually consistent: a Schedule created a moment ago may be missing here
  // (create then finds it exists and updates it) and one deleted may still show (deleting it
  // again finds nothing): both are harmless.
  const existing = new Set((await listSchedules(client, taskQueue)).map((s) => s.scheduleId));

  for (const [id, def] of desired) {
    let options: ReturnType<typeof scheduleOptions>;
    try {
      options = scheduleOptions(def, taskQueue);
    } catch (err) {
      report.problems.push({ scheduleId: id, problem: (err as Error).message });
      continue;
    }
    try {
      if (!existing.has(id)) {
        try {
          await client.schedule.create(options);
          report.created.push(id);
          continue;
        } catch (err) {
          if (!(err instanceof ScheduleAlreadyRunning)) throw err;
        }
      }
      const handle = client.schedule.getHandle(id);
      const current = await handle.describe();
      if (current.state.note === options.state.note) {
        report.unchanged.push(id);
        continue;
      }
      await handle.update((prev) => ({ ...prev, spec: options.spec, action: options.action, policies: { ...prev.policies, ...options.policies }, state: { ...prev.state, note: options.state.note } }));
      report.updated.push(id);
    } catch (err) {
      report.problems.push({ scheduleId: id, problem: (err as Error).message.split('\n')[0] });
    }
  }

  for (const id of existing) {
    if (desired.has(id)) continue;
    try {
      await client.schedule.getHandle(id).delete();
      report.deleted.push(id);
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) report.problems.push({ scheduleId: id, problem: (err as Error).message.split('\n')[0] });
    }
  }
  return report;
}

/** One line per change, for logs. */
export function describeSync(report: SyncReport): string[] {
  return [
    ...report.created.map((id) => `schedule ${id} created`),
    ...report.updated.map((id) => `schedule ${id} updated`),
    ...report.deleted.map((id) => `schedule ${id} deleted (its definition is gone)`),
    ...report.problems.map((p) => `schedule ${p.scheduleId}: ${p.problem}`),
  ];
}

/**
 * Keeps the Schedules in step with a definitions source while a worker serves it: a sync now,
 * then every `intervalMs` (files added, changed or removed are seen by the next one).
 */
export function keepSchedulesInSync(
  client: Client,
  definitions: () => Promise<Definition[]>,
  opts: { taskQueue?: string; intervalMs?: number; log?: (msg: string) => void } = {},
): { ready: Promise<SyncReport | undefined>; stop(): Promise<void> } {
  const log = opts.log ?? (() => {});
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<SyncReport | undefined> = Promise.resolve(undefined);
  const once = async (): Promise<SyncReport | undefined> => {
    try {
      const report = await syncSchedules(client, await definitions(), opts);
      for (const line of describeSync(report)) log(line);
      return report;
    } catch (err) {
      log(`schedules: sync failed (${(err as Error).message.split('\n')[0]}); trying again later`);
      return undefined;
    }
  };
  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = once().finally(loop);
    }, opts.intervalMs ?? 30_000);
    timer.unref();
  };
  running = once().finally(loop);
  return {
    ready: running,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running.catch(() => undefined);
    },
  };
}
