/**
 * The 0.8 state pipeline: every state's data flow around its executor and the walk of states by
 * transitions, written once, for the run (../run.ts) and the unit tests (test/workflow/units/),
 * which give it fake effects and nothing else.
 *
 * A state runs as the spec says: stateDataFilter.input → the executor (under stateExecTimeout) →
 * stateDataFilter.output; a failure goes to the state's onErrors handler (or fails the run with
 * the state as its site); a transition compensates, produces its events and moves on; an end
 * compensates and produces. The pipeline is the executors' {@link StateContext}; what it needs of
 * its run is {@link StatesHost} (the run host has it all) and, for the main flow, {@link MainFlow}.
 */
import { isCancellation } from '@temporalio/workflow';
import type { EndDef, Json, StateDef, WorkflowDef } from '../../../common/model';
import type { StartOptions } from '../../../common/contracts';
import type { EvalPolicy, ExprScope } from '../../expressions';
import { filterStateInput, filterStateOutput } from '../data/filters';
import { filterStateInputAsync, filterStateOutputAsync } from '../data/filters-async';
import { ActionError, classify, findHandler } from '../errors';
import { CompensationLog } from '../compensation';
import { produceEvents } from '../../events/produce';
import type { Mailbox } from '../../events/mailbox';
import { stateExecTimeout, withTimeout } from '../../timeouts';
import { summary, type Tracker } from '../../host/tracker';
import { nowIso, type Effects } from '../../effects';
import type { LifecycleType } from '../../host/lifecycle';
import type { ResolveResult } from '../../../common/pinning';
import { FEATURE_SYNC_EXPRESSIONS } from '../../../common/features';
import { executorOf } from './executors';
import type { Holder, Next, RunInfo, StateContext } from './context';

/** What the state pipeline needs of its run: the run host (../host/run-host.ts) has it all; a unit test gives fake effects. */
export interface StatesHost {
  readonly effects: Effects;
  readonly info: RunInfo;
  readonly options: StartOptions;
  readonly mailbox: Mailbox;
  readonly features: ReadonlySet<string>;
  readonly resolved?: Pick<ResolveResult, 'readFunctions'>;
  readonly tracker: Pick<Tracker, 'enter' | 'leave' | 'status'>;
  /** A lifecycle CloudEvent (a no-op unless the worker opted in). */
  publish(type: LifecycleType, data?: Record<string, Json>, subject?: string): void;
  /** Before each transition: a pause when one is due (the walk budget, a suspension), else nothing. */
  step(): Promise<void> | undefined;
  /** How expressions are evaluated and their work counted (expression-work); absent: as before. */
  readonly policy?: EvalPolicy;
}

/** What the run adds to the walk of its main flow: the workflow's expiry and continue-as-new. */
export interface MainFlow {
  /** Throws when the main flow must stop after this state (workflowExecTimeout passed). */
  checkExpired(compensating: boolean): void;
  /** Whether a continue-as-new is due now (with sync-expressions, only then is one awaited). */
  continueAsNewDue(): boolean;
  /** At a transition of the main flow: continues as new when it is due. */
  maybeContinueAsNew(nextState: string, data: Json): Promise<void>;
}

const NO_END: EndDef = { terminate: false, produceEvents: [], compensate: false };

export class StatePipeline implements StateContext {
  readonly effects: Effects;
  readonly info: RunInfo;
  readonly options: StartOptions;
  readonly mailbox: Mailbox;
  /** Interpreter features of this run (ResolveResult.features, recorded in history). */
  readonly features: ReadonlySet<string>;
  /** The REST functions the pin found to only read (feature `local-reads`). */
  readonly readFunctions: ReadonlySet<string>;
  /** Expressions and data filters evaluated without awaits (feature `sync-expressions`, src/common/features.ts). */
  readonly sync: boolean;
  readonly compensation = new CompensationLog();
  /** The last state's output (the `state` query, runBefore's input). */
  lastData: Json = null;
  /** The data of the state(s) currently running (for the state query). */
  private readonly holders: Holder[] = [];
  private readonly functionsScope: Record<string, string>;
  private readonly byName = new Map<string, StateDef>();
  private readonly pending: Promise<unknown>[] = [];

