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
 * Stepped (feature v1-subscription-streaming, `subscription.step`): a subscription with a
 * `foreach` governed by `while`/`until` is consumed by the workflow, one call per step: each call
 * returns the next message(s) that pass the filter (./transport.ts subscribeStepOverMqtt/Http),
 * and the workflow runs `foreach` and evaluates the policy in between. Over MQTT the steps share a
 * persistent session (`clean: false`, a client id derived from the workflow id and the task's
 * reference, QoS ≥ 1): the broker keeps what arrives between two steps; the last call ends it.
 * Over AMQP a durable queue, over Kafka a consumer group named after the subscription, play that part.
 *
 * Durability (in one call): the activity heartbeats; a lost worker is a failure of the platform and the call
 * is made again — a new subscription. A subscription is a live stream (a clean MQTT session,
 * messages acknowledged to the broker as they arrive): the messages the lost worker had received
 * are not seen by the run, nor those published while no subscription was active.
 */
import { durationMs, evaluateCondition, type Duration, type ExprScope, type Json } from '../../src/adapter-sdk';

export interface SubscriptionArgs {
  filter?: string;
  consume?: { amount?: number; for?: Duration; while?: string; until?: string };
  /**
   * The variables `filter`, `while` and `until` read, sent by the interpreter (feature
   * v1-asyncapi-subscriptions). Absent: the run started before subscriptions were served (its
   * workflow evaluated these expressions as arguments), and the call is refused as it was then.
   */
  scope?: { variables?: Record<string, Json> };
  /**
   * One step of a subscription the workflow consumes in steps (feature v1-subscription-streaming):
   * the activity returns the next message(s) that pass the filter, and `consume` is the workflow's.
   */
  step?: SubscriptionStep;
}

/** What one step of a stepped subscription asks for (sent by v1/tasks/asyncapi-subscription.ts). */
export interface SubscriptionStep {
  /** Names the subscription (the workflow id and the task's reference): the persistent MQTT session's client id is derived from it. */
  session: string;
  /** The subscription's first step (a session left by an earlier one of that name is discarded). */
  first?: boolean;
  /** The subscription has ended: its session is ended (nothing consumed). */
  end?: boolean;
  /** At most this many messages. */
  max?: number;
  /** After the first message, how long more may be taken with it (ms). */
  windowMs?: number;
  /** How long to wait for a first message (ms, what is left of `consume.for`): absent, as long as it takes; none comes: `[]`. */
  waitMs?: number;
}

/** A stepped subscription's filter: true when a message passes it (no filter: every message). */
export function stepFilter(sub: SubscriptionArgs): (message: InboundMessage) => boolean {
  const scope: ExprScope = { variables: sub.scope?.variables ?? {} };
  return (message) => sub.filter === undefined || evaluateCondition(sub.filter, message as unknown as Json, scope);
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
