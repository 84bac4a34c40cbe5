/**
 * What a run's Temporal history says about its nodes (pure): the activities, timers and child
 * workflows each state or task issued (their summaries start with the state name or the task's
 * JSON pointer, src/workflow/host/tracker.ts `summary`), how long they took, which are still open, the
 * SwState values written, and how the run closed. The run page shows these next to the `state`
 * query's steps, and draws the path from them alone when no worker answers the query.
 */
import type { temporal } from '@temporalio/proto';

type Event = temporal.api.history.v1.IHistoryEvent;

export interface CommandSpan {
  /** `local`: a local activity (its marker), a call the interpreter worker made itself. */
  kind: 'activity' | 'local' | 'timer' | 'child';
  summary: string;
  /** Epoch ms. `closedAt` is missing while it is open. */
  startedAt: number;
  closedAt?: number;
  failed?: boolean;
}

export interface HistoryFacts {
  startedAt?: number;
  closedAt?: number;
  /** The close event: completed, failed, timed out, cancelled, terminated, continued as new. */
  closed?: 'completed' | 'failed' | 'timedOut' | 'cancelled' | 'terminated' | 'continuedAsNew';
  /** The failure message (and its causes) of a failed run. */
  failure?: string;
  /** Commands by node (the part of their summary before ` › ` or ` → `). */
  commands: Record<string, CommandSpan[]>;
  /** SwState values in the order written, with the time of the write. */
  swStates: { state: string; at: number }[];
}

const decoder = new TextDecoder();

