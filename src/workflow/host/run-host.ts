/**
 * The run host: what belongs to a run rather than to a state or a task, written once for both
 * front ends (0.8 states: ../v08/run.ts; 1.0 task tree: ../v1/run.ts).
 *
 * It owns the pinned definition's features, the mailbox and what the run awaits (published as
 * SwAwaitedEvents for the gateway's routing), the Web UI tracker (summaries, details, SwState),
 * the carry of continue-as-new, the deadline that spans a chain of runs, the `state` query,
 * lifecycle CloudEvents, suspension, and the walk budget. A front end plugs in through
 * {@link FrontEnd}; its executors see narrow contexts (StateContext, TaskContext) built on the
 * host, never the host itself.
 */
import { makeContinueAsNewFunc, proxySinks, type WorkflowInfo } from '@temporalio/workflow';
import { METRICS_SINK, type MetricsSinks } from '../../common/metrics-sink';
import { setRunMetrics } from './metrics';
import type { Json } from '../../common/model';
import type { Definition } from '../../common/model';
import type { PinnedFunction } from '../../common/model-v1';
import type { InstanceState, StartOptions, StateProgress } from '../../common/contracts';
import { stateProgress, stateSince } from './state-progress';
import { Mailbox } from '../events/mailbox';
import { beforeBlocking, STEPS_LISTED, Tracker } from './tracker';
import { nowIso, temporalEffects, type Effects } from '../effects';
import { checkPayload, limitPayloads } from './payload-limit';
import { redriveEffects } from './redrive';
import { WalkBudget } from './walk-budget';
import type { EvalPolicy } from '../../expr';
import { FEATURE_EAGER_CALLS, FEATURE_EXPRESSION_WORK, FEATURE_HOST_LIFECYCLE, FEATURE_LOCAL_CALL_HAND_OVER, FEATURE_REDRIVE_LEDGER, FEATURE_YIELD_LOCAL_RESULTS, FEATURE_YIELD_LONG_WALKS } from '../../common/features';
import { CallsInFlight } from './calls-in-flight';
import { type ResolveResult } from '../../common/pinning';
import { ENTERED_KEPT, readCarried, type Carried, type HostCarry } from './carry';
import { HOST_LIFECYCLE_TYPES, Lifecycle, type LifecycleType } from './lifecycle';
import { RunTrace } from './tracing';

/** History length after which a run continues as new by itself (besides the server's suggestion), for both DSLs. */
export const HISTORY_LIMIT = 20_000;

export type RunStatus = InstanceState['status'];

/** What a front end tells the host about itself and its position. */
export interface FrontEnd {
  /** Runs the document from the start or from the carried position; the workflow's output. */
  run(input: Json): Promise<Json>;
  /** The data the run is working on now (the `state` query). */
  data(): Json;
  /** What the `state` query lists as awaited (event names and/or CloudEvent types). */
  awaitedEvents(): string[];
  /** The steps running now, as the JSON pointers of their lifecycle events. */
  current(): string[];
  /** The steps entered so far (the `state` query's statesEntered; the last ones are carried across continue-as-new). */
  entered(): string[];
}

/** How a front end describes the definition to the host. */
export interface RunDescription {
  /** Definition id (1.0: `<namespace>/<name>`) and version, as SwDefinitionId / SwDefinitionVersion. */
  id: string;
  version?: string;
  /** The Web UI details' title. */
  title: string;
  /** What a step is called in the Web UI table (`State`, `Task`). */
  stepHeading: 'State' | 'Task';
  /** The qualified instance name of lifecycle events. */
  lifecycleName: string;
  /** `metadata['swflow.historyLimit']` of the document, if any. */
  historyLimit?: unknown;
}

export class RunHost {
  /** The run's workflow info when it started (ids, type, task queue), from the effects. */
  readonly info: WorkflowInfo;
  readonly mailbox = new Mailbox();

