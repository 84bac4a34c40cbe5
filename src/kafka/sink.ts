/**
 * The Kafka event sink: produced and lifecycle CloudEvents written to a topic, per the CloudEvents
 * Kafka protocol binding (./binding.ts), for shops whose events live in Kafka.
 *
 *   kafka://host:port[,host:port]/<topic>[?mode=binary|structured]
 *
 * - Mode: binary by default — what Knative's KafkaSink writes, the value is the event's data
 *   itself (a consumer that knows nothing of CloudEvents still reads the payload) and attributes
 *   are `ce_*` headers a router reads without parsing the value; `structured` puts the whole
 *   event's JSON in the value.
 * - Key: the event's `partitionkey`, else the producing run's workflow id, so one run's events
 *   land in one partition, in the order the run produced them.
 * - One idempotent producer (acks all) per sink per process, created on the first event, closed by
 *   close() when the worker stops; one send in flight at a time (./producer.ts says why). A write that fails throws, so the producing activity fails and
 *   Temporal retries it (the httpSink contract, ../gateway/sink.ts); a retried activity may write
 *   a record twice (at-least-once): consumers dedupe by the event's `source`+`id`.
 * - SASL and TLS come from the environment (./connection.ts kafkaSecurityFromEnv); credentials
 *   in the URL (`kafka://user:password@…`) are taken too but never shown: messages name the sink
 *   by its redacted URL.
 */
import type { CloudEventJson } from '../common/contracts';
import { metrics } from '../metrics';
import type { EventSink, ProducedBy } from '../worker/activities/interpreter';
import { recordFromEvent, type KafkaMode } from './binding';
import { SerialProducer } from './producer';
import { clientSecurity, KAFKA_TOPIC, kafkaSecurityFromEnv, parseBrokers, type KafkaSecurity } from './connection';
import { topicRefusal } from './topics';

export const DEFAULT_SINK_MODE: KafkaMode = 'binary';

/** A parsed `kafka://` sink URL. */
export interface KafkaSinkTarget {
  brokers: string[];
  topic: string;
  mode: KafkaMode;
  /** The URL with any credentials replaced by `***` (for messages and banners). */
  redacted: string;
  /** `user:password@` of the URL, if any (SASL credentials; the mechanism from the environment, else PLAIN). */
  credentials?: { username: string; password: string };
}


/** A `kafka://` URL with `user:password@` hidden. */
export function redactKafkaUrl(url: string): string {
  return url.replace(/^(kafka:\/\/)[^@/]*@/i, '$1***@');
}

