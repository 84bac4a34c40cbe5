/**
 * 1.0 `call: asyncapi` with a `subscription` (feature v1-asyncapi-subscriptions). The adapter
 * activity subscribes and consumes messages until the consumption policy is met, then returns
 * them (adapters/asyncapi/subscription.ts); this module says what the call sends and runs the
 * subscription's `foreach` over what comes back, in order, one message after the other (the
 * spec's FIFO), as a listen's iterator does.
 *
 * The subscription's `filter`, `consume.while` and `consume.until` are evaluated per message by
 * the activity, so they are not arguments evaluated before the call: they go as written, with
 * the variables they read (`$input`, `$context`, `$workflow`, ... cut to what they read,
 * src/expr/reads.ts) in `subscription.scope`. `foreach` stays here.
 *
 * Streaming (feature v1-subscription-streaming): a subscription with a `foreach` whose
 * consumption `while`/`until` governs may never end by itself (`while: ${ true }`), and its
 * policy may read what `foreach.export.as` puts in `$context`; so the workflow consumes it in
 * steps ({@link streamMessages}): each activity call returns the next message(s) (`subscription.step`:
 * the adapter keeps the subscription between two calls, a persistent MQTT session), `foreach` runs
 * over each as it comes, and `until` (before each message, the first too) and `while` (after
 * each) are evaluated here with the current variables and the messages consumed so far as `.`;
 * `amount` is counted here, `for` is a deadline from the first step. A last call ends the
 * subscription's session, also when the task fails or is cancelled. The filter stays the
 * activity's (it reads the variables as they are at each step).
 *
 * History: every step adds an activity's events (and `foreach`'s tasks add theirs), and the 1.0
 * host continues as new only between top-level tasks, so a subscription that never ends grows
 * its run's history until Temporal's limit (50,000 events: several thousand messages). Not
 * bounded yet: continuing as new inside a task would need the task's state (the messages
 * consumed, the outputs, the session) carried over.
 */
import type { Json } from '../../../common/model';
import type { SubscriptionIterator } from '../../../common/model-v1';
import { durationMs } from '../../../common/duration';
import { secretContextOf } from '../../../expr/reads';
import type { Args, TaskAt, TaskContext } from '../context';
import { iterateItem } from './listen';

type Obj = Record<string, Json>;
const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when a `call: asyncapi`'s `with` (as written) subscribes. */
export function subscribes(written: Json | undefined): boolean {
  return isObj(written) && written.subscription !== undefined;
}

/** The `with` as written without its subscription (evaluated as arguments), and the subscription. */
export function splitSubscription(written: Obj): { rest: Obj; subscription: Obj } {
  const { subscription, ...rest } = written;
  return { rest, subscription: isObj(subscription) ? subscription : {} };
}

/** The subscription the activity gets: as written without `foreach`, and the variables its expressions read. */
export function subscriptionArgument(subscription: Obj, args: Args): Json {
  const { foreach: _foreach, ...sent } = subscription;
  const consume = isObj(sent.consume) ? sent.consume : {};
  const expressions = [sent.filter, consume.while, consume.until].filter((e): e is string => typeof e === 'string');
  const read = secretContextOf(expressions, null, { variables: args });
  return { ...sent, scope: { variables: read?.scope.variables ?? {} } };
}

/** The call's output: the messages consumed, each through the subscription's `foreach` when it has one. */
export async function iterateMessages(subscription: Obj, messages: Json, at: TaskAt, ctx: TaskContext): Promise<Json> {
  const it = subscription.foreach as SubscriptionIterator | undefined;
  if (!it || !Array.isArray(messages)) return messages;
  const outputs: Json[] = [];
  for (const message of messages) outputs.push(await iterateItem(it, `${at.reference}/with/subscription/foreach/do`, at, message, outputs.length, ctx));
  return outputs;
}

