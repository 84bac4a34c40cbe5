/**
 * A 1.0 `call: http` → the HTTP request to send (pure). The workflow has already evaluated
 * `with` and expanded the endpoint's URI template; secret-based authentication (`basic: { use:
 * <secret> }`) is resolved from the worker's secrets (the activity context), so it never enters history.
 */
import { authenticationHeader, ConfigurationError, type Json, type SecretSource } from '../../src/adapter-sdk';

export interface HttpCallRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

type Obj = Record<string, Json>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: Json): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The request for evaluated `call: http` arguments; a definition problem is a ConfigurationError. */
export function httpRequest(args: Json, secrets: SecretSource): HttpCallRequest {
  if (!isObj(args)) throw new ConfigurationError('call: http needs `with` arguments');
  const endpoint = typeof args.endpoint === 'string' ? { uri: args.endpoint } : isObj(args.endpoint) ? args.endpoint : undefined;
  if (!endpoint || typeof endpoint.uri !== 'string' || !endpoint.uri) throw new ConfigurationError('call: http has no endpoint URI');
  if (typeof args.method !== 'string' || !args.method) throw new ConfigurationError('call: http has no method');
  let url: URL;
  try {
    url = new URL(endpoint.uri);
  } catch (err) {
    throw new ConfigurationError((err as Error).message);
  }
  if (isObj(args.query)) for (const [k, v] of Object.entries(args.query)) if (v !== null && v !== undefined) url.searchParams.append(k, text(v));
  const headers: Record<string, string> = {};
  if (isObj(args.headers)) for (const [k, v] of Object.entries(args.headers)) if (v !== null && v !== undefined) headers[k.toLowerCase()] = text(v);
  const auth = authenticationHeader(endpoint.authentication, secrets);
  if (auth) headers.authorization = auth;
  const req: HttpCallRequest = { method: args.method.toUpperCase(), url: url.toString(), headers };
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
