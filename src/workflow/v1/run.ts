/**
 * One run of a 1.0 document: the task-tree executor inside the generic workflow.
 *
 * The workflow's own data flow (input.schema → input.from → the `do` list → output.as →
 * output.schema) and each task's (if → input.schema → input.from → the task → output.as →
 * output.schema → export.as → export.schema → then) follow the spec's "Data Flow" in order.
 * Flow directives are scoped: `continue`/a task name move within the task's own list, `exit`
 * leaves that list, `end` ends the workflow. Every failure becomes an RFC 7807 problem whose
 * `instance` is the failing task's JSON pointer; uncaught, it fails the run with the problem as
 * the failure's details.
 *
 * Shared with 0.8: the jq engine (../expr.ts), the mailbox, the Web UI tracker (task references
 * as SwState and summaries), timers/timeouts (../timeouts.ts), the data-schema local activity,
 * automatic continue-as-new (at the top-level list's transitions), child workflows.
 */
import { ApplicationFailure, ContinueAsNew, isCancellation, scheduleLocalActivity, type WorkflowInfo } from '@temporalio/workflow';
import type { Json } from '../../common/model';
import { entryOf, taskTypeOf, type Duration, type FlowDirective, type PinnedFunction, type SchemaDef, type Task, type TaskList, type TaskType, type V1Definition } from '../../common/model-v1';
import type { StartOptions } from '../../common/contracts';
import type { Mailbox } from '../events/mailbox';
import { evalCondition, evalConditionSync, evalExpr, evalExprSync, evalLooseSync, evalValue, evalValueSync } from '../expr';
import { withTimeout } from '../timeouts';
import { temporalEffects, type Effects } from '../effects';
import { summary as uiSummary, type Tracker } from '../ui';
import type { FrontEnd, RunHost } from '../host/run-host';
import { FEATURE_SYNC_EXPRESSIONS, FEATURE_V1_AWAITED_EVENTS, FEATURE_V1_EXTENSIONS, FEATURE_V1_LOOSE_EVALUATION, FEATURE_V1_SCHEMA_RESOURCES, FEATURE_V1_TIMEOUT_CONTINUE_AS_NEW } from '../../common/features';
import { VALIDATE_DATA_ACTIVITY, type ValidateResourceResult } from '../../common/pinning';
import type { Args, ListOutcome, Locals, TaskAt, TaskContext, TaskOutcome } from './context';
import { exportContext, exportContextSync, transformInput, transformInputSync, transformOutput, transformOutputSync } from './data';
import { durationIso, durationMs, isDurationExpression, timeoutAfter } from './durations';
import { problemJson, runFailure, toWorkflowError, WorkflowError } from './errors';
import type { LifecycleType } from '../host/lifecycle';
import { runAgainAfter, startingEvents } from './schedule';
import { applying, extendedTask, extensible, extensionsOf, runExtended } from './extensions';
import { EXECUTORS } from './tasks/executors';

/** The 1.0 front end's position in a continue-as-new carry (host/carry.ts has the rest). */
interface Position {
  /** The top-level task the next run starts at. */
  next: number;
  context: Json;
  workflowInput: Json;
  startedAt: number;
  /** The workflow timeout's `after` when an expression gave it (evaluated once, then carried). */
  after?: Duration;
}

const RUNTIME = { name: 'swflow', version: '0.1.0' };

function dateTime(ms: number): Json {
  return { iso8601: new Date(ms).toISOString(), epoch: { seconds: Math.floor(ms / 1000), milliseconds: ms } };
}

const escapeSeg = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

const hasSchema = (schema: SchemaDef | undefined): schema is SchemaDef => Boolean(schema && schema.document !== undefined && schema.document !== null);
const hasResource = (schema: SchemaDef | undefined): schema is SchemaDef => Boolean(schema && (schema.document === undefined || schema.document === null) && schema.resource && typeof schema.resource === 'object');

