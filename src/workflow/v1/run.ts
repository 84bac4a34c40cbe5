/**
 * One run of a 1.0 document: the front end of the run host (../host/run-host.ts) for the task
 * tree. It owns the workflow's own data flow (input.schema → input.from → the top-level `do` list
 * → output.as → output.schema), the workflow timeout, `schedule`, the run's end and failure, and
 * its position across continue-as-new; every task runs through the task pipeline (./pipeline.ts).
 * Uncaught, a task's problem fails the run with the problem as the failure's details.
 *
 * Shared with 0.8: the jq engine (../expressions.ts), the mailbox, the Web UI tracker (task references
 * as SwState and summaries), timers/timeouts (../timeouts.ts), the data-schema local activity,
 * automatic continue-as-new (at the top-level list's transitions), child workflows.
 */
import { ApplicationFailure, ContinueAsNew, isCancellation } from '@temporalio/workflow';
import type { Json } from '../../common/model';
import type { Duration, V1Definition } from '../../common/model-v1';
import { withTimeout } from '../timeouts';
import { summary as uiSummary } from '../host/tracker';
import type { FrontEnd, RunHost } from '../host/run-host';
import { FEATURE_V1_AWAITED_EVENTS, FEATURE_V1_FOR_CONTINUE_AS_NEW, FEATURE_V1_TIMEOUT_CONTINUE_AS_NEW } from '../../common/features';
import type { ListOutcome } from './context';
import { transformInput, transformOutput } from './data';
import { durationIso, durationMs, isDurationExpression, timeoutAfter } from './durations';
import { runFailure, toWorkflowError } from './errors';
import { runAgainAfter, startingEvents } from './schedule';
import { TaskPipeline } from './pipeline';

/** The 1.0 front end's position in a continue-as-new carry (host/carry.ts has the rest). */
interface Position {
  /** The top-level task the next run starts at. */
  next: number;
  context: Json;
  workflowInput: Json;
  startedAt: number;
  /** The workflow timeout's `after` when an expression gave it (evaluated once, then carried). */
  after?: Duration;
  /** A top-level `for` continued from between two iterations (v1-for-continue-as-new): `next` is the top-level task running it. */
  loop?: { reference: string; next: number; data: Json };
}

export class V1Run implements FrontEnd {
  /** Every task's data flow, and the executors' context. */
  readonly tasks: TaskPipeline;
  private readonly position?: Position;
  /** The workflow timeout's `after`, when an expression gave it (carried across continue-as-new). */
  private evaluatedTimeout?: Duration;

  constructor(
    private readonly host: RunHost,
    readonly def: V1Definition,
  ) {
    const doc = def.workflow.document;
    host.attach(
      { id: def.id, version: def.version, title: `${def.name} ${def.version}`, stepHeading: 'Task', lifecycleName: `${host.info.workflowId}.${def.namespace}`, historyLimit: doc.metadata?.['swflow.historyLimit'] },
      this,
    );
    if (host.features.has(FEATURE_V1_AWAITED_EVENTS)) host.trackAwaited(() => host.mailbox.sortedAwaitedEntries());
    const carried = host.carried;
    this.position = carried?.front as unknown as Position | undefined;
    this.tasks = new TaskPipeline(host, def, this.position ? { context: this.position.context, workflowInput: this.position.workflowInput, startedAt: this.position.startedAt } : {});
    if (carried) this.tasks.enteredNames.push(...carried.host.entered);
    if (host.features.has(FEATURE_V1_FOR_CONTINUE_AS_NEW)) {
      this.tasks.forCarry = {
        due: () => host.continueAsNewDue(),
        run: (top, loop) => host.continueAsNew(this.def, top.input, this.carry(top.index, loop) as unknown as Record<string, Json>),
        ...(this.position?.loop ? { resume: this.position.loop } : {}),
      };
    }
  }

  /** The front end's position for the next run: the top-level task `next` (and the loop in it). */
  private carry(next: number, loop?: Position['loop']): Position {
    const { tasks } = this;
    return { next, context: tasks.context, workflowInput: tasks.workflowInput, startedAt: tasks.startedAt, ...(this.evaluatedTimeout !== undefined ? { after: this.evaluatedTimeout } : {}), ...(loop ? { loop } : {}) };
  }

