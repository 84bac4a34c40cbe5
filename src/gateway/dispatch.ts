/**
 * Delivering a checked CloudEvent to workflow instances: the one path every inbound binding
 * (HTTP, MQTT) and `swflow event send --temporal` takes, so they route, authorize and answer
 * alike.
 *
 * - By the definitions (routing.ts): signal-with-start or signal to the instance named by the
 *   event, or a signal to every running instance that waits for its type (visibility lookup on
 *   SwAwaitedEvents; concurrent lookups of a 1.0 definition's entries share one query, AwaitingLookups).
 * - Directly, by the `swflowworkflowid` extension attribute: only for an authenticated sender
 *   (anyone else could reach any instance by guessing its id).
 *
 * An event counts as delivered once Temporal has durably taken the signal. Each event's Temporal
 * calls share one deadline (`temporalTimeoutMs`), so an unreachable server is reported as
 * `503` within seconds instead of after the client's own retries (~20 s).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { inSpan } from '../tracing/context';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { CONSUMED_QUERY, EVENT_SIGNAL, INTERPRETER_TASK_QUEUE, type CloudEventJson } from '../common/contracts';
import type { Definition } from '../common/model';
import { route, type AwaitingDelivery, type Delivery, type InstanceDelivery } from './routing';
import { routeV1 } from './routing-v1';
import { candidatesFor } from './type-index';
import { withRunPageLink } from '../ui/link';
import { BoundedMap } from '../common/bounded-map';
import { consumedKey } from '../common/events';

/** Extension attribute naming the target workflow id (CloudEvents attribute names: lowercase alphanumerics). */
export const TARGET_ATTRIBUTE = 'swflowworkflowid';

export interface Delivered {
  workflowId: string;
  runId?: string;
  started: boolean;
  /** This event had already started its instance (a redelivery): nothing new was done. */
  duplicate?: boolean;
  /** How the instance was found: named by the event, a visibility lookup, or `swflowworkflowid`. */
  via: 'id' | 'visibility' | 'direct';
}

export interface EventResult {
  id?: string;
  type?: string;
  /** 202 taken; 403 direct addressing without credentials; 404 nothing consumes it; 503 Temporal unreachable. */
  status: 202 | 403 | 404 | 500 | 503;
  delivered?: Delivered[];
  error?: string;
}

export interface DispatcherOptions {
  client: Client;
  /** The definitions to route by, 0.8-family and 1.0 (called per request, so new files are seen). */
  definitions: () => Promise<Definition[]>;
  /** The task queue new instances start on. Default `swflow`. */
  taskQueue?: string;
  /** How long one event's Temporal calls may take before Temporal counts as unreachable. Default 5 s. */
  temporalTimeoutMs?: number;
  /** At most this many instances are reached by one visibility lookup. Default 1,000. */
  maxLookup?: number;
  /** Says which server does not answer, naming its setting (e.g. `unreachable()` of src/client/connection). Default "Temporal is not reachable". */
  unreachable?: string;
}

/** Where one event goes, decided before anything is delivered (so a batch can be refused whole). */
export type Plan =
  | { ok: true; event: CloudEventJson; deliveries: (Delivery | { via: 'direct'; workflowId: string })[] }
  | { ok: false; result: EventResult };

/** True for errors that mean "Temporal could not be reached in time" (answer 503, retry later). */
export function isUnavailable(err: unknown): boolean {
  for (let e = err as any; e; e = e.cause) {
    if (e.code === 14 /* UNAVAILABLE */ || e.code === 4 /* DEADLINE_EXCEEDED */ || e.code === 1 /* CANCELLED */) return true;
    if (/ECONNREFUSED|unavailable|deadline exceeded|failed to connect|No connection established/i.test(String(e.message ?? ''))) return true;
  }
  return false;
}

/** The longest wait between two attempts of {@link retryWhileUnavailable}. */
const RETRY_MAX_DELAY_MS = 30_000;

