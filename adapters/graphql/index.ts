/**
 * The GraphQL adapter: serves `graphql` functions (activity type `sw.graphql`), spec 0.8 "Using
 * Functions for GraphQL Service Invocations". `operation` is
 * `<url of the GraphQL endpoint>#<query|mutation>#<field>`; the action's `arguments` are the
 * field's arguments and its `selectionSet` what to select (its expressions evaluated by the
 * interpreter). The result is the answer's `data`, keyed by the field: `{ "pet": { ... } }`.
 * Written with the public adapter SDK only (`swflow/adapter`).
 *
 *   const worker = await createAdapterWorker({ adapters: [graphqlAdapter()] });
 *
 * The schema comes from introspecting the endpoint (schema.ts); the document types each
 * argument as a variable and is validated before it is sent (document.ts). Failures: an answer
 * with `errors` fails the call with the first error's `extensions.code`, else `GraphQLError`
 * (transport.ts); a definition that cannot work is a non-retryable `OperationError`; HTTP and
 * network failures have the SDK's codes (`"503"`, `ConnectionRefused`, ...).
 */
import { AdapterError, BUILTIN_ADAPTER, builtinActivityName, GRAPHQL_FUNCTION_ACTIVITY, defineAdapter, DefinitionError, ErrorCodes, type ActivityContext, type Adapter, type Json } from '../../src/adapter-sdk';
import { buildRequestBody, splitOperation, type GraphQLOperation, type GraphQLRequestBody } from './document';
import { schemaOf } from './schema';
import { graphqlFailure, postGraphQL } from './transport';

export { GRAPHQL_ERROR } from './transport';

/** The request body, against the cached schema; one that the schema refuses is checked again against a fresh one. */
async function requestBody(op: GraphQLOperation, args: Json, ctx: ActivityContext): Promise<GraphQLRequestBody> {
  const build = async (fresh: boolean) => buildRequestBody(await schemaOf(op.endpoint, ctx, fresh), op, args, ctx.selectionSet, ctx.function.name);
  try {
    return await build(false);
  } catch (err) {
    if (err instanceof DefinitionError && err.bySchema) return build(true);
    throw err;
  }
}

/** Calls the query or mutation field of a graphql function with the call's arguments and selection set. */
export async function invokeGraphql(args: Json, ctx: ActivityContext): Promise<Json> {
  const where = ctx.function.operation;
  try {
    const op = splitOperation(where);
    const body = await requestBody(op, args, ctx);
    const response = await postGraphQL(ctx, op.endpoint, body);
    if (response.errors?.length) throw graphqlFailure(`POST ${op.endpoint} ${body.query.replace(/\s+/g, ' ').trim()}`, response);
    return response.data ?? null;
  } catch (err) {
    if (err instanceof DefinitionError) throw new AdapterError(ErrorCodes.OperationError, `${where}: ${err.message}`, { nonRetryable: true });
    throw err;
  }
}

/** The GraphQL adapter (activity `sw.graphql`). */
export function graphqlAdapter(): Adapter {
  return defineAdapter({
    name: BUILTIN_ADAPTER,
    description: 'GraphQL queries and mutations (type: graphql)',
    activities: { [builtinActivityName(GRAPHQL_FUNCTION_ACTIVITY)]: (args: Json, ctx: ActivityContext) => invokeGraphql(args, ctx) },
  });
}
