/**
 * The adapters' HTTP client (src/adapter-sdk/http-client.ts) against real node:http servers: what a
 * service sees and what the caller gets, side by side with global `fetch` where fetch is the
 * reference (defaults, bodies, redirects, cross-origin credentials), and the rest on its own
 * (decoding, null bodies, cancellation, failure codes, keep-alive, streamed events).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { headerRecord, httpFetch, httpFetchAsFetch, httpFetchWhole, type HttpFetchInit } from '../../src/adapter-sdk/http-client';
import { sendHttp, utf8Text } from '../../src/adapter-sdk/http';
import { ErrorCodes, isAdapterError, networkFailure } from '../../src/adapter-sdk/errors';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  socket: Socket;
}

/** Every request any service saw, in order. */
const log: Seen[] = [];

/** A server that records what it is sent and answers per path (see `route`). */
class Service {
  readonly seen: Seen[] = [];
  connections = 0;
  base = '';
  private server?: Server;
  constructor(private readonly route: (req: IncomingMessage, res: ServerResponse, body: string, self: Service) => void) {}
  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const seen = { method: req.method!, url: req.url!, headers: req.headers, body, socket: req.socket };
        this.seen.push(seen);
        log.push(seen);
        this.route(req, res, body, this);
      });
    });
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((r) => this.server?.close(() => r()) ?? r());
  }
}

/** `/redirect/<status>/<hops>?to=<url>`: that many redirects, then `to` (default `/echo`). */
function route(req: IncomingMessage, res: ServerResponse, body: string, self: Service): void {
  const url = new URL(req.url!, self.base);
  const [, kind, a, b] = url.pathname.split('/');
  if (kind === 'redirect') {
    const hops = Number(b);
    const to = hops > 1 ? `/redirect/${a}/${hops - 1}${url.search}` : url.searchParams.get('to') ?? '/echo';
    res.writeHead(Number(a), { location: to, 'content-type': 'text/plain' });
    res.end(`moved to ${to}`);
  } else if (kind === 'encoded') {
    const text = 'héllo, encoded world';
    const encoded = a === 'gzip' ? gzipSync(text) : a === 'deflate' ? deflateSync(text) : a === 'br' ? brotliCompressSync(text) : a === 'both' ? brotliCompressSync(gzipSync(text)) : Buffer.from(text);
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-encoding': a === 'both' ? 'gzip, br' : a });
    res.end(encoded);
  } else if (kind === 'status') {
    res.writeHead(Number(a), { 'content-type': 'text/plain', etag: '"x"' });
    res.end(Number(a) === 204 || Number(a) === 304 ? undefined : 'a body');
  } else if (kind === 'silent') {
    // Never answers.
  } else if (kind === 'once-per-connection') {
    // As a server that closed the idle connection just as the next request came.
    if (served.has(req.socket)) req.socket.destroy();
    else {
      served.add(req.socket);
      res.end('first on this connection');
    }
  } else if (kind === 'hold') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('part');
  } else if (kind === 'cut') {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
    res.write('only part of it');
    setTimeout(() => res.socket?.destroy(), 20);
  } else if (kind === 'events') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    setTimeout(() => res.end('data: second\n\n'), Number(a) || 300);
  } else {
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] });
    res.end(JSON.stringify({ method: req.method, url: req.url, body }));
  }
}

const served = new WeakSet<Socket>();
let one: Service;
let other: Service;

before(async () => {
  one = await new Service(route).start();
  other = await new Service(route).start();
});

after(async () => {
  await one.close();
  await other.close();
});

/** What fetch also sends and swflow's client leaves out (see the module comment). */
const FETCH_ONLY = new Set(['accept-language', 'sec-fetch-mode', 'accept-encoding']);
/** Differ between two requests whatever sends them. */
const VARYING = new Set(['host', 'connection']);

