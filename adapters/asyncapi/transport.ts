/**
 * Sending and receiving an AsyncAPI operation's message over MQTT, AMQP, Kafka and HTTP, for 0.8 `asyncapi`
 * functions (./index.ts) and 1.0 `call: asyncapi` (./asyncapi-call.ts), which authenticate
 * differently ({@link AsyncCredentials}).
 */
import { operationError, type ActivityContext, type Json } from '../../src/adapter-sdk';
import type { AsyncOperation } from './document';
import { channelAddress, decodePayload, encodePayload } from './message';
import { createHash, randomUUID } from 'node:crypto';
import { endSession, publish, receive, subscribe, subscribeStep, type MqttCall, type MqttMessage } from './mqtt';
import type { Consumption, InboundMessage, SubscriptionStep } from './subscription';
import * as amqp from './amqp';
import * as kafka from './kafka';

/** What a publish returns. */
export interface Published {
  published: true;
  operationId: string;
  protocol: string;
  server: string;
  channel: string;
  qos?: number;
  status?: number;
  /** Kafka: where the record was written. */
  partition?: number;
  offset?: string;
}

const qosOf = (v: unknown, fallback: 0 | 1 | 2): 0 | 1 | 2 => (v === 0 || v === 1 || v === 2 ? v : fallback);

/** How a call authenticates: a broker's username/password (MQTT, AMQP), the HTTP `Authorization` header (0.8: the function's auth; 1.0: the `authentication` policy). */
export interface AsyncCredentials {
  /** The broker's username/password (MQTT CONNECT, AMQP PLAIN login). */
  mqtt(): Promise<MqttCall['credentials']>;
  http(): Promise<Record<string, string> | undefined>;
}

export async function overMqtt(op: AsyncOperation, args: Json, ctx: ActivityContext, credentials: AsyncCredentials): Promise<Json> {
  const verb = op.direction === 'send' ? 'publish' : 'receive';
  const topic = channelAddress(op.channel, args, 'mqtt', op.direction === 'receive' ? '+' : undefined);
  const url = op.server.url.replace(/^secure-mqtt:/, 'mqtts:');
  const call: MqttCall = { url, request: `MQTT ${verb} ${topic} at ${url}`, credentials: await credentials.mqtt(), signal: ctx.signal };
  const qos = qosOf(op.bindings.qos, 1);
  if (op.direction === 'receive') return decodePayload((await receive(call, topic, qos)).payload, op.contentType);
  await publish(call, topic, encodePayload(args, op.contentType), { qos, retain: op.bindings.retain === true });
  return { ...published(op, topic), qos } as unknown as Json;
}

export async function overHttp(op: AsyncOperation, args: Json, ctx: ActivityContext, credentials: AsyncCredentials, headers: Record<string, string> = {}): Promise<Json> {
  const channel = channelAddress(op.channel, args, 'http');
  const url = `${op.server.url}/${channel.replace(/^\//, '')}`;
  const auth = await credentials.http();
  if (op.direction === 'receive') return (await ctx.http({ method: typeof op.bindings.method === 'string' ? op.bindings.method : 'GET', url, ...(auth ? { headers: auth } : {}) })).body;
  const method = typeof op.bindings.method === 'string' ? op.bindings.method : 'POST';
  const { status } = await ctx.http({ method, url, headers: { ...headers, 'content-type': op.contentType, ...auth }, body: encodePayload(args, op.contentType) });
  return { ...published(op, channel), status } as unknown as Json;
}

/** What a publish returns. */
function published(op: AsyncOperation, channel: string): Published {
  return { published: true, operationId: op.operationId, protocol: op.server.protocol, server: op.server.id, channel };
}


/**
 * A subscription over MQTT (1.0 `subscription`): the channel is the topic filter (a parameter is
 * `+`), each message is offered to the consumption until its policy is met or its time is up.
 * Heartbeats say how many messages were consumed. An expression that fails ends it with that error.
 */
