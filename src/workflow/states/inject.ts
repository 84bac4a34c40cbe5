/** Inject state: its data is merged into the state's data input (the injected values win). */
import type { InjectState } from '../../dsl/model';
import { merge } from '../data/merge';
import type { Holder, Runtime } from '../runtime';

export async function runInject(_rt: Runtime, state: InjectState, h: Holder): Promise<void> {
  h.data = merge(h.data, state.data ?? {});
}
