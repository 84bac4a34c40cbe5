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
 */
import type { Json } from '../../../common/model';
import type { SubscriptionIterator } from '../../../common/model-v1';
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
