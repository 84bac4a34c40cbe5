/**
 * Temporal's part in the unit tests, played on a virtual clock: one {@link Effects}
 * (src/workflow/effects.ts) under both pipelines' fakes (fake-task-context.ts for 1.0,
 * fake-context.ts for 0.8), so a 0.8 state and a 1.0 task see the same Temporal. It records every
 * command an executor issues (activities, local calls, timers, waits, children) in order with the
 * virtual time it was issued and how it ended, and answers them with the test's handlers:
 * activities and children complete at the next "activation", timers fire when nothing else can
 * progress, conditions are re-checked after every activation, and cancellation scopes cancel what
 * was started in them (AsyncLocalStorage carries the current scope across awaits, as the SDK's own
 * scopes do in the sandbox).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { CancelledFailure } from '@temporalio/common';
import type { ActivityOptions, ChildOptions, Effects, LocalActivityOptions, Scope, WorkflowInfo } from '../../../src/workflow/effects';

/** Virtual time starts here (2026-01-01T00:00:00Z): `now()` is T0 + {@link FakeEffects.elapsed}. */
export const T0 = Date.UTC(2026, 0, 1);

export type CommandState = 'pending' | 'completed' | 'failed' | 'cancelled' | 'fired';

interface Issued {
  /** Virtual ms since {@link T0} when it was issued. */
  at: number;
  /** How it ended, or `pending`. */
  state: CommandState;
}
export interface ActivityCommand extends Issued {
  kind: 'activity' | 'localCall';
  type: string;
  args: unknown[];
  options: ActivityOptions;
}
export interface TimerCommand extends Issued {
  kind: 'timer';
  ms: number;
  summary?: string;
}
/** A condition bounded by a timeout (`conditionWithin`, an event awaited for a time): `completed` when it held, `fired` when the time passed. */
export interface WaitCommand extends Issued {
  kind: 'wait';
  ms: number;
  summary?: string;
}
/** A bare condition: Temporal records no command for it, the test sees that the executor blocked. */
export interface ConditionCommand extends Issued {
  kind: 'condition';
}
export interface ChildCommand extends Issued {
  kind: 'executeChild' | 'startChild';
  type: string;
  options: ChildOptions;
}
/** A command an executor issued, in order. */
export type Command = ActivityCommand | TimerCommand | WaitCommand | ConditionCommand | ChildCommand;
type CommandOf<K extends Command['kind']> = Command extends infer C ? (C extends Command ? (K extends C['kind'] ? C : never) : never) : never;
/** A command without its time and end, for exact comparisons of what was issued. */
export type IssuedCommand = Command extends infer C ? (C extends Command ? Omit<C, 'at' | 'state'> : never) : never;