export class V1Run implements TaskContext, FrontEnd {
  readonly info: WorkflowInfo;
  readonly options: StartOptions;
  readonly mailbox: Mailbox;
  readonly features: ReadonlySet<string>;
  /** Correlation values fixed by consumed events: the mailbox's, so the host carries them. */
  readonly correlation: Record<string, Json>;
  readonly awaited: Iterable<string>;
  /** $context: replaced by each task's export.as. */
  context: Json = {};
  private workflowInput: Json = null;
  private startedAt = Date.now();
  readonly sync: boolean;
  /** `use.extensions` run around the tasks they extend (feature v1-extensions). */
  private readonly extensions: boolean;
  /** `evaluate.mode: loose` (feature v1-loose-evaluation): every string of a value is evaluated. */
  private readonly loose: boolean;
  /** Task names in the order they started (the `state` query's statesEntered). */
  private readonly enteredNames: string[] = [];
  private lastData: Json = null;
  private readonly tracker: Tracker;
  private readonly position?: Position;
  /** The Temporal commands its tasks issue (the host's). */
  readonly effects: Effects;
  /** The workflow timeout's `after`, when an expression gave it (carried across continue-as-new). */
  private evaluatedTimeout?: Duration;
  /** v1-schema-resources: the external schemas fetched in this run (by resource), pinned for its rest. */
  private readonly schemaResources = new Map<string, Json>();
  private readonly resourceSchemas: boolean;

  constructor(
    private readonly host: RunHost,
    readonly def: V1Definition,
  ) {
    const doc = def.workflow.document;
    host.attach(
      { id: def.id, version: def.version, title: `${def.name} ${def.version}`, stepHeading: 'Task', lifecycleName: `${host.info.workflowId}.${def.namespace}`, historyLimit: doc.metadata?.['swflow.historyLimit'] },
      this,
    );
    this.info = host.info;
    this.effects = host.effects;
    this.options = host.options;
    this.mailbox = host.mailbox;
    this.tracker = host.tracker;
    this.features = host.features;
    this.correlation = host.mailbox.correlation as Record<string, Json>;
    this.awaited = host.mailbox.awaited;
    this.sync = this.features.has(FEATURE_SYNC_EXPRESSIONS);
    this.extensions = this.features.has(FEATURE_V1_EXTENSIONS) && (def.workflow.use?.extensions?.length ?? 0) > 0;
    this.loose = this.features.has(FEATURE_V1_LOOSE_EVALUATION) && def.workflow.evaluate?.mode === 'loose';
    this.resourceSchemas = this.features.has(FEATURE_V1_SCHEMA_RESOURCES);
    if (this.features.has(FEATURE_V1_AWAITED_EVENTS)) host.trackAwaited(() => this.mailbox.sortedAwaitedEntries());
    const carried = host.carried;
    if (carried) {
      this.position = carried.front as unknown as Position;
      this.context = this.position.context;
      this.workflowInput = this.position.workflowInput;
      this.startedAt = this.position.startedAt;
      this.enteredNames.push(...carried.host.entered);
    }
  }

  // ------------------------------------------------------------------ FrontEnd

  data(): Json {
    return this.lastData;
  }

  awaitedEvents(): string[] {
    return [...this.mailbox.awaited];
  }

  entered(): string[] {
    return this.enteredNames;
  }

  current(): string[] {
    return [...this.tracker.current];
  }

  // ------------------------------------------------------------------ the run