export async function subscribeOverMqtt(op: AsyncOperation, consumption: Consumption, ctx: ActivityContext, credentials: AsyncCredentials): Promise<InboundMessage[]> {
  if (consumption.metAtStart()) return [];
  const topic = channelAddress(op.channel, {}, 'mqtt', '+');
  const url = op.server.url.replace(/^secure-mqtt:/, 'mqtts:');
  const call: MqttCall = { url, request: `MQTT subscribe ${topic} at ${url}`, credentials: await credentials.mqtt(), signal: ctx.signal };
  return consume(consumption, (m: MqttMessage) => inbound(m, op.contentType), topic, ctx, (offer, forTime) => subscribe(call, topic, qosOf(op.bindings.qos, 1), offer, forTime));
}

/**
 * Offers each message a transport's `listen` receives to the consumption until its policy is met
 * or its time (`for`) is up, heartbeating how many were consumed; an expression that fails ends it
 * with that error (the transport only learns that the consumption is over).
 */
async function consume<M>(
  consumption: Consumption,
  convert: (m: M) => InboundMessage,
  subscribed: string,
  ctx: ActivityContext,
  listen: (offer: (m: M) => boolean, forTime: () => Promise<void>) => Promise<unknown>,
): Promise<InboundMessage[]> {
  let failed: { error: unknown } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const offer = (m: M): boolean => {
    try {
      const done = consumption.offer(convert(m));
      ctx.heartbeat({ subscribed, consumed: consumption.messages.length });
      return done;
    } catch (error) {
      failed = { error };
      return true;
    }
  };
  const forTime = () => {
    ctx.heartbeat({ subscribed, consumed: 0 });
    return new Promise<void>((resolve) => {
      if (consumption.forMs !== undefined) timer = setTimeout(resolve, consumption.forMs);
    });
  };
  try {
    await listen(offer, forTime);
  } finally {
    clearTimeout(timer);
  }
  if (failed) throw failed.error;
  return consumption.messages;
}

/** At most this many messages in one step of a stepped subscription (unless the step asks for fewer). */
export const STEP_MAX = 16;
/** After a step's first message, how long more are taken with it (ms, unless the step says otherwise). */
export const STEP_WINDOW_MS = 100;

/**
 * The persistent session's MQTT client id of a stepped subscription: derived from its name (the
 * workflow id and the task's reference), the same for every step and every attempt; 23
 * characters, what every MQTT 3.1.1 broker must accept.
 */
export function stepClientId(session: string): string {
  return `sw${createHash('sha256').update(session).digest('hex').slice(0, 21)}`;
}

/**
 * One step of a subscription over MQTT consumed in steps (v1-subscription-streaming): the next
 * message(s) that pass `accepts`, from the subscription's persistent session (./mqtt.ts
 * subscribeStep); a step with `end` ends the session. A failing filter fails the call with its error.
 */
export async function subscribeStepOverMqtt(op: AsyncOperation, step: SubscriptionStep, accepts: (m: InboundMessage) => boolean, ctx: ActivityContext, credentials: AsyncCredentials): Promise<InboundMessage[]> {
  const topic = channelAddress(op.channel, {}, 'mqtt', '+');
  const url = op.server.url.replace(/^secure-mqtt:/, 'mqtts:');
  const clientId = stepClientId(step.session);
  const call: MqttCall = { url, request: `MQTT subscribe ${topic} at ${url}`, credentials: await credentials.mqtt(), signal: ctx.signal };
  if (step.end) {
    await endSession(call, clientId);
    return [];
  }
  const qos = op.bindings.qos === 2 ? 2 : 1;
  return takeStep(step, (m: MqttMessage) => inbound(m, op.contentType), accepts, topic, ctx, (limits, take) => subscribeStep(call, topic, qos, { clientId, ...limits }, take));
}

