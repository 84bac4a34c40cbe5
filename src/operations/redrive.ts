/**
 * Redrive: a failed run restarts at the state (0.8) or task (1.0) that failed, keeping what
 * succeeded before it (src/common/redrive.ts says how the new run avoids repeating calls).
 *
 * It is a Temporal reset, so the new run has the same workflow id, links to the old one (the
 * reset chain the Web UI shows), and gets the signals (events) the old one received after the
 * reset point again unless told not to. Where to reset is what swflow knows and Temporal does not:
 * just before the first attempt of the call that failed (its workflow task), or, to carry the run
 * over to another definition, its first workflow task, where the definition is pinned again.
 */
import { randomUUID } from 'node:crypto';
import Long from 'long';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Definition } from '../common/model';
import { isV1Definition } from '../common/model-v1';
import { RESOLVE_DEFINITION_ACTIVITY } from '../common/pinning';
import { STATE_QUERY, type InstanceState } from '../common/contracts';
import { redriveReason, type RedriveReason } from '../common/redrive';
import { errorClass, SwflowError } from '../common/errors';
import type { DefinitionRegistry } from '../definitions/registry';
import { failureText, nodeOfSummary } from '../ui/history';
import { PayloadReader, ledgerEntries, runEvents } from '../worker/activities/redrive-ledger';

type Event = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;

export interface RedriveOptions {
  workflowId: string;
  /** The run to redrive; default: the latest run of the workflow id (the last of a continue-as-new chain). */
  runId?: string;
  /** Signals (events) received after the reset point are applied again to the new run (default true). */
  reapplySignals?: boolean;
  /** Carry the run over to this version of its definition (looked up in `registry`), from the failed step on. */
  definitionVersion?: string;
  /** Carry the run over to this definition (a document, parsed), from the failed step on. */
  definition?: Definition;
  /** Where `definitionVersion` is looked up (the worker's definition folders). */
  registry?: DefinitionRegistry;
  /** Say what would be done, do nothing. */
  dryRun?: boolean;
  /** Who asks (recorded as the reset's identity). */
  identity?: string;
  /** How long the old run's `state` query may take (it lists the steps it completed). */
  queryTimeoutMs?: number;
}

export interface RedrivePlan {
  workflowId: string;
  runId: string;
  /** The step that failed: a 0.8 state name or a 1.0 task's JSON pointer. */
  step: string;
  /** The failure, as the run reported it. */
  failure: string;
  /** The workflow task the run is reset to (its event id). */
  resetEventId: number;
  /** Calls that succeeded after the reset point and will be answered from the old run, not made again. */
  reused: number;
  /** The definition version the new run continues with (when carried over). */
  definitionVersion?: string;
}

export interface RedriveResult extends RedrivePlan {
  /** The new run (same workflow id); absent on a dry run. */
  newRunId?: string;
}

/** A run that cannot be redriven, or a definition it cannot be carried over to: says why. */
export class RedriveRefused extends SwflowError {
  static {
    errorClass(this, 'RedriveRefused');
  }
}

/** Largest definition a redrive carries in its reset reason (`--definition`); larger: deploy it and use a version. */
const MAX_INLINE_DEFINITION = 32 * 1024;

export async function redrive(client: Client, options: RedriveOptions): Promise<RedriveResult> {
  const plan = await planRedrive(client, options);
  if (options.dryRun) return plan.result;
  const res: temporal.api.workflowservice.v1.IResetWorkflowExecutionResponse = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId: plan.result.workflowId, runId: plan.result.runId },
    reason: redriveReason(plan.reason),
    workflowTaskFinishEventId: Long.fromNumber(plan.result.resetEventId),
    requestId: randomUUID(),
    resetReapplyType: options.reapplySignals === false ? temporal.api.enums.v1.ResetReapplyType.RESET_REAPPLY_TYPE_NONE : temporal.api.enums.v1.ResetReapplyType.RESET_REAPPLY_TYPE_SIGNAL,
    ...(options.reapplySignals === false ? { resetReapplyExcludeTypes: [temporal.api.enums.v1.ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_SIGNAL] } : {}),
    identity: options.identity ?? 'swflow redrive',
  });
  return { ...plan.result, newRunId: res.runId ?? undefined };
}

