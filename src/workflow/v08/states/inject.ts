/** Inject state: its data is merged into the state's data input (the injected values win). */
import type { InjectState } from '../../../common/model';
import { merge } from '../data/merge';
import type { Holder, StateContext } from './context';

export async function runInject(state: InjectState, h: Holder, _ctx: StateContext): Promise<void> {
  h.data = merge(h.data, state.data ?? {});
}
