/**
 * Switch state. Data conditions: the first true condition wins, else defaultCondition.
 * Event conditions: the first matching event wins (its eventDataFilter merges it into the
 * data); when eventTimeout passes first, defaultCondition.
 */
import type { SwitchState } from '../../../common/model';
import { parseDuration } from '../../../common/duration';
import { evalCondition, evalConditionSync } from '../../expressions';
import { mergeEvent } from '../data/filters';
import { mergeEventAsync } from '../data/filters-async';
import { eventTimeout } from '../../timeouts';
import type { Holder, Next, StateContext } from './context';

export async function runSwitch(state: SwitchState, h: Holder, ctx: StateContext): Promise<Next> {
  const fallback: Next = { transition: state.defaultCondition?.transition, end: state.defaultCondition?.end };
  if (state.dataConditions?.length) {
    for (const [i, c] of state.dataConditions.entries()) {
      const site = { state: state.name, what: `dataCondition ${c.name ? `"${c.name}"` : i + 1}` };
      if (ctx.sync ? evalConditionSync(c.condition, h.data, ctx.scope(), site) : await evalCondition(c.condition, h.data, ctx.scope(), site)) return { transition: c.transition, end: c.end };
    }
    return fallback;
  }
  if (state.eventConditions?.length) {
    const names = [...new Set(state.eventConditions.map((c) => c.eventRef))];
    const timeout = eventTimeout(ctx.def, state);
    const got = await ctx.mailbox.take(names, timeout ? parseDuration(timeout) : undefined, ctx.summary(state.name, undefined, `wait for ${names.join(' | ')}`));
    if (!got) return fallback;
    const c = state.eventConditions.find((x) => x.eventRef === got.name)!;
    h.data = ctx.sync ? mergeEvent(c.eventDataFilter, h.data, got.event, got.def.dataOnly, ctx.scope(), state.name) : await mergeEventAsync(c.eventDataFilter, h.data, got.event, got.def.dataOnly, ctx.scope(), state.name);
    return { transition: c.transition, end: c.end };
  }
  return fallback;
}
