/**
 * Serverless Workflow 1.0 `call: asyncapi` (activity `sw.asyncapiCall`) on the AsyncAPI document
 * `with.document`, the same AsyncAPI code as 0.8's `asyncapi` functions (./document.ts,
 * ./transport.ts), 1.0's errors (RFC 7807 problems).
 * - The operation: `with.operation` (its id), or `with.channel` (that channel's operation in the
 *   call's direction: 2.x `publish`/3.x `send` for a message, `subscribe`/`receive` for a subscription).
 * - The server: `with.server.name`, else the operation's first server of `with.protocol`, else its
 *   first one spoken here (MQTT, HTTP, AMQP, Kafka); `with.server.variables` fill the server URL's variables.
 * - `with.message`: its payload is published (over HTTP, `message.headers` are HTTP headers; over
 *   AMQP, the message's headers; over Kafka, the record's headers).
 * - `with.subscription`: messages are consumed until the consumption policy is met
 *   (./subscription.ts) and returned in order: over MQTT a subscription to the channel's topic,
 *   over HTTP a long poll of the channel's path, over AMQP the channel's queue (./amqp.ts), over
 *   Kafka the channel's topic (./kafka.ts); or, with `subscription.step`,
 *   the next message(s) of a subscription the workflow consumes in steps.
 * - `with.authentication` (basic, bearer, an OAuth2/OIDC token): basic credentials are the MQTT
 *   (and AMQP) username/password, a bearer token the password; over HTTP, the `Authorization` header.
 */
import { authenticationHeaders, ConfigurationError, configurationFailure, ErrorCodes, ErrorTypes, ExpressionError, fetchDocument, isAdapterError, locateDocument, problemFailure, type ActivityContext, type Json } from '../../src/adapter-sdk';
import { findCallOperation, loadDocument } from './document';
import { MQTT_NOT_AUTHORIZED } from './mqtt';
import { isAmqp, isKafka, overAmqp, overHttp, overKafka, overMqtt, subscribeOverAmqp, subscribeOverHttp, subscribeOverKafka, subscribeOverMqtt, subscribeStepOverAmqp, subscribeStepOverHttp, subscribeStepOverKafka, subscribeStepOverMqtt, type AsyncCredentials } from './transport';
import { consumption, stepFilter, type SubscriptionArgs } from './subscription';

type AsyncApiWith = {
  document?: { endpoint?: string | { uri?: string } };
  operation?: string;
  channel?: string;
  protocol?: string;
  server?: { name?: string; variables?: Record<string, Json> };
  message?: { payload?: Json; headers?: Record<string, Json> };
  subscription?: SubscriptionArgs;
  authentication?: Json;
};

/** Credentials of a 1.0 authentication policy (its Authorization header, or none). */
function policyCredentials(authorization: string | undefined): AsyncCredentials {
  return {
    mqtt: async () => {
      if (!authorization) return {};
      const [scheme, param = ''] = authorization.split(' ');
      if (scheme !== 'Basic') return { username: '', password: param };
      const plain = Buffer.from(param, 'base64').toString('utf8');
      const colon = plain.indexOf(':');
      return { username: plain.slice(0, colon), password: plain.slice(colon + 1) };
    },
    http: async () => (authorization ? { authorization } : undefined),
  };
}