interface Plan {
  result: RedrivePlan;
  reason: RedriveReason;
}

/** Where a failed run would be reset, and what it keeps: everything but the reset itself. */
export async function planRedrive(client: Client, options: RedriveOptions): Promise<Plan> {
  const { workflowId } = options;
  // The latest run only: resetting an older one would end the run that followed it.
  const desc = await client.workflow.getHandle(workflowId).describe().catch((err: Error) => {
    throw new RedriveRefused(`no run ${workflowId}: ${err.message}`);
  });
  const runId = desc.runId;
  if (options.runId && options.runId !== runId) {
    throw new RedriveRefused(`run ${options.runId} of ${workflowId} is not its latest (${runId}, ${desc.status.name.toLowerCase().replace(/_/g, ' ')}): it was redriven or started again since; redrive the latest run`);
  }
  const status = desc.status.name;
  if (status === 'CONTINUED_AS_NEW') {
    throw new RedriveRefused(`run ${runId} of ${workflowId} continued as new: only the last run of a chain can be reset (Temporal resets one run's history; the runs before it are closed for good). Redrive the chain's last run: swflow redrive ${workflowId}`);
  }
  if (status !== 'FAILED' && status !== 'TIMED_OUT') {
    throw new RedriveRefused(`run ${runId} of ${workflowId} is ${status.toLowerCase().replace(/_/g, ' ')}: only a failed (or timed out) run can be redriven`);
  }
  const events = await runEvents(client, client.options.namespace, workflowId, runId);
  const reader = PayloadReader.fromEnvironment();
  const failed = await failedStep(events, reader);
  const onto = options.definition ?? (options.definitionVersion !== undefined ? await definitionVersion(events, reader, options) : undefined);
  let resetEventId: number;
  const reason: RedriveReason = { step: failed.step };
  if (onto) {
    const old = await pinnedOf(events, reader);
    if (!old) throw new RedriveRefused(`the definition ${workflowId} pinned cannot be read from its history`);
    const steps = await completedSteps(client, workflowId, runId, events, failed.step, options.queryTimeoutMs);
    const difference = firstDifference(old, onto, steps, failed.step);
    if (difference) throw new RedriveRefused(`cannot carry ${workflowId} over to ${onto.version ? `version ${onto.version}` : 'the given definition'}: ${difference}`);
    // Its first workflow task: the run pins the other definition there, and replays the rest from the ledger.
    resetEventId = firstTaskCompleted(events);
    if (options.definition) {
      if (JSON.stringify(options.definition).length > MAX_INLINE_DEFINITION) throw new RedriveRefused(`the definition given is over ${MAX_INLINE_DEFINITION / 1024} KB: deploy it to the workers' folders and redrive onto its version (--definition-version)`);
      reason.definition = options.definition;
    } else reason.definitionVersion = onto.version;
  } else resetEventId = failed.resetEventId;
  const reused = (await ledgerEntries(events, resetEventId, reader)).length;
  return { result: { workflowId, runId, step: failed.step, failure: failed.failure, resetEventId, reused, ...(onto?.version && !options.definition ? { definitionVersion: onto.version } : {}) }, reason };
}

interface FailedStep {
  step: string;
  failure: string;
  /** Just before the first attempt of the call that failed: the workflow task that made it. */
  resetEventId: number;
}

/** A command of the run: what made it, and how it ended. */
interface Command {
  at: number;
  node: string;
  key: string;
  failed: boolean;
  done: boolean;
}

/**
 * The step that failed and where to reset: the last failed call (activity, local call, child run)
 * names the step; the reset goes before the first of the failed attempts of that call that
 * followed its node's last success (a retry loop starts over). A failure with no failed call (a
 * `raise`, an expression) re-does the run's last workflow task.
 */
