/** Callback state: run the action, then wait for the callback event (eventTimeout → "timeout" error). */
import type { CallbackState } from '../../dsl/model';
import { parseDuration } from '../../dsl/duration';
import { mergeEvent } from '../data/filters';
import { mergeEventAsync } from '../data/filters-async';
import { applyAction, applyActionAsync, invokeAction } from '../actions';
import { SwTimeoutError } from '../errors';
import { actionExecTimeout, eventTimeout } from '../timeouts';
import type { Holder, Runtime } from '../runtime';

export async function runCallback(rt: Runtime, state: CallbackState, h: Holder): Promise<void> {
  const ctx = { rt, state, actionTimeout: actionExecTimeout(rt.def, state) };
  const outcome = await invokeAction(ctx, state.action, 0, h.data);
  h.data = rt.sync ? applyAction(ctx, state.action, h.data, outcome) : await applyActionAsync(ctx, state.action, h.data, outcome);
  const timeout = eventTimeout(rt.def, state);
  const got = await rt.mailbox.take([state.eventRef], timeout ? parseDuration(timeout) : undefined, rt.summary(state.name, undefined, `wait for ${state.eventRef}`));
  if (!got) throw new SwTimeoutError(`state "${state.name}" received no ${state.eventRef} event within ${timeout} (eventTimeout)`);
  const f = state.eventDataFilter;
  h.data = rt.sync ? mergeEvent(f, h.data, got.event, got.def.dataOnly, rt.scope(), state.name) : await mergeEventAsync(f, h.data, got.event, got.def.dataOnly, rt.scope(), state.name);
}
