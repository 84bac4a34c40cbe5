/**
 * The HTTP client under every adapter request (sendHttp, token requests, catalogs, event sinks):
 * node:http and node:https over keep-alive agents, answered with a standard `Response`. Global
 * `fetch` (undici) cost the worker about twice the CPU per request (bench/http-client.ts); what
 * services see is what fetch sent, and callers get what fetch gave:
 *
 * - headers: `accept: *\/*` and `user-agent: node` unless given; no `accept-encoding` (a
 *   service should not compress), though a gzip, deflate or br answer is decoded as fetch did;
 * - bodies: a string is `text/plain;charset=UTF-8`, URLSearchParams
 *   `application/x-www-form-urlencoded;charset=UTF-8` unless a content type is given; bytes as
 *   they are; `content-length` always (0 for a POST, PUT or PATCH without a body);
 * - redirects: followed up to 20 times unless `redirect: 'manual'`; a 303 (but for HEAD), or a
 *   301/302 after a POST, continues as a GET without the body and its headers; a redirect to
 *   another origin drops `authorization`, `cookie` and `proxy-authorization`;
 * - failures: `TypeError('fetch failed')` with Node's error as its `cause` (what
 *   `networkFailure` reads the code from); cancellation rejects with the signal's reason;
 * - answers: read whole before they are returned (a `text/event-stream` answer is streamed);
 *   no body for HEAD, 204, 205 and 304; `url` and `redirected` as fetch sets them.
 *
 * A client certificate (see ./certificate.ts) is an option: its connections are pooled apart
 * by the agent, which keys them by their TLS options.
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable, pipeline, type Transform } from 'node:stream';
import { constants as zlibConstants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { ClientCertificate } from './certificate';
import { AdapterError, ErrorCodes } from './errors';

export interface HttpFetchInit {
  /** Default GET. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams | Uint8Array;
  signal?: AbortSignal;
  /** `manual` answers a redirect as it is, `error` fails on one; default `follow`. */
  redirect?: 'follow' | 'manual' | 'error';
  /** Sends the request with this client certificate (https only). */
  certificate?: ClientCertificate;
}

/**
 * How long an idle connection is kept: undici's default, 1 s under the usual 5 s of servers
 * (a shorter `Keep-Alive: timeout` hint from the server wins, see Node's Agent).
 */
const IDLE_MS = 4_000;
const agents = {
  'http:': new HttpAgent({ keepAlive: true, timeout: IDLE_MS }),
  'https:': new HttpsAgent({ keepAlive: true, timeout: IDLE_MS }),
};

/** fetch's limit. */
const MAX_REDIRECTS = 20;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([204, 205, 304]);
/** Methods fetch upper-cases (others are sent as written, e.g. `patch`). */
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
/** Sent again on a fresh connection when a kept-alive one turns out closed by the server. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** Headers that describe a body, dropped with it when a redirect changes the method. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type'];
/** Credentials that do not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'host'];

/** A network failure as fetch throws it: `TypeError('fetch failed')` with the reason as `cause`. */
export function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

/**
 * An answer read whole, as `Response` would hold it but without one: what swflow's own callers
 * read (sendCall, callHttp). Making a `Response` (undici's body stream, its Headers) and reading
 * it back cost more worker CPU per call than the rest of the HTTP client (bench/README.md).
 */
export interface WholeAnswer {
  status: number;
  statusText: string;
  /** As received: name, value, name, value... (IncomingMessage.rawHeaders). */
  rawHeaders: string[];
  /** Decoded per `content-encoding`; empty for HEAD, 204, 205 and 304. */
  body: Buffer;
  /** The URL answered (after redirects), without its fragment. */
  url: string;
  redirected: boolean;
}

/**
 * Sends a request and answers it with a `Response`, as global `fetch(url, init)` would (see the
 * module comment for what is kept of fetch's behaviour).
 */
export function httpFetch(url: string | URL, init: HttpFetchInit = {}): Promise<Response> {
  return send(url, init, toResponse);
}

/** {@link httpFetch}'s request, answered as a {@link WholeAnswer} (an event stream read to its end). */
export function httpFetchWhole(url: string | URL, init: HttpFetchInit = {}): Promise<WholeAnswer> {
  return send(url, init, toWholeAnswer);
}