export async function invokeAsyncApiCall(args: Json, ctx: ActivityContext, baseDirs: string[]): Promise<Json> {
  const w = (args ?? {}) as AsyncApiWith;
  try {
    const endpoint = typeof w.document?.endpoint === 'string' ? w.document.endpoint : w.document?.endpoint?.uri;
    if (!endpoint) throw new ConfigurationError('call: asyncapi has no document endpoint');
    const subscribing = w.subscription !== undefined;
    // A run from before v1-asyncapi-subscriptions evaluated the subscription's expressions as arguments: refused as then.
    if (subscribing && !w.subscription!.scope) throw new ConfigurationError('call: asyncapi with a subscription is not supported yet by this run (it started before the interpreter served subscriptions)');
    if (!w.operation && !w.channel) throw new ConfigurationError('call: asyncapi needs an operation (its operationId) or a channel');
    const where = locateDocument(endpoint, baseDirs, 'AsyncAPI document');
    const doc = await loadDocument(where, (url) => fetchDocument(ctx, url, 'AsyncAPI document'));
    const op = findCallOperation(doc, { operation: w.operation, channel: w.channel, direction: subscribing ? 'receive' : 'send', server: w.server, protocol: w.protocol }, where);
    const name = w.operation ? `operation "${w.operation}"` : `the channel "${w.channel}"'s operation`;
    if (!subscribing && op.direction !== 'send') throw new ConfigurationError(`${name} receives messages: a message can only be published by an operation the workflow sends (2.x publish, 3.x send)`);
    if (subscribing && op.direction !== 'receive') throw new ConfigurationError(`${name} sends messages: a subscription needs an operation the workflow receives (2.x subscribe, 3.x receive)`);
    const credentials = policyCredentials((await authenticationHeaders(w.authentication, ctx)).authorization);
    if (subscribing && w.subscription!.step) {
      // v1-subscription-streaming: one step of a subscription the workflow consumes (./subscription.ts).
      const step = /^https?$/.test(op.server.protocol) ? subscribeStepOverHttp : isAmqp(op) ? subscribeStepOverAmqp : isKafka(op) ? subscribeStepOverKafka : subscribeStepOverMqtt;
      return (await step(op, w.subscription!.step, stepFilter(w.subscription!), ctx, credentials)) as unknown as Json;
    }
    if (subscribing) {
      const subscribe = /^https?$/.test(op.server.protocol) ? subscribeOverHttp : isAmqp(op) ? subscribeOverAmqp : isKafka(op) ? subscribeOverKafka : subscribeOverMqtt;
      return (await subscribe(op, consumption(w.subscription!), ctx, credentials)) as unknown as Json;
    }
    const payload = (w.message?.payload ?? null) as Json;
    // Over AMQP, message.headers are the message's AMQP headers (tables: any JSON value).
    if (isAmqp(op)) return await overAmqp(op, payload, ctx, credentials, w.message?.headers);
    // Over Kafka, message.headers are the record's headers (text: other values as JSON).
    if (isKafka(op)) return await overKafka(op, payload, ctx, credentials, w.message?.headers);
    if (!/^https?$/.test(op.server.protocol)) return await overMqtt(op, payload, ctx, credentials);
    const headers = Object.fromEntries(Object.entries(w.message?.headers ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    return await overHttp(op, payload, ctx, credentials, headers);
  } catch (err) {
    if (err instanceof ConfigurationError || (isAdapterError(err) && err.code === ErrorCodes.OperationError)) throw configurationFailure(`${ctx.state}: ${(err as Error).message}`);
    // A subscription's filter, while or until that fails: an expression problem, as in the workflow.
    if (err instanceof ExpressionError) throw problemFailure({ type: ErrorTypes.expression, status: 400, title: 'Expression Error', detail: `${ctx.state}: ${err.message}` }, true);
    if (!isAdapterError(err)) throw err;
    if (err.code === ErrorCodes.AuthError) throw problemFailure({ type: ErrorTypes.authentication, status: 401, title: 'Unauthorized', detail: `${ctx.state}: ${err.message}` }, err.nonRetryable);
    const status = /^\d{3}$/.test(err.code) ? Number(err.code) : err.code === MQTT_NOT_AUTHORIZED ? 401 : 503;
    // As sw.http: what the broker or server answered is a communication problem with its status (a refused MQTT login: 401).
    throw problemFailure({ type: ErrorTypes.communication, status, title: err.code, detail: `${ctx.state}: ${err.message}` }, err.nonRetryable);
  }
}