  features: ReadonlySet<string> = new Set();
  resolved!: ResolveResult;
  /** The function documents the run calls (v1-catalogs): pinned by this run's resolve, or carried from the previous run of its chain. */
  functions?: Readonly<Record<string, PinnedFunction>>;
  /** What the previous run of the chain carried over (continue-as-new), or undefined. */
  readonly carried?: Carried;
  tracker!: Tracker;
  lifecycle?: Lifecycle;
  /** Epoch ms when the run's deadline passes (set by the front end, carried across continue-as-new). */
  deadline?: number;
  private front?: FrontEnd;
  private description?: RunDescription;
  private readonly budget: WalkBudget;
  /** How the run's expressions are evaluated (feature expression-work), for its pipelines; their work is the walk budget's. */
  policy?: EvalPolicy;
  /** The function calls in flight (host/calls-in-flight.ts). */
  calls?: CallsInFlight;
  private suspended = false;

  /**
   * Created before the definition is pinned, so events signalled with the start are kept.
   * `effects`: Temporal's, or a fake that drives a front end in a unit test.
   */
  /** Temporal's commands (or a unit test's fake); checked against the payload limit once pinned on a worker without a payload store. */
  effects: Effects;

  constructor(
    readonly options: StartOptions,
    effects: Effects = temporalEffects,
  ) {
    this.effects = effects;
    this.info = effects.info();
    this.budget = new WalkBudget(effects);
    this.mailbox.effects = effects;
    this.carried = readCarried(options.carried);
    if (this.carried) {
      this.mailbox.events.push(...this.carried.host.events);
      this.mailbox.consumed.push(...this.carried.host.consumed);
      Object.assign(this.mailbox.correlation, this.carried.host.correlation);
      this.deadline = this.carried.host.deadline;
    }
  }

  /** The pinned definition's resolve result: its features decide how this run behaves. */
  pin(resolved: ResolveResult): void {
    this.resolved = resolved;
    this.features = new Set(resolved.features ?? []);
    // Before the front end exists: its pipelines take these effects.
    if (this.features.has(FEATURE_YIELD_LOCAL_RESULTS)) this.effects = this.budget.yieldingLocalResults(this.effects);
    if (this.features.has(FEATURE_EXPRESSION_WORK)) {
      this.policy = this.budget.countWork();
      this.effects = this.budget.countingMarkers(this.effects);
    }
    if (resolved.payloadLimit) this.effects = limitPayloads(this.effects, resolved.payloadLimit);
    // The calls in flight, listed where operators look (and local ones handed over past their bound).
    this.calls = new CallsInFlight(() => this.effects.now(), this.features.has(FEATURE_LOCAL_CALL_HAND_OVER), this.features.has(FEATURE_EAGER_CALLS));
    this.effects = this.calls.wrap(this.effects);
    // Outermost: a call the ledger answers is not made, so neither checked nor counted.
    if (this.features.has(FEATURE_REDRIVE_LEDGER)) this.effects = redriveEffects(this.effects, this.options.redriveOf);
    this.functions = this.options.functions ?? resolved.functions;
  }

  /** Plugs the front end in: the tracker, the definition's search attributes and lifecycle events are set up here. */
  attach(description: RunDescription, front: FrontEnd): void {
    this.description = description;
    this.front = front;
    // A tracker set beforehand is kept (a unit test's stand-in).
    this.tracker ??= new Tracker(description.title, new Set(this.resolved.searchAttributes), this.resolved.features ?? [], description.stepHeading);
    if (this.calls) [this.tracker.details, this.calls.onChange] = [() => this.calls!.markdown(), () => this.tracker.render()];
    this.tracker.upsert('SwDefinitionId', description.id);
    if (description.version) this.tracker.upsert('SwDefinitionVersion', description.version);
    this.tracker.upsert('SwDefinitionHash', this.resolved.hash);
    if (this.resolved.lifecycleEvents && (description.stepHeading === 'Task' || this.features.has(FEATURE_HOST_LIFECYCLE))) {
      this.lifecycle = new Lifecycle(`swflow/${description.id}`, this.info.taskQueue, description.lifecycleName, this.effects, this.resolved.payloadLimit);
    }
    if (this.resolved.metrics) this.observeMetrics(description);
    if (this.resolved.tracing) this.observeTracing(description);
    if (this.lifecycle && this.features.has(FEATURE_HOST_LIFECYCLE)) {
      this.mailbox.onCorrelation = (phase, keys) =>
        phase === 'started'
          ? this.publish('workflow.correlation-started', { startedAt: this.nowIso() })
          : this.publish('workflow.correlation-completed', { completedAt: this.nowIso(), ...(keys && Object.keys(keys).length ? { correlationKeys: keys } : {}) });
    }
  }

