/**
 * Serverless Workflow 1.0 HTTP calls (`call: http`, `call: openapi`) on the adapter side: the
 * request sent with the call's cancellation, the answer shaped per `output`, and failures as
 * RFC 7807 problems — what 1.0's `try`/`catch` filters on (`type`, `status`).
 *
 * `output`: `content` (default: the body, deserialized when JSON, text when textual, else
 * base-64), `raw` (the body base-64 encoded), `response` (the spec's HTTP Response: request,
 * statusCode, headers, content). A status outside 200–299 (200–399 with `redirect: true`), or a
 * connection failure, is a communication error; a definition problem is a non-retryable
 * configuration error.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { Json } from '../dsl/model';
import type { ActivityContext } from './define';
import type { Auth } from './auth';
import { ErrorCodes, isAdapterError, type AdapterError } from './errors';
import { describeRequest } from './http';

const ERRORS = 'https://serverlessworkflow.io/spec/1.0.0/errors/';
/** The standard 1.0 error types an HTTP call fails with. */
export const COMMUNICATION = `${ERRORS}communication`;
export const CONFIGURATION = `${ERRORS}configuration`;
export const AUTHENTICATION = `${ERRORS}authentication`;

/** An RFC 7807 problem (the 1.0 error). */
export interface Problem {
  type: string;
  status: number;
  title: string;
  detail?: string;
}

/** A request as a 1.0 call sends it (headers lower-cased, body serialized). */
export interface CallRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface ReceivedResponse {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * The failure of a 1.0 call: an ApplicationFailure whose type is the problem's type and whose
 * `details[0]` is the problem (plus `code`, the status, and `message`, for 0.8-style readers).
 */
export function problemFailure(problem: Problem, nonRetryable: boolean): ApplicationFailure {
  const message = problem.detail ?? problem.title;
  return ApplicationFailure.create({ type: problem.type, message: `${problem.title}: ${problem.detail ?? ''}`, details: [{ ...problem, code: String(problem.status), message }], nonRetryable });
}

/** A definition problem (no URI, unknown operation or secret): a non-retryable configuration error. */
export function configurationFailure(detail: string): ApplicationFailure {
  return problemFailure({ type: CONFIGURATION, status: 400, title: 'Configuration Error', detail }, true);
}

/**
 * An {@link AdapterError} met by a 1.0 call (resolving its credentials, sending it) as its
 * problem: a non-retryable one (an incomplete policy, an unknown secret) is a configuration
 * error, a token endpoint that refused an authentication error (401), anything else (a
 * connection failure) a communication error (503).
 */
export function adapterErrorFailure(err: AdapterError): ApplicationFailure {
  if (err.nonRetryable) return configurationFailure(err.message);
  if (err.code === ErrorCodes.AuthError) return problemFailure({ type: AUTHENTICATION, status: 401, title: 'Authentication Error', detail: err.message }, false);
  return problemFailure({ type: COMMUNICATION, status: 503, title: 'Service Unavailable', detail: err.message }, false);
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
export function statusProblem(res: ReceivedResponse, req: CallRequest, redirect: boolean): Problem | undefined {
  const max = redirect ? 399 : 299;
  if (res.status >= 200 && res.status <= max) return undefined;
  const body = Buffer.from(res.body).toString('utf8').slice(0, 500);
  return { type: COMMUNICATION, status: res.status, title: res.statusText || `HTTP ${res.status}`, detail: `${describeRequest(req)} answered ${res.status}${body ? `: ${body}` : ''}` };
}

export function shapeOutput(mode: unknown, req: CallRequest, res: ReceivedResponse): Json {
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
 * Sends a 1.0 call's request through the context's `fetch` (cancellation; the credentials of
 * `opts.auth`, from `authentication`, refreshed once on a 401 for OAuth2) and returns the
 * output `output` asks for. Fails with a communication problem for a connection failure or a
 * status the call does not accept.
 */
export async function sendCall(req: CallRequest, ctx: Pick<ActivityContext, 'fetch'>, opts: { redirect?: boolean; output?: unknown; auth?: Auth } = {}): Promise<Json> {
  const redirect = opts.redirect === true;
  let res: Response;
  try {
    res = await ctx.fetch({ ...req, redirect: redirect ? 'follow' : 'manual' }, { auth: opts.auth });
  } catch (err) {
    if (!isAdapterError(err)) throw err; // cancelled: the SDK reports the cancellation
    throw adapterErrorFailure(err);
  }
  const received: ReceivedResponse = { status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers.entries()), body: new Uint8Array(await res.arrayBuffer()) };
  const problem = statusProblem(received, req, redirect);
  if (problem) throw problemFailure(problem, false);
  return shapeOutput(opts.output, req, received);
}
