/**
 * The interpreter worker's side of redrive (src/common/redrive.ts): after a reset whose reason is
 * a redrive's, a run asks for its **ledger**, the calls its old run made after the reset point
 * and that succeeded, read from the old run's history (results decoded as the SDK would: stored
 * references read back, then the codecs); and a run reset to its first workflow task to be carried
 * over to another definition learns which one from the same reason.
 */
import { Context } from '@temporalio/activity';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { REDRIVE_LEDGER_ACTIVITY, digestOf, parseRedriveReason, type LedgerEntry, type LedgerRequest, type RedriveLedger, type RedriveReason } from '../../common/redrive';
import { PayloadValues } from '../../payloads/values';
import { dataConverterOptions } from '../../codec';
import { payloadSettings } from '../../payloads/config';

type Event = temporal.api.history.v1.IHistoryEvent;
const RESET_CAUSE = temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;

/** The events of one run (all pages), through a worker's or a client's connection. */
export async function runEvents(connection: { workflowService: temporal.api.workflowservice.v1.WorkflowService }, namespace: string, workflowId: string, runId: string): Promise<Event[]> {
  const events: Event[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await connection.workflowService.getWorkflowExecutionHistory({ namespace, execution: { workflowId, runId }, nextPageToken, maximumPageSize: 1000 });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

export interface ResetFact {
  /** The reset's event in this run (its workflow task failed by the reset): events before it were kept. */
  eventId: number;
  baseRunId: string;
  /** Parsed when the reset was a redrive. */
  reason?: RedriveReason;
}

/** The last reset a run went through (from its history), if any. */
export function lastReset(events: readonly Event[]): ResetFact | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const f = events[i].workflowTaskFailedEventAttributes;
    if (f?.cause === RESET_CAUSE) return { eventId: Number(events[i].eventId), baseRunId: f.baseRunId ?? '', reason: parseRedriveReason(f.failure?.message) };
  }
  return undefined;
}

/** Payloads as values: stored references read back, codecs applied, then the default converter. */
export class PayloadReader {
  constructor(private readonly values: PayloadValues) {}

  static fromEnvironment(): PayloadReader {
    const codecs = dataConverterOptions().dataConverter?.payloadCodecs ?? [];
    return new PayloadReader(new PayloadValues(payloadSettings().store, codecs));
  }

  async all(payloads: readonly Payload[] | null | undefined): Promise<unknown[]> {
    if (!payloads?.length) return [];
    const read = await this.values.read(payloads as Payload[]);
    return read.map((r) => defaultPayloadConverter.fromPayload(r.payload));
  }

  async one(payload: Payload | null | undefined): Promise<unknown> {
    return payload ? (await this.all([payload]))[0] : undefined;
  }
}

/**
 * The ledger: what the old run's events from `from` on (those a reset dropped) say succeeded:
 * activities completed, local activities recorded with a result, child runs completed, and the
 * entries of a ledger the old run itself read (a redrive of a redriven run), in the order the
 * commands were made.
 */