  /**
   * Prometheus metrics (the worker has them on, ResolveResult.metrics): run started/ended and step
   * durations go to the `swflow.metrics` sink. Sink calls are not commands and are skipped on
   * replay, so history is the same with metrics on or off. Durations are in workflow time.
   */
  private observeMetrics(description: RunDescription): void {
    const sink = proxySinks<MetricsSinks>()[METRICS_SINK];
    const id = description.id;
    const version = description.version ?? '';
    this.metricsSink = { sink, id, version };
    setRunMetrics(this.metricsSink);
    if (!this.carried) sink.runStarted(id, version);
    const startedAt = new Map<object, number>();
    this.tracker.observer = {
      enter: (step) => void startedAt.set(step, this.effects.now()),
      leave: (step) => {
        const at = startedAt.get(step);
        if (at === undefined) return;
        startedAt.delete(step);
        sink.stepEnded(id, version, step.type, step.status, Math.max(0, this.effects.now() - at) / 1000);
      },
    };
  }

  /**
   * OpenTelemetry (the worker traces, ResolveResult.tracing): the run, its states or tasks and 0.8
   * actions become spans (./tracing.ts), beside the metrics' observer. No command.
   */
  private observeTracing(description: RunDescription): void {
    const runTrace = new RunTrace(description, () => this.effects.now());
    this.runTrace = runTrace;
    const before = this.tracker.observer;
    this.tracker.observer = {
      enter: (step) => {
        before?.enter(step);
        runTrace.enter(step);
      },
      leave: (step) => {
        before?.leave(step);
        runTrace.leave(step);
      },
    };
  }

  private runTrace?: RunTrace;

  private metricsSink?: { sink: MetricsSinks[typeof METRICS_SINK]; id: string; version: string };

  /**
   * What the run awaits, published for the gateway's routing: at every search-attribute write
   * (just before the run blocks), SwAwaitedEvents becomes `entries()` (0.8: the CloudEvent types of
   * the awaited event definitions; 1.0: common/awaited-events.ts entries, qualified by correlation).
   */
  trackAwaited(entries: () => string[]): void {
    this.tracker.trackAwaitedEvents(entries);
  }

  /**
   * Sleeps `ms` (a timer the Web UI shows with `summary`), then starts the run again from the
   * beginning with `input` (continue-as-new with nothing carried): 1.0 `schedule.after`.
   */
  async runAgainAfter(ms: number, summary: string, input: Json): Promise<never> {
    await this.effects.sleep(ms, summary);
    return this.continueWith(input, () => ({ ...(this.options.definition ? { definition: this.options.definition } : {}), ...(this.options.subflows ? { subflows: this.options.subflows } : {}) }));
  }

  /**
   * The next run of this workflow id: lifecycle events delivered, then `options()` (read after
   * them: the carry holds the mailbox as it is then), search attributes written, continue-as-new.
   */
  private async continueWith(input: Json, options: () => StartOptions): Promise<never> {
    await this.lifecycle?.settle();
    const opts = options();
    if (this.resolved.payloadLimit) checkPayload(`what the run carries to its next run (its data and position${this.afterLastStep().replace(' (', ', ').replace(/\)$/, '')})`, [input, opts], this.resolved.payloadLimit);
    this.tracker.flush();
    this.runTrace?.end('continued');
    return makeContinueAsNewFunc({ workflowType: this.info.workflowType, taskQueue: this.info.taskQueue })(input, opts);
  }

