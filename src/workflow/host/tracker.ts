/**
 * What the Temporal Web UI shows of a run: current details (a small Markdown table of the
 * current state(s) and the path so far), the search attributes (SwState, SwAwaitedEvents), and
 * summaries.
 */
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { FEATURE_STATE_AT_WAITS, FEATURE_UPSERTS_BEFORE_BLOCKING } from '../../common/features';
import type { ActionDef } from '../../common/model';
import type { InstanceState } from '../../common/contracts';
import { runSlot } from './run-local';

export interface Step {
  state: string;
  type: string;
  status: 'running' | 'done' | 'failed' | 'compensating' | 'compensated';
  /** Workflow time (epoch ms) the step was entered and left: the `state` query's steps (the run page). */
  enteredAt?: number;
  leftAt?: number;
}

/** How many of the last steps the `state` query lists (a long run's page shows the latest). */
export const STEPS_LISTED = 1000;

/** The run's tracker (the run's own: ./run-local.ts). */
const activeTracker = runSlot<Tracker>('tracker');

/**
 * Called just before the workflow schedules a command that makes it wait (activity, timer, child,
 * continue-as-new — see interceptors.ts) and before it waits on a bare condition (events): writes
 * the search attributes changed since the last write, as ONE UpsertWorkflowSearchAttributes.
 */
export function beforeBlocking(on: 'call' | 'wait' = 'wait'): void {
  const active = activeTracker.get();
  if (!active?.coalesced) return;
  if (on === 'call') active.flushBeforeCall();
  else active.flush();
}

/** Called as each activation concludes (../interceptors.ts): the run's current details, drawn if they changed. */
export function drawDetails(): void {
  activeTracker.get()?.draw();
}

export class Tracker {
  readonly current: string[] = [];
  readonly entered: string[] = [];
  readonly steps: Step[] = [];
  status: InstanceState['status'] = 'running';
  /**
   * Search attributes are written at most once per workflow task, just before the run blocks
   * (or completes, fails, continues as new), with the values they have then: a run that walks
   * through several states (a switch, then an operation state) in one task writes one event, and
   * none when nothing changed (a loop that comes back to the same state). Histories recorded before
   * this behaviour (no `upserts-before-blocking` feature in the pinned resolve result, see src/common/features.ts)
   * keep the old one (SwState written after each state's entry microtasks, each attribute its own event).
   */
  readonly coalesced: boolean;

  constructor(
    private readonly title: string,
    /** The search attributes the server has registered (upserting others fails the task). */
    private readonly registered: Set<string>,
    /** The run's interpreter features (ResolveResult.features, recorded in history). */
    features: readonly string[] = [],
    /** What a step is called in the table: a 0.8 `State`, a 1.0 `Task` (its JSON pointer). */
    private readonly stepHeading = 'State',
  ) {
    this.coalesced = features.includes(FEATURE_UPSERTS_BEFORE_BLOCKING);
    this.onceAcrossCalls = this.coalesced && features.includes(FEATURE_STATE_AT_WAITS);
    activeTracker.set(this);
  }

  /**
   * state-at-waits: consecutive function calls write the search attributes once, before the first
   * of them; the next write is at the next other wait (an event, a timer, a child, continue-as-new)
   * or the run's end. So SwState is exact wherever a run waits for something other than a call,
   * and a run in a sequence of calls is found at the first call of it (the Web UI shows the
   * current call as a pending activity with its summary).
   */
  private readonly onceAcrossCalls: boolean;
  /** The last write was before a call (state-at-waits): the next calls write nothing. */
  private lastWriteAtCall = false;
  /** Last written values. */
  private upserted = new Map<string, AttributeValue>();
  /** Values to write at the next flush (coalesced mode). */
  private readonly dirty = new Map<string, AttributeValue>();
  private pendingState?: string;
  private awaitedEvents?: () => string[];
  private detailsStale = false;
  /** More of the current details, after the steps (the calls in flight: host/calls-in-flight.ts). */
  details?: () => string;
  /** Told of every step entered and left (the run host's metrics). */
  observer?: { enter(step: Step): void; leave(step: Step): void };

  /**
   * Keeps SwAwaitedEvents current (runs with the `awaited-events-attribute` feature, coalesced
   * mode): at every flush, `types()` is the list of CloudEvent types the run waits for, so the
   * value a run shows while it blocks is what it waits for then; an empty list removes it.
   */
  trackAwaitedEvents(types: () => string[]): void {
    if (this.coalesced) this.awaitedEvents = types;
  }

  upsert(name: string, value: AttributeValue): void {
    if (!this.registered.has(name)) return;
    const same = sameValue(this.upserted.get(name), value);
    if (this.coalesced) {
      if (same) this.dirty.delete(name);
      else this.dirty.set(name, value);
      return;
    }
    if (same) return;
    this.upserted.set(name, value);
    upsertSearchAttributes([updatePair(name, value)] as any);
  }

