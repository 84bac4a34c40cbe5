/**
 * CloudEvents from MQTT topics, through the same checks and routing as the HTTP gateway
 * (cloudevents.ts, dispatch.ts), following the CloudEvents MQTT protocol binding:
 *
 * - MQTT 3.1.1 has no message properties, so only structured mode: the payload is the event's
 *   JSON.
 * - MQTT 5: structured mode (Content Type `application/cloudevents+json`, or none), or binary
 *   mode: the attributes are User Properties, the payload is the data and Content Type its
 *   `datacontenttype`.
 *
 * At-least-once: messages are subscribed with QoS 1 on a persistent session (`clean: false`, a
 * fixed client id), and a message is acknowledged (PUBACK) only once Temporal took the event,
 * or once it is refused for good (malformed, nothing consumes it: logged and dropped). While
 * Temporal is unreachable (or fails) the message is retried with backoff and not acknowledged,
 * which holds the topic's later messages; a gateway stopped meanwhile leaves it to the broker,
 * which delivers it again on the next connection.
 * Messages are handled one at a time, in order (MQTT.js's `handleMessage`).
 *
 * MQTT has no per-message credentials: `swflowworkflowid` is refused unless the broker is
 * `trusted` (its ACL decides who may publish on the topics).
 *
 * The cloudevents SDK's MQTT binding is what `swflow event send --mqtt` publishes with; reading,
 * its `toEvent` does not fit: it fills in a missing id, time and specversion, and takes a 3.1.1
 * message (no Content Type) for binary mode. So messages are read with the gateway's strict checks.
 */
import mqtt, { type IPublishPacket, type MqttClient } from 'mqtt';
import type { CloudEventJson } from '../common/contracts';
import { checkEvent, EventProblem, MIME_STRUCTURED, mediaType, structuredEvent, withData } from './cloudevents';
import { metrics } from '../metrics';
import { Dispatcher, retryWhileUnavailable, type DispatcherOptions, type EventResult } from './dispatch';

export interface MqttInboundOptions extends DispatcherOptions {
  /** Broker URL, e.g. mqtt://broker:1883 (user:password@ in the URL for a broker that needs them). */
  url: string;
  /** Topic filters to subscribe to (QoS 1). */
  topics: string[];
  /** The persistent session's client id. Default `swflow-gateway`. */
  clientId?: string;
  /** 4 = MQTT 3.1.1 (default), 5 = MQTT 5 (binary mode possible). */
  protocolVersion?: 4 | 5;
  /** Let events address instances directly (`swflowworkflowid`). Default false. */
  trusted?: boolean;
  /** First retry delay while Temporal is unreachable or fails (doubles up to 30 s). Default 1 s. */
  retryDelayMs?: number;
  log?: (msg: string) => void;
  /** One structured entry per message. */
  accessLog?: (entry: MqttLogEntry) => void;
}

export interface MqttLogEntry {
  time: string;
  topic: string;
  status: number;
  ms: number;
  bytesIn: number;
  id?: string;
  type?: string;
  workflowIds?: string[];
  attempts?: number;
  error?: string;
}

export interface MqttInbound {
  client: MqttClient;
  /** Stops taking messages; a delivery in progress finishes (and is acknowledged) first. */
  close(): Promise<void>;
}

/** The CloudEvent of an MQTT PUBLISH (payload and, with MQTT 5, its properties). */
export function eventFromMqtt(payload: Buffer, properties: IPublishPacket['properties'] = {}): CloudEventJson {
  const contentType = properties.contentType;
  const user = properties.userProperties ?? {};
  const attributes = Object.fromEntries(Object.entries(user).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(',') : v]));
  if (['specversion', 'id', 'source', 'type'].some((k) => k in attributes)) return checkEvent(withData(attributes, contentType, payload));
  const media = mediaType(contentType);
  if (media && media !== MIME_STRUCTURED) {
    throw new EventProblem(415, `an MQTT message with content type '${media}' and no CloudEvent user properties is not a CloudEvent (structured mode is ${MIME_STRUCTURED})`);
  }
  return structuredEvent(payload);
}

