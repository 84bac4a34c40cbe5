/**
 * The event gateway: CloudEvents over HTTP (binary or structured mode, or a batch) in, signals
 * to workflow instances out (dispatch.ts). An event is answered 202 only once Temporal has
 * durably taken it, so an accepted event is never lost. docs/events.md tells the whole design.
 *
 *   POST /            one CloudEvent, or a batch (application/cloudevents-batch+json)
 *   GET  /healthz     200 while the process serves requests (liveness)
 *   GET  /readyz      200 when Temporal answers within 2 s, the gateway is not shutting down and
 *                     its other inbounds are ready (`readiness`: the Kafka consumer joined its group)
 *
 * Answers: 202 taken; 400 malformed (a batch is refused whole, naming each bad entry); 401 bad
 * or missing credentials; 403 `swflowworkflowid` without credentials; 404 nothing consumes it;
 * 405 wrong method; 408 body too slow; 413 body or batch too large; 415 not a CloudEvent content
 * type; 503 Temporal unreachable (within `temporalTimeoutMs`) or shutting down: send it again;
 * 503 with Retry-After at once when every delivery turn and queue place is taken (admission.ts).
 *
 * Hardening: listens on 127.0.0.1 unless told otherwise; a body limit (1 MiB) checked on
 * Content-Length before reading and while reading; a body deadline; optional bearer-token and
 * HMAC authentication (auth.ts); every refusal reaches its sender: the rest of a refused body is
 * read and discarded (bounded) before the connection closes, never reset under it (drain.ts);
 * a structured access log line per request; `close()` stops
 * accepting, lets in-flight deliveries finish (up to `shutdownGraceMs`), then closes.
 */
import { metrics } from '../metrics';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authConfigured, bearerOutcome, signatureOutcome, SIGNATURE_HEADER, type AuthOptions, type AuthOutcome } from './auth';
import { EventProblem, eventsFromHttp } from './cloudevents';
import { Dispatcher, isUnavailable, type DispatcherOptions, type EventResult, type Plan } from './dispatch';
import { drainAfterRefusal } from './drain';
import { Admission, type AdmissionOptions } from './admission';
import { HttpError } from '../http/error';

export { TARGET_ATTRIBUTE } from './dispatch';

export const GATEWAY_PORT = 8090;
export const DEFAULT_MAX_BODY_BYTES = 1 << 20;
/** Most bytes of a refused body read and discarded so that its sender sees the refusal (drain.ts). */
export const DEFAULT_DRAIN_MAX_BYTES = 32 << 20;

export interface GatewayOptions extends DispatcherOptions, AdmissionOptions {
  /** Interface to listen on. Default 127.0.0.1 (reachable from this machine only). */
  host?: string;
  /** 0 = any free port. Default 8090. */
  port?: number;
  /** Largest request body taken (413 above). Default 1 MiB. */
  maxBodyBytes?: number;
  /** Most events in one batch (413 above). Default 100. */
  maxBatch?: number;
  /** A request body must arrive within this time (408 after). Default 10 s. */
  bodyTimeoutMs?: number;
  /** Credentials; when any is set, every POST must carry one unless `allowAnonymous`. */
  auth?: AuthOptions;
  /** With credentials configured: still accept events without credentials (routed by the definitions; never `swflowworkflowid`). */
  allowAnonymous?: boolean;
  /**
   * After a refusal answered before the body arrived (413, 401, 404, 503…), the rest of the body is
   * read and discarded so the sender sees the answer (drain.ts), up to this many bytes. Default 32 MiB.
   */
  drainMaxBytes?: number;
  /** …and within this time. Default: the body timeout. */
  drainTimeoutMs?: number;
  /** Why another inbound of this gateway is not ready yet (e.g. the Kafka consumer has not joined its group), or undefined when it is: /readyz says so. */
  readiness?: () => string | undefined;
  /** How long close() lets in-flight requests finish. Default 10 s. */
  shutdownGraceMs?: number;
  /** Operational messages (deliveries, errors). */
  log?: (msg: string) => void;
  /** One structured entry per request (JSON-serializable). */
  accessLog?: (entry: AccessLogEntry) => void;
}

