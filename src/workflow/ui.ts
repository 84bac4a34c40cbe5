/**
 * What the Temporal Web UI shows of a run: current details (a small Markdown table of the
 * current state(s) and the path so far), the SwState search attribute, and summaries.
 */
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { ActionDef } from '../dsl/model';

export interface Step {
  state: string;
  type: string;
  status: 'running' | 'done' | 'failed' | 'compensating' | 'compensated';
}

export class Tracker {
  readonly current: string[] = [];
  readonly entered: string[] = [];
  readonly steps: Step[] = [];
  status: 'running' | 'completed' | 'failed' | 'compensating' = 'running';

  constructor(
    private readonly title: string,
    /** The search attributes the server has registered (upserting others fails the task). */
    private readonly registered: Set<string>,
  ) {}

  private upserted = new Map<string, string>();
  private pendingState?: string;

  upsert(name: string, value: string): void {
    if (!this.registered.has(name) || this.upserted.get(name) === value) return;
    this.upserted.set(name, value);
    upsertSearchAttributes([{ key: { name, type: 'KEYWORD' } as any, value }] as any);
  }

  /**
   * SwState is upserted once per workflow activation (after its microtasks), with the state the
   * run is in then: a run that walks through several states in one task writes one history event.
   */
  private upsertStateLater(state: string): void {
    const first = this.pendingState === undefined;
    this.pendingState = state;
    if (!first) return;
    void Promise.resolve()
      .then(() => undefined)
      .then(() => this.flush());
  }

  /** Writes a pending SwState now (before the run completes, fails or continues as new). */
  flush(): void {
    const s = this.pendingState;
    if (s === undefined) return;
    this.pendingState = undefined;
    this.upsert('SwState', s);
  }

  enter(state: string, type: string, compensating = false): Step {
    this.entered.push(state);
    this.current.push(state);
    const step: Step = { state, type, status: compensating ? 'compensating' : 'running' };
    this.steps.push(step);
    this.upsertStateLater(state);
    this.render();
    return step;
  }

  leave(step: Step, status: Step['status']): void {
    step.status = status;
    const i = this.current.lastIndexOf(step.state);
    if (i >= 0) this.current.splice(i, 1);
    this.render();
  }

  render(): void {
    const cur = this.current.length ? this.current.map((s) => `**${esc(s)}**`).join(', ') : '—';
    const shown = this.steps.slice(-25);
    const rows = shown.map((s, i) => `| ${this.steps.length - shown.length + i + 1} | ${esc(s.state)} | ${s.type} | ${s.status} |`);
    const more = this.steps.length > shown.length ? `\n_${this.steps.length - shown.length} earlier steps not shown_` : '';
    setCurrentDetails(
      `### ${esc(this.title)}\n\nCurrent: ${cur} (${this.status})\n\n| # | State | Type | Status |\n|---|---|---|---|\n${rows.join('\n')}${more}`,
    );
  }
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