/** The answer to hand out, made from the last hop's head; `streaming` keeps the abort listener until it closes. */
type Finish<T> = (res: IncomingMessage, target: URL, method: string, redirected: boolean, signal: AbortSignal | undefined) => Promise<{ answer: T; streaming: boolean }>;

async function send<T>(url: string | URL, init: HttpFetchInit, finish: Finish<T>): Promise<T> {
  const { signal } = init;
  let target = parseTarget(url);
  let method = methodOf(init.method);
  const headers = requestHeaders(init.headers);
  let body = requestBody(init.body, headers);
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
  contentLength(method, body, headers);

  let current: ClientRequest | undefined;
  const onAbort = () => current?.destroy(signal!.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const release = () => signal?.removeEventListener('abort', onAbort);
  let streaming = false;
  try {
    for (let hops = 0; ; hops++) {
      signal?.throwIfAborted();
      const res = await exchange(target, method, headers, body, init, (req) => (current = req));
      const location = init.redirect !== 'manual' && REDIRECT_STATUSES.has(res.statusCode!) ? res.headers.location : undefined;
      if (location === undefined) {
        const done = await finish(res, target, method, hops > 0, signal);
        streaming = done.streaming;
        if (streaming) res.once('close', release);
        return done.answer;
      }
      // Followed: the redirect's own body is discarded, its connection goes back to the pool.
      res.resume();
      if (init.redirect === 'error') throw fetchFailed(new Error('unexpected redirect'));
      if (hops === MAX_REDIRECTS) throw fetchFailed(new Error('redirect count exceeded'));
      const next = redirectTarget(location, target);
      const status = res.statusCode!;
      if ((status === 303 && method !== 'GET' && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        for (const name of [...BODY_HEADERS, 'content-length']) delete headers[name];
      }
      if (next.origin !== target.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
      target = next;
    }
  } finally {
    if (!streaming) release();
  }
}

/**
 * The arguments of a standard `fetch(input, init)` call as httpFetch's, for the libraries that
 * send through a fetch they are given (the MCP and A2A SDKs): a string or byte body (what they
 * send); any other body is refused rather than dropped.
 */
export function fetchArguments(input: string | URL | Request, init: RequestInit = {}): { url: string; init: HttpFetchInit } {
  const request = input instanceof Request ? input : undefined;
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const headers: Record<string, string> = {};
  new Headers(init.headers ?? request?.headers).forEach((value, name) => (headers[name] = value));
  const out: HttpFetchInit = { method: init.method ?? request?.method ?? 'GET', headers };
  const body = init.body;
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof URLSearchParams) out.body = body;
  else if (body instanceof ArrayBuffer) out.body = new Uint8Array(body);
  else if (body !== undefined && body !== null) throw new TypeError(`httpFetch sends string, byte and URLSearchParams bodies, not ${Object.prototype.toString.call(body)}`);
  else if (request?.body) throw new TypeError('httpFetch does not send the body of a Request object');
  const signal = init.signal ?? request?.signal;
  if (signal) out.signal = signal;
  const redirect = init.redirect ?? request?.redirect;
  if (redirect === 'manual' || redirect === 'error') out.redirect = redirect;
  return { url, init: out };
}

/** httpFetch behind the standard `fetch` signature (see {@link fetchArguments}). */
export const httpFetchAsFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const args = fetchArguments(input, init);
  return httpFetch(args.url, args.init);
};

function parseTarget(url: string | URL): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch (err) {
    throw new TypeError(`Failed to parse URL from ${String(url)}`, { cause: err });
  }
  if (target.username || target.password) throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${target.href}`);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw fetchFailed(new Error(`unsupported URL scheme ${target.protocol} (only http: and https: are sent)`));
  return target;
}

function methodOf(given: string | undefined): string {
  if (given === undefined) return 'GET';
  const upper = given.toUpperCase();
  if (FORBIDDEN_METHODS.has(upper)) throw new TypeError(`'${given}' HTTP method is unsupported.`);
  return NORMALIZED_METHODS.has(upper) ? upper : given;
}

/** The caller's headers (names lower-cased, values trimmed as `Headers` does) over fetch's defaults. */
function requestHeaders(given: Record<string, string> | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  if (given) for (const name in given) headers[name.toLowerCase()] = String(given[name]).trim();
  headers.accept ??= '*/*';
  headers['user-agent'] ??= 'node';
  return headers;
}

/** The body as sent, and its content type when the caller gave none (fetch's defaults). */
function requestBody(body: HttpFetchInit['body'], headers: OutgoingHttpHeaders): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') {
    headers['content-type'] ??= 'text/plain;charset=UTF-8';
    return Buffer.from(body, 'utf8');
  }
  if (body instanceof URLSearchParams) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
    return Buffer.from(body.toString(), 'utf8');
  }
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** `content-length`: the body's; 0 for a POST, PUT or PATCH without one (as fetch); none otherwise. */
function contentLength(method: string, body: Buffer | undefined, headers: OutgoingHttpHeaders): void {
  if (body !== undefined) headers['content-length'] = String(body.length);
  else if (method === 'POST' || method === 'PUT' || method === 'PATCH') headers['content-length'] = '0';
  else delete headers['content-length'];
}

function redirectTarget(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch (err) {
    throw fetchFailed(err);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') throw fetchFailed(new Error(`redirect to an unsupported URL scheme ${next.protocol}`));
  // A fragment the request had is kept when the location has none (as fetch).
  if (!next.hash && from.hash) next.hash = from.hash;
  return next;
}

/** One request on the wire; resolves with the answer's head. */
function exchange(target: URL, method: string, headers: OutgoingHttpHeaders, body: Buffer | undefined, init: HttpFetchInit, track: (req: ClientRequest) => void, retried = false): Promise<IncomingMessage> {
  const https = target.protocol === 'https:';
  const tls = init.certificate;
  if (tls && !https) {
    return Promise.reject(new AdapterError(ErrorCodes.AuthError, `certificate authentication needs an https endpoint, not ${target.protocol}//${target.host}`, { nonRetryable: true }));
  }
  return new Promise<IncomingMessage>((resolve, reject) => {
    const options: RequestOptions & { cert?: string; key?: string; ca?: string; passphrase?: string } = { method, headers, agent: agents[https ? 'https:' : 'http:'] };
    if (tls) {
      options.cert = tls.cert;
      options.key = tls.key;
      if (tls.ca) options.ca = tls.ca;
      if (tls.passphrase) options.passphrase = tls.passphrase;
    }
    let req: ClientRequest;
    try {
      req = (https ? httpsRequest : httpRequest)(target, options, resolve);
    } catch (err) {
      // An invalid header name or value: fetch's Headers refuses them the same way.
      reject(new TypeError((err as Error).message, { cause: err }));
      return;
    }
    track(req);
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (init.signal?.aborted) reject(init.signal.reason);
      else if (!retried && req.reusedSocket && err.code === 'ECONNRESET' && IDEMPOTENT_METHODS.has(method)) {
        resolve(exchange(target, method, headers, body, init, track, true));
      } else reject(fetchFailed(err));
    });
    req.end(body);
  });
}