export async function startMqttInbound(opts: MqttInboundOptions): Promise<MqttInbound> {
  const log = opts.log ?? (() => {});
  const dispatcher = new Dispatcher(opts);
  let closing = false;
  const stopping = new AbortController();
  let current: Promise<void> = Promise.resolve();

  const client = await mqtt.connectAsync(opts.url, {
    clientId: opts.clientId ?? 'swflow-gateway',
    clean: false,
    protocolVersion: opts.protocolVersion ?? 4,
    reconnectPeriod: 1_000,
    connectTimeout: 10_000,
  });
  client.on('error', (err) => log(`MQTT ${opts.url}: ${err.message}`));

  /** Dispatches one message; resolves true when it may be acknowledged. */
  async function handle(packet: IPublishPacket): Promise<boolean> {
    const started = Date.now();
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    const entry: MqttLogEntry = { time: new Date(started).toISOString(), topic: packet.topic, status: 0, ms: 0, bytesIn: payload.length };
    let result: EventResult;
    let attempts = 0;
    try {
      const event = eventFromMqtt(payload, packet.properties);
      entry.id = event.id;
      entry.type = event.type;
      ({ result, attempts } = await retryWhileUnavailable(() => dispatcher.dispatch(event, opts.trusted === true), {
        firstDelayMs: opts.retryDelayMs ?? 1_000,
        signal: stopping.signal,
        stopped: () => closing,
        onRetry: (r, delay) => log(`MQTT event ${event.type} ${event.id}: ${r.error}; retrying in ${delay} ms`),
      }));
    } catch (err) {
      result = { status: err instanceof EventProblem ? err.status : (500 as const), error: (err as Error).message } as EventResult;
      entry.id ??= idOf(payload);
    }
    Object.assign(entry, { status: result.status, ms: Date.now() - started, ...(attempts > 1 ? { attempts } : {}) });
    if (result.delivered?.length) entry.workflowIds = result.delivered.map((d) => d.workflowId).slice(0, 10);
    if (result.error) entry.error = result.error.slice(0, 300);
    opts.accessLog?.(entry);
    metrics()?.gatewayEvents.inc({ transport: 'mqtt', outcome: result.status === 202 ? 'accepted' : 'rejected', status: String(result.status) });
    for (const d of result.delivered ?? []) log(`MQTT ${packet.topic}: event ${entry.type} ${entry.id} → ${d.workflowId}${d.started ? ' (started)' : ''}`);
    const ack = result.status !== 503 && result.status !== 500;
    if (result.status !== 202) log(`MQTT ${packet.topic}: ${ack ? 'dropped' : 'not acknowledged (the broker delivers it again)'}: ${result.error}`);
    return ack;
  }

  // MQTT.js calls handleMessage for each PUBLISH, one at a time, and sends the PUBACK when the
  // callback is called: holding the callback holds the acknowledgement.
  let unacknowledged = false;
  client.handleMessage = (packet, callback) => {
    current = handle(packet).then((ack) => {
      if (ack) callback();
      else unacknowledged = true; // only when closing: the session keeps the message for the next connection
    });
  };

  await client.subscribeAsync(opts.topics, { qos: 1 });
  log(`MQTT: subscribed to ${opts.topics.join(', ')} on ${opts.url.replace(/\/\/[^@/]*@/, '//')}`);
  return {
    client,
    async close() {
      closing = true;
      stopping.abort();
      await current;
      await client.endAsync(unacknowledged);
    },
  };
}

/** The `id` of a message that is not a valid CloudEvent, when it has one (for the log). */
function idOf(payload: Buffer): string | undefined {
  try {
    const id = JSON.parse(payload.toString('utf8'))?.id;
    return typeof id === 'string' ? id.slice(0, 200) : undefined;
  } catch {
    return undefined;
  }
}
