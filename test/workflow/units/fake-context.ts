/**
 * The 0.8 state pipeline over fake effects, for unit tests of 0.8 state executors without a
 * server: a fake {@link Effects} records every command an executor issues (activities, local calls, timers,
 * event waits, children) in order and answers them; time is a fake clock that moves only when
 * nothing else can happen (as Temporal's activations: microtasks first, then the next timer or
 * scheduled event); cancellation scopes behave as Temporal's (a cancelled scope rejects its
 * pending work with a CancelledFailure, non-cancellable scopes are shielded). The mailbox is the
 * real one (matching, correlation) with the fake waits.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/workflow';
import type { Json, WorkflowDef } from '../../../src/common/model';
import type { CloudEventJson, StartOptions } from '../../../src/common/contracts';
import { loadDefinition, formatFinding } from '../../../src/dsl';
import { Mailbox } from '../../../src/workflow/events/mailbox';
import type { ActivityOptions, ChildOptions, Effects, LocalActivityOptions, Scope, WorkflowInfo } from '../../../src/workflow/effects';
import type { Holder, Next } from '../../../src/workflow/v08/states/context';
import { StatePipeline } from '../../../src/workflow/v08/states/pipeline';
import { executorOf } from '../../../src/workflow/v08/states/executors';
import { INTERPRETER_FEATURES } from '../../../src/common/features';

/** An activity or local activity as the executor scheduled it. */
export type CallCommand = { kind: 'activity' | 'localCall'; type: string; args: unknown[]; options: ActivityOptions; at: number };

/** A child workflow as the executor started it. */
export type ChildCommand = { kind: 'child' | 'startChild'; type: string; options: ChildOptions; at: number };

/** One command as the executor issued it (`at`: the fake clock then). */
export type Command =
  | CallCommand
  | { kind: 'timer'; ms: number; summary?: string; at: number }
  | { kind: 'wait'; ms: number; summary?: string; at: number }
  | { kind: 'condition'; at: number }
  | ChildCommand;

/** A command without its time. */
export type Issued = Command extends infer C ? (C extends Command ? Omit<C, 'at'> : never) : never;

/** What an activity or child answers: a value, an error (thrown), or either after some time. */
export type Answer = { value?: unknown; error?: unknown; afterMs?: number };
export type Responder = (cmd: Extract<Command, { kind: 'activity' | 'localCall' | 'child' | 'startChild' }>) => Answer | undefined;

/** A service error as the workflow sees an adapter's: an ActivityFailure caused by an ApplicationFailure with details `{code, message}`. */
export function serviceError(code: string, message: string, activityType = 'sw.rest'): ActivityFailure {
  return activityFailure(ApplicationFailure.create({ type: code, message, nonRetryable: true, details: [{ code, message }] }), activityType);
}

/** An activity's failure with its cause, as the SDK raises it in the workflow. */
export function activityFailure(cause: Error, activityType = 'sw.rest'): ActivityFailure {
  return new ActivityFailure('Activity task failed', activityType, '1', 'NON_RETRYABLE_FAILURE' as never, 'worker', cause);
}

class FakeScope implements Scope {
  cancelled = false;
  readonly children = new Set<FakeScope>();
  readonly pending = new Set<(err: unknown) => void>();

  constructor(
    private readonly store: AsyncLocalStorage<FakeScope>,
    readonly parent: FakeScope | undefined,
    readonly cancellable = true,
  ) {
    parent?.children.add(this);
  }

  get consideredCancelled(): boolean {
    return this.cancelled || (this.cancellable && !!this.parent?.consideredCancelled);
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.run(this, fn);
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const reject of [...this.pending]) reject(new CancelledFailure('cancelled'));
    this.pending.clear();
    for (const c of this.children) if (c.cancellable) c.cancel();
  }
}

interface Agendum {
  at: number;
  seq: number;
  fire: () => void;
}

/** Fake effects: records commands, answers them, runs a fake clock. */
export class FakeEffects implements Effects {
  readonly commands: Command[] = [];
  readonly warnings: string[] = [];
  /** Workflow time, ms since the run started (`now()` adds `epoch`). */
  clock = 0;
  readonly epoch = Date.UTC(2026, 0, 1);
  private readonly store = new AsyncLocalStorage<FakeScope>();
  private readonly root: FakeScope;
  private agenda: Agendum[] = [];
  private conditions: { fn: () => boolean; resolve: () => void }[] = [];
  private seq = 0;
  private uuids = 0;

  constructor(public respond: Responder = () => ({ value: null })) {
    this.root = new FakeScope(this.store, undefined, true);
  }

  private current(): FakeScope {
    return this.store.getStore() ?? this.root;
  }

  private schedule(afterMs: number, fire: () => void): Agendum {
    const a = { at: this.clock + afterMs, seq: this.seq++, fire };
    this.agenda.push(a);
    return a;
  }

