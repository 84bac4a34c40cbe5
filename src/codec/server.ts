/**
 * Temporal's codec server protocol, so the Web UI and `temporal --codec-endpoint` show decrypted
 * payloads to those allowed: `POST /decode` and `POST /encode` take and return
 * `{ "payloads": [{ "metadata": { k: base64 }, "data": base64 }] }` (protobuf JSON of Payload).
 * A bearer token (compared in constant time) guards both; CORS admits the Web UI's origin.
 *
 * Large values (docs/large-data.md): a history holds references to payloads in the payload store;
 * /decode reads them back from this process's store before decoding. A resolved value over the
 * display limit is answered as `{"swflowPayload": {key, size, href}}` (the UI stays usable), and
 * `GET /payloads/<key>` (same token) returns the whole decoded value.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { checkKey, PayloadMissing, type PayloadStore } from '../payloads/store';
import { jsonText, PayloadValues } from '../payloads/values';

export const DEFAULT_DISPLAY_LIMIT = 1024 * 1024;

export interface CodecServerOptions {
  /** Decrypts; none: payloads are only resolved from the store (a deployment without keys). */
  codec?: PayloadCodec;
  /** Where references are read from (the workers' store); none: references are returned as they are. */
  store?: PayloadStore;
  /** A resolved value larger than this (bytes) is answered as a link (default 1 MiB). */
  displayLimit?: number;
  /** This server's address as its callers reach it, for links (default: the address it listens on). */
  publicUrl?: string;
  host?: string;
  port?: number;
  /** Required `Authorization: Bearer <token>`; undefined = no authentication (local use only). */
  token?: string;
  /** Origins allowed by CORS (the Web UI's, e.g. http://localhost:8233); `*` allows any. */
  corsOrigins?: string[];
  /** Largest request body accepted (default 16 MiB). */
  maxBodyBytes?: number;
  log?: (message: string) => void;
}

export interface CodecServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const ALLOWED_HEADERS = 'content-type, x-namespace, authorization';

/** Constant-time comparison of the presented token with the expected one (hashes: equal lengths). */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(token)) && presented.length > 0;
}

function fromJson(p: JsonPayload, i: number): Payload {
  if (typeof p !== 'object' || p === null) throw new Error(`payloads[${i}] is not an object`);
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) {
    if (typeof v !== 'string') throw new Error(`payloads[${i}].metadata.${k} is not a base64 string`);
    metadata[k] = new Uint8Array(Buffer.from(v, 'base64'));
  }
  if (p.data !== undefined && typeof p.data !== 'string') throw new Error(`payloads[${i}].data is not a base64 string`);
  return { metadata, data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')) };
}

