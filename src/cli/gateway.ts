/**
 * `swflow gateway`: runs the event gateway alone against a Temporal server (TEMPORAL_ADDRESS,
 * default localhost:7233), routing by the definitions of `--definitions`: CloudEvents over HTTP,
 * from MQTT topics with `--mqtt`, and from Kafka topics with `--kafka-brokers`. Run as many as you like behind a load balancer: routing
 * needs no shared state. SIGTERM/SIGINT stop it gracefully (in-flight deliveries finish).
 *
 * The options shared with `swflow start` (`addGatewayOptions`, `gatewaySettings`) live here.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, unreachable, workerTarget } from '../client/connection';
import { DefinitionRegistry, requireDefinitionPaths, requireSomeDefinition } from '../definitions/registry';
import { admissionBounds, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_QUEUE_WAIT_MS, DEFAULT_MAX_QUEUED } from '../gateway/admission';
import { DEFAULT_MAX_BODY_BYTES, GATEWAY_PORT, startGateway, type Gateway, type GatewayOptions } from '../gateway/server';
import { startMqttInbound, type MqttInbound } from '../gateway/mqtt';
import { DEFAULT_KAFKA_GROUP, startKafkaInbound, type KafkaInbound, type KafkaInboundOptions } from '../gateway/kafka';
import { KAFKA_TOPIC, kafkaSecurityFromEnv, parseBrokers } from '../kafka/connection';
import { PROJECT_ROOT } from '../platform/paths';
import { dataConverterOptions } from '../codec';
import { serveMetricsIf } from '../metrics';
import { clientInterceptors } from '../tracing';

/** The gateway options of `swflow gateway` and `swflow start` (commander camel-cases them). */
export interface GatewayCliOptions {
  token?: string;
  hmacSecret?: string;
  allowAnonymous?: boolean;
  maxBody: string;
  bodyTimeout: string;
  temporalTimeout: string;
  maxInFlight?: string;
  maxQueued?: string;
  maxQueueWait?: string;
  accessLog: boolean;
  mqtt?: string;
  mqttTopic?: string[];
  mqttClientId?: string;
  mqttProtocol: string;
  mqttTrusted?: boolean;
  kafkaBrokers?: string;
  kafkaTopics?: string[];
  kafkaGroup?: string;
  kafkaDeadLetterTopic?: string;
  kafkaTrusted?: boolean;
  kafkaSessionTimeout?: string;
  kafkaKeyConcurrency?: string;
  kafkaCreateTopics?: boolean;
}

/** The Kafka inbound's settings from the flags and the environment. */
export type KafkaSettings = Pick<KafkaInboundOptions, 'brokers' | 'topics' | 'groupId' | 'deadLetterTopic' | 'trusted' | 'sessionTimeoutMs' | 'keyConcurrency' | 'security' | 'createTopics'>;