  private unschedule(a: Agendum): void {
    this.agenda = this.agenda.filter((x) => x !== a);
  }

  /** A pending operation of the current scope, settled by `settle` (or rejected when the scope is cancelled). */
  private pendingOp<T>(start: (resolve: (v: T) => void, reject: (e: unknown) => void, onCancel: (f: () => void) => void) => void): Promise<T> {
    const scope = this.current();
    return new Promise<T>((resolve, reject) => {
      if (scope.consideredCancelled) {
        reject(new CancelledFailure('cancelled'));
        return;
      }
      let cleanup: (() => void) | undefined;
      const cancel = (err: unknown) => {
        cleanup?.();
        reject(err);
      };
      // Cancelling a scope cancels its cancellable children: the op's own scope is enough.
      scope.pending.add(cancel);
      const done = () => scope.pending.delete(cancel);
      start(
        (v) => {
          done();
          resolve(v);
        },
        (e) => {
          done();
          reject(e);
        },
        (f) => (cleanup = f),
      );
    });
  }

  private answered<R>(cmd: Extract<Command, { kind: 'activity' | 'localCall' | 'child' | 'startChild' }>): Promise<R> {
    this.commands.push(cmd);
    const answer = this.respond(cmd) ?? { value: null };
    return this.pendingOp<R>((resolve, reject, onCancel) => {
      const settle = () => (answer.error !== undefined ? reject(answer.error) : resolve(answer.value as R));
      if (answer.afterMs === undefined) {
        queueMicrotask(settle);
        return;
      }
      const a = this.schedule(answer.afterMs, settle);
      onCancel(() => this.unschedule(a));
    });
  }

  activity<R>(type: string, args: unknown[], options: ActivityOptions): Promise<R> {
    return this.answered<R>({ kind: 'activity', type, args, options, at: this.clock });
  }

  localCall<R>(type: string, args: unknown[], options: ActivityOptions): Promise<R> {
    return this.answered<R>({ kind: 'localCall', type, args, options, at: this.clock });
  }

  localActivity<R>(type: string, args: unknown[], options: LocalActivityOptions): Promise<R> {
    return this.answered<R>({ kind: 'localCall', type, args, options: options as ActivityOptions, at: this.clock });
  }

  executeChild<R>(type: string, options: ChildOptions): Promise<R> {
    return this.answered<R>({ kind: 'child', type, options, at: this.clock });
  }

  startChild(type: string, options: ChildOptions): Promise<unknown> {
    return this.answered({ kind: 'startChild', type, options, at: this.clock });
  }

  sleep(ms: number, summary?: string): Promise<void> {
    this.commands.push({ kind: 'timer', ms, ...(summary ? { summary } : {}), at: this.clock });
    return this.pendingOp<void>((resolve, _reject, onCancel) => {
      const a = this.schedule(ms, () => resolve());
      onCancel(() => this.unschedule(a));
    });
  }

  condition(fn: () => boolean): Promise<void> {
    this.commands.push({ kind: 'condition', at: this.clock });
    return this.pendingOp<void>((resolve, _reject, onCancel) => {
      const c = { fn, resolve };
      this.conditions.push(c);
      onCancel(() => (this.conditions = this.conditions.filter((x) => x !== c)));
    });
  }

  conditionWithin(fn: () => boolean, timeoutMs: number, summary?: string): Promise<boolean> {
    this.commands.push({ kind: 'wait', ms: timeoutMs, ...(summary ? { summary } : {}), at: this.clock });
    return this.pendingOp<boolean>((resolve, _reject, onCancel) => {
      const c = {
        fn,
        resolve: () => {
          this.unschedule(a);
          resolve(true);
        },
      };
      const a = this.schedule(timeoutMs, () => {
        this.conditions = this.conditions.filter((x) => x !== c);
        resolve(false);
      });
      this.conditions.push(c);
      onCancel(() => {
        this.unschedule(a);
        this.conditions = this.conditions.filter((x) => x !== c);
      });
    });
  }

  scope(): Scope {
    return new FakeScope(this.store, this.current(), true);
  }

  nonCancellable<T>(fn: () => Promise<T>): Promise<T> {
    return new FakeScope(this.store, this.current(), false).run(fn);
  }

  cancelled(): boolean {
    return this.current().consideredCancelled;
  }

  uuid4(): string {
    return `00000000-0000-4000-8000-${String(++this.uuids).padStart(12, '0')}`;
  }

  now(): number {
    return this.epoch + this.clock;
  }

