/**
 * The 1.0 task pipeline: every task's data flow around its executor, written once, for the real
 * run (./run.ts) and for the unit tests (test/workflow/units/), which give it fake effects and
 * nothing else (as sdk-java's AbstractTaskExecutor.apply around each executor).
 *
 * A task runs as the spec's "Data Flow" says, in order: `if` → input.schema → input.from → the
 * executor (under the task's `timeout`, wrapped by the extensions that apply) → output.as →
 * output.schema → export.as → export.schema → `then`. A list of tasks is walked by flow
 * directives: `continue`/a task name move within the list, `exit` leaves it, `end` ends the
 * workflow. Every failure becomes an RFC 7807 problem whose `instance` is the failing task's
 * JSON pointer.
 *
 * The pipeline is the executors' {@link TaskContext}; what it needs of its run is
 * {@link PipelineHost} (the run host has it all): the effects (Temporal's commands, the clock and
 * the workflow info), the mailbox, the pinned features and functions, the Web UI tracker's
 * enter/leave, lifecycle events, and the walk's pause. Expressions and data steps are the
 * workflow's own ($workflow, $runtime, $context, `$task`): no test re-implements them.
 */
import { ApplicationFailure, ContinueAsNew, isCancellation } from '@temporalio/workflow';
import type { Json } from '../../common/model';
import { entryOf, taskTypeOf, type FlowDirective, type PinnedFunction, type SchemaDef, type Task, type TaskList, type TaskType, type V1Definition } from '../../common/model-v1';
import type { StartOptions } from '../../common/contracts';
import type { Mailbox } from '../events/mailbox';
import { evalCondition, evalConditionSync, evalExpr, evalExprSync, evalLooseSync, evalValue, evalValueSync, type EvalPolicy, type ExprScope } from '../expressions';
import { withTimeout } from '../timeouts';
import { nowIso, type Effects, type WorkflowInfo } from '../effects';
import { summary as uiSummary, type Tracker } from '../host/tracker';
import type { LifecycleType } from '../host/lifecycle';
import { FEATURE_SYNC_EXPRESSIONS, FEATURE_V1_DIRECT_FRAMES, FEATURE_V1_EXTENSIONS, FEATURE_V1_LOOSE_EVALUATION, FEATURE_V1_SCHEMA_RESOURCES } from '../../common/features';
import { VALIDATE_DATA_ACTIVITY, type ValidateResourceResult } from '../../common/pinning';
import { RUNTIME_NAME, RUNTIME_VERSION } from '../../common/runtime';
import type { Args, ListOutcome, Locals, TaskAt, TaskContext, TaskOutcome } from './context';
import { exportContext, exportContextSync, transformInput, transformInputSync, transformOutput, transformOutputSync } from './data';
import { durationIso, durationMs, timeoutAfter } from './durations';
import { problemJson, toWorkflowError, WorkflowError } from './errors';
import { applying, extendedTask, extensible, extensionsOf, runExtended, type Applicable } from './extensions';
import { EXECUTORS } from './tasks/executors';

/** What the pipeline needs of its run: the run host (../host/run-host.ts) has it all; a unit test gives fake effects. */
export interface PipelineHost {
  /** Temporal's commands, the run's clock and its workflow info. */
  readonly effects: Effects;
  readonly mailbox: Mailbox;
  /** The interpreter features the run was pinned with (old runs replay the old way). */
  readonly features: ReadonlySet<string>;
  /** Function documents pinned with the definition (v1-catalogs). */
  readonly functions?: Readonly<Record<string, PinnedFunction>>;
  readonly options: Pick<StartOptions, 'subflows'>;
  /** The Web UI's steps (SwState, the details table, metrics and spans). */
  readonly tracker: Pick<Tracker, 'enter' | 'leave'>;
  /** A lifecycle CloudEvent (a no-op unless the worker opted in). */
  publish(type: LifecycleType, data?: Record<string, Json>, subject?: string): void;
  /** Before each task: a pause when one is due (the walk budget, a suspension), else nothing. */
  step(): Promise<void> | undefined;
  /** How expressions are evaluated and their work counted (expression-work); absent: as before. */
  readonly policy?: EvalPolicy;
}

/** Where the run's data starts: set once by the run (or carried across continue-as-new). */
export interface PipelineStart {
  /** `$workflow.input`: the workflow's raw input. */
  workflowInput?: Json;
  /** `$workflow.startedAt`, epoch ms; default: now. */
  startedAt?: number;
  /** `$context`. */
  context?: Json;
}