/** Adds the gateway's hardening, MQTT and Kafka options to a command. */
export function addGatewayOptions(cmd: Command): Command {
  return cmd
    .option('--token <token>', 'bearer token senders must present (default $SWFLOW_GATEWAY_TOKEN; prefer the variable: flags show in ps)')
    .option('--hmac-secret <secret>', 'accept bodies signed with HMAC-SHA256 in X-Swflow-Signature (default $SWFLOW_GATEWAY_HMAC_SECRET)')
    .option('--allow-anonymous', 'with credentials set, still accept events without them (routed by the definitions; never swflowworkflowid)')
    .option('--max-body <bytes>', 'largest request body (413 above)', process.env.SWFLOW_GATEWAY_MAX_BODY ?? String(DEFAULT_MAX_BODY_BYTES))
    .option('--body-timeout <ms>', 'time a request body may take to arrive (408 after)', '10000')
    .option('--temporal-timeout <ms>', 'time Temporal may take to take an event, counted from its turn, before the answer is 503', '5000')
    .option('--max-in-flight <n>', `HTTP requests delivering to Temporal at once (default $SWFLOW_GATEWAY_MAX_IN_FLIGHT or ${DEFAULT_MAX_IN_FLIGHT})`)
    .option('--max-queued <n>', `HTTP requests waiting for a turn; beyond, 503 with Retry-After at once (default $SWFLOW_GATEWAY_MAX_QUEUED or ${DEFAULT_MAX_QUEUED}; 0: refuse when all turns are taken)`)
    .option('--max-queue-wait <ms>', `longest expected wait for a turn (the requests ahead at the measured pace); beyond, 503 with Retry-After at once (default $SWFLOW_GATEWAY_MAX_QUEUE_WAIT_MS or ${DEFAULT_MAX_QUEUE_WAIT_MS}; 0: no bound but --max-queued)`)
    .option('--no-access-log', 'do not print the access log (one JSON line per request)')
    .option('--mqtt <url>', 'also take CloudEvents from this MQTT broker (default $SWFLOW_MQTT_URL)')
    .option('--mqtt-topic <topics...>', 'MQTT topic filters (default $SWFLOW_MQTT_TOPICS or cloudevents/#)')
    .option('--mqtt-client-id <id>', 'MQTT persistent session id', 'swflow-gateway')
    .option('--mqtt-protocol <version>', '4 (MQTT 3.1.1) or 5', '4')
    .option('--mqtt-trusted', 'let MQTT events address instances directly (swflowworkflowid): the broker ACL decides who publishes')
    .option('--kafka-brokers <list>', 'also take CloudEvents from Kafka: bootstrap brokers host:port,... (default $SWFLOW_KAFKA_BROKERS; SASL/TLS from $SWFLOW_KAFKA_SASL_MECHANISM, _USERNAME, _PASSWORD, _TLS, _CA)')
    .option('--kafka-topics <topics...>', 'Kafka topics to consume (default $SWFLOW_KAFKA_TOPICS, comma-separated)')
    .option('--kafka-group <id>', `Kafka consumer group; replicas of one gateway share it (default $SWFLOW_KAFKA_GROUP or ${DEFAULT_KAFKA_GROUP})`)
    .option('--kafka-dead-letter-topic <topic>', 'where records that are not CloudEvents or that nothing awaits go (default $SWFLOW_KAFKA_DEAD_LETTER_TOPIC or <topic>.swflow-dlq)')
    .option('--kafka-session-timeout <ms>', 'Kafka group session timeout: how soon a dead replica\'s partitions move to the others (default $SWFLOW_KAFKA_SESSION_TIMEOUT or 30000)')
    .option('--kafka-key-concurrency <n>', 'records of one partition handled at once, never two of one key (default $SWFLOW_KAFKA_KEY_CONCURRENCY or 1: partition order)')
    .option('--kafka-create-topics', 'create the Kafka topics (and their dead-letter topics) that do not exist, with the brokers\' default partitions and replication (default $SWFLOW_KAFKA_CREATE_TOPICS=1); without it a missing topic is waited for')
    .option('--kafka-trusted', 'let Kafka events address instances directly (swflowworkflowid): the cluster ACLs decide who writes the topics');
}

/** Numbers and environment defaults of the options, checked. */
export function gatewaySettings(opts: GatewayCliOptions, log: (line: string) => void): Pick<GatewayOptions, 'auth' | 'allowAnonymous' | 'maxBodyBytes' | 'bodyTimeoutMs' | 'temporalTimeoutMs' | 'maxInFlight' | 'maxQueued' | 'maxQueueWaitMs' | 'accessLog'> & { mqtt?: { url: string; topics: string[]; clientId?: string; protocolVersion: 4 | 5; trusted: boolean }; kafka?: KafkaSettings } {
  const number = (flag: string, v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive whole number (got ${JSON.stringify(v)})`);
    return n;
  };
  const whole = (flag: string, v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} must be a whole number ≥ 0 (got ${JSON.stringify(v)})`);
    return n;
  };
  const token = opts.token ?? (process.env.SWFLOW_GATEWAY_TOKEN || undefined);
  const hmacSecret = opts.hmacSecret ?? (process.env.SWFLOW_GATEWAY_HMAC_SECRET || undefined);
  const mqttUrl = opts.mqtt ?? (process.env.SWFLOW_MQTT_URL || undefined);
  const protocol = number('--mqtt-protocol', opts.mqttProtocol);
  if (protocol !== 4 && protocol !== 5) throw new Error(`--mqtt-protocol must be 4 or 5 (got ${protocol})`);
  const kafka = kafkaSettings(opts, number);
  return {
    auth: { token, hmacSecret },
    allowAnonymous: opts.allowAnonymous === true,
    maxBodyBytes: number('--max-body', opts.maxBody),
    bodyTimeoutMs: number('--body-timeout', opts.bodyTimeout),
    temporalTimeoutMs: number('--temporal-timeout', opts.temporalTimeout),
    ...admissionBounds({ maxInFlight: opts.maxInFlight === undefined ? undefined : number('--max-in-flight', opts.maxInFlight), maxQueued: opts.maxQueued === undefined ? undefined : whole('--max-queued', opts.maxQueued), maxQueueWaitMs: opts.maxQueueWait === undefined ? undefined : whole('--max-queue-wait', opts.maxQueueWait) }),
    accessLog: opts.accessLog ? (entry) => log(JSON.stringify({ log: 'access', ...entry })) : undefined,
    ...(mqttUrl
      ? {
          mqtt: {
            url: mqttUrl,
            topics: opts.mqttTopic ?? (process.env.SWFLOW_MQTT_TOPICS ?? 'cloudevents/#').split(',').map((t) => t.trim()).filter(Boolean),
            clientId: opts.mqttClientId,
            protocolVersion: protocol as 4 | 5,
            trusted: opts.mqttTrusted === true,
          },
        }
      : {}),
    ...(kafka ? { kafka } : {}),
  };
}

