/**
 * The OData adapter: serves `odata` functions (activity type `sw.odata`), spec 0.8 "Using
 * Functions for OData Service Invocations". `operation` is `<service root>#<entity set>`; the
 * arguments follow the spec's OData schema: `queryOptions` (`filter`, `select`, `expand`,
 * `orderBy`, `top`, `skip`, `count`, `search`, ...) become the system query options, and `key`
 * reads one entity (`People('russellwhyte')`, its literal typed from `$metadata`). OData v4,
 * JSON format. Written with the public adapter SDK only (`swflow/adapter`).
 *
 *   const worker = await createAdapterWorker({ adapters: [odataAdapter()] });
 *
 * The result is the service's answer as the OData JSON format has it: for an entity set, an
 * object with the entities in `value` (and `@odata.count` with `count: true`, `@odata.nextLink`
 * when the service pages); for a key, the entity. Failures: an HTTP status ≥ 400 is the code
 * (`"404"` for a key that matches nothing), with the OData error's message as the service's
 * message; a definition that cannot work is a non-retryable `OperationError`; network failures
 * have the SDK's codes.
 */
import { AdapterError, BUILTIN_ADAPTER, builtinActivityName, ODATA_FUNCTION_ACTIVITY, defineAdapter, DefinitionError, ErrorCodes, isAdapterError, type ActivityContext, type Adapter, type Json } from '../../src/adapter-sdk';
import { keyPropertiesOf } from './metadata';
import { keyPredicate, odataArguments, queryString, splitOperation } from './request';

/** The message of an OData error answer (`{ "error": { "code", "message" } }`). */
function odataMessage(answer: Json | undefined): string | undefined {
  const error = answer && typeof answer === 'object' && !Array.isArray(answer) ? answer.error : undefined;
  if (!error || typeof error !== 'object' || Array.isArray(error)) return undefined;
  const message = typeof error.message === 'string' ? error.message : undefined;
  return message && typeof error.code === 'string' && error.code ? `${message} (${error.code})` : message;
}

/** Queries the entity set of an odata function with the call's key and query options. */
export async function invokeOdata(args: Json, ctx: ActivityContext): Promise<Json> {
  const where = ctx.function.operation;
  try {
    const { root, entitySet } = splitOperation(where);
    const { key, queryOptions } = odataArguments(args);
    const query = queryString(queryOptions);
    let url = `${root}/${encodeURIComponent(entitySet)}`;
    if (key !== undefined) url += `(${keyPredicate(key, await keyPropertiesOf(root, entitySet, ctx), entitySet)})`;
    if (query) url += `?${query}`;
    const headers = { accept: 'application/json;odata.metadata=minimal', 'odata-maxversion': '4.0' };
    return (await ctx.http({ method: 'GET', url, headers })).body;
  } catch (err) {
    if (err instanceof DefinitionError) throw new AdapterError(ErrorCodes.OperationError, `${where}: ${err.message}`, { nonRetryable: true });
    const own = isAdapterError(err) ? odataMessage(err.answer) : undefined;
    if (isAdapterError(err) && own) throw new AdapterError(err.code, err.message, { request: err.request, answer: err.answer, serviceMessage: own, nonRetryable: err.nonRetryable });
    throw err;
  }
}

/** The OData adapter (activity `sw.odata`). */
export function odataAdapter(): Adapter {
  return defineAdapter({
    name: BUILTIN_ADAPTER,
    description: 'OData v4 entity sets (type: odata)',
    activities: { [builtinActivityName(ODATA_FUNCTION_ACTIVITY)]: (args: Json, ctx: ActivityContext) => invokeOdata(args, ctx) },
  });
}
