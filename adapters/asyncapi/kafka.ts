/**
 * Kafka with `@platformatic/kafka` for AsyncAPI `kafka`/`kafka-secure` servers: one client per
 * call, as ./mqtt.ts and ./amqp.ts (a workflow's publishes are rare next to a client's cost, and
 * nothing is left open between calls).
 *
 * - A publish is one record (the channel's topic, the message binding's key, the message's
 *   headers) sent by an idempotent producer with `acks: all`: it resolves when every in-sync
 *   replica has it. A topic the channel binding describes (`partitions`, `replicas`,
 *   `topicConfiguration`) is created with that description when missing; otherwise the broker's
 *   own auto-creation decides, and a topic it does not create is the broker's refusal.
 * - A subscription (and a 0.8 receive) reads from the end of every partition as it was when it
 *   subscribed (offsets taken before it joins its group), in a consumer group of its own that is
 *   deleted after it; the operation binding's `groupId` makes it a member of that group instead,
 *   reading from the group's committed offsets and committing what it consumed.
 * - A subscription consumed in steps keeps its position in a consumer group of its own (named
 *   after the subscription, like MQTT's persistent session and AMQP's durable queue): the first
 *   step commits the end of every partition for the group (that is when it subscribed), each step
 *   commits only what it took or the filter dropped, so what it did not take is read by the next
 *   step; the last call deletes the group.
 */
import { randomUUID } from 'node:crypto';
import { Admin, Consumer, Producer, ProduceAcks, type Message, type MessagesStream } from '@platformatic/kafka';
import { AdapterError, ErrorCodes, networkFailure, operationError } from '../../src/adapter-sdk';
import { MQTT_NOT_AUTHORIZED, MQTT_REFUSED } from './mqtt';

/** The SASL mechanisms the client speaks (an adapter uses only the SDK: its own types, not src/kafka's). */
type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

/** How a call reaches its server: SASL (with the call's credentials) and TLS (`kafka-secure`). */
export interface KafkaSecurity {
  sasl?: { mechanism: SaslMechanism; username: string; password: string };
  tls?: Record<string, never>;
}

export interface KafkaCall {
  brokers: string[];
  /** What the call is, for messages: `Kafka publish orders at kafka://host:9092`. */
  request: string;
  clientId: string;
  security: KafkaSecurity;
  signal: AbortSignal;
}

/** A record as sent or received: the key, the value's bytes, text headers. */
export interface KafkaRecord {
  key?: string;
  value: Buffer;
  headers: Record<string, string>;
}