/** How much one step takes (the step's own asks, else STEP_MAX and STEP_WINDOW_MS). */
interface StepLimits {
  first: boolean;
  max: number;
  windowMs: number;
  waitMs?: number;
}

/**
 * One step of a stepped subscription over a transport whose `run` offers each message to `take`:
 * the messages that pass `accepts`, in order; a filter that fails fails the call with its error.
 */
async function takeStep<M>(
  step: SubscriptionStep,
  convert: (m: M) => InboundMessage,
  accepts: (m: InboundMessage) => boolean,
  subscribed: string,
  ctx: ActivityContext,
  run: (limits: StepLimits, take: (m: M) => boolean) => Promise<unknown>,
): Promise<InboundMessage[]> {
  let failed: { error: unknown } | undefined;
  const taken: InboundMessage[] = [];
  const take = (m: M): boolean => {
    try {
      const message = convert(m);
      if (!accepts(message)) return false;
      taken.push(message);
      return true;
    } catch (error) {
      failed = { error };
      throw error;
    }
  };
  ctx.heartbeat({ subscribed, step: true });
  await run({ first: step.first === true, max: Math.max(1, step.max ?? STEP_MAX), windowMs: step.windowMs ?? STEP_WINDOW_MS, ...(step.waitMs !== undefined ? { waitMs: step.waitMs } : {}) }, take);
  if (failed) throw failed.error;
  return taken;
}

/**
 * One step of a subscription over HTTP consumed in steps: the channel long-polled until one
 * answer passes `accepts` (one message per answer: nothing is lost between two steps, the server
 * keeps what it has not answered with), or `waitMs` is over (`[]`). A step with `end` has nothing to end.
 */
export async function subscribeStepOverHttp(op: AsyncOperation, step: SubscriptionStep, accepts: (m: InboundMessage) => boolean, ctx: ActivityContext, credentials: AsyncCredentials): Promise<InboundMessage[]> {
  if (step.end) return [];
  const url = `${op.server.url}/${channelAddress(op.channel, {}, 'http').replace(/^\//, '')}`;
  const auth = await credentials.http();
  const time = step.waitMs !== undefined ? AbortSignal.timeout(Math.max(1, step.waitMs)) : undefined;
  const signal = time ? AbortSignal.any([ctx.signal, time]) : ctx.signal;
  const method = typeof op.bindings.method === 'string' ? op.bindings.method : 'GET';
  ctx.heartbeat({ subscribed: url, step: true });
  for (;;) {
    let body: Json;
    try {
      const answer = await ctx.http({ method, url, ...(auth ? { headers: auth } : {}) }, { signal });
      body = answer.status === 204 ? null : answer.body;
      if (body === null) await pause(HTTP_POLL_MS, signal);
    } catch (err) {
      if (time?.aborted === true && !ctx.signal.aborted) return [];
      throw err;
    }
    if (body !== null && accepts({ payload: body })) return [{ payload: body }];
  }
}

/** How long an HTTP subscription waits before asking again when the server had no message (204). */
export const HTTP_POLL_MS = 500;

/**
 * A subscription over HTTP: a long poll of the channel path (GET, or the binding's `method`),
 * each answer one message (its body, read by its content type); a 204 No Content (or an empty
 * body) means no message yet: asked again after {@link HTTP_POLL_MS}. Until the policy is met or
 * its time is up (a request in flight then is abandoned). A status ≥ 400 fails the call.
 */
