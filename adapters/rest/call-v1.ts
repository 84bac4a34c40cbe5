/**
 * Serverless Workflow 1.0 `call: openapi` (activity `sw.openapi`): the operation `operationId`
 * of the document at `document.endpoint`, called with `parameters`, with the call's
 * `authentication` (resolved by the SDK's `authentication`), its answer shaped per `output` and its
 * failures RFC 7807 problems (the SDK's 1.0 call helpers, shared with `call: http`).
 */
import { authentication, adapterErrorFailure, configurationFailure, isAdapterError, problemFailure, sendCall, COMMUNICATION, type ActivityContext, type Auth, type Json } from '../../src/adapter';
import { OperationError, resolveOperation } from './openapi';
import { buildRequest } from './request';

type Obj = Record<string, Json>;

function endpointOf(document: Json | undefined): string | undefined {
  const endpoint = (document as Obj | undefined)?.endpoint;
  if (typeof endpoint === 'string') return endpoint;
  const uri = (endpoint as Obj | undefined)?.uri;
  return typeof uri === 'string' ? uri : undefined;
}

/** Calls one 1.0 OpenAPI operation; relative documents are looked up in `baseDirs`. */
export async function invokeOpenApiCall(args: Json, ctx: ActivityContext, baseDirs: string[]): Promise<Json> {
  const w = (args ?? {}) as Obj;
  let request;
  let auth: Auth | undefined;
  try {
    const endpoint = endpointOf(w.document);
    if (!endpoint) throw new OperationError('call: openapi has no document endpoint');
    const op = await resolveOperation(`${endpoint}#${String(w.operationId)}`, baseDirs);
    const { givenApiKeys: _, ...built } = buildRequest(op, (w.parameters ?? null) as Json);
    request = built;
    auth = await authentication(w.authentication, ctx);
  } catch (err) {
    if (err instanceof OperationError) throw configurationFailure(`${ctx.state}: ${err.message}`);
    if (isAdapterError(err)) throw adapterErrorFailure(err);
    // e.g. a document that could not be fetched now: may work on a retry
    throw problemFailure({ type: COMMUNICATION, status: 503, title: 'Service Unavailable', detail: `${ctx.state}: ${(err as Error).message}` }, false);
  }
  return sendCall(request, ctx, { redirect: w.redirect === true, output: w.output, auth });
}