export async function failedStep(events: readonly Event[], reader: PayloadReader): Promise<FailedStep> {
  const end = events.find((e) => e.workflowExecutionFailedEventAttributes || e.workflowExecutionTimedOutEventAttributes);
  const failure = failureText(end?.workflowExecutionFailedEventAttributes?.failure) ?? (end?.workflowExecutionTimedOutEventAttributes ? 'timed out' : 'failed');
  const commands = await commandsOf(events, reader);
  const lastFailed = [...commands].reverse().find((c) => c.failed);
  if (!lastFailed) {
    const step = stepOfFailure(end?.workflowExecutionFailedEventAttributes?.failure) ?? lastSwState(events) ?? '(the run)';
    const lastTask = [...events].reverse().find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && Number(e.eventId) < Number(end?.eventId ?? Infinity));
    if (!lastTask) throw new RedriveRefused('the run failed before its first workflow task completed: start it again instead');
    return { step, failure, resetEventId: Number(lastTask.eventId) };
  }
  const same = commands.filter((c) => c.node === lastFailed.node && c.at <= lastFailed.at);
  let first = lastFailed;
  for (let i = same.length - 1; i >= 0 && !same[i].done; i--) if (same[i].failed && same[i].key === lastFailed.key) first = same[i];
  const task = [...events].reverse().find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED && Number(e.eventId) < first.at);
  if (!task) throw new RedriveRefused('the failed call was made before the run\'s first workflow task completed');
  return { step: lastFailed.node, failure, resetEventId: Number(task.eventId) };
}

async function commandsOf(events: readonly Event[], reader: PayloadReader): Promise<Command[]> {
  const open = new Map<string, Command>();
  const out: Command[] = [];
  const summary = async (e: Event) => {
    const s = await reader.one(e.userMetadata?.summary as never).catch(() => undefined);
    return typeof s === 'string' ? s : undefined;
  };
  const begin = async (id: string, e: Event) => {
    const s = await summary(e);
    if (!s) return;
    const c: Command = { at: Number(e.eventId), node: nodeOfSummary(s), key: s.replace(/ \(again: [^)]*\)$/, ''), failed: false, done: false };
    out.push(c);
    open.set(id, c);
  };
  const finish = (id: string, ok: boolean) => {
    const c = open.get(id);
    if (!c) return;
    open.delete(id);
    c.failed = !ok;
    c.done = ok;
  };
  for (const e of events) {
    if (e.activityTaskScheduledEventAttributes) await begin(`a${e.eventId}`, e);
    else if (e.activityTaskCompletedEventAttributes) finish(`a${e.activityTaskCompletedEventAttributes.scheduledEventId}`, true);
    else if (e.activityTaskFailedEventAttributes) finish(`a${e.activityTaskFailedEventAttributes.scheduledEventId}`, false);
    else if (e.activityTaskTimedOutEventAttributes) finish(`a${e.activityTaskTimedOutEventAttributes.scheduledEventId}`, false);
    else if (e.startChildWorkflowExecutionInitiatedEventAttributes) await begin(`c${e.eventId}`, e);
    else if (e.childWorkflowExecutionCompletedEventAttributes) finish(`c${e.childWorkflowExecutionCompletedEventAttributes.initiatedEventId}`, true);
    else if (e.childWorkflowExecutionFailedEventAttributes) finish(`c${e.childWorkflowExecutionFailedEventAttributes.initiatedEventId}`, false);
    else if (e.childWorkflowExecutionTimedOutEventAttributes) finish(`c${e.childWorkflowExecutionTimedOutEventAttributes.initiatedEventId}`, false);
    else if (e.childWorkflowExecutionTerminatedEventAttributes) finish(`c${e.childWorkflowExecutionTerminatedEventAttributes.initiatedEventId}`, false);
    else if (e.markerRecordedEventAttributes) {
      const m = e.markerRecordedEventAttributes;
      const data = (await reader.one(m.details?.data?.payloads?.[0]).catch(() => undefined)) as { activity_type?: string } | undefined;
      if (!data?.activity_type || data.activity_type.startsWith('swflow.')) continue;
      await begin(`m${e.eventId}`, e);
      finish(`m${e.eventId}`, !m.failure);
    }
  }
  return out;
}

/** The step a failure names: a 0.8 `state "X"`, or a 1.0 problem's `instance` pointer (in the message or its details). */
function stepOfFailure(f: temporal.api.failure.v1.IFailure | null | undefined): string | undefined {
  for (let c = f; c; c = c.cause) {
    const state = c.message?.match(/state "([^"]+)"/);
    if (state) return state[1];
    const at = c.message?.match(/\bat (\/do\/[^\s)]+)/);
    if (at) return at[1];
  }
  return undefined;
}

