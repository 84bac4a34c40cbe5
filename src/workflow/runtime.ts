/**
 * The interpreter: walks a definition's states from the start state, applying the spec's
 * data flow (state data filters, merging), transitions and ends (produceEvents, compensate,
 * continueAs, terminate, keepActive) and error handling (onErrors). One Runtime per run.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  condition,
  isCancellation,
  makeContinueAsNewFunc,
  sleep,
  workflowInfo,
  type WorkflowInfo,
} from '@temporalio/workflow';
import type { RunHost } from './host/run-host';
import type { EndDef, Json, StateDef, WorkflowDef } from '../common/model';
import type { StartOptions } from '../common/contracts';
import { parseDuration } from '../common/duration';
import { startEventRefs } from '../common/events';
import { errorClass, SwflowError } from '../common/errors';
import { evalValue, type ExprScope } from './expr';
import { filterStateInput, filterStateOutput } from './data/filters';
import { filterStateInputAsync, filterStateOutputAsync } from './data/filters-async';
import { ActionError, classify, findHandler } from './errors';
import { CompensationLog, type Compensable } from './compensation';
import { produceEvents } from './events/produce';
import { Mailbox } from './events/mailbox';
import { stateExecTimeout, withTimeout } from './timeouts';
import { beforeBlocking, summary, Tracker } from './ui';
import { findSubflow, subflowKey } from './subflows';
import { FEATURE_AWAITED_EVENTS_ATTRIBUTE, FEATURE_EVENT_DEDUPE, FEATURE_EXEC_TIMEOUT_ENDS_EVENT_WAITS, FEATURE_KEEP_ACTIVE_EVENTS, FEATURE_SYNC_EXPRESSIONS } from '../common/features';
import { runForEachChunk, type ForEachChunk } from './states/foreach';
import { executorOf } from './states/executors';
import type { Effects } from './effects';
import type { Holder, Next, StateContext } from './states/context';

export type { Holder, Next } from './states/context';

/** The 0.8 front end's position in a continue-as-new carry (host/carry.ts has the rest). */
interface Position {
  /** The state the next run starts at. */
  state: string;
  compensation: Compensable[];
}

class ExpiredError extends SwflowError {
  static {
    errorClass(this, 'ExpiredError');
  }

  constructor() {
    super('workflowExecTimeout');
  }
}

const NO_END: EndDef = { terminate: false, produceEvents: [], compensate: false };

/** One run of a 0.8 definition; what its state executors see of it is {@link StateContext}. */
export class Runtime implements StateContext {
  readonly info: WorkflowInfo;
  /** Every Temporal command of the executors goes through these (the real ones). */
  /** The Temporal commands its states issue (the host's). */
  readonly effects: Effects;
  readonly compensation = new CompensationLog();
  /** The data of the state(s) currently running (for the state query). */
  private holders: Holder[] = [];
  private lastData: Json = null;
  private readonly functionsScope: Record<string, string>;
  private readonly byName = new Map<string, StateDef>();
  /** Expressions and data filters evaluated without awaits (feature `sync-expressions`, src/common/features.ts). */
  readonly sync: boolean;

  readonly options: StartOptions;
  readonly mailbox: Mailbox;
  readonly tracker: Tracker;
  /** Interpreter features of this run (ResolveResult.features, recorded in history). */
  readonly features: ReadonlySet<string>;
  /** The REST functions the pin found to only read (feature `local-reads`). */
  readonly readFunctions: ReadonlySet<string>;

  constructor(
    /** The run host: the mailbox, tracker, continue-as-new, the deadline, suspension and the walk budget, lifecycle events. */
    readonly host: RunHost,
    readonly def: WorkflowDef,
  ) {
    const { mailbox, tracker, features } = host;
    this.options = host.options;
    this.mailbox = mailbox;
    this.tracker = tracker;
    this.features = features;
    this.readFunctions = new Set(host.resolved?.readFunctions ?? []);
    this.effects = host.effects;
    this.info = host.info;
    mailbox.defs = def.events;
    mailbox.dedupe = features.has(FEATURE_EVENT_DEDUPE);
    if (features.has(FEATURE_AWAITED_EVENTS_ATTRIBUTE)) host.trackAwaited(() => mailbox.awaitedTypes());
    this.sync = features.has(FEATURE_SYNC_EXPRESSIONS);
    for (const s of def.states) this.byName.set(s.name, s);
    this.functionsScope = Object.fromEntries(def.functions.filter((f) => f.type === 'expression').map((f) => [f.name, f.operation]));
  }