/** What the service saw of each request one call made, and what the caller got. */
async function observe<I>(send: (url: string, init: I) => Promise<Response>, url: string, init: I) {
  const from = log.length;
  const res = await send(url, init);
  const text = await res.text();
  const seen = log.slice(from).map((s) => ({
    method: s.method,
    url: s.url,
    body: s.body,
    headers: Object.fromEntries(Object.entries(s.headers).filter(([k]) => !FETCH_ONLY.has(k) && !VARYING.has(k))),
  }));
  return { seen, got: { status: res.status, statusText: res.statusText, url: res.url, redirected: res.redirected, body: text, headers: [...res.headers].filter(([k]) => k !== 'date' && k !== 'keep-alive' && k !== 'connection') } };
}

async function sameAsFetch(path: (s: Service) => string, init: RequestInit & HttpFetchInit = {}): Promise<void> {
  const url = path(one);
  const expected = await observe((u, i) => fetch(u, i), url, init);
  const actual = await observe(httpFetch, url, init);
  assert.deepEqual(actual, expected, `${init.method ?? 'GET'} ${url}`);
}

test('defaults and bodies as fetch sends them: accept, user-agent, content types, content-length', async () => {
  await sameAsFetch((s) => `${s.base}/echo?q=1`);
  await sameAsFetch((s) => `${s.base}/echo`, { headers: { Accept: 'application/json', 'User-Agent': 'mine', 'X-Trace': 'abc' } });
  await sameAsFetch((s) => `${s.base}/echo`, { method: 'POST', body: 'héllo' });
  await sameAsFetch((s) => `${s.base}/echo`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
  await sameAsFetch((s) => `${s.base}/echo`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'a b' }) });
  await sameAsFetch((s) => `${s.base}/echo`, { method: 'PUT', body: new TextEncoder().encode('bytes') });
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'post', 'delete']) await sameAsFetch((s) => `${s.base}/echo`, { method });
  // What the service saw, spelled out once.
  const res = await httpFetch(`${one.base}/echo`, { method: 'POST', body: 'héllo' });
  await res.text();
  const seen = one.seen.at(-1)!.headers;
  assert.equal(seen.accept, '*/*');
  assert.equal(seen['user-agent'], 'node');
  assert.equal(seen['content-type'], 'text/plain;charset=UTF-8');
  assert.equal(seen['content-length'], String(Buffer.byteLength('héllo')));
  assert.equal(seen['accept-encoding'], undefined, 'no compression asked for');
  assert.deepEqual(res.headers.getSetCookie(), ['a=1', 'b=2']);
});

