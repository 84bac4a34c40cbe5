/**
 * Function arguments → an HTTP request for an OpenAPI operation. Arguments are matched to the
 * operation's parameters by name (path, query, header, cookie); what is left is the request
 * body when the operation takes one (all the remaining arguments as one JSON object, or the
 * value of a sole `body` argument). Left-over arguments on an operation without a body are an
 * error: a misspelt parameter must not be dropped silently.
 */
import type { Json } from '../../src/dsl/model';
import { OperationError, type Operation } from './openapi';

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const text = (v: Json): string => (typeof v === 'string' ? v : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

export function buildRequest(op: Operation, args: Json): HttpRequest {
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

  for (const p of op.parameters) {
    const has = Object.prototype.hasOwnProperty.call(rest, p.name);
    const value = rest[p.name];
    delete rest[p.name];
    if (!has || value === undefined || value === null) {
      if (p.required && p.in !== 'body') throw new OperationError(`operation "${op.operationId}": required ${p.in} parameter "${p.name}" has no argument`);
      continue;
    }
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
    const known = op.parameters.map((p) => `${p.name} (${p.in})`).join(', ') || 'none';
    throw new OperationError(`operation "${op.operationId}" has no parameter ${leftover.map((k) => `"${k}"`).join(', ')} and takes no request body; its parameters: ${known}`);
  }

  const qs = query.toString();
  if (qs) url += (url.includes('?') ? '&' : '?') + qs;
  if (cookies.length) headers.cookie = cookies.join('; ');
  const req: HttpRequest = { method: op.method, url, headers };
  if ([...form.keys()].length) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    req.body = form.toString();
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    req.body = JSON.stringify(body);
  }
  return req;
}
