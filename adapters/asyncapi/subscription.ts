/**
 * 1.0 `call: asyncapi` subscriptions (`with.subscription`) in the adapter activity: the activity
 * subscribes to the operation's channel and consumes messages until the consumption policy
 * (`consume`) is met, then returns the messages it consumed, in order (the spec's AsyncAPI
 * Inbound Messages: `{ payload, headers?, correlationId? }`). `foreach` is not here: the workflow
 * runs it over the returned messages (src/workflow/v1/tasks/asyncapi-subscription.ts).
 *
 * - `filter`: a runtime expression over each message (`.`); a message it does not hold for is
 *   dropped and not counted.
 * - `consume.amount`: that many (filtered) messages; `consume.while`: evaluated after each
 *   consumed message, consumption stops when it no longer holds; `consume.until`: evaluated
 *   before each message (the first too), consumption stops when it holds. Both read the messages
 *   consumed so far as `.` (an array). `consume.for`: the subscription ends after that long
 *   (counted from when the broker granted it) with what was consumed, never an error.
 * - The expressions see the variables the interpreter sent in `subscription.scope` (the task's
 *   `$input`, `$context`, `$workflow`... as they were when the call started, cut to what the
 *   expressions read): `$context` does not change while the subscription consumes, since
 *   `foreach` (and its `export.as`) runs after it.
 *
 * Durability: the activity heartbeats; a lost worker is a failure of the platform and the call
 * is made again — a new subscription. A subscription is a live stream (a clean MQTT session,
 * messages acknowledged to the broker as they arrive): the messages the lost worker had received
 * are not seen by the run, nor those published while no subscription was active.
 */
import { durationMs, evaluateCondition, type Duration, type ExprScope, type Json } from '../../src/adapter';

export interface SubscriptionArgs {
  filter?: string;
  consume?: { amount?: number; for?: Duration; while?: string; until?: string };
  /**
   * The variables `filter`, `while` and `until` read, sent by the interpreter (feature
   * v1-asyncapi-subscriptions). Absent: the run started before subscriptions were served (its
   * workflow evaluated these expressions as arguments), and the call is refused as it was then.
   */
  scope?: { variables?: Record<string, Json> };
}

/** A consumed message (the spec's AsyncAPI Inbound Message). */
export interface InboundMessage {
  payload: Json;
  headers?: Record<string, Json>;
  correlationId?: string;
}

/** Where the consumption stands: `offer` each message in arrival order; true once the policy is met. */
export interface Consumption {
  readonly messages: InboundMessage[];
  /** Milliseconds the subscription may last (`consume.for`), if limited. */
  readonly forMs?: number;
  /** True when nothing is to be consumed at all (`amount: 0`, an `until` that holds at once). */
  metAtStart(): boolean;
  offer(message: InboundMessage): boolean;
}

/** The consumption policy of a subscription (its expressions are evaluated by the caller's jq engine, errors thrown). */
export function consumption(sub: SubscriptionArgs): Consumption {
  const scope: ExprScope = { variables: sub.scope?.variables ?? {} };
  const consume = sub.consume ?? {};
  const messages: InboundMessage[] = [];
  const holds = (expr: string, data: Json) => evaluateCondition(expr, data, scope);
  const untilHolds = () => consume.until !== undefined && holds(consume.until, messages as unknown as Json);
  return {
    messages,
    ...(consume.for !== undefined ? { forMs: durationMs(consume.for) } : {}),
    metAtStart: () => consume.amount === 0 || untilHolds(),
    offer(message) {
      if (sub.filter !== undefined && !holds(sub.filter, message as unknown as Json)) return false;
      messages.push(message);
      if (consume.amount !== undefined && messages.length >= consume.amount) return true;
      if (consume.while !== undefined && !holds(consume.while, messages as unknown as Json)) return true;
      return untilHolds();
    },
  };
}