test('redirects as fetch follows them: 303 and 301/302 after POST become GET without the body, 307/308 resend it, 20 at most', async () => {
  const post = { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', 'content-language': 'en', 'x-keep': 'kept' } };
  for (const status of [301, 302, 303, 307, 308]) {
    await sameAsFetch((s) => `${s.base}/redirect/${status}/1`);
    await sameAsFetch((s) => `${s.base}/redirect/${status}/2`, post);
    await sameAsFetch((s) => `${s.base}/redirect/${status}/1`, { ...post, method: 'PUT' });
    await sameAsFetch((s) => `${s.base}/redirect/${status}/1`, { method: 'HEAD' });
  }
  await sameAsFetch((s) => `${s.base}/redirect/302/20`);
  const res = await httpFetch(`${one.base}/redirect/303/3`, post);
  assert.deepEqual(await res.json(), { method: 'GET', url: '/echo', body: '' });
  assert.equal(res.url, `${one.base}/echo`);
  assert.equal(res.redirected, true);
  assert.equal(one.seen.at(-1)!.headers['content-type'], undefined, 'the body\'s headers go with it');
  assert.equal(one.seen.at(-1)!.headers['content-length'], undefined);
  const kept = await httpFetch(`${one.base}/redirect/307/1`, post);
  assert.deepEqual(await kept.json(), { method: 'POST', url: '/echo', body: '{"a":1}' });
  await assert.rejects(httpFetch(`${one.base}/redirect/302/21`), (err: Error) => err instanceof TypeError && err.message === 'fetch failed' && /redirect count exceeded/.test((err.cause as Error).message));
  await assert.rejects(httpFetch(`${one.base}/redirect/302/1?to=${encodeURIComponent('ftp://example.org/x')}`), (err: Error) => err instanceof TypeError && /unsupported URL scheme ftp:/.test((err.cause as Error).message));
});

test('manual: the redirect is the answer, body and location as sent', async () => {
  await sameAsFetch((s) => `${s.base}/redirect/302/1`, { redirect: 'manual' });
  const res = await httpFetch(`${one.base}/redirect/302/1`, { method: 'POST', body: 'x', redirect: 'manual' });
  assert.equal(res.status, 302);
  assert.equal(res.headers.get('location'), '/echo');
  assert.equal(await res.text(), 'moved to /echo');
  assert.equal(res.redirected, false);
});

test('a redirect to another origin drops authorization, cookie and proxy-authorization; the same origin keeps them', async () => {
  const headers = { authorization: 'Bearer t', cookie: 'session=1', 'proxy-authorization': 'Basic p', 'x-keep': 'kept' };
  await sameAsFetch((s) => `${s.base}/redirect/307/1?to=${encodeURIComponent(`${other.base}/echo`)}`, { method: 'POST', body: 'b', headers });
  await sameAsFetch((s) => `${s.base}/redirect/302/2`, { headers });
  await (await httpFetch(`${one.base}/redirect/302/1?to=${encodeURIComponent(`${other.base}/echo`)}`, { headers })).text();
  const there = other.seen.at(-1)!.headers;
  assert.deepEqual([there.authorization, there.cookie, there['proxy-authorization'], there['x-keep']], [undefined, undefined, undefined, 'kept']);
  await (await httpFetch(`${one.base}/redirect/302/1`, { headers })).text();
  assert.equal(one.seen.at(-1)!.headers.authorization, 'Bearer t');
});

test('gzip, deflate, br and stacked encodings are decoded; the header stays', async () => {
  for (const coding of ['gzip', 'deflate', 'br', 'both', 'identity']) {
    const res = await httpFetch(`${one.base}/encoded/${coding}`);
    assert.equal(await res.text(), 'héllo, encoded world', coding);
    await sameAsFetch((s) => `${s.base}/encoded/${coding}`);
  }
});

test('no body for HEAD, 204, 205 and 304; other statuses keep theirs', async () => {
  for (const status of [204, 205, 304]) {
    const res = await httpFetch(`${one.base}/status/${status}`);
    assert.equal(res.status, status);
    assert.equal(res.body, null, String(status));
    assert.equal(res.headers.get('etag'), '"x"');
  }
  const head = await httpFetch(`${one.base}/echo`, { method: 'HEAD' });
  assert.equal(head.body, null);
  assert.equal(head.headers.get('content-type'), 'application/json');
  const failed = await httpFetch(`${one.base}/status/503`);
  assert.deepEqual([failed.status, failed.statusText, await failed.text()], [503, 'Service Unavailable', 'a body']);
  await sameAsFetch((s) => `${s.base}/status/204`);
  await sameAsFetch((s) => `${s.base}/status/404`);
});

test('cancellation: rejects with the signal\'s reason, before sending, waiting for the head or for the body', async () => {
  const reason = new Error('cancelled by Temporal');
  await assert.rejects(httpFetch(`${one.base}/echo`, { signal: AbortSignal.abort(reason) }), (err) => err === reason);
  for (const path of ['silent', 'hold']) {
    const waiting = new AbortController();
    const pending = httpFetch(`${one.base}/${path}`, { signal: waiting.signal });
    setTimeout(() => waiting.abort(), 100);
    await assert.rejects(pending, (err: Error) => err.name === 'AbortError', path);
    const socket = one.seen.at(-1)!.socket;
    if (!socket.destroyed) await once(socket, 'close');
  }
  await assert.rejects(httpFetch(`${one.base}/hold`, { signal: AbortSignal.timeout(100) }), (err: Error) => err.name === 'TimeoutError');
  // As fetch: sendHttp passes a cancellation on as it is.
  await assert.rejects(sendHttp({ method: 'GET', url: `${one.base}/hold` }, { signal: AbortSignal.timeout(100) }), (err: Error) => err.name === 'TimeoutError' && !isAdapterError(err));
});

test('failures as fetch throws them, with the codes networkFailure finds: refused, unknown host, broken answer, bad URLs', async () => {
  const closed = await new Service(route).start();
  const url = `${closed.base}/echo`;
  await closed.close();
  const refused = await httpFetch(url).catch((e: unknown) => e);
  const byFetch = await fetch(url).catch((e: unknown) => e);
  assert.ok(refused instanceof TypeError && refused.message === 'fetch failed');
  assert.deepEqual(networkFailure(refused), networkFailure(byFetch));
  assert.equal(networkFailure(refused).code, ErrorCodes.ConnectionRefused);
  await assert.rejects(sendHttp({ method: 'GET', url }), (err: Error) => isAdapterError(err) && err.code === ErrorCodes.ConnectionRefused && err.message === `GET ${url} failed: connect ECONNREFUSED ${url.slice(7, -5)}`);
  await assert.rejects(sendHttp({ method: 'GET', url: 'http://no-such-host.invalid/x' }), (err: Error) => isAdapterError(err) && err.code === ErrorCodes.HostNotFound);
  await assert.rejects(sendHttp({ method: 'GET', url: `${one.base}/cut` }), (err: Error) => isAdapterError(err) && err.code === ErrorCodes.ConnectionReset);
  await assert.rejects(httpFetch('ftp://example.org/file'), (err: Error) => err instanceof TypeError && /only http: and https:/.test((err.cause as Error).message));
  await assert.rejects(httpFetch('not a url'), /Failed to parse URL from not a url/);
  await assert.rejects(httpFetch(`http://user:pw@127.0.0.1:1/`), /includes credentials/);
  await assert.rejects(httpFetch(`${one.base}/echo`, { method: 'GET', body: 'x' }), /GET\/HEAD method cannot have body/);
  await assert.rejects(httpFetch(`${one.base}/echo`, { headers: { 'x-bad': 'a\nb' } }), TypeError);
});

test('keep-alive: sequential requests share one connection', async () => {
  const service = await new Service(route).start();
  try {
    for (let i = 0; i < 5; i++) await (await httpFetch(`${service.base}/echo`, i % 2 ? { method: 'POST', body: String(i) } : {})).text();
    assert.equal(service.connections, 1);
    assert.ok(service.seen.every((s) => s.socket === service.seen[0].socket));
  } finally {
    await service.close();
  }
});

test('a kept-alive connection the server closed: an idempotent request is sent again on a new one, a POST fails', async () => {
  const service = await new Service(route).start();
  try {
    assert.equal(await (await httpFetch(`${service.base}/once-per-connection`)).text(), 'first on this connection');
    assert.equal(await (await httpFetch(`${service.base}/once-per-connection`)).text(), 'first on this connection');
    assert.equal(service.connections, 2);
    await assert.rejects(sendHttp({ method: 'POST', url: `${service.base}/once-per-connection`, body: 'x' }), (err: Error) => isAdapterError(err) && err.code === ErrorCodes.ConnectionReset);
  } finally {
    await service.close();
  }
});

test('server-sent events are streamed: the answer comes before the stream ends', async () => {
  const started = Date.now();
  const res = await httpFetch(`${one.base}/events/400`);
  assert.ok(Date.now() - started < 350, 'answered at the head, not at the end');
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /data: first/);
  let rest = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  assert.match(rest, /data: second/);
});