/** Parses a sink URL; `what` names where it came from (a flag, a variable) in the error. */
export function parseKafkaSinkUrl(url: string, what = '--event-sink'): KafkaSinkTarget {
  const redacted = redactKafkaUrl(url);
  const bad = (why: string) => new Error(`${what}: ${redacted} is not a Kafka sink (kafka://host:port[,host:port]/<topic>[?mode=binary|structured]): ${why}`);
  const m = /^kafka:\/\/(?:([^@/]*)@)?([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?$/i.exec(url.trim());
  if (!m) throw bad('malformed URL');
  const [, userinfo, hosts, rawTopic, query] = m;
  if (!hosts) throw bad('no broker');
  let brokers: string[];
  try {
    brokers = parseBrokers(hosts, `${what} ${redacted}`);
  } catch (err) {
    throw new Error(`${(err as Error).message} (kafka://host:port[,host:port]/<topic>)`);
  }
  const topic = decodeURIComponent(rawTopic ?? '');
  if (!topic) throw bad('no topic (the path names it)');
  if (!KAFKA_TOPIC.test(topic)) throw bad(`topic '${topic}' is not a Kafka topic name (1 to 249 of a-z A-Z 0-9 . _ -)`);
  let mode: KafkaMode = DEFAULT_SINK_MODE;
  for (const [name, value] of new URLSearchParams(query ?? '')) {
    if (name !== 'mode') throw bad(`unknown parameter '${name}' (only mode=binary|structured)`);
    if (value !== 'binary' && value !== 'structured') throw bad(`mode must be binary or structured (got '${value}')`);
    mode = value;
  }
  let credentials: KafkaSinkTarget['credentials'];
  if (userinfo !== undefined) {
    const i = userinfo.indexOf(':');
    if (i <= 0) throw bad('credentials must be user:password@ (better: SWFLOW_KAFKA_USERNAME / SWFLOW_KAFKA_PASSWORD)');
    credentials = { username: decodeURIComponent(userinfo.slice(0, i)), password: decodeURIComponent(userinfo.slice(i + 1)) };
  }
  return { brokers, topic, mode, redacted, ...(credentials ? { credentials } : {}) };
}

/** The sink's security: the environment's, with the URL's credentials (mechanism from SWFLOW_KAFKA_SASL_MECHANISM, else PLAIN). */
function sinkSecurity(target: KafkaSinkTarget, env: NodeJS.ProcessEnv): KafkaSecurity {
  if (!target.credentials) return kafkaSecurityFromEnv(env);
  return kafkaSecurityFromEnv({ ...env, SWFLOW_KAFKA_SASL_MECHANISM: env.SWFLOW_KAFKA_SASL_MECHANISM || 'PLAIN', SWFLOW_KAFKA_USERNAME: target.credentials.username, SWFLOW_KAFKA_PASSWORD: target.credentials.password });
}

/** A Kafka sink and how to close its producer. */
export interface KafkaSink {
  send: EventSink;
  close(): Promise<void>;
  target: KafkaSinkTarget;
}

/** The sink of a `kafka://` URL (checked now, connected on the first event). */
export function kafkaSink(url: string, opts: { what?: string; env?: NodeJS.ProcessEnv; clientId?: string } = {}): KafkaSink {
  const target = parseKafkaSinkUrl(url, opts.what);
  // Checked now (a mechanism without credentials is an error before the worker starts), used later.
  const security = sinkSecurity(target, opts.env ?? process.env);
  // Loaded on first use: processes without a Kafka sink do not pay for the client.
  const producer = new SerialProducer(() => {
    const { Producer: KafkaProducer } = require('@platformatic/kafka') as typeof import('@platformatic/kafka');
    return new KafkaProducer({
      clientId: opts.clientId ?? 'swflow-event-sink',
      bootstrapBrokers: target.brokers,
      ...clientSecurity(security),
      // Idempotent (acks all, one request in flight per connection): the client's own retries
      // neither duplicate nor reorder records. Bounded, so a broker that stays away fails the
      // write in seconds and the activity's retry (with backoff) takes over.
      idempotent: true,
      acks: -1,
      retries: 5,
      retryDelay: 1000,
      timeout: 5000,
      // A broker that creates topics on first use does so for the sink's topic; one that does
      // not refuses, and the error says so (topicRefusal).
      autocreateTopics: true,
    });
  });

  const send: EventSink = async (event: CloudEventJson, producedBy?: ProducedBy) => {
    const record = recordFromEvent(event, target.mode, producedBy?.workflowId);
    const headers = new Map<Buffer, Buffer>();
    for (const [k, v] of record.headers) headers.set(Buffer.from(k, 'utf8'), Buffer.from(v, 'utf8'));
    try {
      await producer.send({ topic: target.topic, ...(record.key ? { key: record.key } : {}), ...(record.value ? { value: record.value } : {}), headers });
    } catch (err) {
      metrics()?.eventsProduced.inc({ sink: 'kafka', outcome: 'error' });
      throw new Error(`event sink ${target.redacted} could not write event ${event.type} (${event.id}) to topic ${target.topic}: ${topicRefusal(err, target.topic, target.brokers) ?? describe(err)}`);
    }
    metrics()?.eventsProduced.inc({ sink: 'kafka', outcome: 'ok' });
  };

  return { send, target, close: () => producer.close() };
}

/** An error and its causes in one line (the client wraps the broker's answer in `errors` / `cause`). */
function describe(err: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const walk = (e: unknown, depth: number) => {
    if (!e || seen.has(e) || depth > 4) return;
    seen.add(e);
    const msg = (e as Error).message;
    if (msg && !parts.includes(msg)) parts.push(msg);
    for (const inner of ((e as { errors?: unknown[] }).errors ?? []).slice(0, 3)) walk(inner, depth + 1);
    walk((e as { cause?: unknown }).cause, depth + 1);
  };
  walk(err, 0);
  return parts.join(': ').slice(0, 600) || String(err);
}
