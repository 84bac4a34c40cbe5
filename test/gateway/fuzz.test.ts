/**
 * Fuzzing `swflow gateway` (the real CLI process, against the dev server) with over 2,000
 * malformed requests: broken JSON, missing or wrong attributes, binary mode without
 * ce-specversion, wrong content types, batches mixing valid start events with bad entries,
 * bad credentials, wrong methods, oversized bodies (up to 100 MB) and slow bodies.
 *
 * Every request must get a 4xx answer (not a 2xx, 5xx, reset or timeout), no workflow may
 * start (not even from the valid entries of refused batches), the gateway must stay up, its
 * resident memory must stay flat, and SIGTERM must still stop it cleanly.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevEnv } from '../helpers/temporal';
import { freePort } from '../helpers/ports';

const ROOT = resolve(__dirname, '..', '..');
const TOKEN = 'fuzz-token-secret';
const MAX_BODY = 1 << 20;

let env: TestWorkflowEnvironment;
let client: Client;
let gateway: ChildProcess;
let output = '';
let port: number;

before(async () => {
  env = await startDevEnv();
  client = env.client as Client;
  port = await freePort();
  gateway = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'swflow.js'), 'gateway', '--definitions', join(__dirname, 'fixtures', 'fuzz'), '--port', String(port), '--body-timeout', '1500', '--no-access-log'],
    { cwd: ROOT, env: { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default', SWFLOW_GATEWAY_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  gateway.stdout!.on('data', (d) => (output += d));
  gateway.stderr!.on('data', (d) => (output += d));
  for (let i = 0; i < 300 && !/listening on/.test(output); i++) {
    if (gateway.exitCode !== null) throw new Error(`the gateway exited: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(output, /listening on/);
});

after(async () => {
  if (gateway?.exitCode === null) gateway.kill('SIGKILL');
  await env?.teardown();
});

/** A seeded PRNG (mulberry32): the same cases every run. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(12);
const pick = <T>(a: readonly T[]): T => a[Math.floor(random() * a.length)];

interface Case {
  kind: string;
  method?: string;
  path?: string;
  headers: Record<string, string>;
  /** A body, or a generator of chunks (large bodies are streamed, never built whole). */
  body?: Buffer | string | { chunks: number; chunkSize: number; delayMs?: number; stall?: boolean };
}

const auth = { authorization: `Bearer ${TOKEN}` };
const STRUCTURED = { ...auth, 'content-type': 'application/cloudevents+json' };
const BATCH = { ...auth, 'content-type': 'application/cloudevents-batch+json' };
/** Ids of valid start events sent inside refused requests: none of their instances may exist. */
const validIds: string[] = [];
let n = 0;
const validEvent = () => {
  const id = `fz-${n++}`;
  validIds.push(id);
  return { specversion: '1.0', id, type: 'greet.request', source: 'web', data: { i: n } };
};

/** Ways to break one structured event. */
const MUTATIONS: ((e: Record<string, unknown>) => void)[] = [
  (e) => delete e.specversion,
  (e) => (e.specversion = ''),
  (e) => (e.specversion = pick(['0.3', '2.0', 1, null, '1', ' 1.0'])),
  (e) => delete e.id,
  (e) => (e.id = pick(['', 42, null, true, {}, []])),
  (e) => delete e.type,
  (e) => (e.type = pick(['', 7, null, ['greet.request']])),
  (e) => delete e.source,
  (e) => (e.source = pick(['', 0, null, {}])),
  (e) => (e.time = pick(['yesterday', '2020-13-01T00:00:00Z', '', 12, '2020-01-01'])),
  (e) => (e.subject = pick(['', 5, {}])),
  (e) => (e.datacontenttype = pick(['', 9])),
  (e) => (e.dataschema = pick(['', 'not a uri with spaces', 3])),
  (e) => (e[pick(['Upper', 'with-dash', 'under_score', 'spa ce', 'ümlaut'])] = 'x'),
  (e) => (e.myext = pick([{ a: 1 }, [1, 2]])),
  (e) => (e.data_base64 = pick(['***', 'abc$', 5])),
  (e) => ((e.data_base64 = 'aGVsbG8='), (e.data = { both: true })),
];

