/**
 * GraphQL over HTTP (the GraphQL-over-HTTP spec): a POST of `{ query, variables, operationName }`
 * as JSON, answered by `{ data, errors }`. The SDK's `ctx.http` sends it (auth, cancellation,
 * network error codes); an answer with a 4xx/5xx status that is a GraphQL response
 * (`application/graphql-response+json` servers answer request errors so) is read as one, so its
 * `errors` decide the code rather than the status.
 */
import { AdapterError, ErrorCodes, isAdapterError, type ActivityContext, type HttpOptions, type Json } from '../../src/adapter-sdk';

/** One entry of a GraphQL response's `errors`. */
export interface GraphQLErrorJson {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: unknown; [key: string]: unknown };
}

export interface GraphQLResponse {
  data?: Record<string, Json> | null;
  errors?: GraphQLErrorJson[];
}

/** The code of a GraphQL error without `extensions.code`. */
export const GRAPHQL_ERROR = 'GraphQLError';

function isGraphQLResponse(v: unknown): v is GraphQLResponse {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return ('data' in r && (r.data === null || (typeof r.data === 'object' && !Array.isArray(r.data)))) || (Array.isArray(r.errors) && r.errors.length > 0);
}

/** Posts a GraphQL request; `options.auth` overrides the function's invocation auth (introspection uses the resource auth). */
export async function postGraphQL(ctx: ActivityContext, endpoint: string, payload: { query: string; variables?: Json; operationName?: string }, options?: HttpOptions): Promise<GraphQLResponse> {
  const request = { method: 'POST', url: endpoint, headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json;q=0.9' }, body: JSON.stringify(payload) };
  let body: unknown;
  try {
    body = (await ctx.http(request, options)).body;
  } catch (err) {
    if (isAdapterError(err) && /^[45]\d\d$/.test(err.code) && isGraphQLResponse(err.answer) && err.answer.errors?.length) return err.answer;
    throw err;
  }
  if (!isGraphQLResponse(body)) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    throw new AdapterError(ErrorCodes.InvalidResponse, `POST ${endpoint} answered something that is not a GraphQL response (no "data", no "errors"): ${text.slice(0, 200)}`, {
      request: `POST ${endpoint}`,
      answer: body as Json,
    });
  }
  return body;
}

/**
 * The failure of an answer with `errors`: its code is the first error's `extensions.code`
 * (Apollo's `NOT_FOUND`, `UNAUTHENTICATED`, `BAD_USER_INPUT`, ...), else `GraphQLError`; the
 * message lists every error with its path; the answer (partial `data` included) is kept.
 */
export function graphqlFailure(request: string, response: GraphQLResponse): AdapterError {
  const errors = response.errors ?? [];
  const own = errors[0]?.extensions?.code;
  const code = (typeof own === 'string' || typeof own === 'number') && String(own) ? String(own) : GRAPHQL_ERROR;
  const listed = errors.map((e) => `${e.message}${e.path?.length ? ` (at ${e.path.join('.')})` : ''}${e.extensions?.code !== undefined ? ` [${String(e.extensions.code)}]` : ''}`);
  return new AdapterError(code, `${request} answered with GraphQL errors: ${listed.join('; ')}`, {
    request,
    answer: response as Json,
    serviceMessage: errors.map((e) => e.message).join('; '),
  });
}