  /** Runs the workflow; returns its (transformed) output, or throws the failure that ends the run. */
  async run(rawInput: Json): Promise<Json> {
    const carried = this.position;
    const wf = this.def.workflow;
    try {
      let input: Json;
      if (carried) input = rawInput;
      else {
        this.host.started({ name: wf.document.name, namespace: wf.document.namespace, version: this.def.version }, this.startedAt);
        if (wf.schedule?.on !== undefined) rawInput = await startingEvents(this, rawInput);
        this.workflowInput = rawInput;
        await this.validate(wf.input?.schema, rawInput, '/input', 'workflow input');
        input = await transformInput(this, wf.input?.from, rawInput, this.workflowArgs());
      }
      const timeout = typeof wf.timeout === 'string' ? wf.use?.timeouts?.[wf.timeout] : wf.timeout;
      // An `after` expression is evaluated once, over the workflow's transformed input (v1-duration-expressions).
      const after = timeout && (carried ? carried.after ?? timeout.after : timeoutAfter(this, wf.timeout, input, () => ({ ...this.workflowArgs(), input })));
      if (after !== undefined && isDurationExpression(timeout?.after)) this.evaluatedTimeout = after;
      const deadline = this.host.deadline ?? (after ? this.startedAt + durationMs(after) : undefined);
      this.host.deadline = deadline;
      const main = () => this.runTop(input, carried?.next ?? 0);
      const r = deadline !== undefined ? await this.withDeadline(deadline, after ? durationIso(after) : '', main) : await main();
      const output = await transformOutput(this, wf.output?.as, r.output, this.workflowArgs());
      await this.validate(wf.output?.schema, output, '/output', 'workflow output');
      this.host.setStatus('completed');
      this.host.publish('workflow.completed', { completedAt: new Date().toISOString(), output });
      await this.host.lifecycle?.settle();
      if (wf.schedule?.after !== undefined) await runAgainAfter(this.host, this.def, this.workflowInput);
      return output;
    } catch (err) {
      if (err instanceof ContinueAsNew || isCancellation(err)) throw err;
      this.host.setStatus('failed');
      const failure = err instanceof ApplicationFailure && err.nonRetryable ? err : runFailure(toWorkflowError(err, '/'));
      this.host.publish('workflow.faulted', { faultedAt: new Date().toISOString(), error: (failure.details?.[0] ?? { title: failure.message }) as Json });
      await this.host.lifecycle?.settle();
      throw failure;
    } finally {
      this.tracker.flush();
    }
  }

  private async withDeadline<T>(deadline: number, iso: string, fn: () => Promise<T>): Promise<T> {
    const ms = Math.max(0, deadline - Date.now());
    return withTimeout(`PT${ms / 1000}S`, uiSummary('/timeout', undefined, `workflow timeout ${iso}`), `the workflow did not complete within ${iso} (timeout.after)`, fn).catch((err) => {
      // A continue-as-new or a cancellation goes through as such (was: a runtime error that failed the run).
      if (this.features.has(FEATURE_V1_TIMEOUT_CONTINUE_AS_NEW) && (err instanceof ContinueAsNew || isCancellation(err))) throw err;
      throw toWorkflowError(err, '/');
    });
  }

  /** The top-level list, continuing as new between its tasks when the history grows long. */
  private async runTop(input: Json, start: number): Promise<ListOutcome> {
    return this.walk(this.def.workflow.do, '/do', input, {}, start, async (next, data) => {
      if (!this.host.continueAsNewDue()) return;
      const position: Position = { next, context: this.context, workflowInput: this.workflowInput, startedAt: this.startedAt, ...(this.evaluatedTimeout !== undefined ? { after: this.evaluatedTimeout } : {}) };
      await this.host.continueAsNew(this.def, data, position as unknown as Record<string, Json>);
    });
  }

  // ------------------------------------------------------------------ task lists and tasks

  runList(list: TaskList, base: string, input: Json, locals: Locals): Promise<ListOutcome> {
    return this.walk(list, base, input, locals, 0);
  }