/** The walk's hook between two tasks of the top-level list (continue-as-new); `due` is checked first with sync-expressions. */
export interface Between {
  due(): boolean;
  run(next: number, data: Json): Promise<void>;
}

/** The task of the top-level list running now: where a `for` in it continues as new from (v1-for-continue-as-new). */
export interface TopTask {
  index: number;
  reference: string;
  /** Its raw input: the next run's input, so the task evaluates `for.in` again over the same data. */
  input: Json;
}

/** A `for` of the top-level list between iterations (v1-for-continue-as-new): set by the run. */
export interface ForCarry {
  due(): boolean;
  run(top: TopTask, loop: { reference: string; next: number; data: Json }): Promise<void>;
  /** The loop position the run was continued with, if any (taken once). */
  resume?: { reference: string; next: number; data: Json };
}

export function dateTime(ms: number): Json {
  return { iso8601: new Date(ms).toISOString(), epoch: { seconds: Math.floor(ms / 1000), milliseconds: ms } };
}

const escapeSeg = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

const hasSchema = (schema: SchemaDef | undefined): schema is SchemaDef => Boolean(schema && schema.document !== undefined && schema.document !== null);
const hasResource = (schema: SchemaDef | undefined): schema is SchemaDef => Boolean(schema && (schema.document === undefined || schema.document === null) && schema.resource && typeof schema.resource === 'object');

export class TaskPipeline implements TaskContext {
  readonly effects: Effects;
  readonly mailbox: Mailbox;
  readonly features: ReadonlySet<string>;
  /** Correlation values fixed by consumed events: the mailbox's, so the host carries them. */
  readonly correlation: Record<string, Json>;
  readonly sync: boolean;
  /** `$context`: replaced by each task's export.as. */
  context: Json;
  workflowInput: Json;
  readonly startedAt: number;
  /** Task names in the order they started (the `state` query's statesEntered). */
  readonly enteredNames: string[] = [];
  /** The data the run works on now: the raw input of the task running, or the last output. */
  lastData: Json = null;
  /** The top-level task running now (walked with a `between` hook). */
  private top?: TopTask;
  /** Continue-as-new between a top-level `for`'s iterations (v1-for-continue-as-new), when the run set it. */
  forCarry?: ForCarry;
  /** `use.extensions` run around the tasks they extend (feature v1-extensions). */
  private readonly extensions: boolean;
  /** `evaluate.mode: loose` (feature v1-loose-evaluation): every string of a value is evaluated. */
  private readonly loose: boolean;
  private readonly resourceSchemas: boolean;
  /** v1-direct-frames (see runTask). */
  private readonly directFrames: boolean;
  /** v1-schema-resources: the external schemas fetched in this run (by resource), pinned for its rest. */
  private readonly schemaResources = new Map<string, Json>();
  /** The run's ids, namespace and task queue, read once: they are the same for the whole run. */
  private readonly info: Pick<WorkflowInfo, 'workflowId' | 'runId' | 'taskQueue' | 'namespace'>;
  /** The run's evaluation policy (expression-work), in every scope. */
  private readonly policy?: EvalPolicy;

  constructor(
    private readonly host: PipelineHost,
    readonly def: V1Definition,
    start: PipelineStart = {},
  ) {
    this.effects = host.effects;
    this.mailbox = host.mailbox;
    this.features = host.features;
    this.correlation = host.mailbox.correlation as Record<string, Json>;
    this.sync = this.features.has(FEATURE_SYNC_EXPRESSIONS);
    this.extensions = this.features.has(FEATURE_V1_EXTENSIONS) && (def.workflow.use?.extensions?.length ?? 0) > 0;
    this.loose = this.features.has(FEATURE_V1_LOOSE_EVALUATION) && def.workflow.evaluate?.mode === 'loose';
    this.resourceSchemas = this.features.has(FEATURE_V1_SCHEMA_RESOURCES);
    this.directFrames = this.features.has(FEATURE_V1_DIRECT_FRAMES);
    this.context = start.context ?? {};
    this.workflowInput = start.workflowInput ?? null;
    this.startedAt = start.startedAt ?? this.effects.now();
    this.info = this.effects.info();
    this.policy = host.policy;
  }

  get workflowId(): string {
    return this.info.workflowId;
  }

  get runId(): string {
    return this.info.runId;
  }

  get taskQueue(): string {
    return this.info.taskQueue;
  }

  get functions(): Readonly<Record<string, PinnedFunction>> | undefined {
    return this.host.functions;
  }

