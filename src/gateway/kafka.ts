/**
 * CloudEvents from Kafka topics, through the same checks and routing as the HTTP and MQTT
 * gateways (dispatch.ts), read per the CloudEvents Kafka protocol binding (../kafka/binding.ts:
 * binary mode with `ce_*` headers, or structured mode).
 *
 * A consumer group per gateway (`groupId`, default `swflow-gateway`): replicas of one gateway
 * share the topics' partitions. A new group starts at the earliest offset (events published
 * before the gateway first ran are not skipped); afterwards, at its committed offsets.
 *
 * At-least-once, nothing lost: a record's offset is committed only once Temporal took its event
 * (202), or once the record was written to the dead-letter topic. While Temporal is unreachable
 * (503/500) the record is retried with backoff and not committed, and nothing after it in that
 * partition is committed either (the highest contiguous handled offset is). Records of a
 * partition are handled one at a time, in order (or, with `keyConcurrency`, several of different
 * keys at once, each key's in order); partitions concurrently. A record delivered again (a gateway killed before its
 * commit, a rebalance) is recognised by its event's `source`+`id`: the instance's mailbox drops a
 * signal it already has, and an instance started by an event is started once (dispatch.ts).
 *
 * Dead letters: a record that is not a valid CloudEvent (400/415), that nothing awaits (404) or
 * that is refused (403) is written, with its key, value and headers, to the dead-letter topic
 * with `swflow_dlq_*` headers saying why, then committed; the consumer never stops on a bad
 * record. If that write fails, the record is not committed and the write is retried.
 *
 * A topic that does not exist is waited for, not an error: the gateway is up (HTTP serving),
 * not ready (`waitingForTopics()`, which /readyz names), and joins once the topic is created;
 * `createTopics` creates the topics (and their dead-letter topics) first. Only a cluster that
 * does not answer at all (unreachable, bad credentials) fails the start.
 *
 * Kafka has no per-record credentials: `swflowworkflowid` is refused unless `trusted` (the
 * cluster's ACLs decide who may write the topics), as for MQTT.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Consumer, Producer, type Message, type MessagesStream } from '@platformatic/kafka';
import type { CloudEventJson } from '../common/contracts';
import { EventProblem } from './cloudevents';
import { metrics } from '../metrics';
import { eventFromKafka, textHeaders } from '../kafka/binding';
import { SerialProducer } from '../kafka/producer';
import { clientSecurity, type KafkaSecurity } from '../kafka/connection';
import { createMissingTopics, missingTopics, topicRefusal, unknownTopicOf } from '../kafka/topics';
import { Dispatcher, isUnavailable, retryWhileUnavailable, type DispatcherOptions, type EventResult } from './dispatch';

export const DEFAULT_KAFKA_GROUP = 'swflow-gateway';
/** The dead-letter topic of a source topic when none is named. */
export const deadLetterTopicOf = (topic: string): string => `${topic}.swflow-dlq`;

export interface KafkaInboundOptions extends DispatcherOptions {
  /** Bootstrap brokers, `host:port`. */
  brokers: string[];
  /** Topics to consume. */
  topics: string[];
  /** The consumer group. Default `swflow-gateway`. */
  groupId?: string;
  /** Default `swflow-gateway`. */
  clientId?: string;
  /** Where records that cannot be delivered go. Default: `<topic>.swflow-dlq` per source topic. */
  deadLetterTopic?: string;
  /** Let events address instances directly (`swflowworkflowid`). Default false. */
  trusted?: boolean;
  /** Create the topics, and their dead-letter topics, that do not exist (brokers' default partitions and replication). Default false. */
  createTopics?: boolean;
  /** SASL and TLS (kafkaSecurityFromEnv()). */
  security?: KafkaSecurity;
  /** First retry delay while Temporal is unreachable or the dead-letter write fails (doubles up to 30 s). Default 1 s. */
  retryDelayMs?: number;
  /** The group's session timeout: how soon the partitions of a replica that died go to the others. Default 30 s. */
  sessionTimeoutMs?: number;
  /** How often the lag gauge is updated. Default 5 s. */
  lagIntervalMs?: number;
  /**
   * Records of one partition handled at once, never two of the same key (the order of a key's
   * records is kept; offsets are still committed in order). Default 1: one at a time, in
   * partition order.
   */
  keyConcurrency?: number;
  /** Records fetched but not yet handled, across partitions, before fetching pauses. Default 1,000. */
  maxBuffered?: number;
  log?: (msg: string) => void;
  /** One structured entry per record. */
  accessLog?: (entry: KafkaLogEntry) => void;
}

