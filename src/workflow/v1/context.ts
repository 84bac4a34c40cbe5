/**
 * What a 1.0 task executor sees of its run: a narrow interface (not the run object), so each
 * executor (./tasks/<type>.ts) is a function of (task, where it is, its input, this context).
 * The run (./run.ts) implements it; executors reach Temporal only through `effects` (and the
 * mailbox's waits through them), so a fake context drives them without a server
 * (test/workflow/units/).
 */
import type { Json } from '../../common/model';
import type { FlowDirective, PinnedFunction, Task, TaskList, V1Definition } from '../../common/model-v1';
import type { StartOptions } from '../../common/contracts';
import type { Effects } from '../effects';
import type { Mailbox } from '../events/mailbox';

/** Runtime-expression variables added by enclosing tasks: a for's `$item`/`$index`, a catch's `$error`, … */
export type Locals = Record<string, Json>;

/** Where a task runs. */
export interface TaskAt {
  name: string;
  /** JSON pointer of the task in the document (`/do/0/tryGetPet/try/0/getPet`): errors' `instance`, Web UI summaries. */
  reference: string;
  locals: Locals;
  /** The `use.functions` entry this task runs on behalf of, if any (mocks and summaries name it). */
  fn?: string;
  /** `$task`: name, reference, definition, raw input, startedAt (and raw output once known). */
  task?: Json;
  /** The task's `timeout.after` (ms), when it has one: a call's heartbeat timeout is scaled to it (scaled-heartbeats). */
  timeoutMs?: number;
}

/** What an executor returns: the task's raw output, and a flow directive overriding the task's own `then`. */
export interface TaskOutcome {
  output: Json;
  then?: FlowDirective;
  /** `$authorization` for the task's output.as / export.as (a call with authentication). */
  authorization?: Json;
}

/** How a task list ended: after its last task, by `exit`, or by `end` (the whole workflow ends). */
export interface ListOutcome {
  output: Json;
  end: boolean;
  exited: boolean;
}

/** The runtime-expression arguments of one evaluation (`$context`, `$input`, `$task`, locals, …). */
export type Args = Record<string, Json>;

export interface TaskContext {
  readonly def: V1Definition;
  /** Every Temporal command a task issues: activities, timers, children, scopes, ids, time. */
  readonly effects: Effects;
  /** The run's ids (a call's FunctionCall.workflow, a child's parent) and its task queue (children, emitted events). */
  readonly workflowId: string;
  readonly runId: string;
  readonly taskQueue: string;
  /** Definitions of the subflows the run carries (a `run.workflow` child gets them). */
  readonly subflows?: StartOptions['subflows'];
  /** The run's events: a listen takes them (waiting through `effects`). */
  readonly mailbox: Pick<Mailbox, 'takeWhere' | 'correlating'>;
  /** The function documents (cataloged functions, functions by URI) pinned with the definition, by call string (v1-catalogs). */
  readonly functions?: Readonly<Record<string, PinnedFunction>>;
  /** The interpreter features this run was started with (src/common/features.ts): old runs replay the old way. */
  readonly features: ReadonlySet<string>;
  /** Correlation values fixed by the first event that matched a `correlate` without `expect`. */
  readonly correlation: Record<string, Json>;
  /** The arguments every expression of the task at `at` sees ($context, $workflow, $runtime, locals). */
  args(at: TaskAt, extra?: Args): Args;
  /**
   * Expressions are evaluated synchronously (the `*Sync` methods, no awaits) in runs with the
   * `sync-expressions` feature; runs recorded without it await the async ones (their microtask
   * turns decided the order of concurrent branches' commands).
   */
  readonly sync: boolean;
  /** A field that is always an expression (`${ }` or bare jq). */
  expression(expr: string, data: Json, args: Args, what: string): Promise<Json>;
  condition(expr: string, data: Json, args: Args, what: string): Promise<boolean>;
  /** A value whose `${ }` strings are evaluated (objects recursively). */
  value(v: Json | undefined, data: Json, args: Args, what: string): Promise<Json>;
  expressionSync(expr: string, data: Json, args: Args, what: string): Json;
  conditionSync(expr: string, data: Json, args: Args, what: string): boolean;
  valueSync(v: Json | undefined, data: Json, args: Args, what: string): Json;
  /** Replaces `$context` by `export.as` evaluated over `output` (a listen iterator's `export`). */
  exportContext(as: string | Json | undefined, output: Json, args: Args): Promise<void>;
  /**
   * Between two iterations of a `for` (v1-for-continue-as-new): continues as new, the next run
   * resuming the loop at iteration `next` with `data`, when the history grows long and the `for`
   * at `reference` is a task of the top-level list; else nothing to wait for.
   */
  forCheckpoint?(reference: string, next: number, data: Json): Promise<void> | undefined;
  /** Where the `for` at `reference` resumes in a run continued from its loop (once: a later pass starts afresh). */
  forResume?(reference: string): { next: number; data: Json } | undefined;
  /** Runs a nested task list (`do`, `try`, `catch.do`, a for's iteration). */
  runList(list: TaskList, base: string, input: Json, locals: Locals): Promise<ListOutcome>;
  /** Runs one task (a fork branch; a called function, `fn` naming it). */
  runTask(name: string, task: Task, reference: string, input: Json, locals: Locals, fn?: string): Promise<{ output: Json; then: FlowDirective }>;
  /** `<reference> → <target>`: the summary of every activity, timer and child. */
  summary(reference: string, target: string): string;
  /** A lifecycle CloudEvent about the task at `reference` (a no-op unless the worker opted in). */
  lifecycle(type: 'task.retried', reference: string, data?: Record<string, Json>): void;
}
