/**
 * The 1.0 task pipeline (src/workflow/v1/pipeline.ts: every task's data flow and the executors'
 * context) over fake effects, for unit tests of the task executors (src/workflow/v1/tasks/*)
 * without a server. Nothing of the run's semantics is written here: the pipeline is the real
 * one; {@link FakeEffects} stands in for Temporal only. It records every command a task issues
 * (activities, local calls, timers, children) and plays Temporal's part on a virtual clock:
 * activities complete at the next "activation" with what the test's handler gives, timers fire
 * when nothing else can progress, conditions are re-checked after every activation, and
 * cancellation scopes cancel what was started in them (AsyncLocalStorage carries the current
 * scope across awaits, as the SDK's own scopes do in the sandbox).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { CancelledFailure } from '@temporalio/common';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { Json } from '../../../src/common/model';
import { entryOf, taskTypeOf, V1_KIND, type PinnedFunction, type Task, type V1Definition } from '../../../src/common/model-v1';
import { formatFinding, loadAnyDefinition } from '../../../src/dsl';
import type { StartOptions } from '../../../src/common/contracts';
import { initExpressions } from '../../../src/expr';
import type { ActivityOptions, ChildWorkflowOptions, Effects, LocalActivityOptions, Scope } from '../../../src/workflow/effects';
import { Mailbox } from '../../../src/workflow/events/mailbox';
import { FEATURE_LOCAL_READS, INTERPRETER_FEATURES } from '../../../src/common/features';
import type { LifecycleType } from '../../../src/workflow/host/lifecycle';

/** What a run pinned by a worker without built-in calls gets (`local-reads` is recorded only by workers that serve them). */
export const DEFAULT_FEATURES = INTERPRETER_FEATURES.filter((f) => f !== FEATURE_LOCAL_READS);
import type { ListOutcome, TaskAt, TaskOutcome } from '../../../src/workflow/v1/context';
import { TaskPipeline } from '../../../src/workflow/v1/pipeline';
import { EXECUTORS } from '../../../src/workflow/v1/tasks/executors';

/** Virtual time starts here (2026-01-01T00:00:00Z). */
export const T0 = Date.UTC(2026, 0, 1);

export type CommandState = 'pending' | 'completed' | 'failed' | 'cancelled' | 'fired';

export interface ActivityCommand {
  kind: 'activity' | 'localCall';
  type: string;
  args: unknown[];
  options: ActivityOptions;
  /** Virtual time it was issued. */
  at: number;
  state: CommandState;
}
export interface TimerCommand {
  kind: 'timer';
  ms: number;
  summary?: string;
  at: number;
  state: CommandState;
}
export interface ChildCommand {
  kind: 'executeChild' | 'startChild';
  type: string;
  options: ChildWorkflowOptions;
  at: number;
  state: CommandState;
}
/** A command a task issued, in order; `state` is how it ended (or `pending`). */
export type Command = ActivityCommand | TimerCommand | ChildCommand;
type CommandOf<K extends Command['kind']> = K extends ActivityCommand['kind'] ? ActivityCommand : K extends 'timer' ? TimerCommand : ChildCommand;

/** What an activity (or local call) returns; throw to fail it; return `fake.after(ms, v)` to make it last. */
export type ActivityHandler = (args: unknown[], command: ActivityCommand, attempt: number) => unknown;
export type ChildHandler = (options: ChildWorkflowOptions, command: Command) => unknown;

class FakeScope implements Scope {
  cancelled = false;
  private readonly children = new Set<FakeScope>();
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly storage: AsyncLocalStorage<FakeScope>,
    private readonly parent: FakeScope | undefined,
    readonly cancellable = true,
  ) {
    parent?.children.add(this);
  }

  get consideredCancelled(): boolean {
    return this.cancellable && (this.cancelled || Boolean(this.parent?.consideredCancelled));
  }

  run<T>(fn: () => Promise<T>): Promise<T> {
    return this.storage.run(this, fn);
  }

  cancel(): void {
    if (this.cancelled || !this.cancellable) return;
    this.cancelled = true;
    for (const l of [...this.listeners]) l();
    for (const c of this.children) c.cancel();
  }

  /** Calls `onCancel` when this scope is cancelled; returns the unsubscriber. */
  onCancel(onCancel: () => void): () => void {
    this.listeners.add(onCancel);
    return () => this.listeners.delete(onCancel);
  }
}

