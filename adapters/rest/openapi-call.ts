/**
 * Serverless Workflow 1.0 `call: openapi` (activity `sw.openapi`): the operation `operationId`
 * of the OpenAPI document `with.document`, called with `with.parameters`, authenticated by
 * `with.authentication`, its answer shaped per `with.output` — the same OpenAPI code as 0.8's
 * `rest` functions (./openapi.ts, ./request.ts), 1.0's errors (RFC 7807 problems).
 */
import { addIdempotencyKey, authenticationHeader, tokenAuthentication, ConfigurationError, configurationFailure, ErrorTypes, problemFailure, sendCall, type ActivityContext, type Auth, type Json } from '../../src/adapter-sdk';
import { DocumentUnavailable, OperationError, resolveOperation } from './openapi';
import { buildRequest, type RestRequest } from './request';

export async function invokeOpenApi(args: Json, ctx: ActivityContext, baseDirs: string[]): Promise<Json> {
  const w = (args ?? {}) as Record<string, Json>;
  let req: RestRequest;
  let auth: Auth | undefined;
  try {
    const doc = w.document as { endpoint?: Json } | undefined;
    const endpoint = typeof doc?.endpoint === 'string' ? doc.endpoint : (doc?.endpoint as { uri?: string } | undefined)?.uri;
    if (!endpoint) throw new ConfigurationError('call: openapi has no document endpoint');
    const op = await resolveOperation(`${endpoint}#${String(w.operationId)}`, baseDirs);
    const built = buildRequest(op, (w.parameters ?? null) as Json);
    const authorization = authenticationHeader(w.authentication, ctx);
    req = { ...built, headers: { ...built.headers, ...(authorization ? { authorization } : {}) } };
    addIdempotencyKey(req, ctx);
    auth = await tokenAuthentication(w.authentication, ctx);
  } catch (err) {
    if (err instanceof OperationError || err instanceof ConfigurationError) throw configurationFailure(`${ctx.state}: ${err.message}`);
    // A document that cannot be fetched now may be there on the next attempt.
    if (err instanceof DocumentUnavailable) throw problemFailure({ type: ErrorTypes.communication, status: 503, title: 'Service Unavailable', detail: `${ctx.state}: ${err.message}` });
    throw err;
  }
  return sendCall(ctx, req, w.redirect === true, w.output, auth);
}