/** The answer as a `Response`: its body read whole (decoded), or streamed for server-sent events. */
async function toResponse(res: IncomingMessage, target: URL, method: string, redirected: boolean, signal: AbortSignal | undefined): Promise<{ answer: Response; streaming: boolean }> {
  const status = res.statusCode!;
  const nullBody = method === 'HEAD' || NULL_BODY_STATUSES.has(status);
  const source = nullBody ? undefined : decoded(res);
  const streaming = source !== undefined && /^\s*text\/event-stream\b/i.test(res.headers['content-type'] ?? '');
  let body: Buffer | ReadableStream | null = null;
  if (nullBody) res.resume();
  else if (streaming) body = Readable.toWeb(source!) as ReadableStream;
  else body = await readAll(source!, res, signal);
  return { answer: responseOf(body, status, res.statusMessage ?? '', res.rawHeaders, answerUrl(target), redirected), streaming };
}

/** A `Response` as fetch gives one: raw headers, `url` and `redirected` set; a status it cannot carry (outside 200–599) fails as a network error. */
function responseOf(body: Buffer | ReadableStream | null, status: number, statusText: string, rawHeaders: readonly string[], url: string, redirected: boolean): Response {
  const headers: [string, string][] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) headers.push([rawHeaders[i], rawHeaders[i + 1]]);
  let response: Response;
  try {
    response = new Response(body, { status, statusText, headers });
  } catch (err) {
    throw fetchFailed(err);
  }
  Object.defineProperty(response, 'url', { value: url });
  if (redirected) Object.defineProperty(response, 'redirected', { value: true });
  return response;
}

