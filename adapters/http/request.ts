/**
 * A 1.0 `call: http` → the HTTP request to send (pure). The workflow has already evaluated
 * `with` and expanded the endpoint's URI template; secret-based authentication (`basic: { use:
 * <secret> }`) is resolved here from the worker's secrets, so it never enters history.
 */
import type { Json } from '../../src/dsl/model';

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A definition problem (missing method or URI, unknown secret): retrying cannot help. */
export class CallError extends Error {}

type Obj = Record<string, Json>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: Json): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The secret named by a secret-based policy, as an object (JSON text, e.g. from the environment). */
export function secretObject(secrets: Record<string, unknown>, name: string): Obj {
  const v = secrets[name];
  if (v === undefined) throw new CallError(`secret '${name}' is not available to this worker`);
  if (isObj(v)) return v;
  try {
    const parsed = JSON.parse(String(v));
    if (isObj(parsed)) return parsed;
  } catch {
    /* fall through */
  }
  throw new CallError(`secret '${name}' must be a JSON object (e.g. {"username": "...", "password": "..."})`);
}

/** The Authorization header of an (evaluated) authentication policy. */
export function authorizationHeader(auth: unknown, secrets: Record<string, unknown>): string | undefined {
  if (!isObj(auth)) return undefined;
  const from = (body: Json): Obj => (isObj(body) && typeof body.use === 'string' ? secretObject(secrets, body.use) : isObj(body) ? body : {});
  if (auth.basic !== undefined) {
    const b = from(auth.basic);
    return `Basic ${Buffer.from(`${text(b.username ?? '')}:${text(b.password ?? '')}`).toString('base64')}`;
  }
  if (auth.bearer !== undefined) return `Bearer ${text(from(auth.bearer).token ?? '')}`;
  for (const scheme of ['digest', 'oauth2', 'oidc', 'certificate']) {
    if (auth[scheme] !== undefined) throw new CallError(`'${scheme}' authentication is not supported yet (basic and bearer are)`);
  }
  return undefined;
}

/** The request for evaluated `call: http` arguments. */
export function httpRequest(args: Json, secrets: Record<string, unknown>): HttpRequest {
  if (!isObj(args)) throw new CallError('call: http needs `with` arguments');
  const endpoint = typeof args.endpoint === 'string' ? { uri: args.endpoint } : isObj(args.endpoint) ? args.endpoint : undefined;
  if (!endpoint || typeof endpoint.uri !== 'string' || !endpoint.uri) throw new CallError('call: http has no endpoint URI');
  if (typeof args.method !== 'string' || !args.method) throw new CallError('call: http has no method');
  const url = new URL(endpoint.uri);
  if (isObj(args.query)) for (const [k, v] of Object.entries(args.query)) if (v !== null && v !== undefined) url.searchParams.append(k, text(v));
  const headers: Record<string, string> = {};
  if (isObj(args.headers)) for (const [k, v] of Object.entries(args.headers)) if (v !== null && v !== undefined) headers[k.toLowerCase()] = text(v);
  const auth = authorizationHeader(endpoint.authentication, secrets);
  if (auth) headers.authorization = auth;
  const req: HttpRequest = { method: args.method.toUpperCase(), url: url.toString(), headers };
  if (args.body !== undefined && args.body !== null) {
    if (typeof args.body === 'string') req.body = args.body;
    else {
      req.body = JSON.stringify(args.body);
      headers['content-type'] ??= 'application/json';
    }
  }
  headers.accept ??= 'application/json, */*;q=0.5';
  return req;
}
