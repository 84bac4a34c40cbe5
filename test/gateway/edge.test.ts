/**
 * The gateway under hostile or careless senders (src/gateway/drain.ts): every refusal (413, 401,
 * 404, 400, 415…) reaches the sender whatever its connection handling. A raw TCP client (no HTTP
 * library smoothing things over) writes a request head and a body the gateway refuses:
 * - with `Connection: close`, writing the whole body before reading anything, or stopping at the
 *   first write error: it must READ a complete `HTTP/1.1 413` response (status line, headers, the
 *   whole JSON body) and then the end of the connection, never a reset;
 * - with `Transfer-Encoding: chunked`: the same;
 * - with keep-alive: once the sender has finished its body, the same connection takes the next
 *   request (an event delivered to the real dev server, 202).
 * Draining is bounded: a sender that stalls, or sends far past the limit, is cut off.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { startGateway, type Gateway } from '../../src/gateway/server';
import { startDevEnv } from '../helpers/temporal';

const TOKEN = 'edge-token-secret';
const MAX_BODY = 64 * 1024;
const registry = new DefinitionRegistry([join(__dirname, 'fixtures', 'fuzz')]);

let env: TestWorkflowEnvironment;
let gateway: Gateway;
let port: number;

before(async () => {
  env = await startDevEnv();
  gateway = await startGateway({ client: env.client as Client, definitions: () => registry.definitions(), port: 0, maxBodyBytes: MAX_BODY, auth: { token: TOKEN }, bodyTimeoutMs: 5_000 });
  port = Number(new URL(gateway.url).port);
});

after(async () => {
  await gateway?.close();
  await env?.teardown();
});

// ------------------------------------------------------------------ a raw HTTP/1.1 sender

interface Exchange {
  /** Everything read from the connection, in order. */
  received: Buffer;
  /** The first write error, if any (the sender stopped writing there). */
  writeError?: string;
  /** How the connection ended: the gateway's FIN ('end'), or an error (a reset). */
  ended: 'end' | string;
  bytesWritten: number;
}

/**
 * Sends `head` then `body` (chunks, written with backpressure) on a new connection. `readWhileWriting:
 * false` is a sender that reads nothing before it has written everything (or hit a write error).
 * Resolves once the connection is closed, or `keepOpen` says the answers wanted are in.
 */
function exchange(head: string, body: Iterable<Buffer>, opts: { readWhileWriting?: boolean; keepOpen?: (received: Buffer) => boolean; then?: (socket: Socket) => void } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const out: Exchange = { received: Buffer.alloc(0), ended: 'open', bytesWritten: 0 };
    let writing = true;
    let settled = false;
    const settle = (how: string) => {
      if (settled) return;
      settled = true;
      out.ended = how;
      out.received = Buffer.concat(chunks);
      out.bytesWritten = socket.bytesWritten;
      socket.destroy();
      resolve(out);
    };
    if (!opts.readWhileWriting) socket.pause();
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      if (opts.keepOpen?.(Buffer.concat(chunks))) settle('kept open');
    });
    socket.on('end', () => settle('end'));
    socket.on('error', (err) => {
      if (writing) {
        // A sender that stops at the first write error, then reads what it can.
        out.writeError ??= (err as NodeJS.ErrnoException).code ?? err.message;
        return;
      }
      settle((err as NodeJS.ErrnoException).code ?? err.message);
    });
    socket.on('close', () => settle(out.writeError ? `closed after ${out.writeError}` : 'close'));
    socket.on('connect', async () => {
      const it = body[Symbol.iterator]();
      socket.write(head);
      for (let n = it.next(); !n.done && !out.writeError && !socket.destroyed; n = it.next()) {
        if (!socket.write(n.value)) await new Promise<void>((r) => (socket.once('drain', r), socket.once('close', r)));
      }
      writing = false;
      opts.then?.(socket);
      socket.resume();
    });
  });
}

function* bytes(total: number, chunk = 16 * 1024): Iterable<Buffer> {
  const b = Buffer.alloc(chunk, 0x41);
  for (let sent = 0; sent < total; sent += chunk) yield b.subarray(0, Math.min(chunk, total - sent));
}