  get subflows(): StartOptions['subflows'] {
    return this.host.options.subflows;
  }

  /** The run's clock as an ISO date (lifecycle events). */
  nowIso(): string {
    return nowIso(this.effects);
  }

  // ------------------------------------------------------------------ task lists and tasks

  runList(list: TaskList, base: string, input: Json, locals: Locals): Promise<ListOutcome> {
    return this.walk(list, base, input, locals, 0);
  }

  /** Walks `list` from `start` by the tasks' flow directives; `between` runs between two tasks (the top-level list's continue-as-new). */
  async walk(list: TaskList, base: string, input: Json, locals: Locals, start: number, between?: Between): Promise<ListOutcome> {
    const index = new Map(list.map((item, i) => [entryOf(item)[0], i]));
    let data = input;
    let i = start;
    while (i < list.length) {
      const [name, task] = entryOf(list[i]);
      const reference = `${base}/${i}/${escapeSeg(name)}`;
      if (between && this.forCarry) this.top = { index: i, reference, input: data };
      const r = await this.runTask(name, task, reference, data, locals);
      data = r.output;
      if (r.then === 'end') return { output: data, end: true, exited: false };
      if (r.then === 'exit') return { output: data, end: false, exited: true };
      i = r.then === 'continue' ? i + 1 : index.get(r.then) ?? i + 1;
      // With sync-expressions, only a continue-as-new that is due is awaited.
      if (between && i < list.length && (!this.sync || between.due())) await between.run(i, data);
    }
    return { output: data, end: false, exited: false };
  }

  forCheckpoint(reference: string, next: number, data: Json): Promise<void> | undefined {
    const carry = this.forCarry;
    const top = this.top;
    if (!carry || !top || top.reference !== reference || !carry.due()) return undefined;
    return carry.run(top, { reference, next, data });
  }

  forResume(reference: string): { next: number; data: Json } | undefined {
    const r = this.forCarry?.resume;
    if (!r || r.reference !== reference) return undefined;
    this.forCarry!.resume = undefined;
    return { next: r.next, data: r.data };
  }

  async runTask(name: string, task: Task, reference: string, rawInput: Json, locals: Locals, fn?: string): Promise<{ output: Json; then: FlowDirective }> {
    const pause = this.host.step(); // the walk budget's yield, or a suspension
    if (pause) await pause;
    const type = taskTypeOf(task) ?? 'do';
    this.enteredNames.push(name);
    const step = this.host.tracker.enter(reference, type);
    this.lastData = rawInput;
    const descriptor: Record<string, Json> = { name, reference, definition: task as unknown as Json, input: rawInput, startedAt: dateTime(this.effects.now()) };
    // An extension's own tasks see the extended task as `$task` (extensions.ts), from their locals.
    const inExtension = this.extensions && !extensible(reference) && locals.task !== undefined;
    const at: TaskAt = { name, reference, locals, ...(inExtension ? {} : { task: descriptor }), ...(fn ? { fn } : {}) };
    this.lifecycle('task.created', reference, { createdAt: this.nowIso() });
    this.lifecycle('task.started', reference, { startedAt: this.nowIso() });
    try {
      let args = this.args(at);
      if (task.if !== undefined && !(this.sync ? this.conditionSync(task.if, rawInput, args, 'if') : await this.condition(task.if, rawInput, args, 'if'))) {
        this.host.tracker.leave(step, 'done');
        this.lifecycle('task.completed', reference, { completedAt: this.nowIso(), output: rawInput });
        return { output: rawInput, then: 'continue' }; // skipped: the raw input is the output
      }
      if (this.mayValidate(task.input?.schema)) await this.validate(task.input?.schema, rawInput, reference, 'task input');
      const input = this.sync ? transformInputSync(this, task.input?.from, rawInput, args) : await transformInput(this, task.input?.from, rawInput, args);
      const exec = () => EXECUTORS[type](task, at, input, this);
      const after = timeoutAfter(this, task.timeout, input, () => this.args(at, { input }));
      const iso = after ? durationIso(after) : undefined;
      // The call executor scales its activity's heartbeat timeout to the task's timeout (scaled-heartbeats).
      if (after) at.timeoutMs = durationMs(after);
      const timed = iso ? () => withTimeout(iso, this.summary(reference, `timeout ${iso}`), `task ${reference} did not finish within ${iso} (timeout.after)`, exec, this.effects) : exec;
      const extensions = this.extensionsFor(type, at, fn);
      // v1-direct-frames: a task no extension applies to awaits its own promise, not an `extended` frame around it.
      const outcome = await (this.directFrames && !extensions.length ? timed() : this.extended(task, at, descriptor, input, extensions, timed));
      descriptor.output = outcome.output;
      args = this.args(at, { input, ...(outcome.authorization !== undefined ? { authorization: outcome.authorization } : {}) });
      const output = this.sync ? transformOutputSync(this, task.output?.as, outcome.output, args) : await transformOutput(this, task.output?.as, outcome.output, args);
      if (this.mayValidate(task.output?.schema)) await this.validate(task.output?.schema, output, reference, 'task output');
      this.context = this.sync ? exportContextSync(this, task.export?.as, output, this.context, { ...args, output }) : await exportContext(this, task.export?.as, output, this.context, { ...args, output });
      if (this.mayValidate(task.export?.schema)) await this.validate(task.export?.schema, this.context, reference, 'exported context');
      this.lastData = output;
      this.host.tracker.leave(step, 'done');
      this.lifecycle('task.completed', reference, { completedAt: this.nowIso(), output });
      return { output, then: outcome.then ?? task.then ?? 'continue' };
    } catch (err) {
      this.host.tracker.leave(step, 'failed');
      if (isCancellation(err) || err instanceof ContinueAsNew) throw err;
      const e = toWorkflowError(err, reference);
      this.lifecycle('task.faulted', reference, { faultedAt: this.nowIso(), error: problemJson(e.problem) });
      throw e;
    }
  }

