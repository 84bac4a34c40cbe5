/**
 * AMQP 0-9-1 with `amqplib` (RabbitMQ and the like): one connection per call, as ./mqtt.ts. What
 * a channel is comes from its AsyncAPI `amqp` channel binding ({@link amqpTarget}):
 *
 * - `is: routingKey` (the default): the channel address is the routing key a message is published
 *   with to `exchange.name` (declared with its `type` when the binding gives one; no name: the
 *   default exchange, where the routing key is a queue's name). A receiver reads `queue.name` when
 *   the binding names one, else a queue of its own bound to the exchange with the routing key (a
 *   channel parameter is `*`): exclusive for one call, durable and named after the subscription
 *   when it is consumed in steps (the role of MQTT's persistent session).
 * - `is: queue`: the queue `queue.name` (else the channel address), declared with the binding's
 *   options; a message is sent to it, a receiver reads it.
 *
 * Publishes wait for the broker's confirm. Received messages are acknowledged when taken; in a
 * step, what is delivered beyond what the step takes is never acknowledged: closing the channel
 * gives it back to the queue, in its place, for the next step.
 */
import amqp, { type Channel, type ChannelModel, type ConsumeMessage, type Options } from 'amqplib';
import { AdapterError, networkFailure } from '../../src/adapter-sdk';
import { MQTT_NOT_AUTHORIZED, MQTT_REFUSED } from './mqtt';

export interface AmqpCall {
  url: string;
  /** What the call is, for messages: `AMQP publish orders.created to exchange "shop" at amqp://host:5672`. */
  request: string;
  credentials: { username?: string; password?: string };
  signal: AbortSignal;
}

