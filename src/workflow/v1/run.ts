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
import {
  ApplicationFailure,
  ContinueAsNew,
  isCancellation,
  makeContinueAsNewFunc,
  scheduleLocalActivity,
  workflowInfo,
  type WorkflowInfo,
} from '@temporalio/workflow';
import type { Json } from '../../dsl/model';
import { entryOf, taskTypeOf, type Duration, type FlowDirective, type SchemaDef, type Task, type TaskList, type TaskType, type V1Definition } from '../../dsl/v1/model';
import type { InstanceState, StartOptions } from '../../common/contracts';
import type { Mailbox } from '../events/mailbox';
import { evalCondition, evalConditionSync, evalExpr, evalExprSync, evalValue, evalValueSync } from '../expr';
import { withTimeout } from '../timeouts';
import { summary as uiSummary, type Tracker } from '../ui';
import { FEATURE_SYNC_EXPRESSIONS, FEATURE_V1_TIMEOUT_CONTINUE_AS_NEW, FEATURE_YIELD_LONG_WALKS, VALIDATE_DATA_ACTIVITY } from '../resolve';
import { WalkBudget } from '../walk-budget';
import type { Args, ListOutcome, Locals, TaskAt, TaskContext, TaskOutcome } from './context';
import { exportContext, exportContextSync, transformInput, transformInputSync, transformOutput, transformOutputSync } from './data';
import { durationIso, durationMs, isDurationExpression, timeoutAfter } from './durations';
import { problemJson, runFailure, toWorkflowError, WorkflowError } from './errors';
import type { Lifecycle, LifecycleType } from './lifecycle';
import { runCall } from './tasks/call';
import { runDo } from './tasks/do';
import { runEmit } from './tasks/emit';
import { runFor } from './tasks/for';
import { runFork } from './tasks/fork';
import { runListen } from './tasks/listen';
import { runRaise } from './tasks/raise';
import { runRun } from './tasks/run';
import { runSet } from './tasks/set';
import { runSwitch } from './tasks/switch';
import { runTry } from './tasks/try';
import { runWait } from './tasks/wait';

type Executor = (task: Task, at: TaskAt, input: Json, ctx: TaskContext) => Promise<TaskOutcome>;

const EXECUTORS: Record<TaskType, Executor> = {
  call: runCall,
  do: runDo,
  emit: runEmit,
  for: runFor,
  fork: runFork,
  listen: runListen,
  raise: runRaise,
  run: runRun,
  set: runSet,
  switch: runSwitch,
  try: runTry,
  wait: runWait,
};

/** What an automatic continue-as-new carries into the next run (StartOptions.carried.v1). */
interface Carried {
  next: number;
  context: Json;
  workflowInput: Json;
  startedAt: number;
  entered: string[];
  correlation: Record<string, Json>;
  events: Json[];
  consumed: string[];
  deadline?: number;
  /** The workflow timeout's `after` when an expression gave it (its timer's summary). */
  after?: Duration;
}

/** History length after which a 1.0 run continues as new by itself (besides the server's suggestion). */
const HISTORY_LIMIT = 20_000;
const RUNTIME = { name: 'swflow', version: '0.1.0' };

function dateTime(ms: number): Json {
  return { iso8601: new Date(ms).toISOString(), epoch: { seconds: Math.floor(ms / 1000), milliseconds: ms } };
}

const escapeSeg = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

const hasSchema = (schema: SchemaDef | undefined): schema is SchemaDef => Boolean(schema && schema.document !== undefined && schema.document !== null);

export class V1Run implements TaskContext {
  readonly info: WorkflowInfo = workflowInfo();
  readonly correlation: Record<string, Json> = {};
  readonly awaited: Iterable<string>;
  /** $context: replaced by each task's export.as. */
  context: Json = {};
  private workflowInput: Json = null;
  private startedAt = Date.now();
  readonly sync: boolean;
  /** Task names in the order they started (the `state` query's statesEntered). */
  private readonly entered: string[] = [];
  private lastData: Json = null;
  /** The workflow timeout's `after`, when an expression gave it (carried across continue-as-new). */
  private evaluatedTimeout?: Duration;