interface Pending {
  at: number;
  seq: number;
  fire: () => void;
}

/** Temporal's part, played on a virtual clock; every command recorded in `commands`. */
export class FakeEffects implements Effects {
  readonly commands: Command[] = [];
  readonly warnings: string[] = [];
  /** Activity handlers by activity type (`sw.http`, `swflow.produceEvent`, …); `*`: any other. */
  readonly activities: Record<string, ActivityHandler> = {};
  /** Child workflow handlers by workflow type; `*`: any other. */
  readonly children: Record<string, ChildHandler> = {};
  private clock = T0;
  private seq = 0;
  private ids = 0;
  private readonly storage = new AsyncLocalStorage<FakeScope>();
  private readonly root = new FakeScope(this.storage, undefined);
  /** Timers and scheduled test actions, fired in time order when nothing else can progress. */
  private timers: Pending[] = [];
  /** Completions delivered at the next activation. */
  private completions: (() => void)[] = [];
  private conditions: { fn: () => boolean; resolve: () => void }[] = [];
  private attempts = new Map<string, number>();

  private current(): FakeScope {
    return this.storage.getStore() ?? this.root;
  }

  /**
   * A promise settled by `op` (resolve/reject), rejected with a CancelledFailure when the current
   * scope is (or gets) cancelled first; `cancelled` is told so.
   */
  private cancellable<T>(op: (resolve: (v: T) => void, reject: (e: unknown) => void) => void, cancelled: () => void): Promise<T> {
    const scope = this.current();
    return new Promise<T>((resolve, reject) => {
      if (scope.consideredCancelled) {
        cancelled();
        reject(new CancelledFailure('cancelled'));
        return;
      }
      let done = false;
      const off = scope.onCancel(() => {
        if (done) return;
        done = true;
        cancelled();
        reject(new CancelledFailure('cancelled'));
      });
      op(
        (v) => {
          if (done) return;
          done = true;
          off();
          resolve(v);
        },
        (e) => {
          if (done) return;
          done = true;
          off();
          reject(e);
        },
      );
    });
  }

  private schedule(kind: 'activity' | 'localCall', type: string, args: unknown[], options: ActivityOptions): Promise<never> {
    const command: ActivityCommand = { kind, type, args, options, at: this.clock, state: 'pending' };
    this.commands.push(command);
    const handler = this.activities[type] ?? this.activities['*'];
    const attempt = (this.attempts.get(type) ?? 0) + 1;
    this.attempts.set(type, attempt);
    return this.cancellable<never>(
      (resolve, reject) => {
        let result: Promise<unknown>;
        try {
          if (!handler) throw new Error(`no handler for activity ${type}`);
          result = Promise.resolve(handler(args, command, attempt));
        } catch (err) {
          result = Promise.reject(err);
        }
        result.then(
          (v) => this.completions.push(() => ((command.state = command.state === 'pending' ? 'completed' : command.state), resolve(v as never))),
          (e) => this.completions.push(() => ((command.state = command.state === 'pending' ? 'failed' : command.state), reject(e))),
        );
      },
      () => (command.state = 'cancelled'),
    );
  }

  activity<R>(type: string, args: unknown[], options: ActivityOptions): Promise<R> {
    return this.schedule('activity', type, args, options);
  }

  localCall<R>(type: string, args: unknown[], options: ActivityOptions): Promise<R> {
    return this.schedule('localCall', type, args, options);
  }

  localActivity<R>(type: string, args: unknown[], options: LocalActivityOptions): Promise<R> {
    return this.schedule('localCall', type, args, options as ActivityOptions);
  }

  /** Schedules `fire` at `ms` from now on the virtual clock (not a command). */
  private timer(ms: number, fire: () => void): () => void {
    const p: Pending = { at: this.clock + Math.max(1, ms), seq: this.seq++, fire };
    this.timers.push(p);
    return () => (this.timers = this.timers.filter((t) => t !== p));
  }

  sleep(ms: number, summary?: string): Promise<void> {
    const command: Command = { kind: 'timer', ms, ...(summary !== undefined ? { summary } : {}), at: this.clock, state: 'pending' };
    this.commands.push(command);
    let off = () => undefined as unknown;
    return this.cancellable<void>(
      (resolve) => {
        off = this.timer(ms, () => ((command.state = 'fired'), resolve()));
      },
      () => {
        command.state = 'cancelled';
        off();
      },
    );
  }