  /**
   * The task run by `body`, wrapped by the extensions that apply to it. Not extended: an
   * extension's own tasks, and a function's task (its call task was).
   */
  private async extended(task: Task, at: TaskAt, descriptor: Record<string, Json>, input: Json, candidates: Applicable[], body: () => Promise<TaskOutcome>): Promise<TaskOutcome> {
    if (!candidates.length) return body();
    const self = extendedTask(task, descriptor);
    const layers = await applying(candidates, self, at, input, this);
    return layers.length ? runExtended(layers, self, at, input, body, this) : body();
  }

  /** The extensions that may apply to the task (`extended` then asks each one's `when`): none for an extension's own tasks and a function's task. */
  private extensionsFor(type: TaskType, at: TaskAt, fn: string | undefined): Applicable[] {
    return this.extensions && fn === undefined && extensible(at.reference) ? extensionsOf(this.def.workflow.use?.extensions, type) : [];
  }

  // ------------------------------------------------------------------ expressions

  /** `$workflow`, `$runtime` (every expression), `$context` (all but the workflow's input.from). */
  workflowArgs(): Args {
    const { info } = this;
    return {
      workflow: { id: info.workflowId, definition: this.def.workflow as unknown as Json, input: this.workflowInput, startedAt: dateTime(this.startedAt) },
      runtime: { name: RUNTIME_NAME, version: RUNTIME_VERSION, metadata: { namespace: info.namespace, taskQueue: info.taskQueue, workflowId: info.workflowId, runId: info.runId } },
      context: this.context,
    };
  }

  args(at: TaskAt, extra: Args = {}): Args {
    return { ...at.locals, ...this.workflowArgs(), ...(at.task !== undefined ? { task: at.task } : {}), ...extra };
  }

  /** The scope of one evaluation: the task's arguments as variables, and the run's policy. */
  private scopeOf(args: Args): ExprScope {
    return this.policy ? { variables: args, policy: this.policy } : { variables: args };
  }

  async expression(expr: string, data: Json, args: Args, what: string): Promise<Json> {
    return evalExpr(expr, data, this.scopeOf(args), { what });
  }

  async condition(expr: string, data: Json, args: Args, what: string): Promise<boolean> {
    return evalCondition(expr, data, this.scopeOf(args), { what });
  }

  async value(v: Json | undefined, data: Json, args: Args, what: string): Promise<Json> {
    if (this.loose) return evalLooseSync(v, data, this.scopeOf(args), { what }) ?? null;
    return (await evalValue(v, data, this.scopeOf(args), { what })) ?? null;
  }

  expressionSync(expr: string, data: Json, args: Args, what: string): Json {
    return evalExprSync(expr, data, this.scopeOf(args), { what });
  }

  conditionSync(expr: string, data: Json, args: Args, what: string): boolean {
    return evalConditionSync(expr, data, this.scopeOf(args), { what });
  }

  valueSync(v: Json | undefined, data: Json, args: Args, what: string): Json {
    if (this.loose) return evalLooseSync(v, data, this.scopeOf(args), { what }) ?? null;
    return evalValueSync(v, data, this.scopeOf(args), { what }) ?? null;
  }