/**
 * How the broker inbounds (MQTT, Kafka) hold a message while Temporal cannot take it: `attempt`
 * is made again while its answer is 503 (unreachable) or 500, after `firstDelayMs`, then twice as
 * long each time (at most 30 s), until another answer, or `stopped()` (the inbound is closing:
 * the message is left to the broker). `onRetry` hears each retry before its wait.
 */
export async function retryWhileUnavailable(
  attempt: () => Promise<EventResult>,
  opts: { firstDelayMs: number; signal: AbortSignal; stopped: () => boolean; onRetry: (result: EventResult, delayMs: number) => void },
): Promise<{ result: EventResult; attempts: number }> {
  let delay = opts.firstDelayMs;
  for (let attempts = 1; ; attempts++) {
    const result = await attempt();
    if ((result.status !== 503 && result.status !== 500) || opts.stopped()) return { result, attempts };
    opts.onRetry(result, delay);
    await sleep(delay, undefined, { signal: opts.signal }).catch(() => undefined);
    delay = Math.min(delay * 2, RETRY_MAX_DELAY_MS);
  }
}

/** The search attribute a 1.0 run lists what it waits for in (../common/awaited-events.ts). */
const AWAITED_EVENTS_ATTRIBUTE = 'SwAwaitedEvents';

