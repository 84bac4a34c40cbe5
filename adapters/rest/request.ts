/**
 * Function arguments → an HTTP request for an OpenAPI operation. Arguments are matched to the
 * operation's parameters by name (path, query, header, cookie; also the API keys of its security
 * schemes); what is left is the request body when the operation takes one (all the remaining
 * arguments as one JSON object, or the value of a sole `body` argument). Left-over arguments on
 * an operation without a body are an error: a misspelt parameter must not be dropped silently.
 */
import type { HttpRequest, Json } from '../../src/adapter-sdk';
import { OperationError, type Operation, type Parameter } from './openapi';

/** The request, and which API keys of the security schemes the arguments gave. */
export interface RestRequest extends HttpRequest {
  headers: Record<string, string>;
  body?: string;
  givenApiKeys: Set<string>;
}

/** The operation's parameters plus its security schemes' API keys (optional parameters). */
function parametersOf(op: Operation): { params: Parameter[]; apiKeys: Set<string> } {
  const params = [...op.parameters];
  const apiKeys = new Set<string>();
  for (const alt of op.security) {
    for (const s of alt) {
      if (s.type !== 'apiKey' || params.some((p) => p.name === s.name && p.in === s.in)) continue;
      params.push({ name: s.name, in: s.in, required: false });
      apiKeys.add(`${s.in}:${s.name}`);
    }
  }
  return { params, apiKeys };
}

const text = (v: Json): string => (typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

export function buildRequest(op: Operation, args: Json): RestRequest {
  if (args !== null && (typeof args !== 'object' || Array.isArray(args))) {
    throw new OperationError(`operation "${op.operationId}": arguments must be an object of parameter values, got ${JSON.stringify(args)}`);
  }
  const rest: Record<string, Json> = { ...((args ?? {}) as Record<string, Json>) };
  const headers: Record<string, string> = { accept: 'application/json' };
  const query = new URLSearchParams();
  const cookies: string[] = [];
  const form = new URLSearchParams();
  let url = op.urlTemplate;
  let body: Json | undefined;
  const { params, apiKeys } = parametersOf(op);
  const givenApiKeys = new Set<string>();

  for (const p of params) {
    const has = Object.prototype.hasOwnProperty.call(rest, p.name);
    const value = rest[p.name];
    delete rest[p.name];
    if (!has || value === undefined || value === null) {
      if (p.required && p.in !== 'body') throw new OperationError(`operation "${op.operationId}": required ${p.in} parameter "${p.name}" has no argument`);
      continue;
    }
    if (apiKeys.has(`${p.in}:${p.name}`)) givenApiKeys.add(`${p.in}:${p.name}`);
    switch (p.in) {
      case 'path':
        url = url.split(`{${p.name}}`).join(encodeURIComponent(text(value)));
        break;
      case 'query':
        for (const v of Array.isArray(value) ? value : [value]) query.append(p.name, text(v));
        break;
      case 'header':
        headers[p.name.toLowerCase()] = text(value);
        break;
      case 'cookie':
        cookies.push(`${p.name}=${encodeURIComponent(text(value))}`);
        break;
      case 'formData':
        form.append(p.name, text(value));
        break;
      case 'body':
        body = value;
        break;
    }
  }

  const leftover = Object.keys(rest);
  if (op.requestBody && body === undefined) {
    if (leftover.length === 1 && leftover[0] === 'body') body = rest.body;
    else if (leftover.length) body = rest;
  } else if (leftover.length) {
    const known = params.map((p) => `${p.name} (${p.in})`).join(', ') || 'none';
    throw new OperationError(`operation "${op.operationId}" has no parameter ${leftover.map((k) => `"${k}"`).join(', ')} and takes no request body; its parameters: ${known}`);
  }

  const qs = query.toString();
  if (qs) url += (url.includes('?') ? '&' : '?') + qs;
  if (cookies.length) headers.cookie = cookies.join('; ');
  const req: RestRequest = { method: op.method, url, headers, givenApiKeys };
  if ([...form.keys()].length) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    req.body = form.toString();
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    req.body = JSON.stringify(body);
  }
  return req;
}