  info(): WorkflowInfo {
    return { workflowId: 'wf-1', runId: 'run-1', taskQueue: 'swflow', namespace: 'default', workflowType: 'test', historyLength: 3, continueAsNewSuggested: false } as unknown as WorkflowInfo;
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  /** Work still pending: timers, answers not yet given, conditions (0 once cancelled work is gone). */
  get outstanding(): number {
    return this.agenda.length + this.conditions.length;
  }

  /** Something that happens at `afterMs` from now (an event arriving), not a command. */
  at(afterMs: number, fire: () => void): void {
    this.schedule(afterMs, fire);
  }

  /**
   * Runs `work` to its end as Temporal would: its microtasks, then the conditions that now hold,
   * then the earliest timer or scheduled happening (the clock moves to it), and so on. Fails when
   * the work waits for something that never comes.
   */
  async drive<T>(work: () => Promise<T>): Promise<T> {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    this.root.run(work).then(
      (value) => (outcome = { ok: true, value }),
      (error) => (outcome = { ok: false, error }),
    );
    for (let steps = 0; steps < 100_000; steps++) {
      await new Promise((r) => setImmediate(r)); // every microtask runs
      const ready = this.conditions.filter((c) => c.fn());
      if (ready.length) {
        this.conditions = this.conditions.filter((c) => !ready.includes(c));
        ready.forEach((c) => c.resolve());
        continue;
      }
      if (outcome) break;
      if (!this.agenda.length) throw new Error(`the work waits for nothing that can happen (${this.conditions.length} condition(s) pending)`);
      const next = this.agenda.reduce((a, b) => (b.at < a.at || (b.at === a.at && b.seq < a.seq) ? b : a));
      this.unschedule(next);
      this.clock = next.at;
      next.fire();
    }
    if (!outcome) throw new Error('the work did not end');
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }
}

export interface FakeOptions {
  /** The run's interpreter features (default: all this worker knows, as a new run); without `sync-expressions` the executors await their expressions as old runs did. */
  features?: readonly string[];
  /** Events in the mailbox before the state starts. */
  events?: CloudEventJson[];
  respond?: Responder;
  options?: StartOptions;
}

/**
 * The real state pipeline (src/workflow/v08/states/pipeline.ts) over {@link FakeEffects}: what the run
 * host gives it, faked as effects only (a tracker that records nothing, lifecycle events dropped,
 * the walk never pauses). The methods below drive it; none changes its semantics.
 */
export class FakeRun extends StatePipeline {
  declare readonly effects: FakeEffects;
  declare readonly mailbox: Mailbox;

  constructor(def: WorkflowDef, opts: FakeOptions = {}) {
    const effects = new FakeEffects(opts.respond);
    const mailbox = new Mailbox(def.events);
    mailbox.effects = effects;
    for (const e of opts.events ?? []) mailbox.push(e);
    super(
      {
        effects,
        info: { workflowId: 'wf-1', runId: 'run-1', taskQueue: 'swflow', workflowType: def.id },
        options: opts.options ?? {},
        mailbox,
        features: new Set(opts.features ?? INTERPRETER_FEATURES),
        tracker: { status: 'running', enter: (state: string, type: string) => ({ state, type, status: 'running' }) as never, leave: () => undefined },
        publish: () => undefined,
        nowIso: () => new Date(effects.now()).toISOString(),
        step: () => undefined,
      },
      def,
    );
  }

  /** An event arriving `afterMs` from now. */
  deliver(afterMs: number, event: CloudEventJson): void {
    this.effects.at(afterMs, () => this.mailbox.push(event));
  }

  /** Runs the state named `name` on `data` with its executor: the data out and the transition/end chosen. */
  async exec(name: string, data: Json): Promise<{ data: Json; next: Next | void }> {
    const state = this.state(name);
    const h: Holder = { data };
    const next = await this.effects.drive(() => executorOf(state)(state, h, this));
    return { data: h.data, next };
  }

  /** Commands without their time (`at`), for exact comparisons; `kinds` keeps only those. */
  issued(...kinds: Command['kind'][]): Issued[] {
    return this.effects.commands.filter((c) => !kinds.length || kinds.includes(c.kind)).map(({ at: _at, ...c }) => c as Issued);
  }
}

/** A 0.8 definition through the real loader (defaults filled, normalized): fails on any error problem. */
export async function definition(doc: Record<string, unknown>): Promise<WorkflowDef> {
  const r = await loadDefinition({ id: 'unit', version: '1.0', specVersion: '0.8', start: (doc.states as { name: string }[])[0].name, ...doc });
  const errors = r.problems.filter((p) => p.severity === 'error');
  if (!r.definition || errors.length) throw new Error(`bad test definition:\n${errors.map(formatFinding).join('\n')}`);
  return r.definition;
}

let eventIds = 0;

/** A CloudEvent as a broker delivers it. */
export function cloudEvent(type: string, data: Json, extra: Record<string, Json> = {}): CloudEventJson {
  return { specversion: '1.0', id: `ev-${++eventIds}`, source: 'test', type, datacontenttype: 'application/json', data, ...extra } as CloudEventJson;
}
