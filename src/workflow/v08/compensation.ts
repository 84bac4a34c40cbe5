/**
 * Compensation (0.8 "Workflow Compensation"): every successfully completed state that
 * defines compensatedBy is remembered; when a transition or end says `compensate: true`,
 * their compensating states run sequentially in reverse order of completion. The current
 * data is the input of the first compensation; each one's output feeds the next. Each
 * completed state is compensated at most once. The main flow's data is not changed.
 */
import type { Json } from '../../common/model';
import type { StateContext } from './states/context';

export interface Compensable {
  state: string;
  compensatedBy: string;
}

export class CompensationLog {
  private readonly done: Compensable[] = [];

  record(state: string, compensatedBy: string | undefined): void {
    if (compensatedBy) this.done.push({ state, compensatedBy });
  }

  get pending(): readonly Compensable[] {
    return this.done;
  }

  async compensate(ctx: Pick<StateContext, 'runStates'>, data: Json): Promise<Json> {
    let current = data;
    while (this.done.length) {
      const c = this.done.pop()!;
      const out = await ctx.runStates(c.compensatedBy, current, true);
      current = out.data;
    }
    return current;
  }
}
