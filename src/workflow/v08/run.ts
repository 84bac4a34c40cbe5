/**
 * One run of a 0.8 definition: the main flow from the start state (or the carried one) to its
 * end, workflowExecTimeout (interrupt, runBefore), keepActive, continue-as-new between states and
 * `continueAs` at the end. Each state runs through the state pipeline (./states/pipeline.ts), which
 * is also what the state executors see.
 */
import {
  ApplicationFailure,
  CancellationScope,
  ContinueAsNew,
  condition,
  makeContinueAsNewFunc,
  sleep,
} from '@temporalio/workflow';
import type { RunHost } from '../host/run-host';
import type { EndDef, Json, WorkflowDef } from '../../common/model';
import type { StartOptions } from '../../common/contracts';
import { parseDuration } from '../../common/duration';
import { startEventRefs } from '../../common/events';
import { errorClass, SwflowError } from '../../common/errors';
import { evalValue } from '../expressions';
import type { Compensable } from './compensation';
import { beforeBlocking } from '../host/tracker';
import { findSubflow, subflowKey } from './subflows';
import { FEATURE_AWAITED_EVENTS_ATTRIBUTE, FEATURE_EVENT_DEDUPE, FEATURE_EXEC_TIMEOUT_ENDS_EVENT_WAITS, FEATURE_KEEP_ACTIVE_EVENTS } from '../../common/features';
import { runForEachChunk, type ForEachChunk } from './states/foreach';
import { StatePipeline, type MainFlow } from './states/pipeline';

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

/** One run of a 0.8 definition; its states run through {@link StatePipeline}. */
export class V08Run implements MainFlow {
  /** Every state's data flow, and the executors' context. */
  readonly states: StatePipeline;

  constructor(
    /** The run host: the mailbox, tracker, continue-as-new, the deadline, suspension and the walk budget, lifecycle events. */
    readonly host: RunHost,
    readonly def: WorkflowDef,
  ) {
    const { mailbox, features } = host;
    mailbox.defs = def.events;
    mailbox.dedupe = features.has(FEATURE_EVENT_DEDUPE);
    if (features.has(FEATURE_AWAITED_EVENTS_ATTRIBUTE)) host.trackAwaited(() => mailbox.awaitedTypes());
    this.states = new StatePipeline(host, def, this);
  }

  /** Runs one slice of a large foreach (this run is a chunk child of the run that owns the state). */
  async foreachChunk(chunk: ForEachChunk['foreachChunk'], input: Json): Promise<Json> {
    const step = this.host.tracker.enter(chunk.state, 'foreach');
    const out = await runForEachChunk(this.states, chunk, input);
    await this.states.settle();
    this.host.tracker.leave(step, 'done');
    this.host.setStatus('completed');
    return out;
  }