  constructor(
    private readonly host: StatesHost,
    readonly def: WorkflowDef,
    /** The run's main flow (expiry, continue-as-new); absent: a walk with neither (unit tests). */
    private readonly main?: MainFlow,
  ) {
    this.effects = host.effects;
    this.info = host.info;
    this.options = host.options;
    this.mailbox = host.mailbox;
    this.features = host.features;
    this.readFunctions = new Set(host.resolved?.readFunctions ?? []);
    this.sync = this.features.has(FEATURE_SYNC_EXPRESSIONS);
    for (const s of def.states) this.byName.set(s.name, s);
    this.functionsScope = Object.fromEntries(def.functions.filter((f) => f.type === 'expression').map((f) => [f.name, f.operation]));
  }

  scope(vars?: Record<string, Json>): ExprScope {
    return {
      constants: this.def.constants,
      workflow: { id: this.info.workflowId, instanceId: this.info.runId, definitionId: this.def.id, ...(this.def.version ? { version: this.def.version } : {}) },
      functions: this.functionsScope,
      ...(vars ? { variables: vars } : {}),
      ...(this.host.policy ? { policy: this.host.policy } : {}),
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

  /** Tracks fire-and-forget work (async function invocations): errors ignored, awaited before the run closes. */
  background(p: Promise<unknown>): void {
    this.pending.push(p.catch(() => undefined));
  }

  /** Waits for fire-and-forget work still in flight. */
  async settle(): Promise<void> {
    while (this.pending.length) await Promise.all(this.pending.splice(0));
  }

  /** Runs states from `start` until an end; used by the main flow and by compensation. */
  async runStates(start: string, input: Json, compensating: boolean): Promise<{ data: Json; end: EndDef }> {
    let state = this.state(start);
    let data = input;
    for (;;) {
      const { data: out, next } = await this.execState(state, data, compensating);
      data = out;
      this.lastData = data;
      this.main?.checkExpired(compensating);
      if (next.transition) {
        const t = next.transition;
        if (t.compensate && !compensating) await this.compensate(data);
        if (t.produceEvents?.length) await produceEvents(this, t.produceEvents, data, state.name);
        // With sync-expressions, only a continue-as-new that is due is awaited.
        if (this.main && !compensating && (!this.sync || this.main.continueAsNewDue())) await this.main.maybeContinueAsNew(t.nextState, data);
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
    const before = this.host.tracker.status;
    this.host.tracker.status = 'compensating';
    try {
      await this.compensation.compensate(this, data);
    } finally {
      this.host.tracker.status = before;
    }
  }

  /** A state's JSON pointer in the definition (`/states/<index>`): the `task` of its lifecycle events. */
  pointer(state: StateDef | string): string {
    return `/states/${this.def.states.findIndex((s) => s === state || s.name === state)}`;
  }

  private async execState(state: StateDef, input: Json, compensating: boolean): Promise<{ data: Json; next: Next }> {
    const step = this.host.tracker.enter(state.name, state.type, compensating);
    const pointer = this.pointer(state);
    this.host.publish('task.created', { task: pointer, createdAt: nowIso(this.effects) }, pointer);
    this.host.publish('task.started', { task: pointer, startedAt: nowIso(this.effects) }, pointer);
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
      this.host.tracker.leave(step, compensating ? 'compensated' : 'done');
      this.host.publish('task.completed', { task: pointer, completedAt: nowIso(this.effects), output: out }, pointer);
      return { data: out, next };
    } catch (err) {
      if (isCancellation(err)) {
        this.host.tracker.leave(step, 'failed');
        throw err;
      }
      const e = classify(err);
      const handler = findHandler(this.def, state, e);
      this.host.tracker.leave(step, handler ? 'done' : 'failed');
      this.host.publish('task.faulted', { task: pointer, faultedAt: nowIso(this.effects), error: { type: e.code ?? e.kind, title: e.message, ...(handler ? { handled: true } : {}) } as Json }, pointer);
      if (!handler) throw err instanceof ActionError ? err : new ActionError(e, { state: state.name });
      return { data: h.data, next: { transition: handler.transition, end: handler.end } };
    } finally {
      this.holders.splice(this.holders.indexOf(h), 1);
    }
  }
}