/** True when the subscription is consumed in steps (with v1-subscription-streaming): it has a `foreach`, and `while` or `until`. */
export function streams(subscription: Obj): boolean {
  const consume = isObj(subscription.consume) ? subscription.consume : {};
  return isObj(subscription.foreach) && (consume.while !== undefined || consume.until !== undefined);
}

/** At most this many messages per step (the adapter takes what arrived within a short window of the first). */
export const STEP_MAX = 16;
/** How long after a step's first message the adapter takes more with it (ms). */
export const STEP_WINDOW_MS = 100;

/** One step's `subscription` argument → what the activity returned (the call made through platform failures). */
export type SubscriptionStepCall = (subscription: Json) => Promise<Json>;

/**
 * A subscription consumed in steps (see the module's comment): the outputs of `foreach` over
 * every message consumed, in order. `call` makes one activity call with the given subscription
 * argument; `input` is the task's input (`$input` of the expressions).
 */
export async function streamMessages(subscription: Obj, input: Json, at: TaskAt, ctx: TaskContext, call: SubscriptionStepCall): Promise<Json> {
  const it = subscription.foreach as SubscriptionIterator;
  const consume = (isObj(subscription.consume) ? subscription.consume : {}) as { amount?: number; for?: string; while?: string; until?: string };
  const base = `${at.reference}/with/subscription/foreach/do`;
  const consumed: Json[] = [];
  const outputs: Json[] = [];
  const holds = async (expr: string, what: string) => {
    const args = ctx.args(at, { input });
    return ctx.sync ? ctx.conditionSync(expr, consumed, args, what) : await ctx.condition(expr, consumed, args, what);
  };
  const over = async () =>
    (consume.amount !== undefined && consumed.length >= consume.amount) ||
    (consumed.length > 0 && consume.while !== undefined && !(await holds(consume.while, 'subscription.consume.while'))) ||
    (consume.until !== undefined && (await holds(consume.until, 'subscription.consume.until')));
  if (await over()) return outputs;
  const deadline = consume.for !== undefined ? ctx.effects.now() + durationMs(consume.for) : undefined;
  const filter = typeof subscription.filter === 'string' || typeof subscription.filter === 'boolean' ? subscription.filter : undefined;
  const stepArgument = (step: Obj): Json => {
    // The filter reads the variables as they are now (export.as may have changed $context).
    const read = typeof filter === 'string' ? secretContextOf([filter], null, { variables: ctx.args(at, { input }) }) : undefined;
    return { ...(filter !== undefined ? { filter } : {}), scope: { variables: read?.scope.variables ?? {} }, step };
  };
  const session = `${ctx.workflowId}${at.reference}`;
  let first = true;
  try {
    for (;;) {
      const waitMs = deadline !== undefined ? deadline - ctx.effects.now() : undefined;
      if (waitMs !== undefined && waitMs <= 0) break;
      const max = Math.min(STEP_MAX, consume.amount !== undefined ? consume.amount - consumed.length : STEP_MAX);
      const step: Obj = { session, ...(first ? { first: true } : {}), max, windowMs: STEP_WINDOW_MS, ...(waitMs !== undefined ? { waitMs } : {}) };
      first = false;
      const messages = await call(stepArgument(step));
      // Nothing within what was left of `for`: the time is up.
      if (!Array.isArray(messages) || messages.length === 0) {
        if (waitMs !== undefined) break;
        continue;
      }
      let ended = false;
      for (const message of messages) {
        consumed.push(message);
        outputs.push(await iterateItem(it, base, at, message, outputs.length, ctx));
        if ((ended = await over())) break;
      }
      if (ended) break;
    }
  } finally {
    // The subscription's session ends with it (a failed or cancelled task too); not a failure of the task if it cannot.
    if (!first) await ctx.effects.nonCancellable(() => call(stepArgument({ session, end: true })).catch((err: unknown) => ctx.effects.warn?.(`${at.reference}: the subscription's session was not ended: ${String((err as Error)?.message ?? err)}`)));
  }
  return outputs;
}