  async exportContext(as: string | Json | undefined, output: Json, args: Args): Promise<void> {
    this.context = await exportContext(this, as, output, this.context, { ...args, output });
  }

  // ------------------------------------------------------------------ schemas

  /** Whether a data checkpoint's validation runs: always awaited without sync-expressions, else only with a schema. */
  private mayValidate(schema: SchemaDef | undefined): boolean {
    return !this.sync || hasSchema(schema) || (this.resourceSchemas && hasResource(schema));
  }

  /** Checks `data` against `schema` (a local activity: ajv runs on the worker); a `validation` problem at `instance` when it does not match. */
  async validate(schema: SchemaDef | undefined, data: Json, instance: string, what: string): Promise<void> {
    const options = { startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 }, summary: uiSummary(instance, undefined, `validate ${what}`) } as const;
    let problems: string[];
    if (this.resourceSchemas && hasResource(schema)) {
      // An external schema: fetched by the worker the first time this run needs it (the local
      // activity's result, recorded in history, carries it), then checked here as an inline one,
      // so a schema changed at its URL never changes a running run.
      const resource = this.resourceWithPolicy(schema.resource as unknown as Record<string, Json>);
      const key = JSON.stringify(resource);
      const pinned = this.schemaResources.get(key);
      if (pinned !== undefined) problems = await this.effects.localActivity<string[]>(VALIDATE_DATA_ACTIVITY, [{ schema: pinned, data }], options);
      else {
        let r: ValidateResourceResult;
        try {
          r = await this.effects.localActivity<ValidateResourceResult>(VALIDATE_DATA_ACTIVITY, [{ resource, data }], { ...options, summary: uiSummary(instance, undefined, `fetch schema, validate ${what}`) });
        } catch (err) {
          if (isCancellation(err)) throw err;
          throw schemaResourceError(err, instance, what);
        }
        this.schemaResources.set(key, r.schema as Json);
        problems = r.problems;
      }
    } else {
      if (!hasSchema(schema)) return;
      problems = await this.effects.localActivity<string[]>(VALIDATE_DATA_ACTIVITY, [{ schema: schema.document, data }], options);
    }
    if (problems.length) throw WorkflowError.standard('validation', instance, `the ${what} does not match its schema: ${problems.slice(0, 10).join('; ')}`);
  }

  /** A schema resource with its endpoint's `authentication: { use }` replaced by the named policy (as call tasks do). */
  private resourceWithPolicy(resource: Record<string, Json>): Record<string, Json> {
    const endpoint = resource.endpoint;
    if (!endpoint || typeof endpoint !== 'object' || Array.isArray(endpoint)) return resource;
    const auth = endpoint.authentication as Record<string, Json> | undefined;
    if (!auth || typeof auth !== 'object' || typeof auth.use !== 'string' || Object.keys(auth).length !== 1) return resource;
    const named = this.def.workflow.use?.authentications?.[auth.use];
    return { ...resource, endpoint: { ...endpoint, authentication: (named ?? {}) as Json } };
  }

  // ------------------------------------------------------------------ what the Web UI and listeners see

  lifecycle(type: LifecycleType, reference: string, data: Record<string, Json> = {}): void {
    this.host.publish(type, { task: reference, ...(type === 'task.retried' ? { retriedAt: this.nowIso() } : {}), ...data }, reference);
  }

  summary(reference: string, target: string): string {
    return uiSummary(reference, undefined, target);
  }
}

/**
 * A schema resource the worker could not fetch or use: a `communication` problem with the status
 * the worker saw (an `authentication` one for 401/403), a `configuration` one for a schema that
 * is not JSON Schema; the worker's message names the URL.
 */
function schemaResourceError(err: unknown, instance: string, what: string): WorkflowError {
  let cause = err as { cause?: unknown; message?: string; details?: unknown[] } | undefined;
  while (cause && !(cause instanceof ApplicationFailure) && cause.cause) cause = cause.cause as typeof cause;
  const d = (cause instanceof ApplicationFailure && (cause.details?.[0] as { status?: number; kind?: string } | undefined)) || {};
  const detail = `the schema of the ${what}: ${cause?.message ?? String(err)}`;
  if (d.kind === 'configuration') return WorkflowError.standard('configuration', instance, detail);
  if (d.status === 401 || d.status === 403) return WorkflowError.standard('authentication', instance, detail, d.status);
  return WorkflowError.standard('communication', instance, detail, typeof d.status === 'number' ? d.status : 503);
}