  scope(vars?: Record<string, Json>): ExprScope {
    return {
      constants: this.def.constants,
      workflow: { id: this.info.workflowId, instanceId: this.info.runId, definitionId: this.def.id, ...(this.def.version ? { version: this.def.version } : {}) },
      functions: this.functionsScope,
      ...(vars ? { variables: vars } : {}),
    };
  }

  summary(state: string, action: string | undefined, target: string): string {
    return summary(state, action, target);
  }

  state(name: string): StateDef {
    const s = this.byName.get(name);
    if (!s) throw new Error(`The definition has no state "${name}"`);
    return s;
  }

  /** The data of the state running now, else the last state's output (the `state` query). */
  currentData(): Json {
    return this.holders.length ? this.holders[this.holders.length - 1].data : this.lastData;
  }

  /** Runs one slice of a large foreach (this run is a chunk child of the run that owns the state). */
  async foreachChunk(chunk: ForEachChunk['foreachChunk'], input: Json): Promise<Json> {
    const step = this.tracker.enter(chunk.state, 'foreach');
    const out = await runForEachChunk(this, chunk, input);
    await this.settle();
    this.tracker.leave(step, 'done');
    this.host.setStatus('completed');
    return out;
  }

  /** Awaited events by CloudEvent type and by definition name (both, deduplicated). */
  awaitedEvents(): string[] {
    const out = new Set<string>();
    for (const name of this.mailbox.awaited) {
      const d = this.def.events.find((e) => e.name === name);
      if (d) out.add(d.type);
      out.add(name);
    }
    return [...out];
  }

  private readonly pending: Promise<unknown>[] = [];

  /** Tracks fire-and-forget work (async function invocations): errors ignored, awaited before the run closes. */
  background(p: Promise<unknown>): void {
    this.pending.push(p.catch(() => undefined));
  }

  /** Waits for fire-and-forget work still in flight. */
  async settle(): Promise<void> {
    while (this.pending.length) await Promise.all(this.pending.splice(0));
  }

  /** True once workflowExecTimeout has passed. */
  expired = false;
  private runningBefore = false;
  /** A keepActive instance whose flow ended, waiting for its next event (not a state). */
  private idle = false;

  /**
   * Runs the whole definition; returns the workflow data output (or continues as new).
   * workflowExecTimeout: when it passes, an `interrupt: true` run is cancelled at once, an
   * `interrupt: false` one when its current state finishes; then `runBefore` runs and the
   * run fails with a WorkflowExecTimeout failure. A keepActive instance ends this way by design:
   * it runs `runBefore` too, then completes with its data.
   */
  async run(input: Json): Promise<Json> {
    const wt = this.def.timeouts?.workflowExecTimeout;
    const carried = this.host.carried;
    if (carried) {
      for (const c of (carried.front as unknown as Position).compensation ?? []) this.compensation.record(c.state, c.compensatedBy);
      this.tracker.entered.push(...carried.host.entered);
    }
    if (!wt?.duration) return this.runMain(input);
    const timeoutMs = this.host.deadline !== undefined ? Math.max(0, this.host.deadline - Date.now()) : parseDuration(wt.duration);
    this.host.deadline = Date.now() + timeoutMs;
    const main = new CancellationScope();
    const timer = new CancellationScope();
    timer
      .run(() => sleep(timeoutMs, { summary: `workflowExecTimeout ${wt.duration}` }))
      .then(() => {
        this.expired = true;
        if (wt.interrupt) main.cancel();
        // interrupt: false lets the current state finish its work, but not wait for an event that
        // may never come (the spec's purchase-order-deadline example relies on that): a wait for an
        // event, now or later in the state, ends the flow as interrupt: true does.
        else if (this.features.has(FEATURE_EXEC_TIMEOUT_ENDS_EVENT_WAITS)) void condition(() => this.mailbox.awaited.size > 0 && !this.idle).then(() => main.cancel());
      })
      .catch(() => undefined);
    const keepActiveEnds = this.def.keepActive && this.features.has(FEATURE_KEEP_ACTIVE_EVENTS);
    try {
      const out = await main.run(() => this.runMain(input));
      if (!this.expired) timer.cancel();
      if (!this.expired || !keepActiveEnds) return out;
    } catch (err) {
      if (!this.expired || err instanceof ContinueAsNew) throw err;
    }
    let data = this.lastData;
    this.runningBefore = true; // runBefore's own states are not stopped by the expiry
    if (wt.runBefore) data = (await CancellationScope.nonCancellable(() => this.runStates(wt.runBefore!, data, false))).data;
    this.lastData = data;
    if (keepActiveEnds) {
      // For a keepActive instance the timeout is the designed end, not a failure.
      await this.complete();
      return data;
    }
    throw ApplicationFailure.create({
      type: 'WorkflowExecTimeout',
      nonRetryable: true,
      message: `the workflow did not complete within ${wt.duration} (workflowExecTimeout${wt.interrupt ? ', interrupt' : ''})`,
      details: [{ code: 'WorkflowExecTimeout', message: 'workflowExecTimeout', data }],
    });
  }

