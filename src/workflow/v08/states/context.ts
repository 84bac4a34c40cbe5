/**
 * What a 0.8 state executor (./<type>.ts) and its helpers (actions, functions, subflows,
 * produced events, compensation) see of their run: a narrow interface, not the run object, so
 * each executor is a function of (state, its data, this context) that a fake context drives in a
 * unit test (test/workflow/units/). The run (../run.ts) implements it with the real
 * {@link Effects}. Types only: this module adds no edge to the import graph.
 */
import type { WorkflowInfo } from '@temporalio/workflow';
import type { EndDef, Json, StateDef, TransitionDef, WorkflowDef } from '../../../common/model';
import type { StartOptions } from '../../../common/contracts';
import type { Effects } from '../../effects';
import type { ExprScope } from '../../expressions';
import type { Mailbox } from '../../events/mailbox';

/** Where a state goes next. */
export interface Next {
  transition?: TransitionDef;
  end?: EndDef;
}

/** The state data while a state runs (executors replace `data`). */
export interface Holder {
  data: Json;
}

/** The events a state takes (event, callback and switch states, eventRef actions) and the correlation keys produced events carry. */
export type EventPort = Pick<Mailbox, 'take' | 'correlation'>;

/** The workflow facts executors use: ids for expressions and calls, the queue and type children run on. */
export type RunInfo = Pick<WorkflowInfo, 'workflowId' | 'runId' | 'taskQueue' | 'workflowType'>;

export interface StateContext {
  /** The pinned definition. */
  readonly def: WorkflowDef;
  /** Subflow definitions handed down to children (StartOptions.subflows). */
  readonly options: StartOptions;
  readonly info: RunInfo;
  /** The interpreter features this run was started with (src/common/features.ts): old runs replay the old way. */
  readonly features: ReadonlySet<string>;
  /** The REST functions the pin found to only read (ResolveResult.readFunctions; feature `local-reads`). Absent: none. */
  readonly readFunctions?: ReadonlySet<string>;
  /**
   * Expressions and data filters are evaluated synchronously in runs with the `sync-expressions`
   * feature; runs recorded without it await the async ones (their microtask turns decided the
   * order of concurrent branches' commands).
   */
  readonly sync: boolean;
  /** Every Temporal command goes through here (activities, timers, conditions, children, scopes). */
  readonly effects: Effects;
  readonly mailbox: EventPort;
  /** The expression scope ($CONST, $WORKFLOW, expression functions, `vars` such as $<iterationParam>). */
  scope(vars?: Record<string, Json>): ExprScope;
  /** `<state> › <action> → <target>`: the summary of every activity, timer and child. */
  summary(state: string, action: string | undefined, target: string): string;
  /** The definition's state by name. */
  state(name: string): StateDef;
  /** Fire-and-forget work (async invocations): errors ignored, settled before the run closes. */
  background(p: Promise<unknown>): void;
  /** Runs states from `start` until an end (compensation). */
  runStates(start: string, input: Json, compensating: boolean): Promise<{ data: Json; end: EndDef }>;
}

/** One state type's executor: its result is the transition/end it chose, or nothing (the state's own). */
export type Executor<S extends StateDef = StateDef> = (state: S, h: Holder, ctx: StateContext) => Promise<Next | void>;