/** The access log's entry for one request. Credentials and event data are never in it. */
export interface AccessLogEntry {
  time: string;
  remote?: string;
  method?: string;
  path: string;
  status: number;
  ms: number;
  bytesIn: number;
  auth: AuthOutcome;
  mode?: 'binary' | 'structured' | 'batch';
  events?: { id?: string; type?: string; status: number; workflowIds?: string[] }[];
  error?: string;
}

export interface Gateway {
  url: string;
  server: Server;
  /** Admission at the intake (admission.ts): requests delivering and waiting now, refused so far. */
  admission: Pick<Admission, 'maxInFlight' | 'maxQueued' | 'maxQueueWaitMs' | 'inFlight' | 'queued' | 'refused'>;
  /** Stops accepting, finishes in-flight requests (within shutdownGraceMs), closes. */
  close(): Promise<void>;
}

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const log = opts.log ?? (() => {});
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const bodyTimeoutMs = opts.bodyTimeoutMs ?? 10_000;
  const auth = opts.auth ?? {};
  const credentialsRequired = authConfigured(auth) && !opts.allowAnonymous;
  const drainLimits = { maxBytes: opts.drainMaxBytes ?? DEFAULT_DRAIN_MAX_BYTES, timeoutMs: opts.drainTimeoutMs ?? bodyTimeoutMs };
  const dispatcher = new Dispatcher(opts);
  const admission = new Admission(opts);
  let inFlight = 0;
  let closing = false;

  /** Reads the body within the limits; on a breach answers at once and discards the rest. */
  function readBody(req: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      let size = 0;
      const chunks: Buffer[] = [];
      let done = false;
      const fail = (err: HttpError) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        chunks.length = 0;
        reject(err);
      };
      const timer = setTimeout(() => fail(new HttpError(408, `the request body did not arrive within ${bodyTimeoutMs} ms`)), bodyTimeoutMs);
      req.on('data', (c: Buffer) => {
        if (done) return; // discarding the rest of a refused body
        size += c.length;
        if (size > maxBody) fail(new HttpError(413, `the request body is larger than ${maxBody} bytes`));
        else chunks.push(c);
      });
      req.on('end', () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
      req.on('error', () => fail(new HttpError(400, 'the request was aborted')));
    });
  }

  async function ready(): Promise<{ ok: boolean; reason?: string }> {
    if (closing) return { ok: false, reason: 'shutting down' };
    const other = opts.readiness?.();
    if (other) return { ok: false, reason: other };
    try {
      await opts.client.withDeadline(Date.now() + 2_000, () => opts.client.workflowService.getSystemInfo({}));
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: `${opts.unreachable ?? 'Temporal is not reachable'}: ${String((err as Error).message).split('\n')[0]}` };
    }
  }

  async function events(req: IncomingMessage, entry: AccessLogEntry): Promise<{ status: number; body: unknown }> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) throw new HttpError(413, `the request body (${declared} bytes) is larger than ${maxBody} bytes`);
    entry.auth = bearerOutcome(auth, req.headers.authorization);
    if (entry.auth === 'invalid') throw new HttpError(401, 'the bearer token is not valid', { 'www-authenticate': 'Bearer' });
    const body = await readBody(req);
    entry.bytesIn = body.length;
    if (entry.auth === 'none') {
      entry.auth = signatureOutcome(auth, header(req, SIGNATURE_HEADER), body);
      if (entry.auth === 'invalid') throw new HttpError(401, `the ${SIGNATURE_HEADER} signature does not match the body`);
    }
    if (credentialsRequired && entry.auth === 'none') throw new HttpError(401, `credentials needed: Authorization: Bearer <token>${auth.hmacSecret ? ` or ${SIGNATURE_HEADER}: sha256=<HMAC of the body>` : ''}`, { 'www-authenticate': 'Bearer' });

    const parsed = eventsFromHttp(req.headers, body, { maxBatch: opts.maxBatch });
    entry.mode = parsed.mode;
    const definitions = await opts.definitions();
    const authenticated = entry.auth === 'bearer' || entry.auth === 'hmac';
    const plans = parsed.events.map((e) => dispatcher.plan(e, definitions, authenticated));
    const refused = plans.filter((p): p is Extract<Plan, { ok: false }> => !p.ok);
    if (refused.length) {
      // All or nothing: one event that cannot be routed refuses the whole request.
      entry.events = summarize(refused.map((p) => p.result));
      // Every event of the request is rejected: the unroutable ones for their reason, the others with them.
      countEvents(plans.map((p) => (p.ok ? refused[0].result.status : p.result.status)));
      counted.add(entry);
      if (parsed.mode !== 'batch') return { status: refused[0].result.status, body: refused[0].result };
      const entries = plans.map((p, i) => (p.ok ? { entry: i, id: p.event.id, type: p.event.type, delivered: false } : { entry: i, ...p.result }));
      const bad = entries.filter((r) => 'status' in r).map((r) => `entry ${r.entry} (id ${JSON.stringify(r.id)}): ${(r as EventResult).error}`);
      return { status: refused[0].result.status, body: { error: `the batch was refused, nothing was delivered: ${bad.join(' | ')}`, results: entries } };
    }
    // Admission (admission.ts): a turn to deliver, or 503 at once, before any Temporal call.
    const turn = admission.enter();
    if (!turn) {
      countEvents(plans.map(() => 503));
      counted.add(entry);
      const retryAfter = admission.retryAfterSeconds();
      throw new HttpError(503, `the gateway is delivering as many events as it takes at once (${admission.inFlight} requests, ${admission.queued} more waiting, about ${Math.ceil(admission.expectedWaitMs() / 1000)} s of work ahead); nothing was delivered, send it again in ${retryAfter} s`, { 'retry-after': String(retryAfter) });
    }
    const release = await turn;
    try {
      // A sender that hung up while its request waited gets nothing delivered (it never saw a 202).
      if (req.socket.destroyed) throw new HttpError(503, 'the sender hung up while the request waited for its turn; nothing was delivered');
      return await deliverAll(req, entry, parsed.mode, plans as Extract<Plan, { ok: true }>[]);
    } finally {
      release();
    }
  }

  /** Delivers a request's planned events one after another (its turn taken); each event's Temporal deadline starts as its delivery does. */
  async function deliverAll(req: IncomingMessage, entry: AccessLogEntry, mode: AccessLogEntry['mode'], plans: Extract<Plan, { ok: true }>[]): Promise<{ status: number; body: unknown }> {
    const results: EventResult[] = [];
    for (const p of plans) {
      const r = await dispatcher.deliver(p, { traceparent: header(req, 'traceparent'), tracestate: header(req, 'tracestate') }, (r) => {
        for (const d of r.delivered ?? []) log(`event ${p.event.type} ${p.event.id} → ${d.workflowId}${d.started ? ' (started)' : ''}${d.duplicate ? ' (already delivered)' : ''}${d.via === 'visibility' ? ' (awaiting it)' : ''}`);
        if (r.status === 500) log(`error delivering ${p.event.type} ${p.event.id}: ${r.error}`);
      });
      results.push(r);
      if (r.status === 503) break; // the rest would wait for the same deadline
    }
    entry.events = summarize(results);
    countEvents(results.map((r) => r.status));
    counted.add(entry);
    const failed = results.find((r) => r.status !== 202);
    const status = failed ? failed.status : results.length < plans.length ? 503 : 202;
    if (mode !== 'batch') return { status, body: results[0] };
    const untried = plans.slice(results.length).map((p) => ({ id: p.event.id, status: 503, error: `not tried: ${opts.unreachable ?? 'Temporal is not reachable'}` }));
    return { status, body: { results: [...results, ...untried] } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const path = (req.url ?? '/').split('?')[0];
    const entry: AccessLogEntry = { time: new Date(started).toISOString(), remote: req.socket.remoteAddress, method: req.method, path, status: 0, ms: 0, bytesIn: 0, auth: 'none' };
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      if (res.headersSent) return;
      // The rest of a refused body is read and discarded before the connection closes (if it
      // closes): closing while the sender still writes would reset it before it reads the answer
      // (drain.ts). A body too slow (408) is given up: that connection closes at once.
      const connection = closing || status === 408 ? { connection: 'close' } : {};
      if (status >= 400 && status !== 408) drainAfterRefusal(req, drainLimits);
      const json = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)), ...connection, ...headers });
      res.end(json);
    };
    inFlight++;
    try {
      if (req.method === 'GET' && (path === '/healthz' || path === '/health')) return reply(200, { ok: true });
      if (req.method === 'GET' && path === '/readyz') {
        const r = await ready();
        return reply(r.ok ? 200 : 503, r.ok ? { ok: true } : { ok: false, error: r.reason });
      }
      if (path !== '/' && path !== '/events') return reply(404, { error: `nothing at ${path}; POST CloudEvents to /` });
      if (req.method !== 'POST') return reply(405, { error: 'POST CloudEvents here' }, { allow: 'POST' });
      if (closing) return reply(503, { error: 'the gateway is shutting down; send the event again (to another replica)' });
      const { status, body } = await events(req, entry);
      reply(status, body);
    } catch (err) {
      if (err instanceof HttpError) reply(err.status, { error: err.message }, err.headers);
      else if (err instanceof EventProblem) reply(err.status, { error: err.message });
      else if (isUnavailable(err)) reply(503, { error: `${opts.unreachable ?? 'Temporal is not reachable'}; the event was not accepted, send it again (${(err as Error).message})` });
      else {
        log(`error: ${(err as Error).stack ?? err}`);
        reply(500, { error: `the event was not accepted: ${(err as Error).message}` });
      }
      if (entry.status >= 400) entry.error = String((err as Error).message).slice(0, 300);
    } finally {
      inFlight--;
      // Events refused as a whole (unparsable, unauthorized, too large, shutting down...): one rejection.
      if (!counted.has(entry) && (path === '/' || path === '/events') && req.method === 'POST') countEvents([entry.status]);
      entry.ms = Date.now() - started;
      opts.accessLog?.(entry);
      // The rest of a body refused before it was read is discarded as it arrives (bounded by the
      // server's requestTimeout).
      if (!req.complete) req.resume();
    }
  }

  /** Requests whose events were counted one by one. */
  const counted = new WeakSet<AccessLogEntry>();
  /** Prometheus (when on): each event's outcome by HTTP status, the reason of a rejection. */
  function countEvents(statuses: number[]): void {
    const m = metrics();
    for (const status of statuses) m?.gatewayEvents.inc({ transport: 'http', outcome: status === 202 ? 'accepted' : 'rejected', status: String(status) });
  }

  const server = createServer((req, res) => void handle(req, res));
  server.requestTimeout = bodyTimeoutMs + 5_000; // the server's own backstop behind the body deadline
  server.headersTimeout = Math.min(bodyTimeoutMs, 60_000);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? GATEWAY_PORT, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    server,
    admission,
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + (opts.shutdownGraceMs ?? 10_000);
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      server.closeAllConnections();
      await closed;
      admission.close();
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function summarize(results: EventResult[]): AccessLogEntry['events'] {
  return results.slice(0, 20).map((r) => ({ id: r.id, type: r.type, status: r.status, ...(r.delivered?.length ? { workflowIds: r.delivered.map((d) => d.workflowId).slice(0, 10) } : {}) }));
}