/** The URL an answer names: the request's, without its fragment (as fetch). */
function answerUrl(target: URL): string {
  return target.hash ? target.href.slice(0, -target.hash.length) : target.href;
}

/** The answer read whole (decoded), event streams too; a status `Response` refuses fails as it would. */
async function toWholeAnswer(res: IncomingMessage, target: URL, method: string, redirected: boolean, signal: AbortSignal | undefined): Promise<{ answer: WholeAnswer; streaming: boolean }> {
  const status = res.statusCode!;
  if (status < 200 || status > 599) {
    res.resume();
    throw fetchFailed(new RangeError(`init["status"] must be in the range of 200 to 599, inclusive.`));
  }
  let body: Buffer;
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    res.resume();
    body = Buffer.alloc(0);
  } else body = await readAll(decoded(res), res, signal);
  return { answer: { status, statusText: res.statusMessage ?? '', rawHeaders: res.rawHeaders, body, url: answerUrl(target), redirected }, streaming: false };
}

/**
 * Raw headers as `Object.fromEntries(new Headers(raw).entries())` gives them: names lower-cased
 * and sorted, repeated names joined with `, ` (but `set-cookie`, whose last value stays).
 */
export function headerRecord(rawHeaders: readonly string[]): Record<string, string> {
  const joined = new Map<string, string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    const value = rawHeaders[i + 1];
    const before = joined.get(name);
    joined.set(name, before === undefined || name === 'set-cookie' ? value : `${before}, ${value}`);
  }
  const out: Record<string, string> = {};
  for (const name of [...joined.keys()].sort()) out[name] = joined.get(name)!;
  return out;
}

/** A whole answer as a `Response` (for a caller that needs one: an auth's `challenged`). */
export function wholeAnswerResponse(a: WholeAnswer): Response {
  return responseOf(NULL_BODY_STATUSES.has(a.status) ? null : a.body, a.status, a.statusText, a.rawHeaders, a.url, a.redirected);
}

/**
 * The answer's body decoded per its `content-encoding` (the last coding applied first), as fetch
 * does; an unknown coding leaves it as it came.
 */
function decoded(res: IncomingMessage): Readable {
  const encoding = res.headers['content-encoding'];
  if (!encoding) return res;
  const decoders: Transform[] = [];
  const codings = encoding.toLowerCase().split(',');
  for (let i = codings.length - 1; i >= 0; i--) {
    const coding = codings[i].trim();
    if (coding === 'gzip' || coding === 'x-gzip') decoders.push(createGunzip({ flush: zlibConstants.Z_SYNC_FLUSH, finishFlush: zlibConstants.Z_SYNC_FLUSH }));
    else if (coding === 'deflate') decoders.push(createInflate({ flush: zlibConstants.Z_SYNC_FLUSH, finishFlush: zlibConstants.Z_SYNC_FLUSH }));
    else if (coding === 'br') decoders.push(createBrotliDecompress({ flush: zlibConstants.BROTLI_OPERATION_FLUSH, finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH }));
    else if (coding !== 'identity' && coding !== '') return res;
  }
  if (decoders.length === 0) return res;
  return pipeline([res, ...decoders], () => undefined) as unknown as Readable;
}

/** Every byte of a body; a connection that breaks first fails as fetch's network errors do. */
function readAll(source: Readable, res: IncomingMessage, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const fail = (err: unknown) => reject(signal?.aborted ? signal.reason : fetchFailed(err));
    source.on('data', (chunk: Buffer) => chunks.push(chunk));
    source.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    source.on('error', fail);
    if (source !== res) res.on('error', fail);
    res.on('close', () => {
      if (!res.complete) fail(Object.assign(new Error('the connection closed before the answer was complete'), { code: 'ECONNRESET' }));
    });
  });
}