test('as a fetch for the SDKs that take one: Headers, a manual or refused redirect, string and byte bodies; other bodies refused', async () => {
  const cases: [string, RequestInit][] = [
    [`${one.base}/echo`, { method: 'POST', body: '{"jsonrpc":"2.0"}', headers: new Headers({ 'content-type': 'application/json', 'mcp-session-id': 's1' }) }],
    [`${one.base}/redirect/307/1`, { method: 'POST', body: new TextEncoder().encode('bytes'), headers: [['x-k', 'v']], redirect: 'manual' }],
    [`${one.base}/redirect/303/1`, { method: 'POST', body: new URLSearchParams({ a: '1' }) }],
  ];
  for (const [url, init] of cases) {
    const expected = await observe((u, i: RequestInit) => fetch(u, i), url, init);
    assert.deepEqual(await observe(httpFetchAsFetch, url, init), expected);
  }
  await assert.rejects(httpFetchAsFetch(new URL(`${one.base}/redirect/302/1`), { redirect: 'error' }), (err: Error) => err instanceof TypeError && /unexpected redirect/.test((err.cause as Error).message));
  assert.throws(() => httpFetchAsFetch(`${one.base}/echo`, { method: 'POST', body: new Blob(['x']) }), /string, byte and URLSearchParams bodies/);
});