function brokenEvent(): Record<string, unknown> {
  const e: Record<string, unknown> = { ...validEvent() };
  validIds.pop(); // a broken event is not a valid one
  const times = 1 + Math.floor(random() * 3);
  for (let i = 0; i < times; i++) pick(MUTATIONS)(e);
  // At least one mutation must break it: a fresh one that always does.
  if (times === 1 && random() < 0.5) delete e.type;
  return e;
}

function badJson(): Buffer | string {
  const text = JSON.stringify(validEvent());
  validIds.pop();
  return pick<() => Buffer | string>([
    () => text.slice(0, Math.floor(random() * (text.length - 1))),
    () => text.replace('{', '['),
    () => text + '}',
    () => `{'single': 'quotes'}`,
    () => 'null',
    () => '42',
    () => '"a string"',
    () => '[]',
    () => '',
    () => '   ',
    () => Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
    () => Buffer.from(Array.from({ length: 64 }, () => Math.floor(random() * 256))),
    () => '['.repeat(50_000) + ']'.repeat(50_000),
    () => JSON.stringify({ ...JSON.parse(text), data: undefined }).replace(/}$/, ',}'),
  ])();
}

function binaryCase(): Case {
  const headers: Record<string, string> = { ...auth, 'ce-specversion': '1.0', 'ce-id': `fzb-${n++}`, 'ce-type': 'greet.request', 'ce-source': 'web', 'content-type': 'application/json' };
  let body: string | Buffer = '{"ok":true}';
  const which = Math.floor(random() * 10);
  if (which === 0) delete headers['ce-specversion'];
  else if (which === 1) headers['ce-specversion'] = '';
  else if (which === 2) headers['ce-specversion'] = pick(['0.3', '2.0', '1']);
  else if (which === 3) delete headers[pick(['ce-id', 'ce-type', 'ce-source'])];
  else if (which === 4) headers[pick(['ce-id', 'ce-type', 'ce-source'])] = '';
  else if (which === 5) body = pick(['{bad', '[1,', 'undefined', Buffer.from([0xc3, 0x28])]);
  else if (which === 6) headers['ce-time'] = pick(['now', '2020-02-30T00:00:00Z']);
  else if (which === 7) headers['ce-id'] = '%E0%A4%A';
  else if (which === 8) headers['ce-dataschema'] = 'not a uri';
  else {
    delete headers['ce-specversion'];
    headers['ce-Bad_Name'] = 'x';
  }
  return { kind: 'binary', headers, body };
}

function batchCase(): Case {
  const which = Math.floor(random() * 6);
  if (which === 0) return { kind: 'batch-not-array', headers: BATCH, body: JSON.stringify(validEvent()) };
  if (which === 1) return { kind: 'batch-empty', headers: BATCH, body: '[]' };
  if (which === 2) return { kind: 'batch-too-many', headers: BATCH, body: JSON.stringify(Array.from({ length: 101 + Math.floor(random() * 50) }, validEvent)) };
  if (which === 3) return { kind: 'batch-bad-json', headers: BATCH, body: `[${JSON.stringify(validEvent())},` };
  // Good start events mixed with bad entries: all or nothing, so none of the good ones may start.
  const entries: unknown[] = Array.from({ length: 1 + Math.floor(random() * 4) }, validEvent);
  const bad = pick<() => unknown>([brokenEvent, () => null, () => 'str', () => [validEvent()], () => ({ ...validEvent(), type: 'nobody.consumes' })]);
  entries.splice(Math.floor(random() * (entries.length + 1)), 0, bad());
  return { kind: 'batch-mixed', headers: BATCH, body: JSON.stringify(entries) };
}

function contentTypeCase(): Case {
  const body = JSON.stringify(validEvent());
  const type = pick(['text/plain', 'application/xml', 'application/cloudevents+xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json', '', 'application/cloudevents-batch+xml', 'image/png']);
  const headers: Record<string, string> = { ...auth };
  if (type) headers['content-type'] = type;
  return { kind: 'content-type', headers, body };
}