export interface KafkaLogEntry {
  time: string;
  topic: string;
  partition: number;
  offset: string;
  status: number;
  ms: number;
  bytesIn: number;
  id?: string;
  type?: string;
  workflowIds?: string[];
  attempts?: number;
  /** The dead-letter topic the record was written to. */
  deadLetter?: string;
  error?: string;
}

export interface KafkaInbound {
  consumer: Consumer;
  /** True once the consumer joined its group (the gateway's /readyz waits for it). */
  joined(): boolean;
  /** The topics that do not exist, while the consumer waits for them to be created (empty otherwise). */
  waitingForTopics(): string[];
  /** Stops fetching; records being handled finish (and are committed) first; leaves the group. */
  close(): Promise<void>;
}

/** How often the cluster is asked whether a missing topic was created. */
const TOPIC_CHECK_MS = 5_000;

/** How long a gateway starting keeps trying to join its group while the cluster answers (a broker down, a coordinator moving). */
const START_JOIN_MS = 120_000;

/** Closes a client without waiting on brokers or a group it may no longer reach. */
const closeForcibly = (c: { close(force?: boolean): Promise<void> }): Promise<void> => c.close(true).catch(() => undefined);

/** Header names of a dead letter. */
export const DLQ_HEADERS = { reason: 'swflow_dlq_reason', status: 'swflow_dlq_status', topic: 'swflow_dlq_topic', partition: 'swflow_dlq_partition', offset: 'swflow_dlq_offset' } as const;

/** The `kafkaDeadLettered` reason of a refusal status. */
function reasonOf(status: number): 'invalid' | 'unrouted' | 'refused' {
  return status === 404 ? 'unrouted' : status === 403 ? 'refused' : 'invalid';
}

/** A record taken from a partition, until it is committed. */
interface Taken {
  m: Message;
  /** The record key as text ('' for none): records of one key are handled in order. */
  key: string;
  started: boolean;
  done: boolean;
}

/** One partition's records in offset order, from the first not yet handled; `handled` is the last one done and not yet committed. */
interface PartitionState {
  topic: string;
  partition: number;
  taken: Taken[];
  /** Records being handled. */
  inFlight: Set<Promise<void>>;
  /** Keys with a record being handled. */
  busyKeys: Set<string>;
  /** The offset after the last record taken: a record below it (fetched again after a rebalance) is already taken or handled. */
  next: bigint;
  handled?: Message;
  committing?: Promise<void>;
}

