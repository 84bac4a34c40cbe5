/**
 * Serverless Workflow 1.0 `call: asyncapi` (activity `sw.asyncapiCall`): publishes
 * `with.message.payload` through the operation `with.operation` of the AsyncAPI document
 * `with.document` (on the server `with.server.name`, else the operation's first one spoken here),
 * authenticated by `with.authentication` (basic, bearer, an OAuth2/OIDC token) — the same AsyncAPI code as 0.8's `asyncapi` functions
 * (./document.ts, ./transport.ts), 1.0's errors (RFC 7807 problems). Basic credentials are the
 * MQTT username/password, a bearer token the password; over HTTP, the `Authorization` header, and
 * `message.headers` are sent as HTTP headers. Not yet: `subscription` (consuming messages),
 * `channel` without `operation` (2.x documents are addressed by their operationId), `protocol`.
 */
import { authenticationHeaders, ConfigurationError, configurationFailure, ErrorCodes, ErrorTypes, fetchDocument, isAdapterError, locateDocument, problemFailure, type ActivityContext, type Json } from '../../src/adapter';
import { resolveOperation } from './document';
import { MQTT_NOT_AUTHORIZED } from './mqtt';
import { overHttp, overMqtt, type AsyncCredentials } from './transport';

type AsyncApiWith = {
  document?: { endpoint?: string | { uri?: string } };
  operation?: string;
  server?: { name?: string };
  message?: { payload?: Json; headers?: Record<string, Json> };
  subscription?: Json;
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
    if (w.subscription !== undefined) throw new ConfigurationError('call: asyncapi with a subscription is not supported yet (publishing a message is)');
    if (!w.operation) throw new ConfigurationError('call: asyncapi needs an operation (the operationId of AsyncAPI 2.x documents too)');
    const locate = (doc: string) => locateDocument(doc, baseDirs, 'AsyncAPI document');
    const op = await resolveOperation(`${endpoint}#${w.operation}`, locate, (url) => fetchDocument(ctx, url, 'AsyncAPI document'), w.server?.name);
    if (op.direction !== 'send') throw new ConfigurationError(`operation "${w.operation}" receives messages: a message can only be published by an operation the workflow sends (2.x publish, 3.x send)`);
    const credentials = policyCredentials((await authenticationHeaders(w.authentication, ctx)).authorization);
    const payload = (w.message?.payload ?? null) as Json;
    if (!/^https?$/.test(op.server.protocol)) return await overMqtt(op, payload, ctx, credentials);
    const headers = Object.fromEntries(Object.entries(w.message?.headers ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    return await overHttp(op, payload, ctx, credentials, headers);
  } catch (err) {
    if (err instanceof ConfigurationError || (isAdapterError(err) && err.code === ErrorCodes.OperationError)) throw configurationFailure(`${ctx.state}: ${(err as Error).message}`);
    if (!isAdapterError(err)) throw err;
    if (err.code === ErrorCodes.AuthError) throw problemFailure({ type: ErrorTypes.authentication, status: 401, title: 'Unauthorized', detail: `${ctx.state}: ${err.message}` }, err.nonRetryable);
    const status = /^\d{3}$/.test(err.code) ? Number(err.code) : err.code === MQTT_NOT_AUTHORIZED ? 401 : 503;
    // As sw.http: what the broker or server answered is a communication problem with its status (a refused MQTT login: 401).
    throw problemFailure({ type: ErrorTypes.communication, status, title: err.code, detail: `${ctx.state}: ${err.message}` }, err.nonRetryable);
  }
}