  // ------------------------------------------------------------------ FrontEnd

  data(): Json {
    return this.tasks.lastData;
  }

  awaitedEvents(): string[] {
    return [...this.host.mailbox.awaited];
  }

  entered(): string[] {
    return this.tasks.enteredNames;
  }

  current(): string[] {
    return [...this.host.tracker.current];
  }

  /** Runs the workflow; returns its (transformed) output, or throws the failure that ends the run. */
  async run(rawInput: Json): Promise<Json> {
    const { host, tasks } = this;
    const carried = this.position;
    const wf = this.def.workflow;
    try {
      let input: Json;
      if (carried) input = rawInput;
      else {
        host.started({ name: wf.document.name, namespace: wf.document.namespace, version: this.def.version }, tasks.startedAt);
        if (wf.schedule?.on !== undefined) rawInput = await startingEvents(tasks, rawInput);
        tasks.workflowInput = rawInput;
        await tasks.validate(wf.input?.schema, rawInput, '/input', 'workflow input');
        input = await transformInput(tasks, wf.input?.from, rawInput, tasks.workflowArgs());
      }
      const timeout = typeof wf.timeout === 'string' ? wf.use?.timeouts?.[wf.timeout] : wf.timeout;
      // An `after` expression is evaluated once, over the workflow's transformed input (v1-duration-expressions).
      const after = timeout && (carried ? carried.after ?? timeout.after : timeoutAfter(tasks, wf.timeout, input, () => ({ ...tasks.workflowArgs(), input })));
      if (after !== undefined && isDurationExpression(timeout?.after)) this.evaluatedTimeout = after;
      const deadline = host.deadline ?? (after ? tasks.startedAt + durationMs(after) : undefined);
      host.deadline = deadline;
      const main = () => this.runTop(input, carried?.next ?? 0);
      const r = deadline !== undefined ? await this.withDeadline(deadline, after ? durationIso(after) : '', main) : await main();
      const output = await transformOutput(tasks, wf.output?.as, r.output, tasks.workflowArgs());
      await tasks.validate(wf.output?.schema, output, '/output', 'workflow output');
      host.checkOutput(output);
      host.setStatus('completed');
      host.publish('workflow.completed', { completedAt: tasks.nowIso(), output });
      await host.lifecycle?.settle();
      if (wf.schedule?.after !== undefined) await runAgainAfter(host, this.def, tasks.workflowInput);
      return output;
    } catch (err) {
      if (err instanceof ContinueAsNew || isCancellation(err)) throw err;
      host.setStatus('failed');
      const failure = err instanceof ApplicationFailure && err.nonRetryable ? err : runFailure(toWorkflowError(err, '/'));
      host.publish('workflow.faulted', { faultedAt: tasks.nowIso(), error: (failure.details?.[0] ?? { title: failure.message }) as Json });
      await host.lifecycle?.settle();
      throw failure;
    } finally {
      host.tracker.flush();
    }
  }

  private async withDeadline<T>(deadline: number, iso: string, fn: () => Promise<T>): Promise<T> {
    const ms = Math.max(0, deadline - this.host.effects.now());
    return withTimeout(`PT${ms / 1000}S`, uiSummary('/timeout', undefined, `workflow timeout ${iso}`), `the workflow did not complete within ${iso} (timeout.after)`, fn, this.host.effects).catch((err) => {
      // A continue-as-new or a cancellation goes through as such (was: a runtime error that failed the run).
      if (this.host.features.has(FEATURE_V1_TIMEOUT_CONTINUE_AS_NEW) && (err instanceof ContinueAsNew || isCancellation(err))) throw err;
      throw toWorkflowError(err, '/');
    });
  }

  /** The top-level list, continuing as new between its tasks when the history grows long. */
  private async runTop(input: Json, start: number): Promise<ListOutcome> {
    const { host, tasks } = this;
    return tasks.walk(this.def.workflow.do, '/do', input, {}, start, {
      due: () => host.continueAsNewDue(),
      run: async (next, data) => {
        if (!host.continueAsNewDue()) return;
        await host.continueAsNew(this.def, data, this.carry(next) as unknown as Record<string, Json>);
      },
    });
  }
}
