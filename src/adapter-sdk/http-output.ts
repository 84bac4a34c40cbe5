/**
 * An HTTP response → a 1.0 call's output (pure), per `output`: `content` (default: the body,
 * deserialized when JSON, text when textual, else base-64), `raw` (the body base-64 encoded),
 * `response` (the spec's HTTP Response: request, statusCode, headers, content). A status outside
 * 200–299 (200–399 with `redirect: true`) is a communication error (RFC 7807 problem).
 */
import type { Json } from '../common/model';
import type { ActivityContext } from './define';
import type { Auth } from './auth';
import { ErrorCodes, isAdapterError } from './errors';
import { wholeAnswerSenders, type HttpRequest } from './http';
import { headerRecord } from './http-client';
import { configurationFailure, ErrorTypes, problemFailure, type Problem } from './problems';

/** The request as a 1.0 call's `response` output describes it. */
interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
}

export interface ReceivedResponse {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Uint8Array;
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
export function statusProblem(res: ReceivedResponse, req: SentRequest, redirect: boolean): Problem | undefined {
  const max = redirect ? 399 : 299;
  if (res.status >= 200 && res.status <= max) return undefined;
  const body = Buffer.from(res.body).toString('utf8').slice(0, 500);
  return { type: ErrorTypes.communication, status: res.status, title: res.statusText || `HTTP ${res.status}`, detail: `${req.method} ${req.url} answered ${res.status}${body ? `: ${body}` : ''}` };
}

export function shapeOutput(mode: unknown, req: SentRequest, res: ReceivedResponse): Json {
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

/**
 * Sends a 1.0 call's request with the context's fetch (cancellation, connection failures with
 * codes) and shapes the answer per `output`. A status the call does not accept, or a connection
 * failure, fails with a communication problem; the SDK redacts secrets from both.
 */
export async function sendCall(ctx: ActivityContext, req: SentRequest & Pick<HttpRequest, 'body'>, redirect: boolean, output: unknown, auth?: Auth): Promise<Json> {
  let received: ReceivedResponse;
  try {
    // Basic and bearer policies are the request's own Authorization header; an OAuth2/OIDC
    // policy's token comes with `auth` (tokenAuthentication), never the function's authRef.
    const options = { auth, redirect: redirect ? ('follow' as const) : ('manual' as const) };
    const whole = wholeAnswerSenders.get(ctx);
    if (whole) {
      const res = await whole(req, options);
      received = { status: res.status, statusText: res.statusText, headers: headerRecord(res.rawHeaders), body: res.body };
    } else {
      const res = await ctx.fetch(req, options);
      received = { status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers.entries()), body: new Uint8Array(await res.arrayBuffer()) };
    }
  } catch (err) {
    if (!isAdapterError(err) || ctx.signal.aborted) throw err;
    // A token request: an incomplete policy is a definition problem, a refusal an authentication error.
    if (err.code === ErrorCodes.AuthError) {
      if (err.nonRetryable) throw configurationFailure(err.message);
      throw problemFailure({ type: ErrorTypes.authentication, status: 401, title: 'Authentication Error', detail: err.message });
    }
    throw problemFailure({ type: ErrorTypes.communication, status: 503, title: 'Service Unavailable', detail: err.message });
  }
  const problem = statusProblem(received, req, redirect);
  if (problem) throw problemFailure(problem);
  return shapeOutput(output, req, received);
}