  /** Without a payload store: fails the run (PayloadTooLarge) when its output is over the limit, naming the last step it went through. */
  checkOutput(output: Json): void {
    if (this.resolved.payloadLimit) checkPayload(`the run's output${this.afterLastStep()}`, output, this.resolved.payloadLimit);
  }

  /** ` (after state X)` / ` (after task /do/0/x)`: where the run is, for a message; '' before any step. */
  private afterLastStep(): string {
    const last = this.tracker?.steps[this.tracker.steps.length - 1]?.state;
    return last ? ` (after ${this.description?.stepHeading === 'Task' ? 'task' : 'state'} ${last})` : '';
  }

  /** A lifecycle CloudEvent (a no-op unless the worker opted in; the host's newer types only on runs with `host-lifecycle`). */
  publish(type: LifecycleType, data: Record<string, Json> = {}, subject?: string): void {
    if (!this.lifecycle) return;
    if (HOST_LIFECYCLE_TYPES.has(type) && !this.features.has(FEATURE_HOST_LIFECYCLE)) return;
    this.lifecycle.publish(type, data, subject);
  }

  /** The first run of a chain started: `workflow.started` (and, on runs with `host-lifecycle`, its status phase). */
  started(definition: Record<string, Json>, at: number): void {
    this.publish('workflow.started', { definition, startedAt: new Date(at).toISOString() });
    this.publish('workflow.status-changed', { updatedAt: new Date(at).toISOString(), status: 'running' });
  }

  /** The run's status phase changed: the tracker shows it, and a `workflow.status-changed` event says so. */
  setStatus(status: RunStatus): void {
    if (this.tracker.status === status) return;
    this.tracker.status = status;
    const m = this.metricsSink;
    if (m && (status === 'completed' || status === 'failed' || status === 'cancelled')) m.sink.runEnded(m.id, m.version, status);
    if (status === 'completed' || status === 'failed' || status === 'cancelled') this.runTrace?.end(status);
    this.tracker.render();
    this.publish('workflow.status-changed', { updatedAt: this.nowIso(), status: phaseOf(status) });
  }

  nowIso(): string {
    return nowIso(this.effects);
  }

  // ------------------------------------------------------------------ suspension and the walk

  /**
   * Before each state or task: a pause when one is due, else nothing (an `await` of its own would
   * add a microtask turn to every step and change the order of concurrent branches' commands).
   * Due: the walk budget's yield timer (yield-long-walks), or a suspension (wait until resumed).
   */
  step(): Promise<void> | undefined {
    if (this.suspended) return this.whileSuspended();
    return this.features.has(FEATURE_YIELD_LONG_WALKS) ? this.budget.step() : undefined;
  }

  /**
   * Suspends the run (the `swflow.suspend` signal): no new state or task starts until it is resumed.
   * Work already started goes on: calls in flight complete, timers keep running (a `wait` that
   * ends meanwhile lets the run go on only once resumed), events keep arriving in the mailbox.
   */
  suspend(): void {
    if (this.suspended || this.tracker.status !== 'running') return;
    this.suspended = true;
    this.setStatus('suspended');
    this.publish('workflow.suspended', { suspendedAt: this.nowIso() });
    for (const at of this.front?.current() ?? []) this.publish('task.suspended', { task: at, suspendedAt: this.nowIso() }, at);
  }

  /** Resumes a suspended run (the `swflow.resume` signal). */
  resume(): void {
    if (!this.suspended) return;
    this.suspended = false;
    this.setStatus('running');
    this.publish('workflow.resumed', { resumedAt: this.nowIso() });
    for (const at of this.front?.current() ?? []) this.publish('task.resumed', { task: at, resumedAt: this.nowIso() }, at);
  }

  private async whileSuspended(): Promise<void> {
    beforeBlocking();
    await this.effects.condition(() => !this.suspended);
  }

  // ------------------------------------------------------------------ continue-as-new

  private historyLimit(): number {
    const v = Number(this.description?.historyLimit);
    return Number.isFinite(v) && v > 0 ? v : HISTORY_LIMIT;
  }

