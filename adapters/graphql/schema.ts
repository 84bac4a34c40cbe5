/**
 * A GraphQL function's schema, learnt by introspecting its endpoint (the standard
 * `getIntrospectionQuery()` of graphql-js, rebuilt with `buildClientSchema`). The operation names
 * the endpoint itself (`<url>#query#pet`, as in the spec's examples), and introspection is what
 * every GraphQL server answers there; an SDL file would be a second document to locate and keep
 * in step with the server. The schema gives each argument its GraphQL type (the document's
 * variable definitions) and lets the document be validated here, before anything is sent.
 *
 * Introspection goes out with the function's resource auth (`authRef.resource`), else its
 * invocation auth. Schemas are cached per worker, by endpoint and auth definition; a failed
 * introspection is tried again next time, and {@link schemaOf} with `fresh` re-reads a schema
 * (a document that does not validate may be one the server has learnt since).
 */
import { buildClientSchema, getIntrospectionQuery, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import { AdapterError, ErrorCodes, type ActivityContext, type Json } from '../../src/adapter-sdk';
import { postGraphQL } from './transport';

const cache = new Map<string, Promise<GraphQLSchema>>();

async function introspect(endpoint: string, ctx: ActivityContext): Promise<GraphQLSchema> {
  const response = await postGraphQL(ctx, endpoint, { query: getIntrospectionQuery({ descriptions: false }) }, { auth: ctx.resourceAuth ?? ctx.auth });
  if (response.errors?.length || !response.data?.__schema) {
    const why = response.errors?.map((e) => e.message).join('; ') || 'no __schema in the answer';
    throw new AdapterError(ErrorCodes.OperationError, `${endpoint} did not answer the introspection query (${why}); the graphql adapter reads the schema by introspection, so the endpoint must allow it for this client`, {
      nonRetryable: true,
      request: `POST ${endpoint} (introspection)`,
      answer: response.errors ? ({ errors: response.errors } as unknown as Json) : null,
    });
  }
  try {
    return buildClientSchema(response.data as unknown as IntrospectionQuery);
  } catch (err) {
    throw new AdapterError(ErrorCodes.InvalidResponse, `${endpoint} answered the introspection query with a schema that does not build: ${(err as Error).message}`, { request: `POST ${endpoint} (introspection)` });
  }
}

/** The endpoint's schema (cached; `fresh` introspects again). */
export function schemaOf(endpoint: string, ctx: ActivityContext, fresh = false): Promise<GraphQLSchema> {
  const key = `${endpoint}\n${JSON.stringify(ctx.function.authRef ?? null)}`;
  let p = fresh ? undefined : cache.get(key);
  if (!p) {
    p = introspect(endpoint, ctx);
    cache.set(key, p);
    p.catch(() => cache.get(key) === p && cache.delete(key));
  }
  return p;
}