  condition(fn: () => boolean): Promise<void> {
    let entry: { fn: () => boolean; resolve: () => void } | undefined;
    return this.cancellable<void>(
      (resolve) => {
        if (fn()) return resolve(); // eager, as the SDK
        entry = { fn, resolve };
        this.conditions.push(entry);
      },
      () => (this.conditions = this.conditions.filter((c) => c !== entry)),
    );
  }

  conditionWithin(fn: () => boolean, timeoutMs: number, summary?: string): Promise<boolean> {
    const scope = new FakeScope(this.storage, this.current());
    return scope.run(async () => {
      try {
        return await Promise.race([this.sleep(timeoutMs, summary).then(() => false), this.condition(fn).then(() => true)]);
      } finally {
        scope.cancel();
      }
    });
  }

  private child(kind: 'executeChild' | 'startChild', type: string, options: ChildWorkflowOptions): Promise<never> {
    const command: ChildCommand = { kind, type, options, at: this.clock, state: 'pending' };
    this.commands.push(command);
    const handler = this.children[type] ?? this.children['*'];
    return this.cancellable<never>(
      (resolve, reject) => {
        let result: Promise<unknown>;
        try {
          if (kind === 'startChild') result = Promise.resolve({ workflowId: options.workflowId });
          else if (!handler) throw new Error(`no handler for child workflow ${type}`);
          else result = Promise.resolve(handler(options, command));
        } catch (err) {
          result = Promise.reject(err);
        }
        result.then(
          (v) => this.completions.push(() => ((command.state = 'completed'), resolve(v as never))),
          (e) => this.completions.push(() => ((command.state = 'failed'), reject(e))),
        );
      },
      () => (command.state = 'cancelled'),
    );
  }

  executeChild<R>(type: string, options: ChildWorkflowOptions): Promise<R> {
    return this.child('executeChild', type, options);
  }

  startChild(type: string, options: ChildWorkflowOptions): Promise<unknown> {
    return this.child('startChild', type, options);
  }

  scope(): Scope {
    return new FakeScope(this.storage, this.current());
  }

  nonCancellable<T>(fn: () => Promise<T>): Promise<T> {
    return new FakeScope(this.storage, this.current(), false).run(fn);
  }

  cancelled(): boolean {
    return this.current().consideredCancelled;
  }

  uuid4(): string {
    return `00000000-0000-4000-8000-${(++this.ids).toString(16).padStart(12, '0')}`;
  }

  now(): number {
    return this.clock;
  }

  /** The run's workflow info: only what the interpreter reads of it. */
  readonly workflowInfo = { workflowId: 'wf-1', runId: 'run-1', taskQueue: 'swflow-interpreter', namespace: 'default', workflowType: 'test/units', historyLength: 3, continueAsNewSuggested: false };

  info(): WorkflowInfo {
    return this.workflowInfo as unknown as WorkflowInfo;
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  // ------------------------------------------------------------------ test controls

  /** A value (or a failure, when `value` is an Error) `ms` from now: an activity handler that lasts. */
  after<T>(ms: number, value: T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.timer(ms, () => (value instanceof Error ? reject(value) : resolve(value)));
    });
  }

  /** Runs `fn` (an event arriving, …) `ms` from now on the virtual clock. */
  later(ms: number, fn: () => void): void {
    this.timer(ms, fn);
  }

  /** Virtual ms since {@link T0}. */
  get elapsed(): number {
    return this.clock - T0;
  }

  /** Commands of one kind, in order. */
  of<K extends Command['kind']>(kind: K): CommandOf<K>[] {
    return this.commands.filter((c) => c.kind === kind) as CommandOf<K>[];
  }

  /**
   * Drives `work` to its end: each turn drains the microtasks, delivers the completions (an
   * activation), re-checks the conditions, and when nothing else can progress advances the
   * clock to the next timer. Throws when the work waits for something that cannot happen.
   */
  async drive<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let turn = 0; turn < 100_000; turn++) {
      await new Promise((r) => setImmediate(r));
      if (settled) return work;
      if (this.completions.length) {
        const batch = this.completions;
        this.completions = [];
        for (const c of batch) c();
        continue;
      }
      const ready = this.conditions.filter((c) => c.fn());
      if (ready.length) {
        this.conditions = this.conditions.filter((c) => !ready.includes(c));
        for (const c of ready) c.resolve();
        continue;
      }
      if (!this.timers.length) throw new Error(`the work is stuck: no completion, condition or timer can move it (${this.conditions.length} condition(s) waiting)`);
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift()!;
      this.clock = next.at;
      next.fire();
    }
    throw new Error('the work did not end within 100000 turns');
  }
}