  /** Awaited events by CloudEvent type and by definition name (both, deduplicated). */
  awaitedEvents(): string[] {
    const out = new Set<string>();
    for (const name of this.host.mailbox.awaited) {
      const d = this.def.events.find((e) => e.name === name);
      if (d) out.add(d.type);
      out.add(name);
    }
    return [...out];
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
      for (const c of (carried.front as unknown as Position).compensation ?? []) this.states.compensation.record(c.state, c.compensatedBy);
      this.host.tracker.entered.push(...carried.host.entered);
    }
    if (!wt?.duration) return this.runMain(input);
    const timeoutMs = this.host.deadline !== undefined ? Math.max(0, this.host.deadline - this.host.effects.now()) : parseDuration(wt.duration);
    this.host.deadline = this.host.effects.now() + timeoutMs;
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
        else if (this.host.features.has(FEATURE_EXEC_TIMEOUT_ENDS_EVENT_WAITS)) void condition(() => this.host.mailbox.awaited.size > 0 && !this.idle).then(() => main.cancel());
      })
      .catch(() => undefined);
    const keepActiveEnds = this.def.keepActive && this.host.features.has(FEATURE_KEEP_ACTIVE_EVENTS);
    try {
      const out = await main.run(() => this.runMain(input));
      if (!this.expired) timer.cancel();
      if (!this.expired || !keepActiveEnds) return out;
    } catch (err) {
      if (!this.expired || err instanceof ContinueAsNew) throw err;
    }
    let data = this.states.lastData;
    this.runningBefore = true; // runBefore's own states are not stopped by the expiry
    if (wt.runBefore) data = (await CancellationScope.nonCancellable(() => this.states.runStates(wt.runBefore!, data, false))).data;
    this.states.lastData = data;
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

  /** The main flow stops after a state once workflowExecTimeout passed (not runBefore's, not compensation's). */
  checkExpired(compensating: boolean): void {
    if (this.expired && !compensating && !this.runningBefore) throw new ExpiredError();
  }

  /** Whether the run should continue as new at a transition of the main flow (its history grows too long). */
  continueAsNewDue(): boolean {
    return !this.expired && this.host.continueAsNewDue();
  }

  /** At a transition of the main flow: continue as new when the history grows too long. */
  async maybeContinueAsNew(nextState: string, data: Json): Promise<void> {
    if (!this.continueAsNewDue()) return;
    await this.states.settle();
    const position: Position = { state: nextState, compensation: [...this.states.compensation.pending] };
    await this.host.continueAsNew(this.def, data, position as unknown as Record<string, Json>);
  }

  private async runMain(input: Json): Promise<Json> {
    const position = this.host.carried?.front as unknown as Position | undefined;
    let { data, end } = await this.states.runStates(position?.state ?? this.def.start.stateName, input, false);
    this.states.lastData = data;
    if (end.continueAs) await this.completeAndContinueAs(end, data);
    while (this.def.keepActive && !end.terminate) {
      // No active path is left, but the instance stays until terminated or timed out, "to collect
      // (event) data" (spec 0.8, keepActive): an event start state runs again, on the current
      // data, for each new event it accepts. Waiting here is not a state, so workflowExecTimeout
      // ends it whatever `interrupt` says.
      const listen = this.keepActiveEvents();
      for (const n of listen) this.host.mailbox.awaited.add(n);
      beforeBlocking();
      this.idle = true;
      await condition(() => this.expired || (listen.length > 0 && this.host.mailbox.has(listen)));
      this.idle = false;
      for (const n of listen) this.host.mailbox.awaited.delete(n);
      if (this.expired) break;
      await this.maybeContinueAsNew(this.def.start.stateName, data);
      ({ data, end } = await this.states.runStates(this.def.start.stateName, data, false));
      this.states.lastData = data;
      if (end.continueAs) await this.completeAndContinueAs(end, data);
    }
    await this.complete();
    return data;
  }

  /** The events a keepActive instance whose flow ended still accepts: its event start state's. */
  private keepActiveEvents(): string[] {
    return this.host.features.has(FEATURE_KEEP_ACTIVE_EVENTS) ? startEventRefs(this.def) : [];
  }

  /** The run's own work is done: fire-and-forget calls settled, the run shown as completed. */
  private async complete(): Promise<void> {
    await this.states.settle();
    this.host.setStatus('completed');
  }

  private async completeAndContinueAs(end: EndDef, data: Json): Promise<never> {
    await this.complete();
    return this.continueAs(end, data);
  }

  private async continueAs(end: EndDef, data: Json): Promise<never> {
    const ca = end.continueAs!;
    const self = ca.workflowId === this.def.id && (!ca.version || ca.version === this.def.version);
    const definition = self ? (this.host.options.definition ? this.def : undefined) : findSubflow(this.host.options, ca.workflowId, ca.version);
    const input = ca.data !== undefined ? ((await evalValue(ca.data, data, this.states.scope(), { what: 'continueAs.data' })) ?? null) : data;
    const timeout = ca.workflowExecTimeout?.duration;
    const next = makeContinueAsNewFunc({
      workflowType: self && !ca.version ? this.host.info.workflowType : subflowKey(ca.workflowId, ca.version),
      taskQueue: this.host.info.taskQueue,
      ...(timeout ? { workflowExecutionTimeout: parseDuration(timeout) } : {}),
    });
    const opts: StartOptions = { ...(definition ? { definition } : {}), ...(this.host.options.subflows ? { subflows: this.host.options.subflows } : {}) };
    this.host.tracker.flush();
    return next(input, opts);
  }

}
