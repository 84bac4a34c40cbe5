/** Callback state: run the action, then wait for the callback event (eventTimeout → "timeout" error). */
import type { CallbackState } from '../../../common/model';
import { parseDuration } from '../../../common/duration';
import { mergeEvent } from '../data/filters';
import { mergeEventAsync } from '../data/filters-async';
import { applyAction, applyActionAsync, invokeAction } from '../actions';
import { SwTimeoutError } from '../errors';
import { actionExecTimeout, eventTimeout } from '../../timeouts';
import type { Holder, StateContext } from './context';

export async function runCallback(state: CallbackState, h: Holder, ctx: StateContext): Promise<void> {
  const ac = { ctx, state, actionTimeout: actionExecTimeout(ctx.def, state) };
  const outcome = await invokeAction(ac, state.action, 0, h.data);
  h.data = ctx.sync ? applyAction(ac, state.action, h.data, outcome) : await applyActionAsync(ac, state.action, h.data, outcome);
  const timeout = eventTimeout(ctx.def, state);
  const got = await ctx.mailbox.take([state.eventRef], timeout ? parseDuration(timeout) : undefined, ctx.summary(state.name, undefined, `wait for ${state.eventRef}`));
  if (!got) throw new SwTimeoutError(`state "${state.name}" received no ${state.eventRef} event within ${timeout} (eventTimeout)`);
  const f = state.eventDataFilter;
  h.data = ctx.sync ? mergeEvent(f, h.data, got.event, got.def.dataOnly, ctx.scope(), state.name) : await mergeEventAsync(f, h.data, got.event, got.def.dataOnly, ctx.scope(), state.name);
}