  /** Whether the run should continue as new at a transition of the main flow (its history grows too long). */
  private continueAsNewDue(): boolean {
    return !this.expired && this.host.continueAsNewDue();
  }

  /** At a transition of the main flow: continue as new when the history grows too long. */
  private async maybeContinueAsNew(nextState: string, data: Json): Promise<void> {
    if (!this.continueAsNewDue()) return;
    await this.settle();
    const position: Position = { state: nextState, compensation: [...this.compensation.pending] };
    await this.host.continueAsNew(this.def, data, position as unknown as Record<string, Json>);
  }

  private async runMain(input: Json): Promise<Json> {
    const position = this.host.carried?.front as unknown as Position | undefined;
    let { data, end } = await this.runStates(position?.state ?? this.def.start.stateName, input, false);
    this.lastData = data;
    if (end.continueAs) await this.completeAndContinueAs(end, data);
    while (this.def.keepActive && !end.terminate) {
      // No active path is left, but the instance stays until terminated or timed out, "to collect
      // (event) data" (spec 0.8, keepActive): an event start state runs again, on the current
      // data, for each new event it accepts. Waiting here is not a state, so workflowExecTimeout
      // ends it whatever `interrupt` says.
      const listen = this.keepActiveEvents();
      for (const n of listen) this.mailbox.awaited.add(n);
      beforeBlocking();
      this.idle = true;
      await condition(() => this.expired || (listen.length > 0 && this.mailbox.has(listen)));
      this.idle = false;
      for (const n of listen) this.mailbox.awaited.delete(n);
      if (this.expired) break;
      await this.maybeContinueAsNew(this.def.start.stateName, data);
      ({ data, end } = await this.runStates(this.def.start.stateName, data, false));
      this.lastData = data;
      if (end.continueAs) await this.completeAndContinueAs(end, data);
    }
    await this.complete();
    return data;
  }

  /** The events a keepActive instance whose flow ended still accepts: its event start state's. */
  private keepActiveEvents(): string[] {
    return this.features.has(FEATURE_KEEP_ACTIVE_EVENTS) ? startEventRefs(this.def) : [];
  }

  /** The run's own work is done: fire-and-forget calls settled, the run shown as completed. */
  private async complete(): Promise<void> {
    await this.settle();
    this.host.setStatus('completed');
  }

  private async completeAndContinueAs(end: EndDef, data: Json): Promise<never> {
    await this.complete();
    return this.continueAs(end, data);
  }

  private async continueAs(end: EndDef, data: Json): Promise<never> {
    const ca = end.continueAs!;
    const self = ca.workflowId === this.def.id && (!ca.version || ca.version === this.def.version);
    const definition = self ? (this.options.definition ? this.def : undefined) : findSubflow(this.options, ca.workflowId, ca.version);
    const input = ca.data !== undefined ? ((await evalValue(ca.data, data, this.scope(), { what: 'continueAs.data' })) ?? null) : data;
    const timeout = ca.workflowExecTimeout?.duration;
    const next = makeContinueAsNewFunc({
      workflowType: self && !ca.version ? this.info.workflowType : subflowKey(ca.workflowId, ca.version),
      taskQueue: this.info.taskQueue,
      ...(timeout ? { workflowExecutionTimeout: parseDuration(timeout) } : {}),
    });
    const opts: StartOptions = { ...(definition ? { definition } : {}), ...(this.options.subflows ? { subflows: this.options.subflows } : {}) };
    this.tracker.flush();
    return next(input, opts);
  }