function lastSwState(events: readonly Event[]): string | undefined {
  const dec = new TextDecoder();
  for (let i = events.length - 1; i >= 0; i--) {
    const p = events[i].upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.SwState;
    if (p?.data) {
      try {
        return JSON.parse(dec.decode(p.data)) as string;
      } catch {
        /* not plain JSON */
      }
    }
  }
  return undefined;
}

function firstTaskCompleted(events: readonly Event[]): number {
  const e = events.find((x) => x.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  if (!e) throw new RedriveRefused('the run has no completed workflow task to reset to');
  return Number(e.eventId);
}

/** The definition the run pinned: its start options', or its resolve activity's result. */
export async function pinnedOf(events: readonly Event[], reader: PayloadReader): Promise<Definition | undefined> {
  for (const e of events) {
    const started = e.workflowExecutionStartedEventAttributes;
    if (started) {
      const args = await reader.all(started.input?.payloads);
      const opts = args[1] as { definition?: Definition } | undefined;
      if (opts?.definition) return opts.definition;
      continue;
    }
    const m = e.markerRecordedEventAttributes;
    if (!m) continue;
    const data = (await reader.one(m.details?.data?.payloads?.[0]).catch(() => undefined)) as { activity_type?: string } | undefined;
    if (data?.activity_type !== RESOLVE_DEFINITION_ACTIVITY) continue;
    const result = (await reader.one(m.details?.result?.payloads?.[0])) as { definition?: Definition } | undefined;
    return result?.definition;
  }
  return undefined;
}

async function definitionVersion(events: readonly Event[], reader: PayloadReader, options: RedriveOptions): Promise<Definition> {
  const old = await pinnedOf(events, reader);
  if (!old) throw new RedriveRefused(`the definition ${options.workflowId} pinned cannot be read from its history`);
  if (!options.registry) throw new RedriveRefused('--definition-version needs the definitions the workers serve (--definitions)');
  try {
    return (await options.registry.resolve(`${old.id}@${options.definitionVersion}`)).def;
  } catch (err) {
    throw new RedriveRefused(`version ${options.definitionVersion} of ${old.id}: ${(err as Error).message}`);
  }
}

/** The steps the run completed before the failed one: its `state` query's, else the nodes whose calls all succeeded. */
async function completedSteps(client: Client, workflowId: string, runId: string, events: readonly Event[], failed: string, timeoutMs = 10_000): Promise<string[]> {
  try {
    const state = await Promise.race([
      client.workflow.getHandle(workflowId, runId).query<InstanceState>(STATE_QUERY),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer')), timeoutMs).unref()),
    ]);
    if (state.steps?.length) return [...new Set(state.steps.filter((s) => s.status === 'done' && s.step !== failed).map((s) => s.step))];
    if (state.statesEntered?.length) return state.statesEntered.filter((s) => s !== failed);
  } catch {
    /* no worker answers: the history's calls */
  }
  const commands = await commandsOf(events, PayloadReader.fromEnvironment());
  return [...new Set(commands.filter((c) => c.done && c.node !== failed).map((c) => c.node))];
}

/**
 * The first way `onto` differs from `old` in a step the run completed (or lacks the failed step):
 * a 0.8 state by name (and the functions its actions call), a 1.0 task by its JSON pointer.
 * Undefined when the run can be carried over.
 */
export function firstDifference(old: Definition, onto: Definition, completed: readonly string[], failed: string): string | undefined {
  if (isV1Definition(old) !== isV1Definition(onto)) return 'it is written in another DSL version';
  const at = (d: Definition, step: string): unknown => (isV1Definition(d) ? byPointer(d, step) : (d as { states?: { name: string }[] }).states?.find((s) => s.name === step));
  const kind = isV1Definition(old) ? 'task' : 'state';
  for (const step of completed) {
    const a = at(old, step);
    if (a === undefined) continue;
    const b = at(onto, step);
    if (b === undefined) return `the ${kind} "${step}" the run completed is not in it`;
    const path = diffPath(a, b, '');
    if (path !== undefined) return `the ${kind} "${step}" the run completed changed (at ${path || '/'}); only steps after the completed ones may change`;
    if (!isV1Definition(old)) {
      for (const fn of functionsOf(a)) {
        const fa = (old as { functions?: { name: string }[] }).functions?.find((f) => f.name === fn);
        const fb = (onto as { functions?: { name: string }[] }).functions?.find((f) => f.name === fn);
        const p = diffPath(fa, fb, '');
        if (p !== undefined) return `the function "${fn}" that the completed state "${step}" calls changed (at ${p || '/'})`;
      }
    }
  }
  if (at(onto, failed) === undefined) return `the ${kind} "${failed}" that failed is not in it`;
  return undefined;
}

function functionsOf(state: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'functionRef') out.push(typeof x === 'string' ? x : String((x as { refName?: string }).refName));
        else walk(x);
      }
    }
  };
  walk(state);
  return out;
}

