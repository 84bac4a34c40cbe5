/**
 * The built-in adapter of Serverless Workflow 1.0 `call: http` (activity `sw.http`), written with
 * the public adapter SDK: `$secrets` in arguments arrive resolved, secret-based authentication is
 * read through `ctx.secret` (so it is redacted), an OAuth2/OIDC policy's token is requested by
 * the worker (`tokenAuthentication`), the request goes out through `ctx.fetch`
 * (cancellation, connection failures with codes) and its answer is shaped per `output` (the SDK's
 * sendCall). An unsafe request (POST, PATCH, PUT, DELETE...) carries the call's `Idempotency-Key`
 * (src/adapter-sdk/idempotency.ts). Pure request building in ./request.ts. (`call: openapi` is the OpenAPI adapter's,
 * adapters/rest.)
 *
 * Failures: a status the call does not accept, or a connection failure, is a communication
 * problem (RFC 7807, `details[0]`, what `try`/`catch` filters); a refused token request an
 * authentication problem (401); a definition problem (no URI, unknown secret, an unsupported
 * policy) is a non-retryable configuration problem.
 */
import { addIdempotencyKey, BUILTIN_ADAPTER, builtinActivityName, HTTP_CALL_ACTIVITY, ConfigurationError, configurationFailure, defineAdapter, sendCall, tokenAuthentication, type ActivityContext, type Adapter, type Auth, type Json } from '../../src/adapter-sdk';
import { httpRequest, type HttpCallRequest } from './request';

/** One `call: http`: the request its evaluated `with` describes, sent. */
export async function invokeHttp(args: Json, ctx: ActivityContext): Promise<Json> {
  const w = (args ?? {}) as Record<string, Json>;
  let req: HttpCallRequest;
  let auth: Auth | undefined;
  try {
    req = httpRequest(w, ctx);
    addIdempotencyKey(req, ctx);
    const policy = endpointAuthentication(w.endpoint);
    // No await (a promise and a turn) for an endpoint without a policy: most calls.
    auth = policy === undefined ? undefined : await tokenAuthentication(policy, ctx);
  } catch (err) {
    if (err instanceof ConfigurationError) throw configurationFailure(`${ctx.state}: ${err.message}`);
    throw err;
  }
  return sendCall(ctx, req, w.redirect === true, w.output, auth);
}

/** The endpoint's authentication policy (an endpoint may be a bare URI). */
function endpointAuthentication(endpoint: Json | undefined): Json | undefined {
  return endpoint && typeof endpoint === 'object' && !Array.isArray(endpoint) ? endpoint.authentication : undefined;
}

/** The `call: http` adapter (activity `sw.http`). */
export function httpAdapter(): Adapter {
  return defineAdapter({ name: BUILTIN_ADAPTER, description: '1.0 call: http', activities: { [builtinActivityName(HTTP_CALL_ACTIVITY)]: invokeHttp } });
}