function authCase(): Case {
  const e = validEvent();
  const which = Math.floor(random() * 5);
  if (which === 0) return { kind: 'auth-missing', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify(e) };
  if (which === 1) return { kind: 'auth-wrong', headers: { 'content-type': 'application/cloudevents+json', authorization: `Bearer ${TOKEN}x` }, body: JSON.stringify(e) };
  if (which === 2) return { kind: 'auth-scheme', headers: { 'content-type': 'application/cloudevents+json', authorization: pick([`Basic ${TOKEN}`, TOKEN, 'Bearer', 'Bearer ']) }, body: JSON.stringify(e) };
  if (which === 3) return { kind: 'auth-signature', headers: { 'content-type': 'application/cloudevents+json', 'x-swflow-signature': 'sha256=00ff' }, body: JSON.stringify(e) };
  return { kind: 'auth-direct-anonymous', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify({ ...e, swflowworkflowid: 'anything' }) };
}

function cases(): Case[] {
  const out: Case[] = [];
  for (let i = 0; i < 300; i++) out.push({ kind: 'bad-json', headers: STRUCTURED, body: badJson() });
  for (let i = 0; i < 550; i++) out.push({ kind: 'bad-attributes', headers: STRUCTURED, body: JSON.stringify(brokenEvent()) });
  for (let i = 0; i < 400; i++) out.push(binaryCase());
  for (let i = 0; i < 200; i++) out.push(contentTypeCase());
  for (let i = 0; i < 400; i++) out.push(batchCase());
  for (let i = 0; i < 150; i++) out.push(authCase());
  for (let i = 0; i < 40; i++) out.push({ kind: 'method', method: pick(['PUT', 'DELETE', 'PATCH', 'GET']), headers: STRUCTURED, body: i % 4 === 3 ? undefined : JSON.stringify(validEvent()) });
  for (let i = 0; i < 20; i++) out.push({ kind: 'path', path: pick(['/nope', '/events/x', '/readyz/x', '/../etc/passwd']), headers: STRUCTURED, body: JSON.stringify(validEvent()) });
  for (let i = 0; i < 12; i++) out.push({ kind: 'oversized', headers: STRUCTURED, body: Buffer.alloc(MAX_BODY + 1 + i * 1000, 0x20) });
  for (let i = 0; i < 6; i++) out.push({ kind: 'oversized-chunked', headers: STRUCTURED, body: { chunks: 40 + i * 20, chunkSize: 64 * 1024 } });
  out.push({ kind: 'oversized-100MB', headers: STRUCTURED, body: { chunks: 1600, chunkSize: 64 * 1024 } });
  return out;
}

interface Outcome {
  kind: string;
  status?: number;
  error?: string;
}

function send(c: Case): Promise<Outcome> {
  return new Promise((done) => {
    let settled = false;
    const finish = (o: Omit<Outcome, 'kind'>) => {
      if (!settled) (settled = true), done({ kind: c.kind, ...o });
    };
    const headers: Record<string, string | number> = { ...c.headers };
    if (Buffer.isBuffer(c.body) || typeof c.body === 'string') headers['content-length'] = Buffer.byteLength(c.body);
    const req = request({ host: '127.0.0.1', port, method: c.method ?? 'POST', path: c.path ?? '/', headers, timeout: 30_000 }, (res) => {
      res.resume();
      finish({ status: res.statusCode });
      res.on('end', () => req.destroy());
    });
    req.on('error', (err) => finish({ error: err.message }));
    req.on('timeout', () => (finish({ error: 'client timeout (no answer in 30 s)' }), req.destroy()));
    const b = c.body;
    if (b === undefined || Buffer.isBuffer(b) || typeof b === 'string') return req.end(b);
    // Streamed: stop writing once the answer came.
    const chunk = Buffer.alloc(b.chunkSize, 0x41);
    let i = 0;
    const write = () => {
      while (!settled && i < b.chunks) {
        i++;
        if (b.stall && i === 2) return; // send a little, then nothing: the body never completes
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      if (!settled) req.end();
    };
    write();
  });
}

async function runAll(list: Case[], concurrency: number): Promise<Outcome[]> {
  const out: Outcome[] = new Array(list.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < list.length) {
        const i = next++;
        out[i] = await send(list[i]);
      }
    }),
  );
  return out;
}