/** A 1.0 task by JSON pointer (`/do/0/name/...`). */
function byPointer(doc: unknown, pointer: string): unknown {
  let cur: unknown = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (cur && typeof cur === 'object') cur = (cur as Record<string, unknown>)[part];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** The JSON pointer of the first difference between two JSON values, or undefined when equal. */
export function diffPath(a: unknown, b: unknown, at: string): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object' || Array.isArray(a) !== Array.isArray(b)) return at;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    for (let i = 0; i < Math.max(a.length, bb.length); i++) {
      const p = diffPath(a[i], bb[i], `${at}/${i}`);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of [...new Set([...Object.keys(ao), ...Object.keys(bo)])]) {
    const p = diffPath(ao[k], bo[k], `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (p !== undefined) return p;
  }
  return undefined;
}

export interface BulkRedriveOptions extends Omit<RedriveOptions, 'workflowId' | 'runId'> {
  /** A visibility query (`SwDefinitionId = "order" AND ExecutionStatus = "Failed" AND CloseTime > "…"`). */
  query: string;
  /** Redrives started per second at most (default 10). */
  ratePerSecond?: number;
  /** At most this many runs (default: all that match). */
  limit?: number;
  /** Each run's outcome, as it comes. */
  onOutcome?: (outcome: BulkOutcome) => void;
}

export type BulkOutcome =
  | { workflowId: string; runId: string; outcome: 'redriven' | 'planned'; result: RedriveResult }
  | { workflowId: string; runId: string; outcome: 'refused' | 'error'; reason: string };

export interface BulkReport {
  matched: number;
  outcomes: BulkOutcome[];
  counts: Record<BulkOutcome['outcome'], number>;
  ms: number;
}

/** Redrives concurrently at most (the rate is the limit; this bounds the requests in flight). */
const BULK_CONCURRENCY = 8;

/**
 * Redrive every run a visibility query finds, at a rate. Temporal's batch reset resets every
 * run to the same kind of point (its first or last workflow task, a build id); a redrive's point is
 * each run's own failed step, so runs are reset one by one, paced, and each reported.
 */
export async function redriveMany(client: Client, options: BulkRedriveOptions): Promise<BulkReport> {
  const started = Date.now();
  const rate = options.ratePerSecond && options.ratePerSecond > 0 ? options.ratePerSecond : 10;
  const outcomes: BulkOutcome[] = [];
  const counts: BulkReport['counts'] = { redriven: 0, planned: 0, refused: 0, error: 0 };
  let matched = 0;
  let next = Date.now();
  const inFlight = new Set<Promise<void>>();
  const one = async (workflowId: string, runId: string): Promise<void> => {
    let outcome: BulkOutcome;
    try {
      const result = await redrive(client, { ...options, workflowId, runId });
      outcome = { workflowId, runId, outcome: options.dryRun ? 'planned' : 'redriven', result };
    } catch (err) {
      outcome = { workflowId, runId, outcome: err instanceof RedriveRefused ? 'refused' : 'error', reason: (err as Error).message };
    }
    outcomes.push(outcome);
    counts[outcome.outcome]++;
    options.onOutcome?.(outcome);
  };
  for await (const run of client.workflow.list({ query: options.query })) {
    if (options.limit !== undefined && matched >= options.limit) break;
    matched++;
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    next = Math.max(next, Date.now()) + 1000 / rate;
    while (inFlight.size >= BULK_CONCURRENCY) await Promise.race(inFlight);
    const p: Promise<void> = one(run.workflowId, run.runId).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  return { matched, outcomes, counts, ms: Date.now() - started };
}