export async function subscribeOverHttp(op: AsyncOperation, consumption: Consumption, ctx: ActivityContext, credentials: AsyncCredentials): Promise<InboundMessage[]> {
  if (consumption.metAtStart()) return [];
  const url = `${op.server.url}/${channelAddress(op.channel, {}, 'http').replace(/^\//, '')}`;
  const auth = await credentials.http();
  const time = consumption.forMs !== undefined ? AbortSignal.timeout(consumption.forMs) : undefined;
  const signal = time ? AbortSignal.any([ctx.signal, time]) : ctx.signal;
  const timeIsUp = () => time?.aborted === true && !ctx.signal.aborted;
  const method = typeof op.bindings.method === 'string' ? op.bindings.method : 'GET';
  ctx.heartbeat({ subscribed: url, consumed: 0 });
  for (;;) {
    let body: Json;
    try {
      const answer = await ctx.http({ method, url, ...(auth ? { headers: auth } : {}) }, { signal });
      body = answer.status === 204 ? null : answer.body;
      if (body === null) await pause(HTTP_POLL_MS, signal);
    } catch (err) {
      if (timeIsUp()) return consumption.messages;
      throw err;
    }
    if (body === null) continue;
    const done = consumption.offer({ payload: body });
    ctx.heartbeat({ subscribed: url, consumed: consumption.messages.length });
    if (done) return consumption.messages;
  }
}

/** Waits `ms`, or rejects when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** An MQTT message as an AsyncAPI inbound message: the payload by its content type, MQTT 5 user properties as headers, correlation data as the correlation id. */
function inbound(m: MqttMessage, contentType: string): InboundMessage {
  const headers = m.userProperties && Object.keys(m.userProperties).length ? (m.userProperties as Record<string, Json>) : undefined;
  return { payload: decodePayload(m.payload, contentType), ...(headers ? { headers } : {}), ...(m.correlationData?.length ? { correlationId: m.correlationData.toString('utf8') } : {}) };
}

/** Whether an operation's server speaks AMQP 0-9-1. */
export const isAmqp = (op: AsyncOperation): boolean => /^amqps?$/.test(op.server.protocol);

/** The AMQP target of an operation's channel; receiving from an exchange of its own queue, a channel parameter is `*`. */
function amqpTargetOf(op: AsyncOperation, args: Json, receiving: boolean): amqp.AmqpTarget {
  const template = amqp.amqpTarget(op.channel, op.bindings);
  const wildcard = receiving && amqp.receivesFromOwnQueue(template) ? '*' : undefined;
  return amqp.amqpTarget(channelAddress(op.channel, args, 'amqp', wildcard), op.bindings);
}

async function amqpCall(op: AsyncOperation, verb: string, t: amqp.AmqpTarget, ctx: ActivityContext, credentials: AsyncCredentials): Promise<amqp.AmqpCall> {
  return { url: op.server.url, request: `AMQP ${verb} ${amqp.describeTarget(t)} at ${op.server.url}`, credentials: await credentials.mqtt(), signal: ctx.signal };
}

/** Sends (or, 0.8, receives the first message of) an operation over AMQP; `headers` are the message's AMQP headers. */
export async function overAmqp(op: AsyncOperation, args: Json, ctx: ActivityContext, credentials: AsyncCredentials, headers?: Record<string, Json>): Promise<Json> {
  const receiving = op.direction === 'receive';
  const t = amqpTargetOf(op, args, receiving);
  const call = await amqpCall(op, receiving ? 'receive' : 'publish', t, ctx, credentials);
  if (receiving) {
    let first: amqp.AmqpMessage | undefined;
    await amqp.subscribe(call, t, (m) => ((first = m), true), () => new Promise(() => {}));
    return decodePayload(first!.payload, op.contentType);
  }
  await amqp.publish(call, t, encodePayload(args, op.contentType), { contentType: op.contentType, ...(headers && Object.keys(headers).length ? { headers } : {}) });
  return published(op, t.is === 'queue' ? t.queue!.name : t.routingKey) as unknown as Json;
}

/** An AMQP message as an AsyncAPI inbound message: the payload by its content type, AMQP headers, the correlation id. */
function inboundAmqp(m: amqp.AmqpMessage, contentType: string): InboundMessage {
  return { payload: decodePayload(m.payload, contentType), ...(m.headers ? { headers: m.headers as Record<string, Json> } : {}), ...(m.correlationId !== undefined ? { correlationId: m.correlationId } : {}) };
}