function ms(t: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (!t) return 0;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/** A json/plain payload's value (summaries and search attributes are written so), else undefined (e.g. encrypted). */
function plain(p: temporal.api.common.v1.IPayload | null | undefined): unknown {
  const enc = p?.metadata?.encoding;
  if (!p?.data || !enc || decoder.decode(enc) !== 'json/plain') return undefined;
  try {
    return JSON.parse(decoder.decode(p.data));
  } catch {
    return undefined;
  }
}

/** The node a summary names: `<node> › <action> → <target>` or `<node> → <target>`. */
export function nodeOfSummary(summary: string): string {
  const cut = [' › ', ' → '].map((s) => summary.indexOf(s)).filter((i) => i >= 0);
  return cut.length ? summary.slice(0, Math.min(...cut)) : summary;
}

/** A failure's message and its causes' (up to five), joined. */
export function failureText(f: temporal.api.failure.v1.IFailure | null | undefined): string | undefined {
  const parts: string[] = [];
  for (let c = f; c && parts.length < 5; c = c.cause) if (c.message) parts.push(c.message);
  return parts.length ? parts.join(': ') : undefined;
}

export function historyFacts(events: readonly Event[]): HistoryFacts {
  const facts: HistoryFacts = { commands: {}, swStates: [] };
  const open = new Map<string, CommandSpan>();
  const key = (kind: string, id: unknown) => `${kind}:${String(id)}`;
  const begin = (kind: CommandSpan['kind'], e: Event, id: unknown) => {
    const summary = plain(e.userMetadata?.summary);
    if (typeof summary !== 'string') return;
    const span: CommandSpan = { kind, summary, startedAt: ms(e.eventTime) };
    (facts.commands[nodeOfSummary(summary)] ??= []).push(span);
    open.set(key(kind, id), span);
  };
  const end = (kind: CommandSpan['kind'], e: Event, id: unknown, failed = false) => {
    const span = open.get(key(kind, id));
    if (!span) return;
    open.delete(key(kind, id));
    span.closedAt = ms(e.eventTime);
    if (failed) span.failed = true;
  };
  for (const e of events) {
    const at = ms(e.eventTime);
    if (e.workflowExecutionStartedEventAttributes) facts.startedAt = at;
    else if (e.activityTaskScheduledEventAttributes) begin('activity', e, e.eventId);
    else if (e.activityTaskCompletedEventAttributes) end('activity', e, e.activityTaskCompletedEventAttributes.scheduledEventId);
    else if (e.activityTaskFailedEventAttributes) end('activity', e, e.activityTaskFailedEventAttributes.scheduledEventId, true);
    else if (e.activityTaskTimedOutEventAttributes) end('activity', e, e.activityTaskTimedOutEventAttributes.scheduledEventId, true);
    else if (e.activityTaskCanceledEventAttributes) end('activity', e, e.activityTaskCanceledEventAttributes.scheduledEventId);
    else if (e.timerStartedEventAttributes) begin('timer', e, e.timerStartedEventAttributes.timerId);
    else if (e.timerFiredEventAttributes) end('timer', e, e.timerFiredEventAttributes.timerId);
    else if (e.timerCanceledEventAttributes) end('timer', e, e.timerCanceledEventAttributes.timerId);
    else if (e.startChildWorkflowExecutionInitiatedEventAttributes) begin('child', e, e.startChildWorkflowExecutionInitiatedEventAttributes.workflowId);
    else if (e.childWorkflowExecutionCompletedEventAttributes) end('child', e, e.childWorkflowExecutionCompletedEventAttributes.workflowExecution?.workflowId);
    else if (e.childWorkflowExecutionFailedEventAttributes) end('child', e, e.childWorkflowExecutionFailedEventAttributes.workflowExecution?.workflowId, true);
    else if (e.childWorkflowExecutionTimedOutEventAttributes) end('child', e, e.childWorkflowExecutionTimedOutEventAttributes.workflowExecution?.workflowId, true);
    else if (e.childWorkflowExecutionCanceledEventAttributes) end('child', e, e.childWorkflowExecutionCanceledEventAttributes.workflowExecution?.workflowId);
    else if (e.childWorkflowExecutionTerminatedEventAttributes) end('child', e, e.childWorkflowExecutionTerminatedEventAttributes.workflowExecution?.workflowId, true);
    else if (e.startChildWorkflowExecutionFailedEventAttributes) end('child', e, e.startChildWorkflowExecutionFailedEventAttributes.workflowId, true);
    else if (e.markerRecordedEventAttributes) local(facts, e);
    else if (e.upsertWorkflowSearchAttributesEventAttributes) {
      const state = plain(e.upsertWorkflowSearchAttributesEventAttributes.searchAttributes?.indexedFields?.SwState);
      if (typeof state === 'string') facts.swStates.push({ state, at });
    } else if (e.workflowExecutionCompletedEventAttributes) close(facts, 'completed', at);
    else if (e.workflowExecutionFailedEventAttributes) {
      close(facts, 'failed', at);
      facts.failure = failureText(e.workflowExecutionFailedEventAttributes.failure);
    } else if (e.workflowExecutionTimedOutEventAttributes) close(facts, 'timedOut', at);
    else if (e.workflowExecutionCanceledEventAttributes) close(facts, 'cancelled', at);
    else if (e.workflowExecutionTerminatedEventAttributes) {
      close(facts, 'terminated', at);
      facts.failure = e.workflowExecutionTerminatedEventAttributes.reason ?? 'terminated';
    } else if (e.workflowExecutionContinuedAsNewEventAttributes) close(facts, 'continuedAsNew', at);
  }
  return facts;
}

/** A local activity's marker with a summary (not the resolve): a span from its schedule to its completion. */
function local(facts: HistoryFacts, e: Event): void {
  const summary = plain(e.userMetadata?.summary);
  const data = plain(e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]) as
    | { activity_type?: string; complete_time?: { seconds: number; nanos: number }; original_schedule_time?: { seconds: number; nanos: number } }
    | undefined;
  if (typeof summary !== 'string' || !data || data.activity_type === 'swflow.resolveDefinition') return;
  const at = ms(e.eventTime);
  const span: CommandSpan = { kind: 'local', summary, startedAt: data.original_schedule_time ? ms(data.original_schedule_time) : at, closedAt: data.complete_time ? ms(data.complete_time) : at };
  (facts.commands[nodeOfSummary(summary)] ??= []).push(span);
}

function close(facts: HistoryFacts, how: NonNullable<HistoryFacts['closed']>, at: number): void {
  facts.closed = how;
  facts.closedAt = at;
}

/**
 * The definition the run pinned, as its history holds it: the start's StartOptions.definition
 * (a run started with its definition, or continued as new), else the result of the
 * `swflow.resolveDefinition` local activity (a run started by type). Undefined when the
 * payloads are not plain JSON (a payload codec encrypts them).
 */
export function pinnedDefinition(events: readonly Event[]): unknown {
  for (const e of events) {
    const started = e.workflowExecutionStartedEventAttributes;
    if (started) {
      const opts = plain(started.input?.payloads?.[1]) as { definition?: unknown } | undefined;
      if (opts?.definition) return opts.definition;
      continue;
    }
    const marker = e.markerRecordedEventAttributes;
    if (!marker) continue;
    const data = plain(marker.details?.data?.payloads?.[0]) as { activity_type?: string } | undefined;
    if (data?.activity_type !== 'swflow.resolveDefinition') continue;
    const result = plain(marker.details?.result?.payloads?.[0]) as { definition?: unknown } | undefined;
    if (result?.definition) return result.definition;
  }
  return undefined;
}
