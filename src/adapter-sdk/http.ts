/**
 * HTTP for adapters: requests (sent by ./http-client.ts) with the call's auth, cancellation and
 * error codes, and an answer reader that fails clearly on a body that is not what its content
 * type says. Every HTTP-based adapter (REST, GraphQL, OData, a plain HTTP call) gets the same
 * behaviour from here.
 */
import type { Json } from '../common/model';
import type { Auth } from './auth';
import { AdapterError, ErrorCodes, isAdapterError, networkFailure } from './errors';
import { httpFetch, httpFetchWhole, wholeAnswerResponse, type HttpFetchInit, type WholeAnswer } from './http-client';
import { traceHeaders } from '../tracing/context';

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams | Uint8Array;
}

export interface HttpAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  /** Parsed JSON for a JSON content type, the text otherwise; null when empty. */
  body: Json;
}

export interface HttpOptions {
  /** Credentials to send (default: the function's invocation auth, when the helper is the context's). */
  auth?: Auth;
  signal?: AbortSignal;
  /** `manual` answers a redirect as it is (1.0 `call: http` without `redirect: true`); default `follow`. */
  redirect?: 'follow' | 'manual';
}

/** How a request is named in messages: `GET https://host/path?query`. */
export function describeRequest(req: Pick<HttpRequest, 'method' | 'url'>): string {
  return `${req.method.toUpperCase()} ${req.url}`;
}

/**
 * Sends a request with the auth's headers (an explicit `authorization` header wins). A network
 * failure throws an {@link AdapterError} with its code (ConnectionRefused, HostNotFound, ...);
 * a 401 with refreshable auth (OAuth2) is tried once more with a new token, a 401 with a digest
 * challenge once more with its answer; a client certificate goes with the request.
 * When the process traces, the request carries the active trace context (`traceparent`).
 */
export function sendHttp(req: HttpRequest, opts: HttpOptions = {}): Promise<Response> {
  return sendWith(req, opts, httpFetch, (res) => res, async (res) => res.body?.cancel());
}

/** {@link sendHttp}, answered as a {@link WholeAnswer} (no `Response` made: swflow's own adapters read these). */
export function sendHttpWhole(req: HttpRequest, opts: HttpOptions = {}): Promise<WholeAnswer> {
  return sendWith(req, opts, httpFetchWhole, wholeAnswerResponse, async () => undefined);
}

async function sendWith<A extends { status: number }>(
  req: HttpRequest,
  opts: HttpOptions,
  fetchWith: (url: string, init: HttpFetchInit) => Promise<A>,
  asResponse: (answer: A) => Response,
  discard: (answer: A) => Promise<void>,
): Promise<A> {
  const request = describeRequest(req);
  const send = async (): Promise<A> => {
    // The auth's headers and certificate awaited only when there is an auth (each await is a turn on every call's path).
    const auth = opts.auth;
    const headers = { ...traceHeaders(), ...((auth ? await auth.headers({ method: req.method, url: req.url }) : undefined) ?? {}), ...lowerKeys(req.headers ?? {}) };
    const certificate = auth?.tls ? await auth.tls() : undefined;
    try {
      return await fetchWith(req.url, { method: req.method, headers, body: req.body, signal: opts.signal, redirect: opts.redirect, certificate });
    } catch (err) {
      if (opts.signal?.aborted || isAdapterError(err)) throw err;
      const failure = networkFailure(err);
      throw new AdapterError(failure.code, `${request} failed: ${failure.message}`, { request, cause: err });
    }
  };
  const res = await send();
  // Digest: the 401 carries the challenge the request is sent again to answer.
  if (res.status === 401 && opts.auth?.challenged?.(asResponse(res))) {
    await discard(res);
    return send();
  }
  if (res.status === 401 && opts.auth && (await opts.auth.refresh())) {
    await discard(res);
    return send();
  }
  return res;
}

/**
 * The whole-answer sender of an adapter's context (set by the SDK's activities), for sendCall
 * and callHttp; a context made otherwise (a test's) is sent with its `fetch`.
 */
export const wholeAnswerSenders = new WeakMap<object, (req: HttpRequest, opts?: HttpOptions) => Promise<WholeAnswer>>();

/** How many bytes of an unparsable answer a failure quotes. */
const QUOTED_BYTES = 200;

/**
 * An answer's body: JSON for `application/json` and `+json` types (invalid JSON fails the call
 * with code InvalidResponse, the content type and the first bytes), text for `text/*` and other
 * types; without a content type, JSON when it parses. Empty: null.
 */
export async function readAnswer(res: Response, request: string): Promise<Json> {
  return answerBody(await res.text(), res.headers.get('content-type') ?? '', res.status, request);
}

/** {@link readAnswer} of an answer's text (as `Response.text()` gives it) and content type. */
function answerBody(text: string, type: string, status: number, request: string): Json {
  if (!text) return null;
  const declaredJson = /^application\/(?:[\w.+-]+\+)?json\b/i.test(type.trim());
  if (declaredJson || (!type && /^\s*[[{"]/.test(text))) {
    try {
      return JSON.parse(text) as Json;
    } catch (err) {
      if (!declaredJson || status >= 400) return text;
      throw new AdapterError(
        ErrorCodes.InvalidResponse,
        `${request} answered ${status} with content type ${type} but a body that is not valid JSON (${(err as Error).message}): ${JSON.stringify(text.slice(0, QUOTED_BYTES))}${text.length > QUOTED_BYTES ? '…' : ''}`,
        { request, answer: text.slice(0, QUOTED_BYTES) },
      );
    }
  }
  return text;
}

/** How many characters of a service's answer a failure message quotes. */
const QUOTED_ANSWER = 2000;

/**
 * Sends a request and reads the answer; a status ≥ 400 fails the call with the status as its
 * code, naming the request and quoting the answer (the service's own `message` is what the
 * definition sees).
 */
export async function callHttp(req: HttpRequest, opts: HttpOptions = {}): Promise<HttpAnswer> {
  const request = describeRequest(req);
  const res = await sendHttpWhole(req, opts);
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
  const body = answerBody(utf8Text(res.body), headers.get('content-type') ?? '', res.status, request);
  if (res.status >= 400) {
    const answer = typeof body === 'string' ? body : body === null ? '' : JSON.stringify(body);
    const own = body && typeof body === 'object' && !Array.isArray(body) && typeof body.message === 'string' ? body.message : undefined;
    throw new AdapterError(String(res.status), `${request} answered ${res.status} ${res.statusText}${answer ? `: ${answer.slice(0, QUOTED_ANSWER)}` : ''}`, {
      request,
      answer: body,
      serviceMessage: own ?? (answer || res.statusText),
    });
  }
  return { status: res.status, statusText: res.statusText, headers, body };
}

/** Bytes as `Response.text()` reads them: UTF-8, a leading byte order mark dropped. */
export function utf8Text(body: Uint8Array): string {
  const bom = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  return Buffer.from(body.buffer, body.byteOffset + (bom ? 3 : 0), body.byteLength - (bom ? 3 : 0)).toString('utf8');
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
