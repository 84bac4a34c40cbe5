/**
 * Event state (start or mid-flow). exclusive (default): the first event matching any
 * onEvents' eventRefs wins and that onEvents' actions run. Not exclusive: every referenced
 * event must be consumed; each onEvents runs its actions once all its events arrived.
 * Events that arrived before the state was active are kept in the mailbox and consumed here.
 */
import type { EventState, OnEventsDef } from '../../../common/model';
import { parseDuration } from '../../../common/duration';
import { mergeEvent } from '../data/filters';
import { mergeEventAsync } from '../data/filters-async';
import { runActions } from '../actions';
import { SwTimeoutError } from '../errors';
import { actionExecTimeout, eventTimeout } from '../../timeouts';
import type { Holder, StateContext } from './context';

export async function runEvent(state: EventState, h: Holder, ctx: StateContext): Promise<void> {
  const timeout = eventTimeout(ctx.def, state);
  const deadlineMs = timeout ? parseDuration(timeout) : undefined;
  const startedMs = ctx.effects.now();
  const remaining = () => (deadlineMs === undefined ? undefined : Math.max(0, deadlineMs - (ctx.effects.now() - startedMs)));
  const actionsOf = async (on: OnEventsDef) => {
    h.data = await runActions({ ctx, state, actionTimeout: actionExecTimeout(ctx.def, state) }, on.actions, on.actionMode, h.data, (d) => (h.data = d));
  };
  const wait = async (names: string[]) => {
    const got = await ctx.mailbox.take(names, remaining(), ctx.summary(state.name, undefined, `wait for ${names.join(' | ')}`));
    if (!got) throw new SwTimeoutError(`state "${state.name}" received no ${names.join(' / ')} event within ${timeout} (eventTimeout)`);
    return got;
  };

  if (state.exclusive !== false) {
    const names = [...new Set(state.onEvents.flatMap((o) => o.eventRefs))];
    const got = await wait(names);
    const on = state.onEvents.find((o) => o.eventRefs.includes(got.name))!;
    h.data = ctx.sync ? mergeEvent(on.eventDataFilter, h.data, got.event, got.def.dataOnly, ctx.scope(), state.name) : await mergeEventAsync(on.eventDataFilter, h.data, got.event, got.def.dataOnly, ctx.scope(), state.name);
    await actionsOf(on);
    return;
  }

  const pending = state.onEvents.map((o) => new Set(o.eventRefs));
  const done = state.onEvents.map(() => false);
  while (pending.some((p) => p.size > 0)) {
    const names = [...new Set(pending.flatMap((p) => [...p]))];
    const got = await wait(names);
    for (let i = 0; i < state.onEvents.length; i++) {
      if (!pending[i].has(got.name)) continue;
      pending[i].delete(got.name);
      const f = state.onEvents[i].eventDataFilter;
      h.data = ctx.sync ? mergeEvent(f, h.data, got.event, got.def.dataOnly, ctx.scope(), state.name) : await mergeEventAsync(f, h.data, got.event, got.def.dataOnly, ctx.scope(), state.name);
      break;
    }
    for (let i = 0; i < state.onEvents.length; i++) {
      if (!done[i] && pending[i].size === 0) {
        done[i] = true;
        await actionsOf(state.onEvents[i]);
      }
    }
  }
}
