/** Sleep state: a durable timer; the data passes through. */
import type { SleepState } from '../../../common/model';
import { parseDuration } from '../../../common/duration';
import type { Holder, StateContext } from './context';

export async function runSleep(state: SleepState, _h: Holder, ctx: StateContext): Promise<void> {
  await ctx.effects.sleep(parseDuration(state.duration), ctx.summary(state.name, undefined, `sleep ${state.duration}`));
}
