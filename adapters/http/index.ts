/**
 * The built-in adapter of Serverless Workflow 1.0 `call: http` (activity `sw.http`), written
 * with the public adapter SDK (`swflow/adapter`): `$secrets` in the arguments arrive resolved,
 * the endpoint's authentication is resolved in the worker (`authentication`: basic, bearer,
 * OAuth2, OpenID Connect), and the
 * SDK redacts secrets from what leaves the worker, heartbeats, and cancels the request with the
 * call. `call: openapi` (`sw.openapi`) is the REST adapter's, beside its OpenAPI code.
 *
 * Failures are RFC 7807 problems in the failure's `details[0]` (what `try`/`catch` filters): a
 * status the call does not accept or a connection failure is a communication error; a
 * definition problem (no URI or method, an unknown secret) a non-retryable configuration error.
 */
import { authentication, adapterErrorFailure, BUILTIN_ADAPTER, configurationFailure, defineAdapter, isAdapterError, sendCall, type ActivityContext, type Adapter, type Auth, type CallRequest, type Json } from '../../src/adapter';
import { CallError, httpRequest } from './request';

/** The activity type of `call: http`. */
export const HTTP_ACTIVITY = `${BUILTIN_ADAPTER}.http`;

/** Sends one `call: http`. */
export async function invokeHttp(args: Json, ctx: ActivityContext): Promise<Json> {
  let req: CallRequest;
  let auth: Auth | undefined;
  try {
    req = httpRequest(args);
    auth = await authentication((args as { endpoint?: { authentication?: Json } }).endpoint?.authentication, ctx);
  } catch (err) {
    if (err instanceof CallError) throw configurationFailure(`${ctx.state}: ${err.message}`);
    if (isAdapterError(err)) throw adapterErrorFailure(err);
    throw err;
  }
  const w = args as Record<string, Json>;
  return sendCall(req, ctx, { redirect: w.redirect === true, output: w.output, auth });
}

/** The 1.0 HTTP adapter (activity `sw.http`). */
export function httpAdapter(): Adapter {
  return defineAdapter({
    name: BUILTIN_ADAPTER,
    description: 'Serverless Workflow 1.0 call: http',
    activities: { http: invokeHttp },
  });
}