/**
 * A subscription over AMQP (1.0 `subscription`): the channel's queue (./amqp.ts: the binding's,
 * or an exclusive one bound to the exchange for this call), each message offered to the
 * consumption (and acknowledged) until its policy is met or its time is up.
 */
export async function subscribeOverAmqp(op: AsyncOperation, consumption: Consumption, ctx: ActivityContext, credentials: AsyncCredentials): Promise<InboundMessage[]> {
  if (consumption.metAtStart()) return [];
  const t = amqpTargetOf(op, {}, true);
  const call = await amqpCall(op, 'subscribe', t, ctx, credentials);
  return consume(consumption, (m: amqp.AmqpMessage) => inboundAmqp(m, op.contentType), call.request, ctx, (offer, forTime) => amqp.subscribe(call, t, offer, forTime));
}

/** The durable queue of a stepped AMQP subscription of its own: named after the subscription, the same for every step and attempt. */
export function stepQueueName(session: string): string {
  return `swflow.step.${createHash('sha256').update(session).digest('hex').slice(0, 32)}`;
}

/**
 * One step of a subscription over AMQP consumed in steps: the next message(s) that pass
 * `accepts` from the subscription's queue, where what the step does not take stays (./amqp.ts
 * subscribeStep); a step with `end` deletes the subscription's own queue.
 */
export async function subscribeStepOverAmqp(op: AsyncOperation, step: SubscriptionStep, accepts: (m: InboundMessage) => boolean, ctx: ActivityContext, credentials: AsyncCredentials): Promise<InboundMessage[]> {
  const t = amqpTargetOf(op, {}, true);
  const call = await amqpCall(op, 'subscribe', t, ctx, credentials);
  const queue = stepQueueName(step.session);
  if (step.end) {
    await amqp.endSubscription(call, t, queue);
    return [];
  }
  return takeStep(step, (m: amqp.AmqpMessage) => inboundAmqp(m, op.contentType), accepts, call.request, ctx, (limits, take) => amqp.subscribeStep(call, t, { queue, ...limits }, take));
}

/** Whether an operation's server speaks Kafka. */
export const isKafka = (op: AsyncOperation): boolean => /^kafka(-secure)?$/.test(op.server.protocol);

/** The topic of an operation's channel: the channel binding's `topic`, else the channel address (parameters filled; a receiver needs them all: Kafka has no wildcard topics). */
function kafkaTopic(op: AsyncOperation, args: Json): string {
  return typeof op.bindings.topic === 'string' && op.bindings.topic ? op.bindings.topic : channelAddress(op.channel, args, 'kafka');
}

async function kafkaCall(op: AsyncOperation, verb: string, topic: string, ctx: ActivityContext, credentials: AsyncCredentials): Promise<kafka.KafkaCall> {
  if (typeof op.server.bindings?.schemaRegistryUrl === 'string') {
    throw operationError(`${op.document}: server "${op.server.id}" names a schema registry (schemaRegistryUrl): the asyncapi adapter sends and reads payloads by their content type, without a schema registry`);
  }
  return {
    brokers: kafka.serverBrokers(op.server.url),
    request: `Kafka ${verb} ${topic} at ${op.server.url}`,
    clientId: kafka.bindingValue(op.bindings.clientId) ?? kafka.callClientId(),
    security: kafka.serverSecurity(op.server, await credentials.mqtt(), op.document),
    signal: ctx.signal,
  };
}

/** Where a receiver of `op` reads: the operation binding's `groupId`, else a group of its own (`session`'s for a stepped subscription, else one for this call). */
function kafkaSource(op: AsyncOperation, topic: string, session?: string): kafka.KafkaSource {
  const named = kafka.bindingValue(op.bindings.groupId);
  const spec = kafka.topicSpec(op.bindings);
  return { topic, groupId: named ?? (session !== undefined ? stepGroupId(session) : `swflow.asyncapi.${randomUUID()}`), own: named === undefined, ...(spec ? { spec } : {}) };
}