/** What an activity (or local call) returns; throw to fail it; return `effects.after(ms, v)` to make it last. */
export type ActivityHandler = (args: unknown[], command: ActivityCommand, attempt: number) => unknown;
/** What a child workflow returns (as `ActivityHandler`). */
export type ChildHandler = (options: ChildOptions, command: ChildCommand) => unknown;

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
  /** The run's workflow info: only what the interpreter reads of it. */
  readonly workflowInfo = { workflowId: 'wf-1', runId: 'run-1', taskQueue: 'swflow-interpreter', namespace: 'default', workflowType: 'test/units', historyLength: 3, continueAsNewSuggested: false };
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
  /** The timers (`after`) of the answer being computed: dropped when its command is cancelled. */
  private answering: Pending[] | undefined;

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

  /** Records `command` and settles it with what `answer` gives, at the next activation; a cancelled command's answer never comes. */
  private answered<C extends ActivityCommand | ChildCommand>(command: C, answer: () => unknown): Promise<never> {
    this.commands.push(command);
    let owned: Pending[] = [];
    return this.cancellable<never>(
      (resolve, reject) => {
        let result: Promise<unknown>;
        this.answering = owned;
        try {
          result = Promise.resolve(answer());
        } catch (err) {
          result = Promise.reject(err);
        } finally {
          this.answering = undefined;
        }
        const end = (state: CommandState) => command.state === 'pending' && (command.state = state);
        result.then(
          (v) => this.completions.push(() => (end('completed'), resolve(v as never))),
          (e) => this.completions.push(() => (end('failed'), reject(e))),
        );
      },
      () => {
        command.state = 'cancelled';
        this.timers = this.timers.filter((t) => !owned.includes(t));
        owned = [];
      },
    );
  }

  private schedule(kind: 'activity' | 'localCall', type: string, args: unknown[], options: ActivityOptions): Promise<never> {
    const command: ActivityCommand = { kind, type, args, options, at: this.elapsed, state: 'pending' };
    const handler = this.activities[type] ?? this.activities['*'];
    const attempt = (this.attempts.get(type) ?? 0) + 1;
    this.attempts.set(type, attempt);
    return this.answered(command, () => {
      if (!handler) throw new Error(`no handler for activity ${type}`);
      return handler(args, command, attempt);
    });
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

  /** Schedules `fire` at `ms` from now on the virtual clock (not a command); returns the unscheduler. */
  private timer(ms: number, fire: () => void): () => void {
    const p: Pending = { at: this.clock + Math.max(1, ms), seq: this.seq++, fire };
    this.timers.push(p);
    this.answering?.push(p);
    return () => (this.timers = this.timers.filter((t) => t !== p));
  }

  sleep(ms: number, summary?: string): Promise<void> {
    const command: TimerCommand = { kind: 'timer', ms, ...(summary ? { summary } : {}), at: this.elapsed, state: 'pending' };
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

  /** Waits until `fn` holds (eagerly, as the SDK: no wait when it already does); `ended` is told how the wait ended. */
  private until(fn: () => boolean, ended: (state: CommandState) => void): Promise<void> {
    let entry: { fn: () => boolean; resolve: () => void } | undefined;
    return this.cancellable<void>(
      (resolve) => {
        const held = () => (ended('completed'), resolve());
        if (fn()) return held();
        entry = { fn, resolve: held };
        this.conditions.push(entry);
      },
      () => {
        this.conditions = this.conditions.filter((c) => c !== entry);
        ended('cancelled');
      },
    );
  }

  condition(fn: () => boolean): Promise<void> {
    const command: ConditionCommand = { kind: 'condition', at: this.elapsed, state: 'pending' };
    this.commands.push(command);
    return this.until(fn, (state) => (command.state = state));
  }

  conditionWithin(fn: () => boolean, timeoutMs: number, summary?: string): Promise<boolean> {
    const command: WaitCommand = { kind: 'wait', ms: timeoutMs, ...(summary ? { summary } : {}), at: this.elapsed, state: 'pending' };
    this.commands.push(command);
    const end = (state: CommandState) => command.state === 'pending' && (command.state = state);
    // As the SDK's condition(fn, timeout): a timer and the condition race in a scope of their own.
    const scope = new FakeScope(this.storage, this.current());
    let off = () => undefined as unknown;
    return scope.run(async () => {
      try {
        const timedOut = new Promise<boolean>((resolve) => (off = this.timer(timeoutMs, () => (end('fired'), resolve(false)))));
        return await Promise.race([timedOut, this.until(fn, end).then(() => true)]);
      } finally {
        off();
        scope.cancel();
      }
    });
  }

  private child(kind: 'executeChild' | 'startChild', type: string, options: ChildOptions): Promise<never> {
    const command: ChildCommand = { kind, type, options, at: this.elapsed, state: 'pending' };
    const handler = this.children[type] ?? this.children['*'];
    return this.answered(command, () => {
      if (kind === 'startChild') return { workflowId: options.workflowId };
      if (!handler) throw new Error(`no handler for child workflow ${type}`);
      return handler(options, command);
    });
  }

  executeChild<R>(type: string, options: ChildOptions): Promise<R> {
    return this.child('executeChild', type, options);
  }

  startChild(type: string, options: ChildOptions): Promise<unknown> {
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

  info(): WorkflowInfo {
    return this.workflowInfo as unknown as WorkflowInfo;
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  // ------------------------------------------------------------------ test controls

  /** A value (or a failure, when `value` is an Error) `ms` from now: an answer that lasts. */
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

  /** Work still pending: timers, answers not yet delivered, conditions (0 once cancelled work is gone). */
  get outstanding(): number {
    return this.timers.length + this.completions.length + this.conditions.length;
  }

  /** Commands of one kind, in order. */
  of<K extends Command['kind']>(kind: K): CommandOf<K>[] {
    return this.commands.filter((c) => c.kind === kind) as CommandOf<K>[];
  }

  /** The commands without their time and end (`kinds`: only those), for exact comparisons. */
  issued(...kinds: Command['kind'][]): IssuedCommand[] {
    return this.commands.filter((c) => !kinds.length || kinds.includes(c.kind)).map(({ at: _at, state: _state, ...c }) => c as IssuedCommand);
  }

  /**
   * Drives `work` (started in the current scope) to its end: each turn drains the microtasks,
   * delivers the completions (an activation), re-checks the conditions, and when nothing else can
   * progress advances the clock to the next timer. Throws when the work waits for something that
   * cannot happen.
   */
  async drive<T>(work: () => Promise<T>): Promise<T> {
    let settled = false;
    let started: Promise<T>;
    try {
      started = work();
    } catch (err) {
      started = Promise.reject(err);
    }
    started.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let turn = 0; turn < 100_000; turn++) {
      await new Promise((r) => setImmediate(r));
      if (settled) return started;
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