  private async walk(list: TaskList, base: string, input: Json, locals: Locals, start: number, between?: (next: number, data: Json) => Promise<void>): Promise<ListOutcome> {
    const index = new Map(list.map((item, i) => [entryOf(item)[0], i]));
    let data = input;
    let i = start;
    while (i < list.length) {
      const [name, task] = entryOf(list[i]);
      const r = await this.runTask(name, task, `${base}/${i}/${escapeSeg(name)}`, data, locals);
      data = r.output;
      if (r.then === 'end') return { output: data, end: true, exited: false };
      if (r.then === 'exit') return { output: data, end: false, exited: true };
      i = r.then === 'continue' ? i + 1 : index.get(r.then) ?? i + 1;
      // With sync-expressions, only a continue-as-new that is due is awaited.
      if (between && i < list.length && (!this.sync || this.host.continueAsNewDue())) await between(i, data);
    }
    return { output: data, end: false, exited: false };
  }

  async runTask(name: string, task: Task, reference: string, rawInput: Json, locals: Locals, fn?: string): Promise<{ output: Json; then: FlowDirective }> {
    const pause = this.host.step(); // the walk budget's yield, or a suspension
    if (pause) await pause;
    const type = taskTypeOf(task) ?? 'do';
    this.enteredNames.push(name);
    const step = this.tracker.enter(reference, type);
    this.lastData = rawInput;
    const descriptor: Record<string, Json> = { name, reference, definition: task as unknown as Json, input: rawInput, startedAt: dateTime(Date.now()) };
    // An extension's own tasks see the extended task as `$task` (extensions.ts), from their locals.
    const inExtension = this.extensions && !extensible(reference) && locals.task !== undefined;
    const at: TaskAt = { name, reference, locals, ...(inExtension ? {} : { task: descriptor }), ...(fn ? { fn } : {}) };
    this.lifecycle('task.created', reference, { createdAt: new Date().toISOString() });
    this.lifecycle('task.started', reference, { startedAt: new Date().toISOString() });
    try {
      let args = this.args(at);
      if (task.if !== undefined && !(this.sync ? this.conditionSync(task.if, rawInput, args, 'if') : await this.condition(task.if, rawInput, args, 'if'))) {
        this.tracker.leave(step, 'done');
        this.lifecycle('task.completed', reference, { completedAt: new Date().toISOString(), output: rawInput });
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
      const outcome = await this.extended(type, task, at, descriptor, input, fn, timed);
      descriptor.output = outcome.output;
      args = this.args(at, { input, ...(outcome.authorization !== undefined ? { authorization: outcome.authorization } : {}) });
      const output = this.sync ? transformOutputSync(this, task.output?.as, outcome.output, args) : await transformOutput(this, task.output?.as, outcome.output, args);
      if (this.mayValidate(task.output?.schema)) await this.validate(task.output?.schema, output, reference, 'task output');
      this.context = this.sync ? exportContextSync(this, task.export?.as, output, this.context, { ...args, output }) : await exportContext(this, task.export?.as, output, this.context, { ...args, output });
      if (this.mayValidate(task.export?.schema)) await this.validate(task.export?.schema, this.context, reference, 'exported context');
      this.lastData = output;
      this.tracker.leave(step, 'done');
      this.lifecycle('task.completed', reference, { completedAt: new Date().toISOString(), output });
      return { output, then: outcome.then ?? task.then ?? 'continue' };
    } catch (err) {
      this.tracker.leave(step, 'failed');
      if (isCancellation(err) || err instanceof ContinueAsNew) throw err;
      const e = toWorkflowError(err, reference);
      this.lifecycle('task.faulted', reference, { faultedAt: new Date().toISOString(), error: problemJson(e.problem) });
      throw e;
    }
  }

  /**
   * The task run by `body`, wrapped by the extensions that apply to it. Not extended: an
   * extension's own tasks, and a function's task (its call task was).
   */
  private async extended(type: TaskType, task: Task, at: TaskAt, descriptor: Record<string, Json>, input: Json, fn: string | undefined, body: () => Promise<TaskOutcome>): Promise<TaskOutcome> {
    if (!this.extensions || fn !== undefined || !extensible(at.reference)) return body();
    const candidates = extensionsOf(this.def.workflow.use?.extensions, type);
    if (!candidates.length) return body();
    const self = extendedTask(task, descriptor);
    const layers = await applying(candidates, self, at, input, this);
    return layers.length ? runExtended(layers, self, at, input, body, this) : body();
  }

  // ------------------------------------------------------------------ TaskContext

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
    return this.options.subflows;
  }