/** The consumer group of a stepped Kafka subscription of its own: named after the subscription, the same for every step and attempt. */
export function stepGroupId(session: string): string {
  return `swflow.step.${createHash('sha256').update(session).digest('hex').slice(0, 32)}`;
}

/** A Kafka record as an AsyncAPI inbound message: the payload by its content type, the record's headers. */
function inboundKafka(m: kafka.KafkaMessage, contentType: string): InboundMessage {
  return { payload: decodePayload(m.value, contentType), ...(Object.keys(m.headers).length ? { headers: m.headers } : {}) };
}

/**
 * Sends (or, 0.8, receives the first message of) an operation over Kafka. The record: the payload
 * by its content type, the message binding's `key` (its schema's const/default), `headers` as
 * record headers (text; other JSON values as JSON), and `content-type`.
 */
export async function overKafka(op: AsyncOperation, args: Json, ctx: ActivityContext, credentials: AsyncCredentials, headers?: Record<string, Json>): Promise<Json> {
  const receiving = op.direction === 'receive';
  const topic = kafkaTopic(op, args);
  const call = await kafkaCall(op, receiving ? 'receive' : 'publish', topic, ctx, credentials);
  if (receiving) {
    let first: kafka.KafkaMessage | undefined;
    await kafka.subscribe(call, kafkaSource(op, topic), (m) => ((first = m), true), () => new Promise(() => {}));
    return decodePayload(first!.value, op.contentType);
  }
  const text = Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  const key = kafka.bindingValue(op.bindings.key);
  const spec = kafka.topicSpec(op.bindings);
  const at = await kafka.publish(call, topic, { value: Buffer.from(encodePayload(args, op.contentType)), headers: { 'content-type': op.contentType, ...text }, ...(key !== undefined ? { key } : {}) }, spec);
  return { ...published(op, topic), ...(at.partition !== undefined ? { partition: at.partition, offset: at.offset } : {}) } as unknown as Json;
}

/** A subscription over Kafka (1.0 `subscription`): the channel's topic from when it subscribed (./kafka.ts), each record offered to the consumption until its policy is met or its time is up. */
export async function subscribeOverKafka(op: AsyncOperation, consumption: Consumption, ctx: ActivityContext, credentials: AsyncCredentials): Promise<InboundMessage[]> {
  if (consumption.metAtStart()) return [];
  const topic = kafkaTopic(op, {});
  const call = await kafkaCall(op, 'subscribe', topic, ctx, credentials);
  return consume(consumption, (m: kafka.KafkaMessage) => inboundKafka(m, op.contentType), call.request, ctx, (offer, forTime) => kafka.subscribe(call, kafkaSource(op, topic), offer, forTime));
}

/**
 * One step of a subscription over Kafka consumed in steps: the next record(s) that pass `accepts`
 * from the subscription's consumer group, which commits only what the step handled (./kafka.ts
 * subscribeStep); a step with `end` deletes the subscription's own group.
 */
export async function subscribeStepOverKafka(op: AsyncOperation, step: SubscriptionStep, accepts: (m: InboundMessage) => boolean, ctx: ActivityContext, credentials: AsyncCredentials): Promise<InboundMessage[]> {
  const topic = kafkaTopic(op, {});
  const call = await kafkaCall(op, 'subscribe', topic, ctx, credentials);
  const source = kafkaSource(op, topic, step.session);
  if (step.end) {
    await kafka.endSubscription(call, source);
    return [];
  }
  return takeStep(step, (m: kafka.KafkaMessage) => inboundKafka(m, op.contentType), accepts, call.request, ctx, (limits, take) => kafka.subscribeStep(call, source, limits, take));
}