/** Where a channel's messages go and come from (see the module comment). */
export interface AmqpTarget {
  is: 'routingKey' | 'queue';
  /** The exchange published to ('' = the default exchange) and, when declared, its type and options. */
  exchange: { name: string; type?: string; durable?: boolean; autoDelete?: boolean };
  /** The routing key (is: routingKey) — the channel address. */
  routingKey: string;
  /** The queue the binding names (is: queue: its name, else the channel address). */
  queue?: { name: string; durable?: boolean; exclusive?: boolean; autoDelete?: boolean };
  /** The operation binding's `deliveryMode`: 1 transient, 2 persistent (the default here). */
  deliveryMode?: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The target of a channel (its address, parameters filled) from its `amqp` bindings. */
export function amqpTarget(address: string, bindings: Record<string, unknown>): AmqpTarget {
  const is = bindings.is === 'queue' ? 'queue' : 'routingKey';
  const ex = obj(bindings.exchange);
  const q = obj(bindings.queue);
  const queueName = str(q.name) ?? (is === 'queue' ? address : undefined);
  return {
    is,
    exchange: { name: is === 'queue' ? '' : (str(ex.name) ?? ''), ...(str(ex.type) ? { type: str(ex.type) } : {}), durable: bool(ex.durable), autoDelete: bool(ex.autoDelete) },
    routingKey: address,
    ...(queueName !== undefined ? { queue: { name: queueName, durable: bool(q.durable), exclusive: bool(q.exclusive), autoDelete: bool(q.autoDelete) } } : {}),
    ...(typeof bindings.deliveryMode === 'number' ? { deliveryMode: bindings.deliveryMode } : {}),
  };
}

/** Where a receiver reads: a queue the binding names (or the routing key on the default exchange), or a queue of its own bound to the exchange. */
export function receivesFromOwnQueue(t: AmqpTarget): boolean {
  return t.queue === undefined && t.exchange.name !== '';
}

/** Describes a target for messages. */
export function describeTarget(t: AmqpTarget): string {
  if (t.is === 'queue') return `queue "${t.queue!.name}"`;
  return t.exchange.name ? `${t.routingKey} on exchange "${t.exchange.name}"` : `${t.routingKey} on the default exchange`;
}

/** A refused login: connection.js's "Handshake terminated by server: 403 (ACCESS-REFUSED) ...", or a close with 403. */
const refusedLogin = (err: unknown) => /\b403\b|ACCESS[-_]REFUSED/.test((err as Error)?.message ?? '');

function failure(err: unknown, call: AmqpCall): AdapterError {
  if (refusedLogin(err)) return new AdapterError(MQTT_NOT_AUTHORIZED, `${call.request}: the broker refused the credentials: ${(err as Error).message}`, { request: call.request, cause: err });
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number') return new AdapterError(MQTT_REFUSED, `${call.request}: the broker answered ${(err as Error).message}`, { request: call.request, cause: err });
  const net = networkFailure(err);
  return new AdapterError(net.code, `${call.request} failed: ${net.message}`, { request: call.request, cause: err });
}

/** The connection options of `url` (vhost: its path) with the call's credentials (none: the broker's guest). */
function connectOptions(call: AmqpCall): Options.Connect {
  const u = new URL(call.url);
  const secure = u.protocol === 'amqps:';
  const vhost = decodeURIComponent(u.pathname.replace(/^\//, ''));
  return {
    protocol: secure ? 'amqps' : 'amqp',
    hostname: u.hostname,
    port: u.port ? Number(u.port) : secure ? 5671 : 5672,
    username: call.credentials.username ?? (u.username ? decodeURIComponent(u.username) : 'guest'),
    password: call.credentials.password ?? (u.password ? decodeURIComponent(u.password) : 'guest'),
    ...(vhost ? { vhost } : {}),
    heartbeat: 30,
  };
}

/** Connects, opens a confirm channel, runs `use`, closes; cancellation or a lost connection ends the call at once. */
async function withChannel<T>(call: AmqpCall, use: (ch: Channel & { waitForConfirms(): Promise<void> }) => Promise<T>): Promise<T> {
  let conn: ChannelModel | undefined;
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = () => {
      void conn?.close().catch(() => {});
      reject(call.signal.reason ?? new Error('cancelled'));
    };
    if (call.signal.aborted) onAbort();
    else call.signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  let closing = false;
  let channel: Channel | undefined;
  try {
    conn = await Promise.race([amqp.connect(connectOptions(call), { timeout: 30_000 }), aborted]);
    const lost = new Promise<never>((_, reject) => {
      conn!.once('error', reject);
      conn!.once('close', () => closing || reject(Object.assign(new Error('connection closed by the broker'), { code: 'ECONNRESET' })));
    });
    lost.catch(() => {});
    const ch = await Promise.race([conn.createConfirmChannel(), aborted, lost]);
    // A channel the broker closes (a refused declaration, a missing queue) rejects the pending operation; the event is not an error of the connection's.
    ch.on('error', () => {});
    channel = ch;
    const result = await Promise.race([use(ch), aborted, lost]);
    // The channel is closed first: its acknowledgements reach the broker before the close (amqplib
    // interleaves channels, a connection's close could overtake them), and what it leaves
    // unacknowledged is back in the queue when the call returns.
    closing = true;
    await Promise.race([ch.close(), aborted, lost]);
    channel = undefined;
    return result;
  } catch (err) {
    if (call.signal.aborted) throw err;
    throw failure(err, call);
  } finally {
    closing = true;
    if (channel && !call.signal.aborted) await channel.close().catch(() => {});
    await conn?.close().catch(() => {});
  }
}

async function declareExchange(ch: Channel, t: AmqpTarget): Promise<void> {
  if (t.exchange.name && t.exchange.type) await ch.assertExchange(t.exchange.name, t.exchange.type, { durable: t.exchange.durable ?? true, autoDelete: t.exchange.autoDelete ?? false });
}

async function declareNamedQueue(ch: Channel, q: NonNullable<AmqpTarget['queue']>): Promise<void> {
  await ch.assertQueue(q.name, { durable: q.durable ?? true, exclusive: q.exclusive ?? false, autoDelete: q.autoDelete ?? false });
}

/** Publishes one message and waits for the broker's confirm. */
export function publish(call: AmqpCall, t: AmqpTarget, body: string, props: { contentType: string; headers?: Record<string, unknown> }): Promise<void> {
  return withChannel(call, async (ch) => {
    await declareExchange(ch, t);
    if (t.queue) await declareNamedQueue(ch, t.queue);
    const options: Options.Publish = { contentType: props.contentType, persistent: t.deliveryMode !== 1, ...(props.headers ? { headers: props.headers } : {}) };
    if (t.is === 'queue') ch.sendToQueue(t.queue!.name, Buffer.from(body), options);
    else ch.publish(t.exchange.name, t.routingKey, Buffer.from(body), options);
    await ch.waitForConfirms();
  });
}

/**
 * The queue a receiver reads (declared, and bound when it is its own): `own` names its own
 * queue (durable, kept between steps), absent an exclusive one the broker names.
 */
async function sourceQueue(ch: Channel, t: AmqpTarget, own?: string): Promise<string> {
  await declareExchange(ch, t);
  if (t.queue) {
    await declareNamedQueue(ch, t.queue);
    if (t.is === 'routingKey' && t.exchange.name) await ch.bindQueue(t.queue.name, t.exchange.name, t.routingKey);
    return t.queue.name;
  }
  if (!t.exchange.name) {
    // The default exchange routes by queue name: the routing key is the queue.
    await ch.assertQueue(t.routingKey, { durable: true });
    return t.routingKey;
  }
  const { queue } = await ch.assertQueue(own ?? '', own ? { durable: true } : { exclusive: true, autoDelete: true });
  await ch.bindQueue(queue, t.exchange.name, t.routingKey);
  return queue;
}

/** A received message: its body, content type, headers and correlation id. */
export interface AmqpMessage {
  routingKey: string;
  payload: Buffer;
  headers?: Record<string, unknown>;
  correlationId?: string;
}

const message = (m: ConsumeMessage): AmqpMessage => ({
  routingKey: m.fields.routingKey,
  payload: m.content,
  ...(m.properties.headers && Object.keys(m.properties.headers).length ? { headers: m.properties.headers as Record<string, unknown> } : {}),
  ...(m.properties.correlationId !== undefined ? { correlationId: String(m.properties.correlationId) } : {}),
});

/**
 * Reads messages and hands each to `onMessage` in order until it says `true` (done) or `done()`
 * settles (the time is up). Each message handed over is acknowledged (the broker forgets it).
 * `onMessage` must not throw.
 */
export function subscribe(call: AmqpCall, t: AmqpTarget, onMessage: (m: AmqpMessage) => boolean, done: () => Promise<void>): Promise<void> {
  return withChannel(call, async (ch) => {
    const queue = await sourceQueue(ch, t);
    let finish!: () => void;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    let over = false;
    await ch.prefetch(1);
    await ch.consume(queue, (m) => {
      if (!m || over) return; // not acknowledged: back to the queue when the channel closes
      ch.ack(m);
      if (onMessage(message(m))) {
        over = true;
        finish();
      }
    });
    await Promise.race([ended, done()]);
    over = true;
  });
}

/** One step of a stepped subscription: see {@link subscribeStep}. */
export interface AmqpStep {
  /** The subscription's own durable queue (when it reads from one of its own). */
  queue: string;
  /** The first step: a queue of its own left by an earlier subscription of that name is deleted first. */
  first: boolean;
  max: number;
  windowMs: number;
  waitMs?: number;
}

/**
 * One step of a subscription consumed in steps: reads the subscription's queue (a queue the
 * binding names, or its own durable one, bound to the exchange, which keeps what arrives between
 * two steps) and takes the messages `take` accepts (up to `max`, those that arrive within
 * `windowMs` of the first). A message is acknowledged only when handled (taken, or refused by the
 * filter); the others are not, and the broker gives them to the next step.
 */
export function subscribeStep(call: AmqpCall, t: AmqpTarget, step: AmqpStep, take: (m: AmqpMessage) => boolean): Promise<AmqpMessage[]> {
  return withChannel(call, async (ch) => {
    const own = receivesFromOwnQueue(t);
    if (own && step.first) await ch.deleteQueue(step.queue);
    const queue = await sourceQueue(ch, t, step.queue);
    const taken: AmqpMessage[] = [];
    let finish!: () => void;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    let over = false;
    let window: NodeJS.Timeout | undefined;
    let wait: NodeJS.Timeout | undefined;
    const stop = () => {
      over = true;
      finish();
    };
    // No more in flight than a step may take: the rest stays in the queue.
    await ch.prefetch(step.max);
    const { consumerTag } = await ch.consume(queue, (m) => {
      if (!m || over) return;
      const got = message(m);
      let accepted: boolean;
      try {
        accepted = take(got);
      } catch {
        return stop(); // the caller's error (the filter, which keeps it): not acknowledged
      }
      ch.ack(m);
      if (!accepted) return;
      taken.push(got);
      if (taken.length >= step.max) return stop();
      if (taken.length === 1) {
        clearTimeout(wait);
        window = setTimeout(stop, step.windowMs);
      }
    });
    if (step.waitMs !== undefined && !over && taken.length === 0) wait = setTimeout(stop, Math.max(0, step.waitMs));
    try {
      await ended;
    } finally {
      clearTimeout(window);
      clearTimeout(wait);
    }
    await ch.cancel(consumerTag);
    return taken;
  });
}

/** Ends a stepped subscription: its own queue is deleted (a queue the binding names is the application's, and stays). */
export function endSubscription(call: AmqpCall, t: AmqpTarget, queue: string): Promise<void> {
  return withChannel(call, async (ch) => {
    if (receivesFromOwnQueue(t)) await ch.deleteQueue(queue);
  });
}
