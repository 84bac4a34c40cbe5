/**
 * `swflow event send`: sends one CloudEvent, built from flags or read from a file, to the event
 * gateway (default), straight to Temporal (`--temporal`, routed by `--definitions` with the
 * gateway's own code), or to an MQTT topic (`--mqtt`, structured mode through the cloudevents
 * SDK's MQTT binding), or to a Kafka topic (`--kafka`, the CloudEvents Kafka binding: binary or
 * structured, `partitionkey` as the record key). Prints where it went; exits non-zero when it was
 * not taken.
 *
 *   swflow event send --type greeting.requested --source swflow.examples --data '{"name":"Ada"}'
 *   swflow event send --type order.shipped --source shop --ext orderid=42 --data @shipped.json
 *   swflow event send event.json --gateway https://events.example.com --token ...
 *   swflow event send --type approval --source boss --workflow-id approval-1 --temporal
 *   swflow event send --type order.paid --source shop --ext orderid=42 --kafka localhost:9092 --topic orders
 */
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Command } from 'commander';
import { MQTT, type CloudEventV1 } from 'cloudevents';
import { Client, Connection } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE, type CloudEventJson } from '../common/contracts';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { DefinitionRegistry } from '../definitions/registry';
import { recordFromEvent } from '../kafka/binding';
import { clientSecurity, kafkaSecurityFromEnv, parseBrokers } from '../kafka/connection';
import { topicRefusal } from '../kafka/topics';
import { TARGET_ATTRIBUTE, type EventResult } from '../gateway/dispatch';
import { cloudEvent, sendEvent } from '../operations/event';
import { GATEWAY_PORT } from '../gateway/server';
import { PROJECT_ROOT } from '../platform/paths';
import { dataConverterOptions } from '../codec';
import { clientInterceptors } from '../tracing';

interface SendOptions {
  type?: string;
  source?: string;
  id?: string;
  subject?: string;
  data?: string;
  dataContentType?: string;
  ext: string[];
  workflowId?: string;
  gateway: string;
  token?: string;
  temporal?: boolean;
  definitions: string[];
  taskQueue: string;
  mqtt?: string;
  topic?: string;
  kafka?: string;
  kafkaMode: string;
  json?: boolean;
}

export function register(program: Command): void {
  const event = program.command('event').description('Send CloudEvents to workflow instances');
  event
    .command('send [file]')
    .description('Send one CloudEvent (from flags, or a structured JSON file) and print where it went')
    .option('-t, --type <type>', 'the event type')
    .option('-s, --source <source>', 'the event source (default swflow.cli)')
    .option('--id <id>', 'the event id (default: a new UUID)')
    .option('--subject <subject>', 'the event subject')
    .option('-d, --data <data>', "the data: JSON, @file (JSON when it ends in .json), or text")
    .option('--data-content-type <type>', 'datacontenttype (default application/json for JSON data)')
    .option('-e, --ext <key=value>', 'an extension attribute (repeatable), e.g. correlation: --ext orderid=42', (v: string, all: string[]) => [...all, v], [])
    .option('-w, --workflow-id <id>', `deliver to this workflow id (the ${TARGET_ATTRIBUTE} extension; needs credentials)`)
    .option('-g, --gateway <url>', 'the gateway to POST to', process.env.SWFLOW_GATEWAY_URL ?? `http://127.0.0.1:${GATEWAY_PORT}`)
    .option('--token <token>', 'the gateway bearer token (default $SWFLOW_GATEWAY_TOKEN)')
    .option('--temporal', 'deliver straight to Temporal (TEMPORAL_ADDRESS), routed by --definitions, without a gateway')
    .option('--definitions <paths...>', 'definitions to route by with --temporal', [join(PROJECT_ROOT, 'examples')])
    .option('-q, --task-queue <queue>', 'the interpreter task queue new instances start on (--temporal)', INTERPRETER_TASK_QUEUE)
    .option('--mqtt <url>', 'publish to this MQTT broker instead (structured mode, QoS 1)')
    .option('--kafka <brokers>', 'produce to this Kafka cluster instead (host:port,...; SASL/TLS from SWFLOW_KAFKA_*)')
    .option('--kafka-mode <mode>', 'the Kafka binding\'s content mode: binary (ce_* headers) or structured', 'binary')
    .option('--topic <topic>', 'the MQTT topic (default cloudevents/swflow) or the Kafka topic (default cloudevents)')
    .option('--json', 'print the full answer as JSON')
    .action(async (file: string | undefined, opts: SendOptions) => {
      const event = buildEvent(file, opts);
      if (opts.mqtt && opts.kafka) throw new Error('--mqtt and --kafka: choose one');
      const ok = opts.mqtt ? await viaMqtt(event, opts) : opts.kafka ? await viaKafka(event, opts) : opts.temporal ? await viaTemporal(event, opts) : await viaGateway(event, opts);
      if (!ok) process.exitCode = 1;
    });
}