export interface FakeOptions {
  /**
   * The run's interpreter features: default, what a new run gets on a worker that does not serve
   * built-in calls (INTERPRETER_FEATURES without `local-reads`: the calls here are activities;
   * tasks.test.ts passes `local-reads` where it tests it).
   */
  features?: Iterable<string>;
  subflows?: StartOptions['subflows'];
  /** Function documents pinned with the definition (v1-catalogs), by call string. */
  functions?: Record<string, PinnedFunction>;
  /** `$workflow.input`. */
  workflowInput?: Json;
}

/** A lifecycle event the pipeline published: its type and subject (the task's reference). */
export interface Published {
  type: LifecycleType;
  subject?: string;
  data: Record<string, Json>;
}

/**
 * The real task pipeline over {@link FakeEffects}: what the run host gives the pipeline, faked as
 * effects only (the Web UI tracker records the references entered, lifecycle events are kept in
 * `published`, the walk never pauses). The methods below drive it; none changes its semantics.
 */
export class FakeTaskContext extends TaskPipeline {
  declare readonly effects: FakeEffects;
  /** The references of the tasks entered, in order. */
  readonly entered: string[] = [];
  /** Every lifecycle event published. */
  readonly published: Published[] = [];

  constructor(def: V1Definition, opts: FakeOptions = {}) {
    const effects = new FakeEffects();
    const mailbox = new Mailbox();
    mailbox.effects = effects;
    const entered: string[] = [];
    const published: Published[] = [];
    super(
      {
        effects,
        mailbox,
        features: new Set(opts.features ?? DEFAULT_FEATURES),
        ...(opts.functions ? { functions: opts.functions } : {}),
        options: { ...(opts.subflows ? { subflows: opts.subflows } : {}) },
        tracker: { enter: (reference: string, type: string) => (entered.push(reference), { state: reference, type, status: 'running' }) as never, leave: () => undefined },
        publish: (type, data = {}, subject) => void published.push({ type, data, ...(subject !== undefined ? { subject } : {}) }),
        step: () => undefined,
      },
      def,
      { workflowInput: opts.workflowInput ?? null, startedAt: effects.now() },
    );
    this.entered = entered;
    this.published = published;
  }

  /** A fake over a 1.0 document (loaded and checked by the real loader). */
  static async of(doc: Record<string, unknown>, opts: FakeOptions = {}): Promise<FakeTaskContext> {
    await initExpressions();
    const full = { ...doc, document: { dsl: '1.0.3', namespace: 'test', name: 'units', version: '1.0.0', ...((doc.document as object) ?? {}) } };
    const { definition, problems } = await loadAnyDefinition(full, { source: 'unit test document' });
    if (!definition) throw new Error(`unit test document is invalid:\n${problems.map(formatFinding).join('\n')}`);
    if ((definition as V1Definition).kind !== V1_KIND) throw new Error('not a 1.0 document');
    return new FakeTaskContext(definition as V1Definition, opts);
  }

  /** The `task.retried` events published, as `task.retried <reference>`. */
  get retried(): string[] {
    return this.published.filter((p) => p.type === 'task.retried').map((p) => `${p.type} ${p.subject}`);
  }

  /** Where the top-level task `name` runs. */
  at(name: string): { task: Task; at: TaskAt } {
    const i = this.def.workflow.do.findIndex((item) => entryOf(item)[0] === name);
    if (i < 0) throw new Error(`no top-level task '${name}'`);
    const task = entryOf(this.def.workflow.do[i])[1];
    const reference = `/do/${i}/${name}`;
    return { task, at: { name, reference, locals: {}, task: { name, reference, definition: task as unknown as Json } } };
  }

  /** Runs the executor of the top-level task `name` on `input` (not the task's own data flow), to its end. */
  exec(name: string, input: Json = {}): Promise<TaskOutcome> {
    const { task, at } = this.at(name);
    const type = taskTypeOf(task) ?? 'do';
    return this.effects.drive(EXECUTORS[type](task, at, input, this));
  }

  /** Runs the top-level list (the tasks' data flow and flow directives) to its end. */
  runAll(input: Json = {}): Promise<ListOutcome> {
    return this.effects.drive(this.runList(this.def.workflow.do, '/do', input, {}));
  }
}