/** The topic as the channel binding describes it (created with this when missing). */
export interface TopicSpec {
  partitions?: number;
  replicas?: number;
  config: Record<string, string>;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * The value a Kafka binding field describes: a plain value, or (bindings 0.3+, where `key`,
 * `groupId` and `clientId` are schemas) the schema's `const`, its only `enum` value, else its
 * `default`. `examples` are documentation, not a value; a schema with none of these has no value.
 */
export function bindingValue(v: unknown): string | undefined {
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  const schema = obj(v);
  if (schema.const !== undefined && schema.const !== null) return String(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return String(schema.enum[0]);
  if (schema.default !== undefined && schema.default !== null) return String(schema.default);
  return undefined;
}

/** The channel binding's description of its topic, when it gives one. */
export function topicSpec(bindings: Record<string, unknown>): TopicSpec | undefined {
  const config = Object.fromEntries(Object.entries(obj(bindings.topicConfiguration)).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
  const partitions = typeof bindings.partitions === 'number' ? bindings.partitions : undefined;
  const replicas = typeof bindings.replicas === 'number' ? bindings.replicas : undefined;
  if (partitions === undefined && replicas === undefined && !Object.keys(config).length) return undefined;
  return { ...(partitions !== undefined ? { partitions } : {}), ...(replicas !== undefined ? { replicas } : {}), config };
}

/** AsyncAPI security scheme types → the SASL mechanism they name. */
const SASL_OF: Record<string, SaslMechanism> = { plain: 'PLAIN', userPassword: 'PLAIN', scramSha256: 'SCRAM-SHA-256', scramSha512: 'SCRAM-SHA-512' };

/**
 * SASL and TLS of a server: TLS for `kafka-secure`; SASL with the mechanism of its first security
 * scheme spoken here (`plain`/`userPassword`: PLAIN, `scramSha256`, `scramSha512`) and the call's
 * credentials; credentials for a server that declares no scheme: PLAIN. The password is never in
 * an error.
 */
export function serverSecurity(server: { id: string; protocol: string; security?: string[] }, credentials: { username?: string; password?: string }, location: string): KafkaSecurity {
  const out: KafkaSecurity = server.protocol === 'kafka-secure' ? { tls: {} } : {};
  const declared = server.security ?? [];
  const mechanism = declared.map((t) => SASL_OF[t]).find(Boolean);
  if (declared.length && !mechanism) {
    throw operationError(`${location}: server "${server.id}" asks for ${declared.join(', ')} security; the asyncapi adapter speaks Kafka SASL ${Object.keys(SASL_OF).join(', ')}`);
  }
  const has = credentials.username !== undefined && credentials.username !== '' && credentials.password !== undefined;
  if (mechanism && !has) throw operationError(`${location}: server "${server.id}" needs SASL ${mechanism} credentials: give the call a basic authentication (1.0 with.authentication, 0.8 the function's auth)`);
  if (has) out.sasl = { mechanism: mechanism ?? 'PLAIN', username: credentials.username!, password: credentials.password! };
  return out;
}

/** The bootstrap brokers of a server URL (`kafka://host:port`, several comma-separated). */
export function serverBrokers(url: string): string[] {
  const hosts = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/.*$/, '');
  const brokers = hosts.split(',').map((h) => h.trim()).filter(Boolean).map((h) => {
    const m = /^(\[[^\]]+\]|[^:\s/]+)(?::(\d+))?$/.exec(h);
    const port = m?.[2] === undefined ? 9092 : Number(m[2]);
    if (!m || !(port > 0 && port < 65536)) throw operationError(`the server URL ${url}: '${h}' is not host:port`);
    return `${m[1]}:${port}`;
  });
  if (!brokers.length) throw operationError(`the server URL ${url} names no broker`);
  return brokers;
}

/** Every error a client error carries (an AggregateError's, and causes). */
function* errorsOf(err: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (!err || typeof err !== 'object' || depth > 6) return;
  yield err as Record<string, unknown>;
  for (const e of ((err as { errors?: unknown[] }).errors ?? [])) yield* errorsOf(e, depth + 1);
  yield* errorsOf((err as { cause?: unknown }).cause, depth + 1);
}

const apiIdOf = (err: unknown, ...ids: string[]): boolean => [...errorsOf(err)].some((e) => ids.includes(e.apiId as string));

function failure(err: unknown, call: KafkaCall): AdapterError {
  const all = [...errorsOf(err)];
  if (apiIdOf(err, 'SASL_AUTHENTICATION_FAILED', 'ILLEGAL_SASL_STATE', 'UNSUPPORTED_SASL_MECHANISM') || all.some((e) => e.code === 'PLT_KFK_AUTHENTICATION')) {
    const who = call.security.sasl ? ` of "${call.security.sasl.username}" (SASL ${call.security.sasl.mechanism})` : '';
    return new AdapterError(MQTT_NOT_AUTHORIZED, `${call.request}: the broker refused the credentials${who}`, { request: call.request, cause: err });
  }
  // The client reports the broker's UNKNOWN_TOPIC_OR_PARTITION for a topic's metadata as its own "Unknown topic <name>.".
  if (apiIdOf(err, 'UNKNOWN_TOPIC_OR_PARTITION') || all.some((e) => e.code === 'PLT_KFK_USER' && /^Unknown topic /.test(String(e.message)))) {
    return new AdapterError(MQTT_REFUSED, `${call.request}: the broker answered UNKNOWN_TOPIC_OR_PARTITION: the topic does not exist and the broker does not create it (auto.create.topics.enable; or describe it in the channel binding: partitions, replicas)`, { request: call.request, cause: err });
  }
  const refused = all.find((e) => typeof e.apiId === 'string' && e.apiId !== 'NONE');
  if (refused) return new AdapterError(MQTT_REFUSED, `${call.request}: the broker answered ${refused.apiId}: ${String(refused.message ?? refused.apiId)}`, { request: call.request, cause: err });
  // The socket's error (ECONNREFUSED, ...) sits among the client's retries: its code names the failure.
  const net = all.map((e) => networkFailure(e)).find((n) => n.code !== ErrorCodes.ConnectionError);
  return new AdapterError(net?.code ?? ErrorCodes.ConnectionError, `${call.request} failed: ${net?.message ?? (err as Error)?.message ?? String(err)}`, { request: call.request, cause: err });
}

/** The options every client of a call shares: few quick retries (the activity's retry policy is the real one). */
function base(call: KafkaCall) {
  return { clientId: call.clientId, bootstrapBrokers: call.brokers, connectTimeout: 10_000, timeout: 15_000, retries: 2, retryDelay: 300, ...(call.security.sasl ? { sasl: call.security.sasl } : {}), ...(call.security.tls ? { tls: call.security.tls } : {}) };
}

/** Runs `use` with clients that `close` ends, ends them when the call is cancelled, and names a failure by the call. */
async function guarded<T>(call: KafkaCall, close: () => Promise<unknown>, use: () => Promise<T>): Promise<T> {
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = () => {
      void close().catch(() => {});
      reject(call.signal.reason ?? new Error('cancelled'));
    };
    if (call.signal.aborted) onAbort();
    else call.signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  try {
    return await Promise.race([use(), aborted]);
  } catch (err) {
    if (call.signal.aborted || err instanceof AdapterError) throw err;
    throw failure(err, call);
  } finally {
    await close().catch(() => {});
  }
}

/** Creates `topic` as `spec` describes it, unless it exists. */
async function ensureTopic(call: KafkaCall, topic: string, spec: TopicSpec): Promise<void> {
  const admin = new Admin(base(call));
  try {
    const configs = Object.entries(spec.config).map(([name, value]) => ({ name, value }));
    await admin.createTopics({ topics: [topic], partitions: spec.partitions ?? -1, replicas: spec.replicas ?? -1, ...(configs.length ? { configs } : {}) });
  } catch (err) {
    if (!apiIdOf(err, 'TOPIC_ALREADY_EXISTS')) throw err;
  } finally {
    await admin.close().catch(() => {});
  }
}

const textHeaders = (headers: Map<Buffer, Buffer>): Record<string, string> => Object.fromEntries([...headers].map(([k, v]) => [k.toString('utf8'), v.toString('utf8')]));

/** Sends one record with an idempotent producer (`acks: all`); resolves when the broker has it. */
export function publish(call: KafkaCall, topic: string, record: KafkaRecord, spec?: TopicSpec): Promise<{ partition?: number; offset?: string }> {
  const producer = new Producer({ ...base(call), idempotent: true, acks: ProduceAcks.ALL, autocreateTopics: spec === undefined });
  return guarded(call, () => producer.close(), async () => {
    if (spec) await ensureTopic(call, topic, spec);
    const headers = new Map(Object.entries(record.headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)]));
    const result = await producer.send({ messages: [{ topic, value: record.value, headers, ...(record.key !== undefined ? { key: Buffer.from(record.key) } : {}) }] });
    const at = result.offsets?.[0];
    return at ? { partition: at.partition, offset: String(at.offset) } : {};
  });
}