function toJson(p: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) metadata[k] = Buffer.from(v ?? new Uint8Array()).toString('base64');
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(Object.assign(new Error(`request body over ${limit} bytes`), { status: 413 }));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function startCodecServer(opts: CodecServerOptions): Promise<CodecServer> {
  const origins = opts.corsOrigins ?? [];
  const limit = opts.maxBodyBytes ?? 16 * 1024 * 1024;
  const displayLimit = opts.displayLimit ?? DEFAULT_DISPLAY_LIMIT;
  const values = new PayloadValues(opts.store, opts.codec ? [opts.codec] : []);
  let base = opts.publicUrl?.replace(/\/+$/, '') ?? '';

  /** A stored value too large to show: a small JSON payload naming it, with a link to the whole. */
  const link = (key: string, size: number): Payload => defaultPayloadConverter.toPayload({ swflowPayload: { key, size, href: `${base}/payloads/${key}` } });

  const decode = async (payloads: Payload[]): Promise<Payload[]> => {
    // Without a store, references pass through as they are (the caller sees json/protobuf).
    if (!opts.store) return opts.codec ? opts.codec.decode(payloads) : payloads;
    return Promise.all(
      payloads.map(async (p) => {
        try {
          const [{ payload, key }] = await values.read([p]);
          return key && (payload.data?.length ?? 0) > displayLimit ? link(key, payload.data!.length) : payload;
        } catch (err) {
          // One payload gone (gc, another store) does not hide the others of the event.
          if (err instanceof PayloadMissing) return defaultPayloadConverter.toPayload({ swflowPayload: { key: err.key, missing: err.message } });
          throw err;
        }
      }),
    );
  };
  const encode = async (payloads: Payload[]): Promise<Payload[]> => (opts.codec ? opts.codec.encode(payloads) : payloads);

  const cors = (req: IncomingMessage, res: ServerResponse) => {
    const origin = req.headers.origin;
    if (!origin) return;
    if (origins.includes('*') || origins.includes(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origins.includes('*') ? '*' : origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Max-Age', '600');
    }
  };
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const authorized = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (opts.token === undefined || tokenMatches(req.headers.authorization, opts.token)) return true;
    res.setHeader('WWW-Authenticate', 'Bearer');
    send(res, 401, { error: 'a valid Authorization: Bearer token is required' });
    return false;
  };

  /** GET /payloads/<key>: the whole decoded value of a stored payload. */
  const payload = async (req: IncomingMessage, res: ServerResponse, key: string) => {
    if (!authorized(req, res)) return;
    if (!opts.store) return send(res, 404, { error: 'this codec server has no payload store (set SWFLOW_PAYLOAD_STORE to the store the workers use)' });
    try {
      checkKey(key);
    } catch (err) {
      return send(res, 400, { error: (err as Error).message });
    }
    let p: Payload;
    try {
      p = await values.get(key);
    } catch (err) {
      if (err instanceof PayloadMissing) return send(res, 404, { error: err.message });
      opts.log?.(`GET /payloads/${key} failed: ${(err as Error).message}`);
      return send(res, 502, { error: (err as Error).message });
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(jsonText(p));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    cors(req, res);
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    // Preflight carries no Authorization header: answered before authentication.
    if (req.method === 'OPTIONS') return res.writeHead(204).end();
    if (req.method === 'GET' && path === '/healthz') return send(res, 200, { ok: true });
    const stored = /^\/payloads\/([^/]+)$/.exec(path);
    if (stored) {
      if (req.method !== 'GET') return send(res, 405, { error: `${req.method} ${path}: use GET` });
      let key: string;
      try {
        key = decodeURIComponent(stored[1]);
      } catch {
        return send(res, 400, { error: `not a payload key: ${JSON.stringify(stored[1].slice(0, 100))}` });
      }
      return payload(req, res, key);
    }
    const op = path === '/decode' ? 'decode' : path === '/encode' ? 'encode' : undefined;
    if (!op) return send(res, 404, { error: `no ${path || '/'} here: POST /decode or /encode, GET /payloads/<key>` });
    if (req.method !== 'POST') return send(res, 405, { error: `${req.method} ${path}: use POST` });
    if (!authorized(req, res)) return;
    let body: { payloads?: unknown };
    try {
      body = JSON.parse(await readBody(req, limit));
    } catch (err) {
      return send(res, (err as { status?: number }).status ?? 400, { error: `the body is not JSON: ${(err as Error).message}` });
    }
    if (!body || !Array.isArray(body.payloads)) return send(res, 400, { error: 'the body must be { "payloads": [...] }' });
    let payloads: Payload[];
    try {
      payloads = body.payloads.map((p, i) => fromJson(p as JsonPayload, i));
    } catch (err) {
      return send(res, 400, { error: (err as Error).message });
    }
    try {
      const out = await (op === 'decode' ? decode : encode)(payloads);
      send(res, 200, { payloads: out.map(toJson) });
    } catch (err) {
      opts.log?.(`${op} failed (namespace ${req.headers['x-namespace'] ?? '?'}): ${(err as Error).message}`);
      send(res, 400, { error: (err as Error).message });
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, { error: (err as Error).message });
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8888, opts.host ?? '127.0.0.1', () => {
      const { address, port } = server.address() as AddressInfo;
      const host = address.includes(':') ? `[${address}]` : address;
      base ||= `http://${host}:${port}`;
      resolve({ url: `http://${host}:${port}`, server, close: () => new Promise<void>((r) => server.close(() => r())) });
    });
  });
}
