/** Operation state: its actions, sequentially or in parallel (actionMode). */
import type { OperationState } from '../../../common/model';
import { runActions } from '../actions';
import { actionExecTimeout } from '../../timeouts';
import type { Holder, StateContext } from './context';

export async function runOperation(state: OperationState, h: Holder, ctx: StateContext): Promise<void> {
  h.data = await runActions({ ctx, state, actionTimeout: actionExecTimeout(ctx.def, state) }, state.actions, state.actionMode, h.data, (d) => (h.data = d));
}