export async function ledgerEntries(events: readonly Event[], from: number, reader: PayloadReader): Promise<LedgerEntry[]> {
  const byScheduled = new Map<number, Event>();
  const byChild = new Map<number, Event>();
  const out: { at: number; entry: Promise<LedgerEntry | LedgerEntry[] | undefined> }[] = [];
  for (const e of events) {
    const id = Number(e.eventId);
    if (e.activityTaskScheduledEventAttributes) byScheduled.set(id, e);
    else if (e.startChildWorkflowExecutionInitiatedEventAttributes) byChild.set(id, e);
    else if (e.activityTaskCompletedEventAttributes) {
      const sched = byScheduled.get(Number(e.activityTaskCompletedEventAttributes.scheduledEventId));
      if (!sched || Number(sched.eventId) < from) continue;
      const a = sched.activityTaskScheduledEventAttributes!;
      out.push({
        at: Number(sched.eventId),
        entry: (async () => ({ kind: 'activity', type: a.activityType?.name ?? '', summary: await summaryOf(sched, reader), digest: digestOf(await reader.all(a.input?.payloads)), result: await reader.one(e.activityTaskCompletedEventAttributes!.result?.payloads?.[0]) }))(),
      });
    } else if (e.childWorkflowExecutionCompletedEventAttributes) {
      const init = byChild.get(Number(e.childWorkflowExecutionCompletedEventAttributes.initiatedEventId));
      if (!init || Number(init.eventId) < from) continue;
      const c = init.startChildWorkflowExecutionInitiatedEventAttributes!;
      out.push({
        at: Number(init.eventId),
        entry: (async () => ({ kind: 'child', type: c.workflowType?.name ?? '', summary: await summaryOf(init, reader), digest: childDigest(await reader.all(c.input?.payloads)), result: await reader.one(e.childWorkflowExecutionCompletedEventAttributes!.result?.payloads?.[0]) }))(),
      });
    } else if (e.childWorkflowExecutionFailedEventAttributes || e.childWorkflowExecutionTimedOutEventAttributes) {
      const ended = (e.childWorkflowExecutionFailedEventAttributes ?? e.childWorkflowExecutionTimedOutEventAttributes)!;
      const init = byChild.get(Number(ended.initiatedEventId));
      if (!init || Number(init.eventId) < from || !ended.workflowExecution?.runId) continue;
      const c = init.startChildWorkflowExecutionInitiatedEventAttributes!;
      const failedRun = { workflowId: ended.workflowExecution.workflowId ?? '', runId: ended.workflowExecution.runId };
      out.push({
        at: Number(init.eventId),
        entry: (async () => ({ kind: 'child', type: c.workflowType?.name ?? '', summary: await summaryOf(init, reader), digest: childDigest(await reader.all(c.input?.payloads)), failedRun }))(),
      });
    } else if (e.markerRecordedEventAttributes && id >= from) {
      const m = e.markerRecordedEventAttributes;
      if (m.failure || !m.details?.data?.payloads?.length || !m.details?.result?.payloads?.length) continue;
      out.push({
        at: id,
        entry: (async () => {
          const data = (await reader.one(m.details!.data!.payloads![0])) as { activity_type?: string } | undefined;
          const type = data?.activity_type;
          if (!type || type.startsWith('swflow.') && type !== REDRIVE_LEDGER_ACTIVITY) return undefined;
          const result = await reader.one(m.details!.result!.payloads![0]);
          if (type === REDRIVE_LEDGER_ACTIVITY) return (result as RedriveLedger | undefined)?.entries ?? [];
          return { kind: 'local', type, summary: await summaryOf(e, reader), result };
        })(),
      });
    }
  }
  out.sort((a, b) => a.at - b.at);
  const entries: LedgerEntry[] = [];
  for (const o of out) {
    const e = await o.entry;
    if (Array.isArray(e)) entries.push(...e);
    else if (e) entries.push(e);
  }
  return entries;
}

/** A child's arguments as its parent gave them: without the `redriveOf` a redriven parent added. */
function childDigest(args: unknown[]): string {
  const [input, start, ...rest] = args;
  if (start && typeof start === 'object' && 'redriveOf' in start) {
    const { redriveOf: _again, ...given } = start as Record<string, unknown>;
    return digestOf([input, given, ...rest]);
  }
  return digestOf(args);
}

async function summaryOf(e: Event, reader: PayloadReader): Promise<string | undefined> {
  const s = await reader.one(e.userMetadata?.summary as Payload | undefined).catch(() => undefined);
  return typeof s === 'string' ? s : undefined;
}

/** The reason of the last reset of the run this activity serves (undefined: not reset, or not a redrive). */
export async function currentRedrive(connection: Pick<NativeConnection, 'workflowService'>, namespace: string): Promise<{ reset?: ResetFact; events: Event[] }> {
  const run = Context.current().info.workflowExecution!;
  const events = await runEvents(connection, namespace, run.workflowId, run.runId);
  return { reset: lastReset(events), events };
}

/** The `swflow.redriveLedger` local activity. */
export function createRedriveLedgerActivity(connection: Pick<NativeConnection, 'workflowService'> | undefined, namespace: string) {
  return {
    async [REDRIVE_LEDGER_ACTIVITY](req: LedgerRequest = {}): Promise<RedriveLedger> {
      if (!connection) return { entries: [] };
      if (req.base) {
        // A child run started again in place of one that failed: all that run's successful calls.
        const base = await runEvents(connection, namespace, req.base.workflowId, req.base.runId);
        return { baseRunId: req.base.runId, entries: await ledgerEntries(base, 0, PayloadReader.fromEnvironment()) };
      }
      const { reset } = await currentRedrive(connection, namespace);
      if (!reset?.reason || !reset.baseRunId) return { entries: [] };
      const run = Context.current().info.workflowExecution!;
      const base = await runEvents(connection, namespace, run.workflowId, reset.baseRunId);
      return { baseRunId: reset.baseRunId, reason: reset.reason, entries: await ledgerEntries(base, reset.eventId, PayloadReader.fromEnvironment()) };
    },
  };
}
