/**
 * Topics that are not there yet: how swflow's Kafka clients tell "the topic does not exist" from
 * "the cluster cannot be reached", which topics are missing, and creating them when asked.
 *
 * @platformatic/kafka (2.12) turns a metadata answer of UNKNOWN_TOPIC_OR_PARTITION (code 3) into
 * `UserError("Unknown topic <name>.")`, for a consumer joining and a producer sending alike; a
 * producer with `autocreateTopics` asks the broker to create the topic, and a broker with
 * `auto.create.topics.enable=false` answers code 3 all the same.
 */
import { clientSecurity, type KafkaSecurity } from './connection';

/** Every error of a chain (the client nests the broker's answers in `errors` and `cause`). */
function* chain(err: unknown, depth = 0): Generator<{ message?: string; apiCode?: number }> {
  if (!err || typeof err !== 'object' || depth > 5) return;
  yield err as { message?: string; apiCode?: number };
  for (const inner of (err as { errors?: unknown[] }).errors ?? []) yield* chain(inner, depth + 1);
  yield* chain((err as { cause?: unknown }).cause, depth + 1);
}

/**
 * The topic an error says does not exist; undefined for any other error. Only the metadata
 * answer counts: a produce or fetch answering UNKNOWN_TOPIC_OR_PARTITION is also what a partition
 * whose leader moves says for a moment.
 */
export function unknownTopicOf(err: unknown): string | undefined {
  for (const e of chain(err)) {
    const m = /^Unknown topic (.+)\.$/.exec(e.message ?? '');
    if (m) return m[1];
  }
  return undefined;
}

/** The words of a producer's failure when the topic does not exist (the broker refused to create it); undefined for other errors. */
export function topicRefusal(err: unknown, topic: string, brokers: string[]): string | undefined {
  if (unknownTopicOf(err) === undefined) return undefined;
  return `topic ${topic} does not exist on ${brokers.join(',')} and the broker does not create topics: create it (kafka-topics.sh --create --topic ${topic}, or swflow's gateway with --kafka-create-topics) or set auto.create.topics.enable=true on the brokers`;
}

/** Anything with the client's metadata call (a Consumer, a Producer, an Admin). */
interface MetadataClient {
  metadata(options: { topics: string[]; forceUpdate?: boolean; autocreateTopics?: boolean }): Promise<unknown>;
}

/** The topics of `topics` the cluster does not have (fresh metadata, never creating them); other errors (the cluster unreachable) are thrown. */
export async function missingTopics(client: MetadataClient, topics: string[]): Promise<string[]> {
  const missing: string[] = [];
  // One topic per request: the client reports only the first unknown topic of a request.
  for (const topic of topics) {
    try {
      await client.metadata({ topics: [topic], forceUpdate: true, autocreateTopics: false });
    } catch (err) {
      if (unknownTopicOf(err) === undefined) throw err;
      missing.push(topic);
    }
  }
  return missing;
}

/**
 * Creates the topics that do not exist, with the brokers' defaults (num.partitions,
 * default.replication.factor: the CreateTopics request's -1); a topic that exists is left as it
 * is. Resolves with the topics it created.
 */
export async function createMissingTopics(opts: { brokers: string[]; topics: string[]; security?: KafkaSecurity; clientId?: string }): Promise<string[]> {
  // Loaded here: the event sink imports this file, and processes without Kafka do not load the client.
  const { Admin } = require('@platformatic/kafka') as typeof import('@platformatic/kafka');
  const admin = new Admin({ clientId: opts.clientId ?? 'swflow-admin', bootstrapBrokers: opts.brokers, retries: 3, ...clientSecurity(opts.security ?? {}) });
  const created: string[] = [];
  try {
    // One topic per request, so one that exists (TOPIC_ALREADY_EXISTS, 36) is told apart from one that failed.
    for (const topic of [...new Set(opts.topics)]) {
      try {
        await admin.createTopics({ topics: [topic] });
        created.push(topic);
      } catch (err) {
        if (![...chain(err)].some((e) => e.apiCode === 36 || /already exists/.test(e.message ?? ''))) throw err;
      }
    }
  } finally {
    await admin.close().catch(() => undefined);
  }
  return created;
}