export async function startKafkaInbound(opts: KafkaInboundOptions): Promise<KafkaInbound> {
  const log = opts.log ?? (() => {});
  const dispatcher = new Dispatcher(opts);
  const clientId = opts.clientId ?? 'swflow-gateway';
  const security = clientSecurity(opts.security ?? {});
  const retryDelay = opts.retryDelayMs ?? 1_000;
  const maxBuffered = opts.maxBuffered ?? 1_000;
  const sessionTimeout = opts.sessionTimeoutMs ?? 30_000;
  const keyConcurrency = Math.max(1, opts.keyConcurrency ?? 1);
  const stopping = new AbortController();
  let closing = false;
  let joined = false;
  let missing: string[] = [];
  let buffered = 0;
  const partitions = new Map<string, PartitionState>();

  // A fresh client per join attempt: the client caches its group coordinator for good, so one
  // whose coordinator broker died never joins again (it then fails with "reading 'host'" or hangs).
  const newConsumer = (): Consumer => {
    const c = new Consumer({
      groupId: opts.groupId ?? DEFAULT_KAFKA_GROUP,
      clientId,
      bootstrapBrokers: opts.brokers,
      autocommit: false,
      sessionTimeout,
      rebalanceTimeout: sessionTimeout,
      heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeout / 3)),
      maxWaitTime: 1_000,
      retries: 5,
      ...security,
    });
    c.on('consumer:group:rebalance', () => log(`Kafka: the group ${c.groupId} rebalances`));
    return c;
  };
  let consumer = newConsumer();
  /** How long one join attempt may take before its client is dropped and a fresh one tries. */
  const joinDeadline = Math.max(30_000, 2 * sessionTimeout + 10_000);
  // The dead-letter writer: idempotent (acks from every in-sync replica), so a retried write is not doubled.
  // Dead letters of several partitions may be written at once: SerialProducer keeps one send in
  // flight (the client loses concurrent idempotent sends, ../kafka/producer.ts).
  const producer = new SerialProducer(() => new Producer({ clientId: `${clientId}-dlq`, bootstrapBrokers: opts.brokers, idempotent: true, acks: -1, autocreateTopics: true, retries: 5, ...security }));

  const wait = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => undefined);

  /** Delivers one record's event; resolves with its result (retried while Temporal is unreachable, unless closing). */
  async function deliver(m: Message, event: CloudEventJson, carrier: { traceparent?: string; tracestate?: string }, entry: KafkaLogEntry): Promise<EventResult> {
    const attempt = async (): Promise<EventResult> => {
      try {
        const plan = dispatcher.plan(event, await opts.definitions(), opts.trusted === true);
        return plan.ok ? await dispatcher.deliver(plan, carrier) : plan.result;
      } catch (err) {
        return { id: event.id, type: event.type, status: isUnavailable(err) ? 503 : 500, error: (err as Error).message };
      }
    };
    const { result, attempts } = await retryWhileUnavailable(attempt, {
      firstDelayMs: retryDelay,
      signal: stopping.signal,
      stopped: () => closing,
      onRetry: (r, delay) => log(`Kafka ${m.topic}[${m.partition}]@${m.offset}: event ${event.type} ${event.id}: ${r.error}; retrying in ${delay} ms (not committed)`),
    });
    entry.attempts = attempts;
    return result;
  }

  /** Writes a record that cannot be delivered to the dead-letter topic; retried until written (or closing: false). */
  async function deadLetter(m: Message, result: EventResult, entry: KafkaLogEntry): Promise<boolean> {
    const topic = opts.deadLetterTopic ?? deadLetterTopicOf(m.topic);
    const headers = new Map<Buffer, Buffer>(m.headers as Map<Buffer, Buffer>);
    const add = (k: string, v: string) => headers.set(Buffer.from(k), Buffer.from(v, 'utf8'));
    add(DLQ_HEADERS.reason, (result.error ?? `status ${result.status}`).slice(0, 1_000));
    add(DLQ_HEADERS.status, String(result.status));
    add(DLQ_HEADERS.topic, m.topic);
    add(DLQ_HEADERS.partition, String(m.partition));
    add(DLQ_HEADERS.offset, String(m.offset));
    let delay = retryDelay;
    for (;;) {
      try {
        await producer.send({ topic, ...(m.key ? { key: m.key as Buffer } : {}), ...(m.value ? { value: m.value as Buffer } : {}), headers });
        entry.deadLetter = topic;
        metrics()?.kafkaDeadLettered.inc({ topic: m.topic, reason: reasonOf(result.status) });
        return true;
      } catch (err) {
        if (closing) return false;
        log(`Kafka ${m.topic}[${m.partition}]@${m.offset}: writing the dead letter to ${topic} failed: ${topicRefusal(err, topic, opts.brokers) ?? (err as Error).message}; retrying in ${delay} ms (not committed)`);
        await wait(delay);
        delay = Math.min(delay * 2, 30_000);
      }
    }
  }

  /** Handles one record; resolves true when its offset may be committed. */
  async function handle(m: Message): Promise<boolean> {
    const started = Date.now();
    const value = m.value as Buffer | undefined;
    const entry: KafkaLogEntry = { time: new Date(started).toISOString(), topic: m.topic, partition: m.partition, offset: String(m.offset), status: 0, ms: 0, bytesIn: value?.length ?? 0 };
    const headers = textHeaders(m.headers as Map<Buffer, Buffer>);
    let result: EventResult;
    try {
      const event = eventFromKafka({ key: m.key as Buffer | undefined, value, headers });
      entry.id = event.id;
      entry.type = event.type;
      result = await deliver(m, event, { traceparent: headers.get('traceparent'), tracestate: headers.get('tracestate') }, entry);
    } catch (err) {
      result = { status: (err instanceof EventProblem ? err.status : 400) as EventResult['status'], error: (err as Error).message };
    }
    let done = result.status === 202;
    if (result.status !== 202 && result.status !== 503 && result.status !== 500) done = await deadLetter(m, result, entry);
    Object.assign(entry, { status: result.status, ms: Date.now() - started });
    if (entry.attempts === 1) delete entry.attempts;
    if (result.delivered?.length) entry.workflowIds = result.delivered.map((d) => d.workflowId).slice(0, 10);
    if (result.error) entry.error = result.error.slice(0, 300);
    opts.accessLog?.(entry);
    if (done) {
      const m8 = metrics();
      m8?.kafkaConsumed.inc({ topic: m.topic, outcome: result.status === 202 ? 'accepted' : 'dead-lettered' });
      m8?.gatewayEvents.inc({ transport: 'kafka', outcome: result.status === 202 ? 'accepted' : 'rejected', status: String(result.status) });
      for (const d of result.delivered ?? []) log(`Kafka ${m.topic}: event ${entry.type} ${entry.id} → ${d.workflowId}${d.started ? ' (started)' : ''}${d.duplicate ? ' (already delivered)' : ''}`);
      if (result.status !== 202) log(`Kafka ${m.topic}[${m.partition}]@${m.offset}: dead-lettered to ${entry.deadLetter}: ${result.error}`);
    }
    return done;
  }

  /** Commits the partition's last handled record (one commit at a time per partition; a failure is retried by the next one or at close). */
  function commit(p: PartitionState): Promise<void> {
    if (p.committing || !p.handled) return p.committing ?? Promise.resolve();
    const m = p.handled;
    p.committing = Promise.resolve(m.commit())
      .then(
        () => {
          if (p.handled === m) p.handled = undefined;
        },
        (err) => log(`Kafka ${p.topic}[${p.partition}]: committing offset ${m.offset + 1n} failed (it is committed with a later record, or delivered again): ${(err as Error).message}`),
      )
      .finally(() => {
        p.committing = undefined;
        if (p.handled && p.handled !== m && !closing) void commit(p);
      });
    return p.committing;
  }

  /** Starts the partition's records that may go now: up to `keyConcurrency`, none whose key has an earlier record waiting or in flight. */
  function pump(p: PartitionState): void {
    if (closing) return;
    const blocked = new Set(p.busyKeys);
    for (const t of p.taken) {
      if (p.inFlight.size >= keyConcurrency) return;
      if (t.done || t.started) continue;
      if (blocked.has(t.key)) continue;
      blocked.add(t.key);
      t.started = true;
      p.busyKeys.add(t.key);
      const run: Promise<void> = handle(t.m)
        .catch((err: Error) => {
          log(`Kafka ${t.m.topic}[${t.m.partition}]@${t.m.offset}: ${err.stack ?? err}; trying it again (not committed)`);
          return 'again' as const;
        })
        .then(async (done) => {
          p.inFlight.delete(run);
          p.busyKeys.delete(t.key);
          if (done === 'again') {
            t.started = false;
            await wait(retryDelay);
            return pump(p);
          }
          if (!done) return; // closing: neither this record nor the ones after it are committed
          t.done = true;
          buffered--;
          // The highest contiguous record handled is committed.
          while (p.taken.length && p.taken[0].done) p.handled = p.taken.shift()!.m;
          void commit(p);
          if (buffered < maxBuffered / 2 && stream?.isPaused()) stream.resume();
          pump(p);
        });
      p.inFlight.add(run);
      if (keyConcurrency === 1) return;
    }
  }

  function take(m: Message): void {
    const id = `${m.topic}:${m.partition}`;
    let p = partitions.get(id);
    if (!p) partitions.set(id, (p = { topic: m.topic, partition: m.partition, taken: [], inFlight: new Set(), busyKeys: new Set(), next: -1n }));
    if (m.offset < p.next) return; // fetched again (a rebalance rewound to the committed offset): already taken or handled
    p.next = m.offset + 1n;
    p.taken.push({ m, key: m.key ? (m.key as Buffer).toString('latin1') : '', started: false, done: false });
    buffered++;
    if (buffered >= maxBuffered) stream?.pause();
    pump(p);
  }

  let stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  /** Whether some broker answers a metadata request (the cluster is there and takes our credentials, whatever else fails). */
  const clusterAnswers = () => consumer.metadata({ topics: [] }).then(
    () => true,
    () => false,
  );
  /** One join attempt of the current client, bounded by `joinDeadline` (a late stream is closed). */
  async function joinOnce(): Promise<MessagesStream<Buffer, Buffer, Buffer, Buffer>> {
    const attempt = consumer.consume({ topics: opts.topics, mode: 'committed', fallbackMode: 'earliest', autocommit: false, sessionTimeout, rebalanceTimeout: sessionTimeout, maxWaitTime: 1_000 });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`joining the group took over ${joinDeadline} ms`)), joinDeadline)));
    try {
      return await Promise.race([attempt, late]);
    } catch (err) {
      attempt.then((s) => (s.close() as Promise<void>).catch(() => undefined), () => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }
  /**
   * Drops the current client (without waiting on a group it may no longer reach) for a fresh one.
   * Records it fetched and still being handled commit through it and fail: they are committed
   * with a later record of their partition, or delivered again and recognised.
   */
  async function replaceConsumer(): Promise<void> {
    const old = consumer;
    consumer = newConsumer();
    await closeForcibly(old);
  }
  /**
   * While some of the topics do not exist: says so once, then asks every few seconds (no join
   * attempts meanwhile); resolves once they all exist, or at close.
   */
  async function awaitTopics(absent: string[], onWaiting?: () => void): Promise<void> {
    missing = absent;
    log(`Kafka: topic${absent.length > 1 ? 's' : ''} ${absent.join(', ')} ${absent.length > 1 ? 'do' : 'does'} not exist on ${opts.brokers.join(',')}; waiting for ${absent.length > 1 ? 'them' : 'it'} to be created (checking every ${TOPIC_CHECK_MS / 1000} s; --kafka-create-topics creates topics)`);
    onWaiting?.();
    for (let next = Math.min(retryDelay, TOPIC_CHECK_MS); !closing && missing.length; next = TOPIC_CHECK_MS) {
      await wait(next);
      if (closing) return;
      try {
        missing = await missingTopics(consumer, opts.topics);
      } catch {
        // The cluster away meanwhile: asked again; the join attempt that follows says what fails.
      }
    }
    if (!closing) log(`Kafka: ${absent.join(', ')} ${absent.length > 1 ? 'exist' : 'exists'} now; joining the group`);
  }
  /**
   * Opens the stream (joining the group); after an error (a broker gone, a group error) it is
   * opened again: the consumer never stops. With `onWaiting` (the start): rejects when the cluster
   * does not answer; calls it when topics are missing, and goes on waiting for them.
   */
  async function open(onWaiting?: () => void): Promise<void> {
    let first = onWaiting !== undefined;
    const openedAt = Date.now();
    for (let delay = retryDelay; ; delay = Math.min(delay * 2, 30_000)) {
      try {
        const s = await joinOnce();
        stream = s;
        joined = true;
        missing = [];
        s.on('data', take);
        s.on('error', (err: Error) => {
          if (closing || stream !== s) return;
          log(`Kafka: consuming ${opts.topics.join(', ')} failed: ${err.message}; consuming again`);
          void reopen(s);
        });
        log(`Kafka: consuming ${opts.topics.join(', ')} as group ${consumer.groupId} from ${opts.brokers.join(',')}`);
        return;
      } catch (err) {
        if (closing) throw err;
        // A topic that does not exist is waited for (the process stays up, not ready), at start too.
        const absent = unknownTopicOf(err) !== undefined ? await missingTopics(consumer, opts.topics).catch(() => []) : [];
        if (absent.length) {
          await replaceConsumer();
          await awaitTopics(absent, first ? onWaiting : undefined);
          if (closing) throw err;
          first = false;
          delay = retryDelay / 2; // the next failure waits the first delay again
          continue;
        }
        // At start, a cluster nobody answers for is a setting to fix (the process says so and
        // exits); a cluster that answers but cannot take the join yet (a broker down, its group
        // coordinator moving) is waited for, not ready meanwhile, for up to START_JOIN_MS.
        if (first && (Date.now() - openedAt > START_JOIN_MS || !(await clusterAnswers()))) throw err;
        log(`Kafka: cannot consume ${opts.topics.join(', ')}: ${(err as Error).message}; retrying in ${delay} ms`);
        await replaceConsumer();
        await wait(delay);
      }
    }
  }
  async function reopen(old: MessagesStream<Buffer, Buffer, Buffer, Buffer>): Promise<void> {
    stream = undefined;
    joined = false;
    await old.close().catch(() => undefined);
    await replaceConsumer();
    await wait(retryDelay);
    if (!closing) await open().catch(() => undefined);
  }

  try {
    if (opts.createTopics) {
      const wanted = [...opts.topics, ...(opts.deadLetterTopic ? [opts.deadLetterTopic] : opts.topics.map(deadLetterTopicOf))];
      try {
        const created = await createMissingTopics({ brokers: opts.brokers, topics: wanted, security: opts.security, clientId: `${clientId}-admin` });
        if (created.length) log(`Kafka: created topic${created.length > 1 ? 's' : ''} ${created.join(', ')} (the brokers' default partitions and replication)`);
      } catch (err) {
        // A cluster that answers but refuses (no CREATE permission): the topics are waited for, as without the option.
        if (!(await clusterAnswers())) throw err;
        log(`Kafka: creating topics ${wanted.join(', ')} failed: ${(err as Error).message}`);
      }
    }
    // Resolves once joined, or once it is known the topics are missing (joining then goes on in the background).
    await new Promise<void>((resolve, reject) => open(resolve).then(resolve, reject));
  } catch (err) {
    await Promise.all([closeForcibly(consumer), producer.close()]);
    throw new Error(`Kafka (brokers ${opts.brokers.join(',')}, topics ${opts.topics.join(', ')}): cannot consume: ${(err as Error).message}`);
  }

  // The lag gauge: each assigned partition's high watermark minus the group's committed offset.
  const lagTimer = setInterval(() => {
    if (closing) return;
    consumer.getLag({ topics: opts.topics }).then(
      (lag) => {
        const gauge = metrics()?.kafkaLag;
        for (const [topic, perPartition] of lag) perPartition.forEach((l, partition) => l >= 0n && gauge?.set({ topic, partition: String(partition) }, Number(l)));
      },
      () => undefined,
    );
  }, opts.lagIntervalMs ?? 5_000);
  lagTimer.unref();

  return {
    get consumer() {
      return consumer;
    },
    joined: () => joined && !closing,
    waitingForTopics: () => (joined || closing ? [] : [...missing]),
    async close() {
      closing = true;
      clearInterval(lagTimer);
      stream?.pause();
      stopping.abort();
      await Promise.all([...partitions.values()].flatMap((p) => [...p.inFlight]));
      await Promise.all([...partitions.values()].map((p) => p.committing));
      await Promise.all([...partitions.values()].map((p) => (p.handled ? Promise.resolve(p.handled.commit()).catch(() => undefined) : undefined)));
      await stream?.close().catch(() => undefined);
      await consumer.close().catch((err: Error) => log(`Kafka: leaving the group: ${err.message}`));
      await producer.close().catch(() => undefined);
    },
  };
}
