/**
 * MQTT with the `mqtt` client: one connection per call (a workflow's publishes are rare next to
 * a connection's cost, and nothing is left open between calls). A publish waits for the broker's
 * acknowledgement at QoS 1 unless the operation's MQTT binding says otherwise; a receive
 * subscribes and returns the first message. Both end when the activity is cancelled.
 */
import { randomUUID } from 'node:crypto';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { AdapterError, networkFailure } from '../../src/adapter';

/** The broker refused the credentials (CONNACK 4/5, MQTT 5 reason 134/135). */
export const MQTT_NOT_AUTHORIZED = 'NotAuthorized';
/** The broker refused the connection or a packet for another reason (the MQTT reason code is in the message). */
export const MQTT_REFUSED = 'BrokerRefused';

export interface MqttCall {
  url: string;
  /** What the call is, for messages: `MQTT publish light/measured at mqtt://host:1883`. */
  request: string;
  credentials: { username?: string; password?: string };
  signal: AbortSignal;
}

const NOT_AUTHORIZED = new Set([4, 5, 134, 135]);

function failure(err: unknown, call: MqttCall): AdapterError {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number') {
    const why = NOT_AUTHORIZED.has(code) ? MQTT_NOT_AUTHORIZED : MQTT_REFUSED;
    return new AdapterError(why, `${call.request}: the broker answered ${(err as Error).message} (reason code ${code})`, { request: call.request, cause: err });
  }
  const net = networkFailure(err);
  return new AdapterError(net.code, `${call.request} failed: ${net.message}`, { request: call.request, cause: err });
}

/** Connects, runs `use`, disconnects; cancellation ends the connection at once. */
async function withClient<T>(call: MqttCall, use: (client: MqttClient) => Promise<T>): Promise<T> {
  const options: IClientOptions = { reconnectPeriod: 0, connectTimeout: 30_000, clientId: `swflow-${randomUUID()}`, clean: true, ...call.credentials };
  let client: MqttClient | undefined;
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = () => {
      client?.end(true);
      reject(call.signal.reason ?? new Error('cancelled'));
    };
    if (call.signal.aborted) onAbort();
    else call.signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  try {
    client = await Promise.race([mqtt.connectAsync(call.url, options, false), aborted]);
    // A connection lost mid-call is an error event with no pending promise to reject: fail the call with it.
    const lost = new Promise<never>((_, reject) => client!.once('error', reject).once('close', () => reject(Object.assign(new Error('connection closed by the broker'), { code: 'ECONNRESET' }))));
    lost.catch(() => {});
    return await Promise.race([use(client), aborted, lost]);
  } catch (err) {
    if (call.signal.aborted) throw err;
    throw failure(err, call);
  } finally {
    await client?.endAsync(true).catch(() => {});
  }
}

/** Publishes one message; resolves when the broker has it (QoS ≥ 1) or it is written (QoS 0). */
export function publish(call: MqttCall, topic: string, payload: string, opts: { qos: 0 | 1 | 2; retain: boolean }): Promise<void> {
  return withClient(call, async (client) => {
    await client.publishAsync(topic, payload, opts);
  });
}

/** Subscribes to `topic` (a filter: `+`/`#` wildcards) and resolves with the first message. */
export function receive(call: MqttCall, topic: string, qos: 0 | 1 | 2): Promise<{ topic: string; payload: Buffer }> {
  return withClient(call, async (client) => {
    const first = new Promise<{ topic: string; payload: Buffer }>((resolve) => client.once('message', (t, payload) => resolve({ topic: t, payload })));
    const [grant] = await client.subscribeAsync(topic, { qos });
    if (grant && grant.qos === 128) throw Object.assign(new Error(`subscription to ${topic} refused`), { code: 135 });
    return first;
  });
}

/** A message received by a subscription: its topic, payload, and MQTT 5 properties when the broker sent any. */
export interface MqttMessage {
  topic: string;
  payload: Buffer;
  userProperties?: Record<string, string | string[]>;
  correlationData?: Buffer;
}

/**
 * Subscribes to `topic` and hands every message to `onMessage` in arrival order until it says
 * `true` (done) or what `done()` returns (called once subscribed) settles: the time is up. Messages are acknowledged as
 * they are received (QoS 1: the broker forgets them), the session is clean: a subscription is a
 * live stream, nothing is kept for it between calls. `onMessage` must not throw (an error of
 * the caller's would be reported as the broker's).
 */
export function subscribe(call: MqttCall, topic: string, qos: 0 | 1 | 2, onMessage: (m: MqttMessage) => boolean, done: () => Promise<void>): Promise<void> {
  return withClient(call, async (client) => {
    let finish!: () => void;
    const ended = new Promise<void>((resolve) => (finish = resolve));
    let over = false;
    client.on('message', (t, payload, packet) => {
      if (over) return;
      const props = packet.properties;
      if (onMessage({ topic: t, payload, userProperties: props?.userProperties, correlationData: props?.correlationData })) {
        over = true;
        finish();
      }
    });
    const [grant] = await client.subscribeAsync(topic, { qos });
    if (grant && grant.qos === 128) throw Object.assign(new Error(`subscription to ${topic} refused`), { code: 135 });
    await Promise.race([ended, done()]);
    over = true;
  });
}
