/**
 * MQTT with the `mqtt` client: one connection per call (a workflow's publishes are rare next to
 * a connection's cost, and nothing is left open between calls). A publish waits for the broker's
 * acknowledgement at QoS 1 unless the operation's MQTT binding says otherwise; a receive
 * subscribes and returns the first message. Both end when the activity is cancelled. A
 * subscription consumed in steps keeps a persistent session between its calls ({@link subscribeStep}).
 */
import { randomUUID } from 'node:crypto';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { AdapterError, networkFailure } from '../../src/adapter-sdk';

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

/** Connects (a fresh clean session unless `session` says otherwise), runs `use`, disconnects; cancellation ends the connection at once. */
async function withClient<T>(call: MqttCall, use: (client: MqttClient) => Promise<T>, session: Pick<IClientOptions, 'clientId' | 'clean'> = {}, prepare?: (client: MqttClient) => void): Promise<T> {
  // A persistent session ends with a DISCONNECT, so the acknowledgements written reach the broker first.
  const graceful = session.clean === false;
  const options: IClientOptions = { reconnectPeriod: 0, connectTimeout: 30_000, clientId: `swflow-${randomUUID()}`, clean: true, ...session, ...call.credentials };
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
    client = await Promise.race([prepare ? connectPrepared(call.url, options, prepare) : mqtt.connectAsync(call.url, options, false), aborted]);
    // A connection lost mid-call is an error event with no pending promise to reject: fail the call with it.
    const lost = new Promise<never>((_, reject) => client!.once('error', reject).once('close', () => reject(Object.assign(new Error('connection closed by the broker'), { code: 'ECONNRESET' }))));
    lost.catch(() => {});
    return await Promise.race([use(client), aborted, lost]);
  } catch (err) {
    if (call.signal.aborted) throw err;
    throw failure(err, call);
  } finally {
    if (graceful && client?.connected) await Promise.race([client.endAsync(false).catch(() => {}), new Promise((r) => setTimeout(r, 2_000).unref())]);
    await client?.endAsync(true).catch(() => {});
  }
}

/** mqtt.connectAsync (without retries), with `prepare` called on the client before it connects (before a persistent session's queued messages arrive). */
function connectPrepared(url: string, options: IClientOptions, prepare: (client: MqttClient) => void): Promise<MqttClient> {
  return new Promise<MqttClient>((resolve, reject) => {
    const client = mqtt.connect(url, options);
    prepare(client);
    const off = () => client.off('connect', onConnect).off('error', onError).off('close', onClose);
    const onConnect = () => (off(), resolve(client));
    const onError = (err: Error) => (off(), client.end(true), reject(err));
    const onClose = () => onError(new Error("Couldn't connect to server"));
    client.on('connect', onConnect).on('error', onError).on('close', onClose);
  });
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

/** One step of a stepped subscription (feature v1-subscription-streaming): see {@link subscribeStep}. */
export interface MqttStep {
  /** The persistent session's client id (the same for every step of one subscription). */
  clientId: string;
  /** The first step: a session left by an earlier subscription of that id is discarded first. */
  first: boolean;
  /** At most this many messages taken. */
  max: number;
  /** After the first message taken, how long more may be taken with it (ms). */
  windowMs: number;
  /** How long to wait for a first message (ms): absent, as long as it takes. */
  waitMs?: number;
}

/**
 * One step of a subscription consumed in steps: connects with a persistent session (`clean:
 * false`, the step's client id), subscribes when the broker has no session for it (the first
 * step, or a broker that lost it), takes the messages `take` accepts (up to `max`, those that
 * arrive within `windowMs` of the first) and disconnects without unsubscribing, so the broker
 * keeps for the next step what arrives meanwhile. A message is acknowledged only when handled:
 * taken, or refused by `take` (the filter); the one that would exceed `max` is never
 * acknowledged (the client stops reading there) and the broker delivers it again to the next step.
 */
export async function subscribeStep(call: MqttCall, topic: string, qos: 1 | 2, step: MqttStep, take: (m: MqttMessage) => boolean): Promise<MqttMessage[]> {
  if (step.first) await endSession(call, step.clientId);
  const taken: MqttMessage[] = [];
  let finish!: () => void;
  const ended = new Promise<void>((resolve) => (finish = resolve));
  let over = false;
  let window: NodeJS.Timeout | undefined;
  let wait: NodeJS.Timeout | undefined;
  const stop = () => {
    over = true;
    finish();
  };
  // handleMessage runs before the PUBACK and holds the client's reading until its callback; set
  // before connecting: a persistent session's queued messages come right after the CONNACK.
  let sessionPresent = false;
  const prepare = (client: MqttClient) => {
    client.once('connect', (connack) => (sessionPresent = connack.sessionPresent));
    client.handleMessage = (packet, acknowledge) => {
      if (over) return; // never acknowledged: delivered again to the next step
      const props = packet.properties;
      const m: MqttMessage = { topic: packet.topic, payload: Buffer.from(packet.payload as Buffer), userProperties: props?.userProperties, correlationData: props?.correlationData };
      let accepted: boolean;
      try {
        accepted = take(m);
      } catch {
        return stop(); // the caller's error (the filter, which keeps it): not acknowledged
      }
      acknowledge();
      if (!accepted) return;
      taken.push(m);
      if (taken.length >= step.max) return stop();
      if (taken.length === 1) {
        clearTimeout(wait);
        window = setTimeout(stop, step.windowMs);
      }
    };
  };
  return withClient(
    call,
    async (client) => {
      if (!sessionPresent) {
        const [grant] = await client.subscribeAsync(topic, { qos });
        if (grant && grant.qos === 128) throw Object.assign(new Error(`subscription to ${topic} refused`), { code: 135 });
      }
      if (step.waitMs !== undefined && !over && taken.length === 0) wait = setTimeout(stop, Math.max(0, step.waitMs));
      try {
        await ended;
      } finally {
        clearTimeout(window);
        clearTimeout(wait);
      }
      return taken;
    },
    { clientId: step.clientId, clean: false },
    prepare,
  );
}

/** Ends the persistent session of `clientId` (a clean-session connection discards it: subscription and queued messages). */
export function endSession(call: MqttCall, clientId: string): Promise<void> {
  return withClient(call, async () => {}, { clientId, clean: true });
}
