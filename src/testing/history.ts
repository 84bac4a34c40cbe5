/** Helpers over a run's Temporal history: decoded text (historyExcludes), open timers, task failures, child runs. */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { tsToMs } from '@temporalio/common/lib/time';

type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];

const HistoryProto = temporal.api.history.v1.History;

/**
 * The history as a plain JSON-able object (longs and enums as strings, bytes base64).
 * (@temporalio/common's historyToJSON is not used: with the protobufjs copies installed here
 * it throws "type must be a Type".)
 */
export function historyToObject(history: History): Record<string, unknown> {
  return HistoryProto.toObject(HistoryProto.fromObject(history as never), { longs: String, enums: String, bytes: String }) as Record<string, unknown>;
}

/** A replay fixture: the history as JSON text. */
export function historyToFixture(history: History): string {
  return `${JSON.stringify(historyToObject(history), null, 1)}\n`;
}

/** A History (with Long ids, as Worker.runReplayHistories wants) from {@link historyToFixture} text. */
export function historyFromFixture(text: string): History {
  return HistoryProto.fromObject(JSON.parse(text)) as unknown as History;
}

/**
 * The history as the server stores it, serialized to JSON, with every payload's data and
 * metadata decoded to text (so a secret in a payload shows up as itself).
 */
export function historyText(history: History): string {
  return JSON.stringify(decodePayloads(historyToObject(history)));
}

function decodePayloads(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decodePayloads);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.data === 'string' && o.metadata !== null && typeof o.metadata === 'object') {
      const meta: Record<string, string> = {};
      for (const [k, m] of Object.entries(o.metadata as Record<string, unknown>)) meta[k] = typeof m === 'string' ? b64(m) : String(m);
      return { ...o, metadata: meta, data: b64(o.data) };
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = decodePayloads(x);
    return out;
  }
  return v;
}

function b64(s: string): string {
  try {
    return Buffer.from(s, 'base64').toString('utf8');
  } catch {
    return s;
  }
}

/** Timers started and neither fired nor canceled, with their fire time (server clock, ms). */
export function openTimers(events: HistoryEvent[]): { timerId: string; fireAtMs: number }[] {
  const open = new Map<string, number>();
  for (const e of events) {
    if (e.timerStartedEventAttributes) {
      const a = e.timerStartedEventAttributes;
      open.set(String(a.timerId), tsToMs(e.eventTime) + tsToMs(a.startToFireTimeout));
    } else if (e.timerFiredEventAttributes) open.delete(String(e.timerFiredEventAttributes.timerId));
    else if (e.timerCanceledEventAttributes) open.delete(String(e.timerCanceledEventAttributes.timerId));
  }
  return [...open].map(([timerId, fireAtMs]) => ({ timerId, fireAtMs }));
}

/** The message of the latest failed workflow task (an interpreter bug or nondeterminism), if any after the last completed one. */
export function workflowTaskFailure(events: HistoryEvent[]): string | undefined {
  let failure: string | undefined;
  for (const e of events) {
    if (e.workflowTaskFailedEventAttributes) {
      const f = e.workflowTaskFailedEventAttributes.failure;
      failure = `workflow task failed (${String(e.workflowTaskFailedEventAttributes.cause ?? '')}): ${f?.message ?? 'no message'}${
        f?.stackTrace ? `\n${f.stackTrace.split('\n').slice(0, 6).join('\n')}` : ''
      }`;
    } else if (e.workflowTaskCompletedEventAttributes) failure = undefined;
  }
  return failure;
}

/** Workflow ids of the child workflows the run started. */
function childWorkflowIds(events: HistoryEvent[]): string[] {
  const ids: string[] = [];
  for (const e of events) {
    const id = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId;
    if (id) ids.push(id);
  }
  return ids;
}

/**
 * The run `workflowId` and, breadth first, the child runs it and they started, each with its
 * history (`history`: the run's own, when already fetched).
 */
export async function* runTree(client: Client, workflowId: string, history?: History): AsyncGenerator<{ workflowId: string; history: History }> {
  const seen = new Set<string>();
  const queue = [workflowId];
  while (queue.length) {
    const id = queue.shift()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const h = id === workflowId && history ? history : await client.workflow.getHandle(id).fetchHistory();
    yield { workflowId: id, history: h };
    queue.push(...childWorkflowIds(h.events ?? []));
  }
}

export type { History, HistoryEvent };