  /** Runs states from `start` until an end; used by the main flow and by compensation. */
  async runStates(start: string, input: Json, compensating: boolean): Promise<{ data: Json; end: EndDef }> {
    let state = this.state(start);
    let data = input;
    for (;;) {
      const { data: out, next } = await this.execState(state, data, compensating);
      data = out;
      this.lastData = data;
      if (this.expired && !compensating && !this.runningBefore) throw new ExpiredError();
      if (next.transition) {
        const t = next.transition;
        if (t.compensate && !compensating) await this.compensate(data);
        if (t.produceEvents?.length) await produceEvents(this, t.produceEvents, data, state.name);
        // With sync-expressions, only a continue-as-new that is due is awaited.
        if (!compensating && (!this.sync || this.continueAsNewDue())) await this.maybeContinueAsNew(t.nextState, data);
        const pause = this.host.step(); // the walk budget's yield, or a suspension
        if (pause) await pause;
        state = this.state(t.nextState);
        continue;
      }
      const end = next.end ?? NO_END;
      // Spec 0.8, "Workflow Compensation": "in case when the end definition has its produceEvents
      // property set, compensation must be performed before producing the specified events and ending
      // workflow execution. In the case the end definition has a continueAs property defined,
      // compensation must be performed before workflow execution continues as a new workflow
      // invocation. In the case where the end definition has both produceEvents, and continueAs
      // compensation is performed first, then the event should be produced, and then the workflow
      // should continue its execution as a new workflow invocation." So: compensate, produce, then
      // (runMain) continueAs. Work of the state still active (parallel branches, foreach iterations)
      // was cancelled when the state failed, before its onErrors transition/end gets here.
      if (end.compensate && !compensating) await this.compensate(data);
      if (end.produceEvents?.length) await produceEvents(this, end.produceEvents, data, state.name);
      return { data, end };
    }
  }

  private async compensate(data: Json): Promise<void> {
    if (!this.compensation.pending.length) return;
    const before = this.tracker.status;
    this.tracker.status = 'compensating';
    try {
      await this.compensation.compensate(this, data);
    } finally {
      this.tracker.status = before;
    }
  }

  /** A state's JSON pointer in the definition (`/states/<index>`): the `task` of its lifecycle events. */
  pointer(state: StateDef | string): string {
    return `/states/${this.def.states.findIndex((s) => s === state || s.name === state)}`;
  }

  private async execState(state: StateDef, input: Json, compensating: boolean): Promise<{ data: Json; next: Next }> {
    const step = this.tracker.enter(state.name, state.type, compensating);
    const pointer = this.pointer(state);
    this.host.publish('task.created', { task: pointer, createdAt: this.host.nowIso() }, pointer);
    this.host.publish('task.started', { task: pointer, startedAt: this.host.nowIso() }, pointer);
    const h: Holder = { data: input };
    this.holders.push(h);
    try {
      h.data = this.sync ? filterStateInput(state.stateDataFilter, input, this.scope(), state.name) : await filterStateInputAsync(state.stateDataFilter, input, this.scope(), state.name);
      const exec = executorOf(state);
      const t = stateExecTimeout(this.def, state);
      const run = () => exec(state, h, this);
      const timed = () => withTimeout(t, this.summary(state.name, undefined, `stateExecTimeout ${t}`), `state "${state.name}" did not finish within ${t} (stateExecTimeout)`, run, this.effects);
      const next = (await (this.sync && !t ? run() : timed())) ?? { transition: state.transition, end: state.end };
      const out = this.sync ? filterStateOutput(state.stateDataFilter, h.data, this.scope(), state.name) : await filterStateOutputAsync(state.stateDataFilter, h.data, this.scope(), state.name);
      if (!compensating) this.compensation.record(state.name, state.compensatedBy);
      this.tracker.leave(step, compensating ? 'compensated' : 'done');
      this.host.publish('task.completed', { task: pointer, completedAt: this.host.nowIso(), output: out }, pointer);
      return { data: out, next };
    } catch (err) {
      if (isCancellation(err)) {
        this.tracker.leave(step, 'failed');
        throw err;
      }
      const e = classify(err);
      const handler = findHandler(this.def, state, e);
      this.tracker.leave(step, handler ? 'done' : 'failed');
      this.host.publish('task.faulted', { task: pointer, faultedAt: this.host.nowIso(), error: { type: e.code ?? e.kind, title: e.message, ...(handler ? { handled: true } : {}) } as Json }, pointer);
      if (!handler) throw err instanceof ActionError ? err : new ActionError(e, { state: state.name });
      return { data: h.data, next: { transition: handler.transition, end: handler.end } };
    } finally {
      this.holders.splice(this.holders.indexOf(h), 1);
    }
  }
}
