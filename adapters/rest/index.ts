/**
 * The REST adapter: serves `rest` functions (activity type `sw.rest`) by calling the OpenAPI
 * operation their `operation` names. Written with the public adapter SDK only (`swflow/adapter`,
 * i.e. src/adapter-sdk): secret arguments and auth arrive resolved, the SDK's HTTP helper sends the
 * request with auth, cancellation and error codes, and redacts secrets from what leaves the worker.
 *
 *   const worker = await createAdapterWorker({ adapters: [restAdapter({ baseDirs: ['./workflows'] })] });
 *
 * Failures: an HTTP status ≥ 400 fails the call with the status as the error code (what
 * `errors[].code` matches); the message names the request and carries the service's answer.
 * Definition problems (document or operation not found, arguments that fit no parameter) are
 * non-retryable `OperationError`s; a document that cannot be fetched now is `OperationUnavailable`;
 * network failures have the SDK's codes (ConnectionRefused, HostNotFound, ...).
 *
 * An unsafe request (POST, PATCH, PUT, DELETE...) carries the call's `Idempotency-Key`, the same on
 * every attempt (src/adapter-sdk/idempotency.ts; `swflow.idempotencyKey: false` switches it off).
 */
import { AdapterError, addIdempotencyKey, BUILTIN_ADAPTER, ConfigurationError, builtinActivityName, REST_FUNCTION_ACTIVITY, OPENAPI_CALL_ACTIVITY, defineAdapter, ErrorCodes, type ActivityContext, type Adapter, type Json } from '../../src/adapter-sdk';
import { DocumentUnavailable, OperationError, resolveOperation } from './openapi';
import { buildRequest } from './request';
import { invokeOpenApi } from './openapi-call';
import { applySecurity } from './security';

export interface RestAdapterOptions {
  /** Where relative OpenAPI document references are looked up (the definition folders). Default: cwd. */
  baseDirs?: string[];
}

/** Calls the OpenAPI operation of a rest function with the call's arguments. */
export async function invokeRest(args: Json, ctx: ActivityContext, opts: RestAdapterOptions = {}): Promise<Json> {
  const where = ctx.function.operation;
  try {
    const resourceHeaders = ctx.resourceAuth ? await ctx.resourceAuth.headers() : {};
    const op = await resolveOperation(ctx.function.operation, opts.baseDirs ?? [process.cwd()], resourceHeaders);
    const request = buildRequest(op, args);
    addIdempotencyKey(request, ctx);
    const auth = await applySecurity(op, request, ctx.auth);
    const { body } = await ctx.http(request, { auth });
    return body;
  } catch (err) {
    if (err instanceof OperationError || err instanceof ConfigurationError) throw new AdapterError(ErrorCodes.OperationError, `${where}: ${err.message}`, { nonRetryable: true });
    if (err instanceof DocumentUnavailable) throw new AdapterError(ErrorCodes.OperationUnavailable, `${where}: ${err.message}`);
    throw err;
  }
}

/** The OpenAPI adapter: 0.8 `rest` functions (`sw.rest`) and 1.0 `call: openapi` (`sw.openapi`), reading documents relative to `baseDirs`. */
export function restAdapter(opts: RestAdapterOptions = {}): Adapter {
  return defineAdapter({
    name: BUILTIN_ADAPTER,
    description: 'REST over OpenAPI (type: rest; 1.0 call: openapi)',
    activities: {
      [builtinActivityName(REST_FUNCTION_ACTIVITY)]: (args: Json, ctx: ActivityContext) => invokeRest(args, ctx, opts),
      [builtinActivityName(OPENAPI_CALL_ACTIVITY)]: (args: Json, ctx: ActivityContext) => invokeOpenApi(args, ctx, opts.baseDirs ?? [process.cwd()]),
    },
  });
}