/** Where a receiver reads: its consumer group, and whether that group is its own (deleted after it) or the binding's (committed to). */
export interface KafkaSource {
  topic: string;
  groupId: string;
  own: boolean;
  spec?: TopicSpec;
}

function consumer(call: KafkaCall, groupId: string): Consumer {
  // A short session: a member left behind by a lost worker is out of the group soon.
  return new Consumer({ ...base(call), groupId, autocommit: false, sessionTimeout: 10_000, heartbeatInterval: 1_000, maxWaitTime: 500 });
}

/** The end of every partition of `topic` now (the offsets a subscription starts from). */
async function endOffsets(c: Consumer, topic: string): Promise<{ topic: string; partition: number; offset: bigint }[]> {
  const ends = await c.listOffsets({ topics: [topic] });
  return (ends.get(topic) ?? []).map((offset, partition) => ({ topic, partition, offset }));
}

/** Commits, per partition, the offset after the last message handled. */
async function commitHandled(c: Consumer, handled: Map<number, bigint>, topic: string): Promise<void> {
  if (!handled.size) return;
  await c.commit({ offsets: [...handled].map(([partition, offset]) => ({ topic, partition, offset: offset + 1n, leaderEpoch: -1 })) });
}

/** The group coordinator is not there yet (a new cluster creates its offsets topic on first use) or moving: worth asking again shortly. */
const COORDINATOR_MOVING = ['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS'];