/** The Kafka flags (or their variables), checked; undefined when no brokers are named. */
function kafkaSettings(opts: GatewayCliOptions, number: (flag: string, v: string) => number): KafkaSettings | undefined {
  const env = process.env;
  const brokerList = opts.kafkaBrokers ?? (env.SWFLOW_KAFKA_BROKERS || undefined);
  const topicList = opts.kafkaTopics ?? (env.SWFLOW_KAFKA_TOPICS ? [env.SWFLOW_KAFKA_TOPICS] : undefined);
  const topics = (topicList ?? []).flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean);
  if (!brokerList) {
    if (topics.length) throw new Error('--kafka-topics needs --kafka-brokers (or SWFLOW_KAFKA_BROKERS)');
    return undefined;
  }
  const from = opts.kafkaBrokers !== undefined ? '--kafka-brokers' : 'SWFLOW_KAFKA_BROKERS';
  const brokers = parseBrokers(brokerList, from);
  if (!topics.length) throw new Error(`${from} is set but no topic is: name the topics to consume with --kafka-topics (or SWFLOW_KAFKA_TOPICS)`);
  for (const t of topics) if (!KAFKA_TOPIC.test(t)) throw new Error(`--kafka-topics: '${t}' is not a Kafka topic name (letters, digits, '.', '_', '-'; at most 249)`);
  const deadLetterTopic = opts.kafkaDeadLetterTopic ?? (env.SWFLOW_KAFKA_DEAD_LETTER_TOPIC || undefined);
  if (deadLetterTopic !== undefined && !KAFKA_TOPIC.test(deadLetterTopic)) throw new Error(`--kafka-dead-letter-topic: '${deadLetterTopic}' is not a Kafka topic name`);
  if (deadLetterTopic !== undefined && topics.includes(deadLetterTopic)) throw new Error(`--kafka-dead-letter-topic: '${deadLetterTopic}' is also a consumed topic (its records would come back)`);
  const groupId = opts.kafkaGroup ?? (env.SWFLOW_KAFKA_GROUP || DEFAULT_KAFKA_GROUP);
  const sessionTimeoutMs = number('--kafka-session-timeout', opts.kafkaSessionTimeout ?? (env.SWFLOW_KAFKA_SESSION_TIMEOUT || '30000'));
  const keyConcurrency = number('--kafka-key-concurrency', opts.kafkaKeyConcurrency ?? (env.SWFLOW_KAFKA_KEY_CONCURRENCY || '1'));
  const createTopics = opts.kafkaCreateTopics === true || env.SWFLOW_KAFKA_CREATE_TOPICS === '1' || env.SWFLOW_KAFKA_CREATE_TOPICS === 'true';
  return { brokers, topics, groupId, deadLetterTopic, trusted: opts.kafkaTrusted === true, sessionTimeoutMs, keyConcurrency, security: kafkaSecurityFromEnv(), createTopics };
}

/** Starts the Kafka inbound of the settings (its access log as `{"log":"kafka",...}` lines). */
export function startKafkaFromSettings(kafka: KafkaSettings, common: Omit<KafkaInboundOptions, keyof KafkaSettings>, accessLog: boolean): Promise<KafkaInbound> {
  return startKafkaInbound({ ...common, ...kafka, accessLog: accessLog ? (e) => console.log(JSON.stringify({ log: 'kafka', ...e })) : undefined });
}