/** The gateway process's resident memory, in MiB (Linux). */
function rssMiB(): number {
  const status = readFileSync(`/proc/${gateway.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

test('over 2,000 malformed requests: every one answered 4xx, no workflow started, the gateway up with flat memory, SIGTERM still clean', { timeout: 600_000 }, async () => {
  const all = cases();
  // The oversized bodies go first, with the warm-up: what discarding 100 MB costs (socket and
  // allocator buffers the process keeps) is in the baseline, and what follows must not add to it.
  const oversized = all.filter((c) => c.kind.startsWith('oversized'));
  const others = all.filter((c) => !c.kind.startsWith('oversized'));
  const slow: Case[] = Array.from({ length: 12 }, () => ({ kind: 'slow-body', headers: STRUCTURED, body: { chunks: 10, chunkSize: 100, stall: true } }));
  const before = (await client.workflow.count()).count;

  const start = rssMiB();
  const warm = [...(await runAll(oversized, 4)), ...(await runAll(others.slice(0, 300), 8))];
  const baseline = rssMiB();
  const samples: number[] = [];
  const rest: Outcome[] = [];
  for (let i = 300; i < others.length; i += 250) {
    rest.push(...(await runAll(others.slice(i, i + 250), 8)));
    samples.push(rssMiB());
  }
  const slowOutcomes = await runAll(slow, slow.length);
  samples.push(rssMiB());
  const outcomes = [...warm, ...rest, ...slowOutcomes];

  const byKind = new Map<string, Map<string, number>>();
  for (const o of outcomes) {
    const key = o.status !== undefined ? String(o.status) : `error: ${o.error}`;
    const m = byKind.get(o.kind) ?? new Map<string, number>();
    m.set(key, (m.get(key) ?? 0) + 1);
    byKind.set(o.kind, m);
  }
  console.log(`  ${outcomes.length} requests; answers by kind:`);
  for (const [kind, m] of byKind) console.log(`    ${kind}: ${[...m].map(([k, v]) => `${k}×${v}`).join(', ')}`);
  console.log(`  gateway RSS: ${start.toFixed(1)} MiB at start, ${baseline.toFixed(1)} MiB after the oversized bodies and warm-up, then ${samples.map((s) => s.toFixed(1)).join(', ')} MiB`);

  assert.ok(outcomes.length >= 2000, `${outcomes.length} requests`);
  const not4xx = outcomes.filter((o) => o.status === undefined || o.status < 400 || o.status >= 500);
  assert.deepEqual(not4xx.slice(0, 10), [], `${not4xx.length} requests were not answered 4xx`);
  assert.ok(slowOutcomes.every((o) => o.status === 408), 'slow bodies are answered 408');
  assert.ok(outcomes.filter((o) => o.kind.startsWith('oversized')).every((o) => o.status === 413), 'oversized bodies are answered 413');

  // The gateway is up and serves a valid event afterwards; nothing before it started a workflow.
  assert.equal(gateway.exitCode, null, output);
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.equal(health.status, 200);
  for (const id of validIds) {
    await assert.rejects(client.workflow.getHandle(`fuzzgreeter/web/${id}`).describe(), `no instance for ${id}`);
  }
  assert.equal((await client.workflow.count()).count, before, 'no workflow was started');
  const ok = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: STRUCTURED, body: JSON.stringify({ specversion: '1.0', id: 'fz-valid', type: 'greet.request', source: 'web' }) });
  assert.equal(ok.status, 202, await ok.clone().text());

  // Flat: bodies up to 100 MB were discarded, not kept (one kept would be 100 MiB more); the warm-up
  // itself grows the heap's new space, 56–72 MiB on Node 24 here (its semi-spaces are larger than
  // Node 20's). After the warm-up 1,800 more requests add no more than allocator noise.
  assert.ok(baseline - start < 90, `RSS grew from ${start.toFixed(1)} to ${baseline.toFixed(1)} MiB with the oversized bodies`);
  assert.ok(Math.max(...samples) - baseline < 24, `RSS grew from ${baseline.toFixed(1)} to ${Math.max(...samples).toFixed(1)} MiB`);

  const exited = new Promise<number | null>((r) => gateway.once('exit', r));
  gateway.kill('SIGTERM');
  assert.equal(await exited, 0, output);
  assert.match(output, /stopped/);
});