async function deleteGroup(call: KafkaCall, groupId: string): Promise<void> {
  const admin = new Admin(base(call));
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await admin.deleteGroups({ groups: [groupId] });
      } catch (err) {
        if (apiIdOf(err, 'GROUP_ID_NOT_FOUND')) return;
        if (!apiIdOf(err, ...COORDINATOR_MOVING) || attempt >= 20 || call.signal.aborted) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  } finally {
    await admin.close().catch(() => {});
  }
}

/** A received record. */
export interface KafkaMessage extends KafkaRecord {
  topic: string;
  partition: number;
  offset: bigint;
}

const received = (m: Message): KafkaMessage => ({ topic: m.topic, partition: m.partition, offset: m.offset, value: m.value ?? Buffer.alloc(0), headers: textHeaders(m.headers), ...(m.key?.length ? { key: m.key.toString('utf8') } : {}) });

/** What the reader makes of a record: taken, skipped (the filter), taken as the last one, or not handled (stop before it). */
type Verdict = 'take' | 'skip' | 'last' | 'stop';

/**
 * Hands each record of `stream` to `onMessage` in order until it says `last` or `stop`, `until`
 * settles, or the stream fails. The offset of the last record handled (taken or skipped) per
 * partition is in `handled`: records of a partition come in order, and none is handled after a
 * record is not.
 */
function drain(stream: MessagesStream<Buffer, Buffer, Buffer, Buffer>, onMessage: (m: KafkaMessage) => Verdict, until: Promise<void>, handled: Map<number, bigint>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let over = false;
    const finish = (err?: unknown) => {
      if (over) return;
      over = true;
      stream.off('data', onData);
      stream.off('error', finish);
      if (err) reject(err);
      else resolve();
    };
    const onData = (m: Message) => {
      if (over) return; // not handled: not committed, read again by whoever reads next
      let verdict: Verdict;
      try {
        verdict = onMessage(received(m));
      } catch {
        return finish(); // the caller's error (kept by the caller): this record is not handled
      }
      if (verdict === 'stop') return finish();
      handled.set(m.partition, m.offset);
      if (verdict === 'last') finish();
    };
    stream.on('data', onData);
    stream.once('error', finish);
    until.then(() => finish(), finish);
  });
}

/**
 * Subscribes to `source` and hands every record to `onMessage` until it says `true` (done) or what
 * `done()` returns (called once subscribed) settles. From the end of every partition as it was
 * when it subscribed (its own group), or the group's committed offsets (the binding's, which it
 * commits to). `onMessage` must not throw.
 */
