/**
 * `swflow payloads gc`: removes stored payloads no existing run needs (mark and sweep).
 *
 * Mark: every execution the namespace still has (open and closed: closed ones live until the
 * namespace's retention) is read as raw history protos (never through the data converter, which
 * would download every payload), and the key of every reference payload anywhere in it is kept;
 * so are the references in open runs' mutable state (pending activities' heartbeat details and
 * failures) and in schedules' actions (their start arguments and memo live outside any history).
 * Sweep: every stored payload neither referenced nor put within the grace period is removed.
 *
 * What the mark cannot see, and the grace period covers: a reference held only by a request in
 * flight (an activity result being completed, a start or signal on its way). A store's `put` of
 * a key already there refreshes its `createdAt`, so a payload re-used by content by a new run is
 * young again. Any read that fails (other than a run deleted meanwhile) stops the gc before it
 * removes anything: an unread history is never taken as one without references.
 */
import type { Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { decodeReferencePayload, isReferencePayload } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import type { PayloadStore } from './store';
import { formatBytes } from '../common/payload-limit';

type WorkflowService = Connection['workflowService'];
const RUNNING = temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;

export interface GcOptions {
  /** The namespaces whose runs use the store (all of them: a payload only another one refers to would go). */
  namespaces: string[];
  /** Payloads put less than this long before the gc started are kept (ms). */
  minAgeMs: number;
  /** Report what would be removed, remove nothing. */
  dryRun?: boolean;
  /** Runs whose histories are read at the same time (default 8). */
  concurrency?: number;
}

export interface GcReport {
  namespaces: string[];
  store: string;
  dryRun: boolean;
  /** Executions whose history was read (deleted meanwhile: not counted). */
  runs: number;
  schedules: number;
  /** Distinct payload keys referenced. */
  references: number;
  /** Referenced keys of this store's kind that it does not hold (runs that will fail to read them). */
  missing: number;
  /** Stored payloads kept because referenced, and because younger than the grace period. */
  keptReferenced: number;
  keptYoung: number;
  keptBytes: number;
  /** Removed (with dryRun: would be removed), temporary files included. */
  removed: number;
  bytesFreed: number;
  /** Files the store lists that are not payloads (left alone). */
  foreign: number;
  seconds: number;
}

/** A stored payload, or a temporary file a crash left while writing one (./file-store.ts). */
const REMOVABLE = /^sha256-[0-9a-f]{64}(\.[0-9a-f]+\.tmp)?$/;

/** The keys (with their drivers) of every reference payload in a decoded proto message, anywhere in it. */
export function referencesIn(value: unknown, found: Map<string, string>, where: string): void {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
  if (Array.isArray(value)) {
    for (const v of value) referencesIn(v, found, where);
    return;
  }
  const o = value as Record<string, unknown>;
  if (o.metadata && typeof o.metadata === 'object' && isReferencePayload(o as Payload)) {
    let ref: ReturnType<typeof decodeReferencePayload>;
    try {
      ref = decodeReferencePayload(o as Payload);
    } catch (err) {
      throw new Error(`${where}: a payload reference cannot be read (${(err as Error).message}); nothing was removed`);
    }
    const key = ref.claimData.key;
    if (typeof key !== 'string' || !key) throw new Error(`${where}: a ${ref.driverName} payload reference without a key (${JSON.stringify(ref.claimData).slice(0, 200)}); nothing was removed`);
    found.set(key, ref.driverName);
    return;
  }
  for (const v of Object.values(o)) referencesIn(v, found, where);
}

/** gRPC NOT_FOUND (5): a run or schedule deleted between listing and reading it. */
const isNotFound = (err: unknown) => (err as { code?: number }).code === 5;

/** Every execution of the namespace (open and closed), a page at a time, with its list entry. */
async function* executions(service: WorkflowService, namespace: string) {
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.listWorkflowExecutions({ namespace, pageSize: 500, nextPageToken });
    yield* page.executions ?? [];
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
}

/** The references in one run: its whole history, and for an open run its pending state. False when the run no longer exists. */
async function markRun(service: WorkflowService, namespace: string, info: temporal.api.workflow.v1.IWorkflowExecutionInfo, found: Map<string, string>): Promise<boolean> {
  const execution = { workflowId: info.execution?.workflowId ?? '', runId: info.execution?.runId ?? '' };
  const where = `run ${execution.workflowId} (${execution.runId})`;
  referencesIn(info, found, where);
  let nextPageToken: Uint8Array | undefined;
  try {
    do {
      const page = await service.getWorkflowExecutionHistory({ namespace, execution, maximumPageSize: 100, nextPageToken, skipArchival: true });
      referencesIn(page.history?.events, found, where);
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    if (info.status === RUNNING) referencesIn(await service.describeWorkflowExecution({ namespace, execution }), found, where);
  } catch (err) {
    if (isNotFound(err)) return false;
    throw new Error(`${where}: its history cannot be read (${(err as Error).message}); nothing was removed`);
  }
  return true;
}

/** The references in every schedule's action; how many schedules. */
async function markSchedules(service: WorkflowService, namespace: string, found: Map<string, string>): Promise<number> {
  let n = 0;
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.listSchedules({ namespace, maximumPageSize: 500, nextPageToken });
    for (const entry of page.schedules ?? []) {
      const where = `schedule ${entry.scheduleId}`;
      referencesIn(entry, found, where);
      try {
        referencesIn(await service.describeSchedule({ namespace, scheduleId: entry.scheduleId }), found, where);
        n++;
      } catch (err) {
        if (!isNotFound(err)) throw new Error(`${where} cannot be read (${(err as Error).message}); nothing was removed`);
      }
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return n;
}

/** Runs `fn` on every item of `items`, `limit` at a time; the first failure rejects (after the others settle). */
async function eachLimited<T>(items: AsyncIterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const running = new Set<Promise<void>>();
  let failure: unknown;
  for await (const item of items) {
    if (failure) break;
    const p: Promise<void> = fn(item).catch((err) => void (failure ??= err)).finally(() => running.delete(p));
    running.add(p);
    if (running.size >= limit) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure;
}

/** Mark and sweep (see the module comment). */
export async function gcPayloads(connection: Connection, store: PayloadStore, opts: GcOptions): Promise<GcReport> {
  const started = Date.now();
  // Payloads put after this instant are kept whatever the mark found: their references may be in
  // flight, or in an event written after its history was read.
  const cutoff = started - opts.minAgeMs;
  const service = connection.workflowService;
  const { namespaces } = opts;
  if (!namespaces.length) throw new Error('payloads gc: no namespace to scan');
  const found = new Map<string, string>();
  let runs = 0;
  let schedules = 0;
  for (const namespace of namespaces) {
    await eachLimited(executions(service, namespace), opts.concurrency ?? 8, async (info) => {
      if (await markRun(service, namespace, info, found)) runs++;
    });
    schedules += await markSchedules(service, namespace, found);
  }

  const report: GcReport = { namespaces, store: store.location, dryRun: Boolean(opts.dryRun), runs, schedules, references: found.size, missing: 0, keptReferenced: 0, keptYoung: 0, keptBytes: 0, removed: 0, bytesFreed: 0, foreign: 0, seconds: 0 };
  const present = new Set<string>();
  let batch: { key: string; size: number }[] = [];
  const flush = async () => {
    const keys = batch.map((b) => b.key);
    const bytes = batch.reduce((n, b) => n + b.size, 0);
    batch = [];
    if (!keys.length) return;
    if (opts.dryRun) {
      report.removed += keys.length;
      report.bytesFreed += bytes;
      return;
    }
    const removed = await store.delete(keys, new Date(cutoff));
    report.removed += removed;
    // A key removed meanwhile by another gc freed nothing here; sizes are per key, so scale.
    report.bytesFreed += removed === keys.length ? bytes : Math.round((bytes * removed) / keys.length);
  };
  for await (const item of store.list()) {
    present.add(item.key);
    if (!REMOVABLE.test(item.key)) {
      report.foreign++;
      continue;
    }
    if (found.has(item.key)) report.keptReferenced++;
    else if (item.createdAt.getTime() >= cutoff) report.keptYoung++;
    else {
      batch.push({ key: item.key, size: item.size });
      if (batch.length >= 100) await flush();
      continue;
    }
    report.keptBytes += item.size;
  }
  await flush();
  for (const [key, driver] of found) if (driver === store.kind && !present.has(key)) report.missing++;
  report.seconds = (Date.now() - started) / 1000;
  return report;
}

/** The report as the command prints it. */
export function describeGc(r: GcReport): string[] {
  const lines = [
    `namespace${r.namespaces.length > 1 ? 's' : ''} ${r.namespaces.join(', ')}, store ${r.store}${r.dryRun ? ' (dry run: nothing removed)' : ''}`,
    `runs scanned ${r.runs}, schedules ${r.schedules}, references found ${r.references}`,
    `payloads kept ${r.keptReferenced + r.keptYoung} (${r.keptReferenced} referenced, ${r.keptYoung} younger than the grace period; ${formatBytes(r.keptBytes)})`,
    `payloads ${r.dryRun ? 'to remove' : 'removed'} ${r.removed}, bytes ${r.dryRun ? 'to free' : 'freed'} ${r.bytesFreed} (${formatBytes(r.bytesFreed)}) in ${r.seconds.toFixed(1)} s`,
  ];
  if (r.missing) lines.push(`warning: ${r.missing} referenced payload(s) of this store's kind are not in it (another store, or removed): the runs that read them will fail`);
  if (r.foreign) lines.push(`${r.foreign} file(s) in the store that are not payloads were left alone`);
  return lines;
}