/** What /readyz says while a Kafka inbound of the settings has not joined its group (it starts after the HTTP server) or waits for its topics; undefined when ready or without Kafka. */
export function kafkaReadiness(kafka: KafkaSettings | undefined, inbound: () => KafkaInbound | undefined): () => string | undefined {
  return () => {
    if (!kafka || inbound()?.joined()) return undefined;
    const missing = inbound()?.waitingForTopics() ?? [];
    if (missing.length) return `the Kafka topic${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'do' : 'does'} not exist on ${kafka.brokers.join(',')} (waiting for ${missing.length > 1 ? 'them' : 'it'} to be created; --kafka-create-topics creates topics)`;
    return 'the Kafka consumer has not joined its group yet';
  };
}

/** The banner's words for the Kafka inbound. */
export function kafkaBanner(kafka: KafkaSettings): string {
  return `${kafka.topics.join(', ')} on ${kafka.brokers.join(',')} (group ${kafka.groupId})`;
}

interface GatewayCommandOptions extends GatewayCliOptions {
  definitions: string[];
  port: string;
  host: string;
  taskQueue: string;
  metricsPort?: string;
}

export function register(program: Command): void {
  addGatewayOptions(
    program
      .command('gateway')
      .description('Run the event gateway (CloudEvents over HTTP, MQTT with --mqtt, Kafka with --kafka-brokers) against a Temporal server')
      .option('-d, --definitions <paths...>', 'definition folders or files to route by', [join(PROJECT_ROOT, 'examples')])
      .option('-p, --port <port>', 'HTTP port', String(GATEWAY_PORT))
      .option('--host <host>', 'interface to listen on (0.0.0.0: every interface)', process.env.SWFLOW_GATEWAY_HOST ?? '127.0.0.1')
      .option('-q, --task-queue <queue>', 'the interpreter task queue new instances start on', INTERPRETER_TASK_QUEUE)
      .option('--metrics-port <port>', 'serve Prometheus metrics at http://127.0.0.1:<port>/metrics (default $SWFLOW_METRICS_PORT; unset: off)'),
  ).action((opts: GatewayCommandOptions) => runGateway(opts));
}

async function runGateway(opts: GatewayCommandOptions): Promise<void> {
  const say = (m: string) => console.error(`[swflow gateway] ${m}`);
  const settings = gatewaySettings(opts, (line) => console.log(line));
  requireDefinitionPaths(opts.definitions);
  const registry = new DefinitionRegistry(opts.definitions);
  await requireSomeDefinition(registry);
  const target = workerTarget();
  const metricsServer = await serveMetricsIf(opts.metricsPort, say, { core: false });
  // Lazy: the gateway starts (and /readyz says so) while Temporal is still down.
  const connection = Connection.lazy(connectionOptions(target));
  const client = new Client({ connection, namespace: target.namespace, ...dataConverterOptions(), ...clientInterceptors() });
  const common = { client, definitions: () => registry.indexedDefinitions(), taskQueue: opts.taskQueue, temporalTimeoutMs: settings.temporalTimeoutMs, log: say };
  // Not ready, and events refused with 503, name the setting while the server does not answer.
  let kafka: KafkaInbound | undefined;
  const readiness = kafkaReadiness(settings.kafka, () => kafka);
  const gateway: Gateway = await startGateway({ ...common, ...settings, host: opts.host, port: Number(opts.port), unreachable: unreachable(target), readiness });
  let mqtt: MqttInbound | undefined;
  if (settings.mqtt) mqtt = await startMqttInbound({ ...common, ...settings.mqtt, accessLog: settings.accessLog ? (e) => console.log(JSON.stringify({ log: 'mqtt', ...e })) : undefined });
  if (settings.kafka) kafka = await startKafkaFromSettings(settings.kafka, { ...common, unreachable: unreachable(target) }, Boolean(settings.accessLog));
  const credentials = [settings.auth?.token && 'bearer token', settings.auth?.hmacSecret && 'HMAC signature'].filter(Boolean).join(' or ');
  say(
    `listening on ${gateway.url}, Temporal ${target.address} (namespace ${target.namespace}); ` +
      `${credentials ? `credentials: ${credentials}${settings.allowAnonymous ? ' (anonymous events allowed)' : ''}` : 'no credentials configured (swflowworkflowid refused)'}` +
      `${settings.mqtt ? `; MQTT ${settings.mqtt.topics.join(', ')}` : ''}` +
      `${settings.kafka ? `; Kafka ${kafkaBanner(settings.kafka)}` : ''}`,
  );
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  say('stopping: finishing in-flight deliveries');
  await Promise.all([gateway.close(), mqtt?.close(), kafka?.close(), metricsServer?.close()]);
  await connection.close();
  say('stopped');
}