function* chunked(total: number, chunk = 16 * 1024): Iterable<Buffer> {
  for (const b of bytes(total, chunk)) yield Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
  yield Buffer.from('0\r\n\r\n');
}

interface Response {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Bytes after this response (the next one on a keep-alive connection). */
  rest: Buffer;
}

/** The first complete HTTP/1.1 response in `data` (Content-Length framed), or undefined if incomplete. */
function parseResponse(data: Buffer): Response | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
  assert.ok(m, `not an HTTP/1.1 status line: ${JSON.stringify(statusLine)}`);
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const length = Number(headers['content-length']);
  assert.ok(Number.isFinite(length), `the answer has a Content-Length: ${JSON.stringify(headers)}`);
  if (data.length < end + 4 + length) return undefined;
  return { status: Number(m[1]), headers, body: data.subarray(end + 4, end + 4 + length).toString('utf8'), rest: data.subarray(end + 4 + length) };
}

function head(lines: string[]): string {
  return `${lines.join('\r\n')}\r\n\r\n`;
}

const POST = (extra: string[]) => head(['POST / HTTP/1.1', 'Host: 127.0.0.1', `Authorization: Bearer ${TOKEN}`, 'Content-Type: application/cloudevents+json', ...extra]);

function assertAnswered(x: Exchange, status: number, error: RegExp): Response {
  const r = parseResponse(x.received);
  assert.ok(r, `a complete response was read (connection ${x.ended}, write error ${x.writeError ?? 'none'}, ${x.received.length} bytes read: ${JSON.stringify(x.received.subarray(0, 200).toString())})`);
  assert.equal(r.status, status, r.body);
  assert.match(JSON.parse(r.body).error, error);
  return r;
}

// ------------------------------------------------------------------ tests

test('413 on Content-Length, Connection: close, the sender writes its whole body before reading: it reads the complete 413, then the end of the connection', async () => {
  const size = 4 << 20;
  const x = await exchange(POST([`Content-Length: ${size}`, 'Connection: close']), bytes(size));
  assert.equal(x.writeError, undefined, 'the gateway read the whole body: no write failed');
  const r = assertAnswered(x, 413, /larger than 65536 bytes/);
  assert.equal(r.headers.connection, 'close');
  assert.equal(x.ended, 'end', 'the gateway closed with a FIN after the body, not a reset');
  assert.ok(x.bytesWritten >= size, `${x.bytesWritten} bytes written`);
});

test('413 on Content-Length, Connection: close, a sender that stops writing at the first error and reads in the meantime: it reads the complete 413', async () => {
  const size = 4 << 20;
  const x = await exchange(POST([`Content-Length: ${size}`, 'Connection: close']), bytes(size), { readWhileWriting: true });
  assertAnswered(x, 413, /larger than 65536 bytes/);
  assert.equal(x.writeError, undefined);
  assert.equal(x.ended, 'end');
});

test('413 over the limit while reading a chunked body, Connection: close: the sender reads the complete 413 and the end of the connection', async () => {
  const x = await exchange(POST(['Transfer-Encoding: chunked', 'Connection: close']), chunked(16 << 20));
  assert.equal(x.writeError, undefined);
  assertAnswered(x, 413, /larger than 65536 bytes/);
  assert.equal(x.ended, 'end');
});

test('refusals before the body is read (401 bad token, 404 path) and after (400 malformed, 415 content type), Connection: close: each is read whole', async () => {
  const size = 1 << 20;
  const within = 60_000; // within the body limit: the token is checked first
  const bad = await exchange(head(['POST / HTTP/1.1', 'Host: x', 'Authorization: Bearer wrong', 'Content-Type: application/cloudevents+json', `Content-Length: ${within}`, 'Connection: close']), bytes(within));
  assertAnswered(bad, 401, /bearer token is not valid/);
  assert.equal(bad.ended, 'end');
  const lost = await exchange(head(['POST /nowhere HTTP/1.1', 'Host: x', `Content-Length: ${size}`, 'Connection: close']), bytes(size));
  assertAnswered(lost, 404, /nothing at \/nowhere/);
  assert.equal(lost.ended, 'end');
  const malformed = Buffer.from('{"specversion": "1.0", "id": ');
  const bad400 = await exchange(POST([`Content-Length: ${malformed.length}`, 'Connection: close']), [malformed]);
  assertAnswered(bad400, 400, /./);
  const text = Buffer.from('hello');
  const bad415 = await exchange(head(['POST / HTTP/1.1', 'Host: x', `Authorization: Bearer ${TOKEN}`, 'Content-Type: text/plain', `Content-Length: ${text.length}`, 'Connection: close']), [text]);
  assertAnswered(bad415, 415, /./);
});