  /** Legacy mode (histories without the feature): SwState once per activation, after the entering state's microtasks. */
  private upsertStateLater(state: string): void {
    const first = this.pendingState === undefined;
    this.pendingState = state;
    if (!first) return;
    void Promise.resolve()
      .then(() => undefined)
      .then(() => this.flush());
  }

  /** Before a function call's activity: writes pending search attributes, unless state-at-waits holds them (see onceAcrossCalls). */
  flushBeforeCall(): void {
    if (!this.onceAcrossCalls) {
      this.flush();
      return;
    }
    // What the run waits for changed (a concurrent branch got its event): the gateway reads it, write it now.
    const awaitedChanged = this.awaitedEvents !== undefined && this.registered.has('SwAwaitedEvents') && !sameValue(this.upserted.get('SwAwaitedEvents'), this.awaitedEvents());
    if (this.lastWriteAtCall && !awaitedChanged) return;
    this.flush();
    this.lastWriteAtCall = true;
  }

  /** Writes pending search attributes now (before blocking, completing, failing, continuing as new). */
  flush(): void {
    this.lastWriteAtCall = false;
    if (this.coalesced) {
      if (this.awaitedEvents) this.upsert('SwAwaitedEvents', this.awaitedEvents());
      if (!this.dirty.size) return;
      const entries = [...this.dirty];
      this.dirty.clear();
      for (const [k, v] of entries) this.upserted.set(k, v);
      upsertSearchAttributes(entries.map(([name, value]) => updatePair(name, value)) as any);
      return;
    }
    const s = this.pendingState;
    if (s === undefined) return;
    this.pendingState = undefined;
    this.upsert('SwState', s);
  }

  enter(state: string, type: string, compensating = false): Step {
    this.entered.push(state);
    this.current.push(state);
    // Date.now() is workflow time in the sandbox: the same on replay, and no command.
    const step: Step = { state, type, status: compensating ? 'compensating' : 'running', enteredAt: Date.now() };
    this.steps.push(step);
    this.observer?.enter(step);
    if (this.coalesced) this.upsert('SwState', state);
    else this.upsertStateLater(state);
    this.render();
    return step;
  }

  leave(step: Step, status: Step['status']): void {
    step.status = status;
    step.leftAt = Date.now();
    this.observer?.leave(step);
    const i = this.current.lastIndexOf(step.state);
    if (i >= 0) this.current.splice(i, 1);
    this.render();
  }

  /**
   * The current details (the Web UI, `describe`) are out of date: drawn once at the end of the
   * activation ({@link drawDetails}), not at every step and call (queries read them between activations).
   */
  render(): void {
    this.detailsStale = true;
  }

  /** Draws the current details if they changed since last drawn. */
  draw(): void {
    if (!this.detailsStale) return;
    this.detailsStale = false;
    const cur = this.current.length ? this.current.map((s) => `**${esc(s)}**`).join(', ') : '—';
    const shown = this.steps.slice(-25);
    const rows = shown.map((s, i) => `| ${this.steps.length - shown.length + i + 1} | ${esc(s.state)} | ${s.type} | ${s.status} |`);
    const more = this.steps.length > shown.length ? `\n_${this.steps.length - shown.length} earlier steps not shown_` : '';
    setCurrentDetails(
      `### ${esc(this.title)}\n\nCurrent: ${cur} (${this.status})\n\n| # | ${this.stepHeading} | Type | Status |\n|---|---|---|---|\n${rows.join('\n')}${more}${this.details?.() ?? ''}`,
    );
  }

}

/** A Keyword (string) or KeywordList (string[]) value. */
type AttributeValue = string | string[];

function sameValue(a: AttributeValue | undefined, b: AttributeValue): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  // Never written = empty list: a run that never waits writes no SwAwaitedEvents.
  if (a === undefined && Array.isArray(b)) return b.length === 0;
  return a === b;
}

/** An upsert of one attribute; an empty list removes it (null), so visibility queries do not match it. */
function updatePair(name: string, value: AttributeValue): { key: { name: string; type: string }; value: AttributeValue | null } {
  if (Array.isArray(value)) return { key: { name, type: 'KEYWORD_LIST' }, value: value.length ? value : null };
  return { key: { name, type: 'KEYWORD' }, value };
}

function esc(s: string): string {
  return s.replace(/\|/g, '\\|');
}

export function actionLabel(action: ActionDef, index: number): string {
  return action.name ?? action.id ?? `action ${index + 1}`;
}

/** `<state> › <action> → <target>`, the summary of every activity, timer and child. */
export function summary(state: string, action: string | undefined, target: string): string {
  return `${state}${action ? ` › ${action}` : ''} → ${target}`;
}