export function subscribe(call: KafkaCall, source: KafkaSource, onMessage: (m: KafkaMessage) => boolean, done: () => Promise<void>): Promise<void> {
  const c = consumer(call, source.groupId);
  let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  const handled = new Map<number, bigint>();
  return guarded(call, async () => {
    await stream?.close().catch(() => {});
    await c.close(true);
    if (source.own) await deleteGroup(call, source.groupId).catch(() => {});
  }, async () => {
    if (source.spec) await ensureTopic(call, source.topic, source.spec);
    if (source.own) {
      const offsets = await endOffsets(c, source.topic);
      stream = await c.consume({ topics: [source.topic], mode: 'manual', offsets, autocommit: false });
    } else {
      stream = await c.consume({ topics: [source.topic], mode: 'committed', fallbackMode: 'latest', autocommit: false });
    }
    await drain(stream, (m) => (onMessage(m) ? 'last' : 'take'), done(), handled);
    if (!source.own) await commitHandled(c, handled, source.topic);
  });
}

/** One step of a stepped subscription: see {@link subscribeStep}. */
export interface KafkaStep {
  first: boolean;
  max: number;
  windowMs: number;
  waitMs?: number;
}

/**
 * One step of a subscription consumed in steps: joins the subscription's group (the first step
 * of a group of its own: the group is reset and the end of every partition committed for it, the
 * moment it subscribed), reads from the committed offsets and takes the records `take` accepts
 * (up to `max`, those that arrive within `windowMs` of the first). Commits, per partition, only
 * up to the last record handled (taken, or refused by the filter): the others, and those that
 * arrive after the step, are read by the next step.
 */
export function subscribeStep(call: KafkaCall, source: KafkaSource, step: KafkaStep, take: (m: KafkaMessage) => boolean): Promise<KafkaMessage[]> {
  const c = consumer(call, source.groupId);
  let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  return guarded(call, async () => {
    await stream?.close().catch(() => {});
    await c.close(true);
  }, async () => {
    if (source.spec) await ensureTopic(call, source.topic, source.spec);
    if (source.own && step.first) {
      await deleteGroup(call, source.groupId);
      const admin = new Admin(base(call));
      try {
        const ends = await endOffsets(c, source.topic);
        await admin.alterConsumerGroupOffsets({ groupId: source.groupId, topics: [{ name: source.topic, partitionOffsets: ends.map(({ partition, offset }) => ({ partition, offset })) }] });
      } finally {
        await admin.close().catch(() => {});
      }
    }
    // A partition without a committed offset is one created after the subscription: all of it came since.
    stream = await c.consume({ topics: [source.topic], mode: 'committed', fallbackMode: source.own ? 'earliest' : 'latest', autocommit: false });
    const taken: KafkaMessage[] = [];
    const handled = new Map<number, bigint>();
    let finish!: () => void;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    let window: NodeJS.Timeout | undefined;
    let wait: NodeJS.Timeout | undefined;
    if (step.waitMs !== undefined) wait = setTimeout(finish, Math.max(0, step.waitMs));
    try {
      await drain(stream, (m) => {
        if (taken.length >= step.max) return 'stop';
        if (!take(m)) return 'skip';
        taken.push(m);
        if (taken.length >= step.max) return 'last';
        if (taken.length === 1) {
          clearTimeout(wait);
          window = setTimeout(finish, step.windowMs);
        }
        return 'take';
      }, ended, handled);
    } finally {
      clearTimeout(window);
      clearTimeout(wait);
    }
    await commitHandled(c, handled, source.topic);
    return taken;
  });
}

/** Ends a stepped subscription: its own group is deleted (a group the binding names is the application's, and stays). */
export function endSubscription(call: KafkaCall, source: KafkaSource): Promise<void> {
  return guarded(call, async () => {}, async () => {
    if (source.own) await deleteGroup(call, source.groupId);
  });
}

/** A client id for a call that the bindings do not name one for. */
export const callClientId = (): string => `swflow-asyncapi-${randomUUID().slice(0, 8)}`;