  /** Whether the run should continue as new at the next safe point (its history grows too long). */
  continueAsNewDue(): boolean {
    const info = this.effects.info();
    const pending = this.policy ? this.budget.pendingEvents() : 0;
    return info.continueAsNewSuggested || info.historyLength + pending >= this.historyLimit();
  }

  /** What the host carries into the next run. */
  private hostCarry(): HostCarry {
    return {
      events: [...this.mailbox.events],
      consumed: [...this.mailbox.consumed],
      correlation: { ...this.mailbox.correlation },
      entered: this.front ? this.front.entered().slice(-ENTERED_KEPT) : [],
      ...(this.deadline !== undefined ? { deadline: this.deadline } : {}),
      generation: (this.carried?.host.generation ?? 0) + 1,
    };
  }

  /**
   * Continues as new with the same definition, `data` as input and the front end's position:
   * lifecycle events delivered, search attributes written, the host's part carried.
   */
  async continueAsNew(definition: Definition, data: Json, front: Record<string, Json>): Promise<never> {
    return this.continueWith(data, () => {
      const carried: Carried = { host: this.hostCarry(), front };
      return {
        definition,
        ...(this.options.subflows ? { subflows: this.options.subflows } : {}),
        carried: carried as unknown as Json,
        // Pinned function documents go with the chain (only runs with v1-catalogs have any).
        ...(this.functions ? { functions: { ...this.functions } } : {}),
      };
    });
  }

  // ------------------------------------------------------------------ the state query

  instanceState(fallback: { definitionId: string; data: Json }): InstanceState {
    const d = this.description;
    if (!d || !this.front) return { definitionId: fallback.definitionId, currentStates: [], statesEntered: [], data: fallback.data, awaitedEvents: [], status: 'running' };
    return {
      definitionId: d.id,
      ...(d.version ? { definitionVersion: d.version } : {}),
      currentStates: [...this.tracker.current],
      statesEntered: [...this.front.entered()],
      data: this.front.data(),
      awaitedEvents: this.front.awaitedEvents(),
      status: this.tracker.status,
      steps: this.tracker.steps.slice(-STEPS_LISTED).map((s) => ({ step: s.state, type: s.type, status: s.status, ...(s.enteredAt !== undefined ? { enteredAt: s.enteredAt } : {}), ...(s.leftAt !== undefined ? { leftAt: s.leftAt } : {}) })),
      stepsTotal: this.tracker.steps.length,
      ...(this.calls?.calls.length ? { callsInFlight: this.calls.calls.map((c) => ({ ...c })) } : {}),
    };
  }

  /**
   * The `state` query's answer: the whole InstanceState, or, asked with a `since` argument
   * (StateQueryArg), only the progress since then (./state-progress.ts). A query: reads only.
   */
  stateAnswer(fallback: { definitionId: string; data: Json }, arg?: unknown): InstanceState | StateProgress {
    const since = stateSince(arg);
    if (!since) return this.instanceState(fallback);
    const d = this.description;
    const ready = d && this.front;
    return stateProgress(since, {
      runId: this.info.runId,
      ...(this.info.continuedFromExecutionRunId ? { continuedFrom: this.info.continuedFromExecutionRunId } : {}),
      entered: ready ? this.front!.entered() : [],
      carried: this.carried?.host.entered.length ?? 0,
      definitionId: d?.id ?? fallback.definitionId,
      ...(d?.version ? { definitionVersion: d.version } : {}),
      currentStates: ready ? [...this.tracker.current] : [],
      awaitedEvents: ready ? this.front!.awaitedEvents() : [],
      status: ready ? this.tracker.status : 'running',
    });
  }

  /** Runs the front end. */
  run(input: Json): Promise<Json> {
    return this.front!.run(input);
  }
}

/** The spec's status phase of a run status. */
function phaseOf(status: RunStatus): string {
  return status === 'failed' ? 'faulted' : status === 'compensating' ? 'running' : status;
}
