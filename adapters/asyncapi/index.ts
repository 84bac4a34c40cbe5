/**
 * The AsyncAPI adapter: serves `asyncapi` functions (activity type `sw.asyncapi`), spec 0.8
 * "Using Functions for Async API Service Invocations". `operation` is
 * `<AsyncAPI document URI>#<operationId>`; the document (2.x or 3.x, parsed by @asyncapi/parser)
 * says the channel, the server and its protocol. Written with the public adapter SDK only.
 *
 *   const worker = await createAdapterWorker({ adapters: [asyncapiAdapter({ baseDirs: ['./workflows'] })] });
 *
 * - An operation the workflow sends (2.x `publish`, 3.x `send`) sends the call's arguments as the
 *   message and returns `{ published: true, operationId, protocol, server, channel }` (MQTT adds
 *   `qos`, HTTP `status`).
 * - An operation it receives (2.x `subscribe`, 3.x `receive`) returns the first message that
 *   arrives (its payload, parsed when JSON), waiting as long as the action may (`actionExecTimeout`).
 * - MQTT (`mqtt`, `mqtts`/`secure-mqtt`): the channel is the topic; QoS and retain from the MQTT
 *   binding (QoS 1 by default: the broker acknowledges). HTTP (`http`, `https`): the channel is the
 *   path under the server URL; sending is a POST (or the binding's `method`) of the message,
 *   receiving a GET that answers it. AMQP 0-9-1 (`amqp`, `amqps`): the channel's `amqp` binding
 *   says whether the address is a routing key on an exchange or a queue (./amqp.ts); a publish
 *   waits for the broker's confirm, a receive takes (and acknowledges) the first message. Kafka
 *   (`kafka`, `kafka-secure`): the channel is the topic (./kafka.ts); a publish is one record from
 *   an idempotent producer, acknowledged by all in-sync replicas; a receive takes the first record
 *   that arrives after it subscribed.
 * - The function's `metadata.server` picks a server by id; else the operation's first server with
 *   a protocol spoken here. Auth: `basic` is the MQTT (AMQP) username/password, a bearer or OAuth2 token
 *   the password (username `metadata.username`); over HTTP, the usual `Authorization` header.
 *
 * Failures: an unknown operationId, an unsupported protocol, a broken document or a missing
 * channel parameter is a non-retryable `OperationError`; network failures have the SDK's codes
 * (`ConnectionRefused`, ...); a broker that refuses the credentials is `NotAuthorized`, another
 * refusal `BrokerRefused`; an HTTP status ≥ 400 is its code.
 */
import { BUILTIN_ADAPTER, builtinActivityName, ASYNCAPI_FUNCTION_ACTIVITY, ASYNCAPI_CALL_ACTIVITY, defineAdapter, fetchDocument, locateDocument, type ActivityContext, type Adapter, type Json } from '../../src/adapter-sdk';
import { resolveOperation } from './document';
import type { MqttCall } from './mqtt';
import { invokeAsyncApiCall } from './asyncapi-call';
import { isAmqp, isKafka, overAmqp, overHttp, overKafka, overMqtt, type AsyncCredentials } from './transport';

export { MQTT_NOT_AUTHORIZED, MQTT_REFUSED } from './mqtt';
export type { Published } from './transport';

export interface AsyncApiAdapterOptions {
  /** Where relative document references are looked up (the definition folders). Default: cwd. */
  baseDirs?: string[];
}

/** MQTT credentials from the function's auth. */
async function mqttCredentials(ctx: ActivityContext): Promise<MqttCall['credentials']> {
  if (!ctx.auth) return {};
  const token = await ctx.auth.token();
  if (ctx.auth.scheme === 'basic') {
    const plain = Buffer.from(token, 'base64').toString('utf8');
    const colon = plain.indexOf(':');
    return { username: plain.slice(0, colon), password: plain.slice(colon + 1) };
  }
  const username = ctx.function.metadata?.username;
  return { username: typeof username === 'string' ? username : '', password: token };
}

/** The credentials of a 0.8 call: the function's invocation auth. */
const functionCredentials = (ctx: ActivityContext): AsyncCredentials => ({ mqtt: () => mqttCredentials(ctx), http: async () => undefined });

/** Sends or receives the message of an asyncapi function's operation. */
export async function invokeAsyncApi(args: Json, ctx: ActivityContext, opts: AsyncApiAdapterOptions = {}): Promise<Json> {
  const server = ctx.function.metadata?.server;
  const locate = (doc: string) => locateDocument(doc, opts.baseDirs ?? [process.cwd()], 'AsyncAPI document');
  const op = await resolveOperation(ctx.function.operation, locate, (url) => fetchDocument(ctx, url, 'AsyncAPI document'), typeof server === 'string' ? server : undefined);
  const credentials = functionCredentials(ctx);
  if (isAmqp(op)) return overAmqp(op, args, ctx, credentials);
  if (isKafka(op)) return overKafka(op, args, ctx, credentials);
  return /^https?$/.test(op.server.protocol) ? overHttp(op, args, ctx, credentials) : overMqtt(op, args, ctx, credentials);
}

/** The AsyncAPI adapter: 0.8 `asyncapi` functions (`sw.asyncapi`) and 1.0 `call: asyncapi` (`sw.asyncapiCall`), reading documents relative to `baseDirs`. */
export function asyncapiAdapter(opts: AsyncApiAdapterOptions = {}): Adapter {
  return defineAdapter({
    name: BUILTIN_ADAPTER,
    description: 'AsyncAPI publish/subscribe over MQTT, AMQP, Kafka and HTTP (type: asyncapi; 1.0 call: asyncapi)',
    activities: {
      [builtinActivityName(ASYNCAPI_FUNCTION_ACTIVITY)]: (args: Json, ctx: ActivityContext) => invokeAsyncApi(args, ctx, opts),
      [builtinActivityName(ASYNCAPI_CALL_ACTIVITY)]: (args: Json, ctx: ActivityContext) => invokeAsyncApiCall(args, ctx, opts.baseDirs ?? [process.cwd()]),
    },
  });
}