test('keep-alive: after a refused body (Content-Length, then chunked) the sender finishes, the same connection delivers an event (202)', async () => {
  const event = Buffer.from(JSON.stringify({ specversion: '1.0', id: `edge-${Date.now()}`, type: 'greet.request', source: 'web', data: { name: 'edge' } }));
  const size = 2 << 20;
  const answers = (data: Buffer) => {
    const rs: Response[] = [];
    let rest = data;
    for (let r = parseResponse(rest); r; r = rest.length ? parseResponse(rest) : undefined) (rs.push(r), (rest = r.rest));
    return rs;
  };
  for (const [framing, body] of [
    [`Content-Length: ${size}`, bytes(size)],
    ['Transfer-Encoding: chunked', chunked(size)],
  ] as const) {
    const x = await exchange(POST([framing]), body, {
      then: (socket) => socket.write(Buffer.concat([Buffer.from(POST([`Content-Length: ${event.length}`])), event])),
      keepOpen: (data) => answers(data).length >= 2,
    });
    const [refused, delivered] = answers(x.received);
    assert.ok(delivered, `two answers on one connection (${framing}); connection ${x.ended}`);
    assert.equal(refused.status, 413);
    assert.notEqual(refused.headers.connection, 'close', 'a keep-alive connection stays open after a refusal');
    assert.equal(delivered.status, 202, delivered.body);
    assert.equal(x.ended, 'kept open');
  }
});

test('draining is bounded: a refused body that stalls is cut off at the drain timeout, one far past the byte bound at once', async () => {
  const small = await startGateway({ client: env.client as Client, definitions: () => registry.definitions(), port: 0, maxBodyBytes: 1024, drainTimeoutMs: 500, drainMaxBytes: 256 * 1024, bodyTimeoutMs: 30_000 });
  try {
    const smallPort = Number(new URL(small.url).port);
    // Stalls: half the declared body, then nothing (and never closes its side). The 413 is read, then the gateway closes.
    let closedAt = 0;
    small.server.once('connection', (s) => s.once('close', () => (closedAt = Date.now())));
    const t = Date.now();
    const stalled = await new Promise<{ received: Buffer; ms: number }>((resolve) => {
      const s = connect({ port: smallPort, host: '127.0.0.1', allowHalfOpen: true }, () => s.write(Buffer.concat([Buffer.from(head(['POST / HTTP/1.1', 'Host: x', 'Content-Length: 100000', 'Connection: close'])), Buffer.alloc(50_000, 0x41)])));
      const got: Buffer[] = [];
      s.on('data', (d: Buffer) => got.push(d));
      s.on('error', () => undefined);
      const wait = setInterval(() => {
        if (!closedAt) return;
        clearInterval(wait);
        s.destroy();
        resolve({ received: Buffer.concat(got), ms: closedAt - t });
      }, 20);
    });
    assert.equal(parseResponse(stalled.received)?.status, 413);
    assert.ok(stalled.ms >= 400 && stalled.ms < 5_000, `cut off after ${stalled.ms} ms (drain timeout 500 ms)`);
    // Far past the byte bound: the gateway stops reading and cuts the connection (the write fails).
    const flood = await exchange(head(['POST / HTTP/1.1', 'Host: x', 'Content-Length: 1000000000', 'Connection: close']), bytes(64 << 20));
    assert.ok(flood.writeError, `the flood was cut (${flood.ended})`);
    assert.ok(flood.bytesWritten < 64 << 20, `${flood.bytesWritten} bytes written of 64 MiB`);
  } finally {
    await small.close();
  }
});
