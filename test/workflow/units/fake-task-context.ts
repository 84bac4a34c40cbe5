/**
 * The 1.0 task pipeline (src/workflow/v1/pipeline.ts: every task's data flow and the executors'
 * context) over the fake effects of ./fake-effects.ts, for the unit tests of the task executors
 * (src/workflow/v1/tasks/*, tests in ./v1/) without a server. Nothing of the run's semantics is
 * written here: the pipeline is the real one, the effects stand in for Temporal only; this
 * module builds the pipeline over them and drives a task or a task list to its end.
 */
import type { Json } from '../../../src/common/model';
import { entryOf, taskTypeOf, V1_KIND, type PinnedFunction, type Task, type V1Definition } from '../../../src/common/model-v1';
import { formatFinding, loadAnyDefinition } from '../../../src/dsl';
import type { StartOptions } from '../../../src/common/contracts';
import { initExpressions } from '../../../src/expr';
import { Mailbox } from '../../../src/workflow/events/mailbox';
import { FEATURE_LOCAL_READS, INTERPRETER_FEATURES } from '../../../src/common/features';
import type { LifecycleType } from '../../../src/workflow/host/lifecycle';
import { FakeEffects } from './fake-effects';
import type { ListOutcome, TaskAt, TaskOutcome } from '../../../src/workflow/v1/context';
import { TaskPipeline } from '../../../src/workflow/v1/pipeline';
import { EXECUTORS } from '../../../src/workflow/v1/tasks/executors';
import { FEATURE_EXPRESSION_WORK } from '../../../src/common/features';
import { WalkBudget } from '../../../src/workflow/host/walk-budget';

/** What a run pinned by a worker without built-in calls gets (`local-reads` is recorded only by workers that serve them). */
export const DEFAULT_FEATURES = INTERPRETER_FEATURES.filter((f) => f !== FEATURE_LOCAL_READS);

export interface FakeOptions {
  /**
   * The run's interpreter features: default, what a new run gets on a worker that does not serve
   * built-in calls (INTERPRETER_FEATURES without `local-reads`: the calls here are activities;
   * v1/call.test.ts passes `local-reads` where it tests it).
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
  readonly entered: string[];
  /** Every lifecycle event published. */
  readonly published: Published[];

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
        // The real run's evaluation policy (expression-work): shapes, the step budget, the work counted.
        ...(new Set(opts.features ?? DEFAULT_FEATURES).has(FEATURE_EXPRESSION_WORK) ? { policy: new WalkBudget(effects).countWork() } : {}),
      },
      def,
      { workflowInput: opts.workflowInput ?? null },
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
    return this.effects.drive(() => EXECUTORS[type](task, at, input, this));
  }

  /** Runs the top-level list (the tasks' data flow and flow directives) to its end. */
  runAll(input: Json = {}): Promise<ListOutcome> {
    return this.effects.drive(() => this.runList(this.def.workflow.do, '/do', input, {}));
  }
}