test('a whole answer (httpFetchWhole) holds what the Response gives: status, headers as a record, body bytes, url, redirected', async () => {
  const cases: [string, HttpFetchInit][] = [
    [`${one.base}/echo`, {}],
    [`${one.base}/echo`, { method: 'POST', body: 'a body' }],
    [`${one.base}/echo`, { method: 'HEAD' }],
    [`${one.base}/redirect/302/2`, {}],
    [`${one.base}/redirect/301/1#part`, { redirect: 'manual' }],
    [`${one.base}/events/10`, {}],
    ...[204, 304, 404, 503].map((s): [string, HttpFetchInit] => [`${one.base}/status/${s}`, {}]),
    ...['gzip', 'deflate', 'br', 'both', 'identity'].map((c): [string, HttpFetchInit] => [`${one.base}/encoded/${c}`, {}]),
  ];
  const varying = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'date'));
  for (const [url, init] of cases) {
    const res = await httpFetch(url, init);
    const expected = { status: res.status, statusText: res.statusText, url: res.url, redirected: res.redirected, headers: varying(Object.fromEntries(res.headers.entries())), body: Buffer.from(await res.arrayBuffer()) };
    const whole = await httpFetchWhole(url, init);
    const actual = { status: whole.status, statusText: whole.statusText, url: whole.url, redirected: whole.redirected, headers: varying(headerRecord(whole.rawHeaders)), body: whole.body };
    assert.deepEqual(actual, expected, `${init.method ?? 'GET'} ${url}`);
    // In the same order too: a 1.0 call's `response` output shows them.
    assert.deepEqual(Object.keys(actual.headers), Object.keys(expected.headers));
  }
  // Repeated names are joined as Headers joins them; set-cookie keeps its last value.
  assert.deepEqual(headerRecord(['X-A', '1', 'Set-Cookie', 'a=1', 'x-a', '2', 'set-cookie', 'b=2', 'B', 'v']), Object.fromEntries(new Headers([['X-A', '1'], ['Set-Cookie', 'a=1'], ['x-a', '2'], ['set-cookie', 'b=2'], ['B', 'v']]).entries()));
  await assert.rejects(httpFetchWhole(`${one.base}/redirect/302/21`), (err: Error) => err instanceof TypeError && /redirect count exceeded/.test((err.cause as Error).message));
});

test('utf8Text reads bytes as Response.text() does (a byte order mark dropped)', async () => {
  for (const bytes of [Buffer.from('\ufeff{"a":1}', 'utf8'), Buffer.from('héllo', 'utf8'), Buffer.alloc(0), Buffer.from([0xef, 0xbb])]) {
    assert.equal(utf8Text(bytes), await new Response(bytes).text());
  }
});
