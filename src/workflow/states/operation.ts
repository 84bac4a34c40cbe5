/** Operation state: its actions, sequentially or in parallel (actionMode). */
import type { OperationState } from '../../dsl/model';
import { runActions } from '../actions';
import { actionExecTimeout } from '../timeouts';
import type { Holder, Runtime } from '../runtime';

export async function runOperation(rt: Runtime, state: OperationState, h: Holder): Promise<void> {
  h.data = await runActions({ rt, state, actionTimeout: actionExecTimeout(rt.def, state) }, state.actions, state.actionMode, h.data, (d) => (h.data = d));
}