/** The event from the file (if any), then the flags on top, checked like the gateway checks it. */
export function buildEvent(file: string | undefined, opts: SendOptions): CloudEventJson {
  const base: Record<string, unknown> = file ? JSON.parse(readFileSync(file, 'utf8')) : {};
  if (Array.isArray(base) || typeof base !== 'object' || base === null) throw new Error(`${file}: expected one CloudEvent as a JSON object`);
  const extensions: Record<string, string> = {};
  for (const kv of opts.ext) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new Error(`--ext ${kv}: expected key=value`);
    extensions[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  if (!opts.type && !base.type) throw new Error('the event needs a type: --type <type> (or "type" in the file)');
  return cloudEvent({ ...opts, data: opts.data === undefined ? undefined : readData(opts.data), extensions }, base);
}

function readData(spec: string): unknown {
  if (spec.startsWith('@')) {
    const path = spec.slice(1);
    const text = readFileSync(path, 'utf8');
    return extname(path).toLowerCase() === '.json' ? JSON.parse(text) : text;
  }
  try {
    return JSON.parse(spec);
  } catch {
    return spec; // plain text
  }
}

function print(r: EventResult, where: string, json?: boolean): boolean {
  if (json) console.log(JSON.stringify(r, null, 2));
  else if (r.status === 202) {
    for (const d of r.delivered ?? []) {
      const how = d.started ? 'started' : d.duplicate ? 'already delivered' : d.via === 'visibility' ? 'delivered to an instance waiting for it' : 'delivered';
      console.log(`${r.type} ${r.id} → ${d.workflowId} (${how}) via ${where}`);
    }
  } else console.error(`${r.type ?? ''} ${r.id ?? ''} not taken by ${where}: ${r.status} ${r.error}`);
  return r.status === 202;
}

async function viaGateway(e: CloudEventJson, opts: SendOptions): Promise<boolean> {
  const token = opts.token ?? process.env.SWFLOW_GATEWAY_TOKEN;
  let res: Response;
  try {
    res = await fetch(opts.gateway, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json; charset=utf-8', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(e),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new Error(`the gateway ${opts.gateway} is unreachable (${(err as Error).message}); is it running (swflow start / swflow gateway)?`);
  }
  const text = await res.text();
  let body: EventResult;
  try {
    body = JSON.parse(text);
  } catch {
    body = { status: res.status as EventResult['status'], error: text.slice(0, 500) };
  }
  return print({ id: e.id, type: e.type, ...body, status: res.status as EventResult['status'] }, `the gateway ${opts.gateway}`, opts.json);
}

async function viaTemporal(e: CloudEventJson, opts: SendOptions): Promise<boolean> {
  const target = targetFromEnv() ?? { address: 'localhost:7233', namespace: 'default' };
  const connection = await Connection.connect(connectionOptions(target));
  try {
    const registry = new DefinitionRegistry(opts.definitions);
    const client = new Client({ connection, namespace: target.namespace, ...dataConverterOptions(), ...clientInterceptors() });
    return print(await sendEvent(client, e, { definitions: () => registry.allDefinitions(), taskQueue: opts.taskQueue }), `Temporal ${target.address} (namespace ${target.namespace})`, opts.json);
  } finally {
    await connection.close();
  }
}

async function viaMqtt(e: CloudEventJson, opts: SendOptions): Promise<boolean> {
  const { default: mqtt } = await import('mqtt');
  const message = MQTT.structured(e as unknown as CloudEventV1<unknown>);
  const client = await mqtt.connectAsync(opts.mqtt!, { connectTimeout: 10_000, reconnectPeriod: 0 });
  try {
    await client.publishAsync(opts.topic ?? 'cloudevents/swflow', JSON.stringify(message.body), { qos: 1 });
  } finally {
    await client.endAsync();
  }
  const topic = opts.topic ?? 'cloudevents/swflow';
  if (opts.json) console.log(JSON.stringify({ id: e.id, type: e.type, published: { broker: opts.mqtt, topic } }));
  else console.log(`${e.type} ${e.id} → published to ${topic} on ${opts.mqtt} (QoS 1; the gateway subscribed to it routes it)`);
  return true;
}

async function viaKafka(e: CloudEventJson, opts: SendOptions): Promise<boolean> {
  const mode = opts.kafkaMode;
  if (mode !== 'binary' && mode !== 'structured') throw new Error(`--kafka-mode must be binary or structured (got ${JSON.stringify(mode)})`);
  const brokers = parseBrokers(opts.kafka!, '--kafka');
  const topic = opts.topic ?? 'cloudevents';
  const { Producer } = await import('@platformatic/kafka');
  const record = recordFromEvent(e, mode);
  const producer = new Producer({ clientId: 'swflow-event-send', bootstrapBrokers: brokers, idempotent: true, acks: -1, ...clientSecurity(kafkaSecurityFromEnv()), retries: 3, connectTimeout: 10_000, autocreateTopics: true });
  let at: { partition: number; offset: bigint } | undefined;
  try {
    const sent = await producer.send({ messages: [{ topic, ...(record.key ? { key: record.key } : {}), value: record.value ?? undefined, headers: new Map([...record.headers].map(([k, v]) => [Buffer.from(k), Buffer.from(v)])) }] });
    at = sent.offsets?.[0];
  } catch (err) {
    throw new Error(`Kafka ${brokers.join(',')} did not take event ${e.id} on topic ${topic}: ${topicRefusal(err, topic, brokers) ?? (err as Error).message}`);
  } finally {
    await producer.close().catch(() => {});
  }
  const where = at ? `partition ${at.partition}, offset ${at.offset}` : 'written';
  if (opts.json) console.log(JSON.stringify({ id: e.id, type: e.type, published: { brokers, topic, mode, ...(at ? { partition: at.partition, offset: String(at.offset) } : {}) } }));
  else console.log(`${e.type} ${e.id} → produced to ${topic} (${where}, ${mode} mode) on ${brokers.join(',')}; the gateway consuming it routes it`);
  return true;
}
