/**
 * The 0.8 state pipeline (src/workflow/v08/states/pipeline.ts) over the fake effects of
 * ./fake-effects.ts, for the unit tests of the 0.8 state executors (src/workflow/v08/states/*,
 * tests in ./v08/) without a server: a definition through the real loader, the real mailbox
 * (matching, correlation) over the fake waits, and a state run to its end by its executor.
 */
import type { Json, WorkflowDef } from '../../../src/common/model';
import type { CloudEventJson, StartOptions } from '../../../src/common/contracts';
import { loadDefinition, formatFinding } from '../../../src/dsl';
import { initExpressions } from '../../../src/expr';
import { Mailbox } from '../../../src/workflow/events/mailbox';
import type { Holder, Next } from '../../../src/workflow/v08/states/context';
import { StatePipeline } from '../../../src/workflow/v08/states/pipeline';
import { executorOf } from '../../../src/workflow/v08/states/executors';
import { INTERPRETER_FEATURES } from '../../../src/common/features';
import { FakeEffects } from './fake-effects';
import { FEATURE_EXPRESSION_WORK } from '../../../src/common/features';
import { WalkBudget } from '../../../src/workflow/host/walk-budget';

export interface FakeOptions {
  /** The run's interpreter features (default: all this worker knows, as a new run); without `sync-expressions` the executors await their expressions as old runs did. */
  features?: readonly string[];
  /** Events in the mailbox before the state starts. */
  events?: CloudEventJson[];
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
    const effects = new FakeEffects();
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
        step: () => undefined,
        // The real run's evaluation policy (expression-work): shapes, the step budget, the work counted.
        ...(new Set(opts.features ?? INTERPRETER_FEATURES).has(FEATURE_EXPRESSION_WORK) ? { policy: new WalkBudget(effects).countWork() } : {}),
      },
      def,
    );
  }

  /** An event arriving `afterMs` from now. */
  deliver(afterMs: number, event: CloudEventJson): void {
    this.effects.later(afterMs, () => this.mailbox.push(event));
  }

  /** Runs the state named `name` on `data` with its executor: the data out and the transition/end chosen. */
  async exec(name: string, data: Json): Promise<{ data: Json; next: Next | void }> {
    const state = this.state(name);
    const h: Holder = { data };
    const next = await this.effects.drive(() => executorOf(state)(state, h, this));
    return { data: h.data, next };
  }
}

/** A 0.8 definition through the real loader (defaults filled, normalized): fails on any error problem. */
export async function definition(doc: Record<string, unknown>): Promise<WorkflowDef> {
  await initExpressions();
  const r = await loadDefinition({ id: 'unit', version: '1.0', specVersion: '0.8', start: (doc.states as { name: string }[])[0].name, ...doc });
  const errors = r.problems.filter((p) => p.severity === 'error');
  if (!r.definition || errors.length) throw new Error(`bad test definition:\n${errors.map(formatFinding).join('\n')}`);
  return r.definition;
}