  /** `$workflow`, `$runtime` (every expression), `$context` (all but the workflow's input.from). */
  private workflowArgs(): Args {
    return {
      workflow: { id: this.info.workflowId, definition: this.def.workflow as unknown as Json, input: this.workflowInput, startedAt: dateTime(this.startedAt) },
      runtime: { ...RUNTIME, metadata: { namespace: this.info.namespace, taskQueue: this.info.taskQueue, workflowId: this.info.workflowId, runId: this.info.runId } },
      context: this.context,
    };
  }

  args(at: TaskAt, extra: Args = {}): Args {
    return { ...at.locals, ...this.workflowArgs(), ...(at.task !== undefined ? { task: at.task } : {}), ...extra };
  }

  private site(what: string) {
    return { what };
  }

  async expression(expr: string, data: Json, args: Args, what: string): Promise<Json> {
    return evalExpr(expr, data, { variables: args }, this.site(what));
  }

  async condition(expr: string, data: Json, args: Args, what: string): Promise<boolean> {
    return evalCondition(expr, data, { variables: args }, this.site(what));
  }

  async value(v: Json | undefined, data: Json, args: Args, what: string): Promise<Json> {
    if (this.loose) return evalLooseSync(v, data, { variables: args }, this.site(what)) ?? null;
    return (await evalValue(v, data, { variables: args }, this.site(what))) ?? null;
  }

  expressionSync(expr: string, data: Json, args: Args, what: string): Json {
    return evalExprSync(expr, data, { variables: args }, this.site(what));
  }

  conditionSync(expr: string, data: Json, args: Args, what: string): boolean {
    return evalConditionSync(expr, data, { variables: args }, this.site(what));
  }

  valueSync(v: Json | undefined, data: Json, args: Args, what: string): Json {
    if (this.loose) return evalLooseSync(v, data, { variables: args }, this.site(what)) ?? null;
    return evalValueSync(v, data, { variables: args }, this.site(what)) ?? null;
  }

  /** Whether a data checkpoint's validation runs: always awaited without sync-expressions, else only with a schema. */
  private mayValidate(schema: SchemaDef | undefined): boolean {
    return !this.sync || hasSchema(schema) || (this.resourceSchemas && hasResource(schema));
  }

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
      if (pinned !== undefined) problems = await scheduleLocalActivity<string[]>(VALIDATE_DATA_ACTIVITY, [{ schema: pinned, data }], options);
      else {
        let r: ValidateResourceResult;
        try {
          r = await scheduleLocalActivity<ValidateResourceResult>(VALIDATE_DATA_ACTIVITY, [{ resource, data }], { ...options, summary: uiSummary(instance, undefined, `fetch schema, validate ${what}`) });
        } catch (err) {
          if (isCancellation(err)) throw err;
          throw schemaResourceError(err, instance, what);
        }
        this.schemaResources.set(key, r.schema as Json);
        problems = r.problems;
      }
    } else {
      if (!hasSchema(schema)) return;
      problems = await scheduleLocalActivity<string[]>(VALIDATE_DATA_ACTIVITY, [{ schema: schema.document, data }], options);
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

  async exportContext(as: string | Json | undefined, output: Json, args: Args): Promise<void> {
    this.context = await exportContext(this, as, output, this.context, { ...args, output });
  }

  lifecycle(type: LifecycleType, reference: string, data: Record<string, Json> = {}): void {
    this.host.publish(type, { task: reference, ...(type === 'task.retried' ? { retriedAt: new Date().toISOString() } : {}), ...data }, reference);
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