  constructor(
    readonly def: V1Definition,
    readonly options: StartOptions,
    readonly mailbox: Mailbox,
    private readonly tracker: Tracker,
    /** Lifecycle CloudEvents, when the worker opted in. */
    private readonly events?: Lifecycle,
    /** Interpreter features of this run (ResolveResult.features, recorded in history). */
    readonly features: ReadonlySet<string> = new Set(),
  ) {
    this.awaited = mailbox.awaited;
    this.sync = features.has(FEATURE_SYNC_EXPRESSIONS);
    if (features.has(FEATURE_YIELD_LONG_WALKS)) this.budget = new WalkBudget();
    const carried = (options.carried as { v1?: Carried } | undefined)?.v1;
    if (carried) {
      this.context = carried.context;
      this.workflowInput = carried.workflowInput;
      this.startedAt = carried.startedAt;
      this.entered.push(...carried.entered);
      Object.assign(this.correlation, carried.correlation);
      mailbox.events.unshift(...(carried.events as never[]));
      mailbox.consumed.push(...carried.consumed);
    }
  }

  // ------------------------------------------------------------------ the run

  /** Runs the workflow; returns its (transformed) output, or throws the failure that ends the run. */
  async run(rawInput: Json): Promise<Json> {
    const carried = (this.options.carried as { v1?: Carried } | undefined)?.v1;
    const wf = this.def.workflow;
    try {
      let input: Json;
      if (carried) input = rawInput;
      else {
        this.events?.publish('workflow.started', { definition: { name: wf.document.name, namespace: wf.document.namespace, version: this.def.version }, startedAt: new Date(this.startedAt).toISOString() });
        this.workflowInput = rawInput;
        await this.validate(wf.input?.schema, rawInput, '/input', 'workflow input');
        input = await transformInput(this, wf.input?.from, rawInput, this.workflowArgs());
      }
      const timeout = typeof wf.timeout === 'string' ? wf.use?.timeouts?.[wf.timeout] : wf.timeout;
      // An `after` expression is evaluated once, over the workflow's transformed input (v1-duration-expressions).
      const after = timeout && (carried ? carried.after ?? timeout.after : timeoutAfter(this, wf.timeout, input, () => ({ ...this.workflowArgs(), input })));
      if (after !== undefined && isDurationExpression(timeout?.after)) this.evaluatedTimeout = after;
      const deadline = carried?.deadline ?? (after ? this.startedAt + durationMs(after) : undefined);
      const main = () => this.runTop(input, carried?.next ?? 0, deadline);
      const r = deadline !== undefined ? await this.withDeadline(deadline, after ? durationIso(after) : '', main) : await main();
      const output = await transformOutput(this, wf.output?.as, r.output, this.workflowArgs());
      await this.validate(wf.output?.schema, output, '/output', 'workflow output');
      this.events?.publish('workflow.completed', { completedAt: new Date().toISOString(), output });
      await this.events?.settle();
      this.tracker.status = 'completed';
      this.tracker.render();
      return output;
    } catch (err) {
      if (err instanceof ContinueAsNew || isCancellation(err)) throw err;
      this.tracker.status = 'failed';
      this.tracker.render();
      const failure = err instanceof ApplicationFailure && err.nonRetryable ? err : runFailure(toWorkflowError(err, '/'));
      this.events?.publish('workflow.faulted', { faultedAt: new Date().toISOString(), error: (failure.details?.[0] ?? { title: failure.message }) as Json });
      await this.events?.settle();
      throw failure;
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
  private async runTop(input: Json, start: number, deadline: number | undefined): Promise<ListOutcome> {
    return this.walk(this.def.workflow.do, '/do', input, {}, start, async (next, data) => {
      if (!this.continueAsNewDue()) return;
      const info = workflowInfo();
      const carried: Carried = {
        next,
        context: this.context,
        workflowInput: this.workflowInput,
        startedAt: this.startedAt,
        entered: this.entered.slice(-100),
        correlation: this.correlation,
        events: this.mailbox.events as unknown as Json[],
        consumed: [...this.mailbox.consumed],
        ...(deadline !== undefined ? { deadline } : {}),
        ...(this.evaluatedTimeout !== undefined ? { after: this.evaluatedTimeout } : {}),
      };
      await this.events?.settle();
      this.tracker.flush();
      const cont = makeContinueAsNewFunc({ workflowType: info.workflowType, taskQueue: info.taskQueue });
      const opts: StartOptions = { definition: this.def, ...(this.options.subflows ? { subflows: this.options.subflows } : {}), carried: { v1: carried } as unknown as Json };
      await cont(data, opts);
    });
  }

  /** Whether the run should continue as new between two top-level tasks (its history grows too long). */
  private continueAsNewDue(): boolean {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= this.historyLimit();
  }

  /** `document.metadata['swflow.historyLimit']` lowers the limit (as 0.8's `metadata` does). */
  private historyLimit(): number {
    const v = Number(this.def.workflow.document.metadata?.['swflow.historyLimit']);
    return Number.isFinite(v) && v > 0 ? v : HISTORY_LIMIT;
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
      if (between && i < list.length && (!this.sync || this.continueAsNewDue())) await between(i, data);
    }
    return { output: data, end: false, exited: false };
  }

  /** Tasks entered per workflow task (yield-long-walks). */
  private budget?: WalkBudget;

  async runTask(name: string, task: Task, reference: string, rawInput: Json, locals: Locals, fn?: string): Promise<{ output: Json; then: FlowDirective }> {
    const pause = this.budget?.step();
    if (pause) await pause;
    const type = taskTypeOf(task) ?? 'do';
    this.entered.push(name);
    const step = this.tracker.enter(reference, type);
    this.lastData = rawInput;
    const descriptor: Record<string, Json> = { name, reference, definition: task as unknown as Json, input: rawInput, startedAt: dateTime(Date.now()) };
    const at: TaskAt = { name, reference, locals, task: descriptor, ...(fn ? { fn } : {}) };
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
      const outcome = iso ? await withTimeout(iso, this.summary(reference, `timeout ${iso}`), `task ${reference} did not finish within ${iso} (timeout.after)`, exec) : await exec();
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

  // ------------------------------------------------------------------ TaskContext

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
    return (await evalValue(v, data, { variables: args }, this.site(what))) ?? null;
  }

  expressionSync(expr: string, data: Json, args: Args, what: string): Json {
    return evalExprSync(expr, data, { variables: args }, this.site(what));
  }

  conditionSync(expr: string, data: Json, args: Args, what: string): boolean {
    return evalConditionSync(expr, data, { variables: args }, this.site(what));
  }

  valueSync(v: Json | undefined, data: Json, args: Args, what: string): Json {
    return evalValueSync(v, data, { variables: args }, this.site(what)) ?? null;
  }

  /** Whether a data checkpoint's validation runs: always awaited without sync-expressions, else only with a schema. */
  private mayValidate(schema: SchemaDef | undefined): boolean {
    return !this.sync || hasSchema(schema);
  }

  async validate(schema: SchemaDef | undefined, data: Json, instance: string, what: string): Promise<void> {
    if (!hasSchema(schema)) return;
    const problems = await scheduleLocalActivity<string[]>(VALIDATE_DATA_ACTIVITY, [{ schema: schema.document, data }], {
      startToCloseTimeout: '30 seconds',
      retry: { maximumAttempts: 3 },
      summary: uiSummary(instance, undefined, `validate ${what}`),
    });
    if (problems.length) throw WorkflowError.standard('validation', instance, `the ${what} does not match its schema: ${problems.slice(0, 10).join('; ')}`);
  }

  async exportContext(as: string | Json | undefined, output: Json, args: Args): Promise<void> {
    this.context = await exportContext(this, as, output, this.context, { ...args, output });
  }

  lifecycle(type: LifecycleType, reference: string, data: Record<string, Json> = {}): void {
    this.events?.publish(type, { task: reference, ...(type === 'task.retried' ? { retriedAt: new Date().toISOString() } : {}), ...data }, reference);
  }

  summary(reference: string, target: string): string {
    return uiSummary(reference, undefined, target);
  }

  /** The `state` query's answer for a 1.0 run: task references running now, task names started so far. */
  instanceState(): InstanceState {
    return {
      definitionId: this.def.id,
      definitionVersion: this.def.version,
      currentStates: [...this.tracker.current],
      statesEntered: [...this.entered],
      data: this.lastData,
      awaitedEvents: [...this.mailbox.awaited],
      status: this.tracker.status,
    };
  }
}

