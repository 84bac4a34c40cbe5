/**
 * Producing events (transition/end produceEvents and eventRef actions): the CloudEvent is
 * built deterministically in the workflow and handed to the `swflow.produceEvent` activity on
 * the interpreter's queue, which passes it to the worker's event sinks.
 */
import type { Json } from '../../common/model';
import { PRODUCE_EVENT_ACTIVITY, type CloudEventJson } from '../../common/contracts';
import { evalExpr, evalValue, isExpression, type ExprScope } from '../expressions';
import { temporalEffects, type Effects } from '../effects';
import type { StateContext } from '../v08/states/context';

export { PRODUCE_EVENT_ACTIVITY };

export async function buildEvent(
  ctx: StateContext,
  eventName: string,
  dataSpec: Json | undefined,
  contextAttributes: Record<string, string> | undefined,
  data: Json,
  scope: ExprScope,
  state: string,
): Promise<CloudEventJson> {
  const def = ctx.def.events.find((e) => e.name === eventName);
  if (!def) throw new Error(`Unknown event "${eventName}"`);
  const site = { state, what: `event "${eventName}" data` };
  const ce: CloudEventJson = {
    specversion: '1.0',
    id: ctx.effects.uuid4(),
    source: def.source || `swflow/${ctx.def.id}`,
    type: def.type,
    time: new Date(ctx.effects.now()).toISOString(),
    datacontenttype: 'application/json',
  };
  const payload = dataSpec === undefined ? undefined : await evalValue(dataSpec, data, scope, site);
  if (payload !== undefined) ce.data = payload;
  for (const c of def.correlation ?? []) {
    if (c.contextAttributeValue !== undefined) ce[c.contextAttributeName] = c.contextAttributeValue;
    else if (ctx.mailbox.correlation[c.contextAttributeName] !== undefined) ce[c.contextAttributeName] = ctx.mailbox.correlation[c.contextAttributeName];
  }
  for (const [k, v] of Object.entries(contextAttributes ?? {})) {
    ce[k.toLowerCase()] = typeof v === 'string' && isExpression(v) ? String(await evalExpr(v, data, scope, { state, what: `context attribute ${k}` })) : v;
  }
  return ce;
}

export function emitEvent(ctx: StateContext, ce: CloudEventJson, summary: string): Promise<void> {
  // Not async: the caller awaits scheduleProduceEvent's own promise, as deep as before (replays).
  return scheduleProduceEvent(ctx.info.taskQueue, ce, summary, ctx.effects);
}

/** Hands a built CloudEvent to the event sinks of the interpreter worker on `taskQueue` (0.8 and 1.0 alike). */
export async function scheduleProduceEvent(taskQueue: string, ce: CloudEventJson, summary: string, effects: Effects = temporalEffects): Promise<void> {
  await effects.activity(PRODUCE_EVENT_ACTIVITY, [ce], {
    taskQueue,
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 5 },
    summary,
  });
}

export async function produceEvents(ctx: StateContext, list: { eventRef: string; data?: Json; contextAttributes?: Record<string, string> }[], data: Json, state: string): Promise<void> {
  for (const p of list) {
    const ce = await buildEvent(ctx, p.eventRef, p.data, p.contextAttributes, data, ctx.scope(), state);
    await emitEvent(ctx, ce, ctx.summary(state, undefined, `produce ${p.eventRef}`));
  }
}