/** A visibility query string literal. */
const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export class Dispatcher {
  private readonly taskQueue: string;
  private readonly timeoutMs: number;
  private readonly lookups: AwaitingLookups;
  /** The consumed keys of closed runs asked so far (by run id; see consumedBy). */
  private readonly closedRuns = new BoundedMap<string, Promise<Set<string>>>(CLOSED_RUNS_KEPT);

  constructor(private readonly opts: DispatcherOptions) {
    this.taskQueue = opts.taskQueue ?? INTERPRETER_TASK_QUEUE;
    this.lookups = new AwaitingLookups((query, pageSize) => opts.client.workflow.list({ query, pageSize }), opts.maxLookup ?? 1_000);
    this.timeoutMs = opts.temporalTimeoutMs ?? 5_000;
  }

  /** Routes an event, and refuses it when nothing consumes it or when it addresses an instance without credentials. */
  plan(e: CloudEventJson, definitions: Definition[], authenticated: boolean): Plan {
    const base = { id: e.id, type: e.type };
    const target = e[TARGET_ATTRIBUTE];
    if (target !== undefined) {
      if (!authenticated) {
        return { ok: false, result: { ...base, status: 403, error: `addressing an instance directly (${TARGET_ATTRIBUTE}) needs credentials: start the gateway with --token (or --hmac-secret) and send them` } };
      }
      if (typeof target !== 'string' || !target) return { ok: false, result: { ...base, status: 404, error: `${TARGET_ATTRIBUTE} must name a workflow id` } };
      return { ok: true, event: e, deliveries: [{ via: 'direct', workflowId: target }] };
    }
    const { v08, v1 } = candidatesFor(definitions, e.type);
    const deliveries = [...route(v08, e), ...routeV1(v1, e)];
    if (!deliveries.length) {
      return {
        ok: false,
        result: { ...base, status: 404, error: `no workflow definition consumes events of type "${e.type}" from source "${e.source}" (with the correlation attributes its event definitions require)` },
      };
    }
    return { ok: true, event: e, deliveries };
  }

  /** Delivers a planned event. */
  /**
   * Delivers a planned event. When the process traces, in a span `gateway <type>` that continues
   * the event's trace (its `traceparent` extension attribute, else `carrier`'s: the HTTP request's
   * `traceparent` header), so the run it starts or signals joins that trace; `report` sees the
   * result inside that span (its log lines carry the trace).
   */
  deliver(plan: Extract<Plan, { ok: true }>, carrier?: { traceparent?: string; tracestate?: string }, report?: (r: EventResult) => void): Promise<EventResult> {
    const e = plan.event;
    const attributes = { 'cloudevents.event_type': e.type, 'cloudevents.event_id': e.id, 'cloudevents.event_source': e.source };
    return inSpan(`gateway ${e.type}`, { kind: 'consumer', attributes, parent: typeof e.traceparent === 'string' ? { traceparent: e.traceparent, tracestate: e.tracestate } : carrier }, async (span) => {
      const r = await this.deliverNow(plan);
      span?.setAttribute('swflow.gateway.status', r.status);
      report?.(r);
      return r;
    });
  }

  private async deliverNow(plan: Extract<Plan, { ok: true }>): Promise<EventResult> {
    const e = plan.event;
    const base = { id: e.id, type: e.type };
    const delivered: Delivered[] = [];
    try {
      await this.opts.client.withDeadline(Date.now() + this.timeoutMs, async () => {
        for (const d of plan.deliveries) {
          if (d.via === 'visibility') delivered.push(...(await this.toAwaiting(d, e)));
          else if (d.via === 'direct') {
            const r = await this.signal(d.workflowId, e, 'direct');
            if (r) delivered.push(r);
          } else {
            const r = await this.toInstance(d, e);
            if (r) delivered.push(r);
          }
        }
      });
    } catch (err) {
      if (isUnavailable(err)) {
        return { ...base, status: 503, delivered, error: `${this.opts.unreachable ?? 'Temporal is not reachable'} (no answer within ${this.timeoutMs} ms); the event was not accepted, send it again (${firstLine(err)})` };
      }
      return { ...base, status: 500, delivered, error: `the event was not accepted: ${firstLine(err)}` };
    }
    if (!delivered.length) return { ...base, status: 404, error: this.nobody(plan) };
    return { ...base, status: 202, delivered };
  }

  /** Visibility queries made by coalesced lookups of 1.0 entries (tests count coalescing with it). */
  get lookupQueries(): number {
    return this.lookups.queries;
  }

  /** plan + deliver, for one event. */
  async dispatch(e: CloudEventJson, authenticated: boolean): Promise<EventResult> {
    const plan = this.plan(e, await this.opts.definitions(), authenticated);
    return plan.ok ? this.deliver(plan) : plan.result;
  }

  private nobody(plan: Extract<Plan, { ok: true }>): string {
    const why = plan.deliveries.map((d) =>
      d.via === 'visibility'
        ? `no running instance of ${d.workflowType} waits for events of type "${d.eventType}"${d.entries?.some((x) => x.includes('#')) ? ' with these correlation values' : ''} (visibility can lag a second behind an instance that just began to wait: send it again)`
        : `no running instance ${d.workflowId}`,
    );
    const starts = plan.deliveries.some((d) => d.via === 'id' && d.start);
    return `no running instance to deliver it to: ${why.join('; ')}${starts ? '' : ', and no definition starts with it'}`;
  }

  private async toInstance(d: InstanceDelivery, e: CloudEventJson): Promise<Delivered | undefined> {
    if (!d.start) return this.signal(d.workflowId, e, 'id');
    if (d.unlessAwaited) {
      const waiting = await this.toAwaiting(d.unlessAwaited, e, 1);
      if (waiting.length) return waiting[0];
    }
    const signalWithStart = (reuse: 'REJECT_DUPLICATE' | 'ALLOW_DUPLICATE') =>
      this.opts.client.workflow.signalWithStart(d.workflowType, {
        taskQueue: this.taskQueue,
        workflowId: d.workflowId,
        args: [{}],
        signal: EVENT_SIGNAL,
        signalArgs: [e],
        staticDetails: withRunPageLink(d.workflowId),
        workflowIdReusePolicy: reuse,
      });
    try {
      // A running instance is signalled whatever the policy. None running: an instance named after
      // its start event is started once, however often the event comes; a correlated one is asked first.
      const handle = await signalWithStart('REJECT_DUPLICATE');
      return { workflowId: d.workflowId, runId: handle.signaledRunId, started: true, via: 'id' };
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      if (d.keyedBy === 'event') return { workflowId: d.workflowId, started: false, duplicate: true, via: 'id' };
    }
    // A closed run holds this correlation id. A redelivery of an event it consumed (a broker's
    // at-least-once, a sender's retry) is not a new instance; any other event opens the id again.
    if (await this.consumedBy(d.workflowId, e)) return { workflowId: d.workflowId, started: false, duplicate: true, via: 'id' };
    const handle = await signalWithStart('ALLOW_DUPLICATE');
    return { workflowId: d.workflowId, runId: handle.signaledRunId, started: true, via: 'id' };
  }

  /**
   * Whether the latest run of `workflowId` (closed) consumed the event. Its consumed keys are asked
   * once per closed run (the swflow.consumed query replays its history on a worker, which takes
   * time: it gets its own deadline) and kept: a closed run does not change, and a broker
   * redelivering a batch asks for the same run again and again.
   */
  private async consumedBy(workflowId: string, e: CloudEventJson): Promise<boolean> {
    let runId: string;
    try {
      runId = (await this.opts.client.workflow.getHandle(workflowId).describe()).runId;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
    let keys = this.closedRuns.get(runId);
    if (!keys) {
      keys = this.opts.client
        .withDeadline(Date.now() + CONSUMED_QUERY_TIMEOUT_MS, () => this.opts.client.workflow.getHandle(workflowId, runId).query<string[]>(CONSUMED_QUERY))
        .then(
          (list) => new Set(Array.isArray(list) ? list : []),
          (err) => {
            this.closedRuns.delete(runId);
            if (isUnavailable(err)) throw err; // asked again with the event's next attempt
            // A run that cannot answer (e.g. it cannot be replayed): the id opens again, as before this check.
            return new Set<string>();
          },
        );
      this.closedRuns.set(runId, keys);
    }
    return (await keys).has(consumedKey(e));
  }

  private async signal(workflowId: string, e: CloudEventJson, via: Delivered['via']): Promise<Delivered | undefined> {
    try {
      await this.opts.client.workflow.getHandle(workflowId).signal(EVENT_SIGNAL, e);
      return { workflowId, started: false, via };
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined; // no running instance of that id
      throw err;
    }
  }

  /** Every running instance of the definition whose SwAwaitedEvents holds the event's type (1.0: one of the entries). */
  private async toAwaiting(d: AwaitingDelivery, e: CloudEventJson, limit?: number): Promise<Delivered[]> {
    const out: Delivered[] = [];
    const max = limit ?? this.opts.maxLookup ?? 1_000;
    // 1.0 entries (mostly one correlation key per event): concurrent events share one lookup.
    if (d.entries && limit === undefined) {
      for (const id of (await this.lookups.find(d.workflowType, d.entries)).slice(0, max)) {
        const r = await this.signal(id, e, 'visibility');
        if (r) out.push(r);
      }
      return out;
    }
    const awaited = d.entries ? `SwAwaitedEvents IN (${d.entries.map(literal).join(', ')})` : `SwAwaitedEvents = ${literal(d.eventType)}`;
    const query = `SwDefinitionId = ${literal(d.workflowType)} AND ${awaited} AND ExecutionStatus = 'Running'`;
    for await (const w of this.opts.client.workflow.list({ query, pageSize: Math.min(max, 1_000) })) {
      const r = await this.signal(w.workflowId, e, 'visibility');
      if (r) out.push(r);
      if (out.length >= max) break;
    }
    return out;
  }

}

/** How long the swflow.consumed query of a closed run may take (a replay of its whole history on a worker). */
export const CONSUMED_QUERY_TIMEOUT_MS = 60_000;

/** Closed runs whose consumed keys a gateway keeps. */
const CLOSED_RUNS_KEPT = 200;

/** Visibility queries of one definition under way at once; lookups arriving meanwhile wait and go together (2 measured slower: bench/README.md). */
export const LOOKUPS_IN_FLIGHT = 1;

/** Most SwAwaitedEvents entries one coalesced visibility query names. */
export const MAX_LOOKUP_ENTRIES = 100;

interface Waiter {
  entries: string[];
  resolve(ids: string[]): void;
  reject(err: unknown): void;
}

/**
 * Visibility lookups of running instances by SwAwaitedEvents entries, coalesced: while
 * {@link LOOKUPS_IN_FLIGHT} queries of a definition are under way, the lookups that arrive for it
 * wait and then go as ONE query naming all their entries (at most {@link MAX_LOOKUP_ENTRIES});
 * each gets the instances that hold one of its own entries. Under load, N concurrent events cost
 * a few queries instead of N (the dev server's SQLite visibility is slow to answer many); alone,
 * a lookup goes at once. Each lookup sees what visibility shows after it arrived, as before.
 */
export class AwaitingLookups {
  private readonly pending = new Map<string, Waiter[]>();
  /** Queries under way per definition (at most {@link LOOKUPS_IN_FLIGHT}). */
  private readonly busy = new Map<string, number>();
  /** Visibility queries made (tests count coalescing with it). */
  queries = 0;

  constructor(
    private readonly list: (query: string, pageSize: number) => AsyncIterable<{ workflowId: string; searchAttributes?: Record<string, unknown> }>,
    /** Most instances one lookup returns. */
    private readonly maxPerLookup: number,
  ) {}

  /** The workflow ids of running instances of `workflowType` whose SwAwaitedEvents holds one of `entries`. */
  find(workflowType: string, entries: string[]): Promise<string[]> {
    return new Promise((resolve, reject) => {
      const queue = this.pending.get(workflowType) ?? [];
      queue.push({ entries, resolve, reject });
      this.pending.set(workflowType, queue);
      if ((this.busy.get(workflowType) ?? 0) < LOOKUPS_IN_FLIGHT) void this.drain(workflowType);
    });
  }

  private async drain(workflowType: string): Promise<void> {
    this.busy.set(workflowType, (this.busy.get(workflowType) ?? 0) + 1);
    try {
      for (let queue = this.pending.get(workflowType); queue?.length; queue = this.pending.get(workflowType)) {
        // Take waiters up to the entry bound (always at least one).
        const batch: Waiter[] = [];
        const entries = new Set<string>();
        while (queue.length && (!batch.length || entries.size + queue[0].entries.length <= MAX_LOOKUP_ENTRIES)) {
          const w = queue.shift()!;
          batch.push(w);
          for (const x of w.entries) entries.add(x);
        }
        if (!queue.length) this.pending.delete(workflowType);
        try {
          const found = await this.query(workflowType, [...entries], batch.length);
          for (const w of batch) {
            const mine = new Set(w.entries);
            w.resolve(found.filter((f) => f.entries.some((x) => mine.has(x))).map((f) => f.workflowId).slice(0, this.maxPerLookup));
          }
        } catch (err) {
          for (const w of batch) w.reject(err);
        }
      }
    } finally {
      const left = (this.busy.get(workflowType) ?? 1) - 1;
      if (left) this.busy.set(workflowType, left);
      else this.busy.delete(workflowType);
    }
  }

  private async query(workflowType: string, entries: string[], lookups: number): Promise<{ workflowId: string; entries: string[] }[]> {
    this.queries++;
    const query = `SwDefinitionId = ${literal(workflowType)} AND SwAwaitedEvents IN (${entries.map(literal).join(', ')}) AND ExecutionStatus = 'Running'`;
    const max = this.maxPerLookup * lookups;
    const out: { workflowId: string; entries: string[] }[] = [];
    for await (const w of this.list(query, Math.min(max, 1_000))) {
      const held = w.searchAttributes?.[AWAITED_EVENTS_ATTRIBUTE];
      // Not listed (never seen): it matched the query, so it may be anyone's; its run's own filter decides.
      out.push({ workflowId: w.workflowId, entries: Array.isArray(held) ? held.map(String) : entries });
      if (out.length >= max) break;
    }
    return out;
  }
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0].slice(0, 300);
}
