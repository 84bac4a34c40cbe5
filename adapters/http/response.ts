/**
 * An HTTP response → the call's output (pure), per `output`: `content` (default: the body,
 * deserialized when JSON, text when textual, else base-64), `raw` (the body base-64 encoded),
 * `response` (the spec's HTTP Response: request, statusCode, headers, content). A status outside
 * 200–299 (200–399 with `redirect: true`) is a communication error (RFC 7807 problem).
 */
import type { Json } from '../../src/dsl/model';
import type { HttpRequest } from './request';

export const COMMUNICATION = 'https://serverlessworkflow.io/spec/1.0.0/errors/communication';

export interface ReceivedResponse {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface Problem {
  type: string;
  status: number;
  title: string;
  detail?: string;
}

export function decodeContent(res: ReceivedResponse): Json {
  if (!res.body.length) return null;
  const type = res.headers['content-type'] ?? '';
  const str = Buffer.from(res.body).toString('utf8');
  if (/json/i.test(type)) {
    try {
      return JSON.parse(str) as Json;
    } catch {
      return str;
    }
  }
  if (/^text\/|xml|x-www-form-urlencoded/i.test(type) || !type) return str;
  return Buffer.from(res.body).toString('base64');
}

/** The failure for a status the call does not accept, or undefined. */
export function statusProblem(res: ReceivedResponse, req: HttpRequest, redirect: boolean): Problem | undefined {
  const max = redirect ? 399 : 299;
  if (res.status >= 200 && res.status <= max) return undefined;
  const body = Buffer.from(res.body).toString('utf8').slice(0, 500);
  return { type: COMMUNICATION, status: res.status, title: res.statusText || `HTTP ${res.status}`, detail: `${req.method} ${req.url} answered ${res.status}${body ? `: ${body}` : ''}` };
}

export function shapeOutput(mode: unknown, req: HttpRequest, res: ReceivedResponse): Json {
  if (mode === 'raw') return res.body.length ? Buffer.from(res.body).toString('base64') : null;
  const content = decodeContent(res);
  if (mode !== 'response') return content;
  return {
    request: { method: req.method, uri: req.url, headers: req.headers },
    statusCode: res.status,
    headers: res.headers,
    content,
  };
}
