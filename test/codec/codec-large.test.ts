/**
 * Large values through the codec server: a 1.0 run on a real dev server with a file payload store
 * (SWFLOW_PAYLOAD_THRESHOLD=64KiB) and codec keys, whose ~300 KB input and ~1.2 MB result are
 * stored (the history holds references). The real `temporal workflow show --codec-endpoint` prints
 * the decoded input; the result, over the 1 MiB display limit, shows as a `swflowPayload` link
 * whose GET returns the value (401 without the token, 400 for a key that is not one). The real
 * `swflow codec-server` with a store and no keys serves the same link. The real Web UI (headless
 * Chromium) shows the run through a codec server: the input decoded, the result as the link.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { StorageDriverClaim } from '@temporalio/common';
import { encodeReferencePayload } from '@temporalio/common/lib/internal-non-workflow';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { launchChromium, noChromium } from '../helpers/browser';
import { INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import type { Json } from '../../src/common/model';
import { dataConverterOptions, payloadCodec } from '../../src/codec';
import { startCodecServer, type CodecServer } from '../../src/codec/server';
import { payloadSettings } from '../../src/payloads/config';
import { PayloadValues } from '../../src/payloads/values';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { freePort } from '../helpers/ports';
import { setEnv } from '../helpers/env';
import { payloadsOf } from '../helpers/payloads';
import { loadAny, sharedBundle } from '../workflow/helpers';

const run = promisify(execFile);
const TEMPORAL = process.env.TEMPORAL_CLI ?? '/usr/local/bin/temporal';
const TOKEN = `large-token-${randomBytes(8).toString('hex')}`;
const MARKER = `large-in-${randomBytes(4).toString('hex')}`;
/** Puts back the environment this file's clients and workers were given. */
let restoreEnv: (() => void) | undefined;

let dir = '';
let dev: DevServer;
let connection: Connection;
let nativeConnection: NativeConnection;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let codecServer: CodecServer;
/** The Web UI's codec server (the UI sends no bearer token of ours: CORS for its origin only). */
let uiCodec: CodecServer;
let browser: Browser | undefined;
const uiRequests: string[] = [];
const workflowId = `codec-large-${randomBytes(4).toString('hex')}`;
// ~300 KB of base64 text (incompressible), the result four times it (~1.2 MB).
const blob = randomBytes(225_000).toString('base64');
let result: Json;


const show = async (...extra: string[]) => JSON.parse((await run(TEMPORAL, ['workflow', 'show', '--address', dev.address, '-w', workflowId, '-o', 'json', '--command-timeout', '30s', ...extra], { maxBuffer: 64 * 1024 * 1024 })).stdout) as unknown;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-codec-large-'));
  restoreEnv = setEnv({ SWFLOW_PAYLOAD_STORE: `file://${join(dir, 'payloads')}`, SWFLOW_PAYLOAD_THRESHOLD: '64KiB', SWFLOW_CODEC_KEYS: `large-key:${randomBytes(32).toString('base64')}` });
  const uiPort = await freePort();
  uiCodec = await startCodecServer({ codec: payloadCodec()!, store: payloadSettings().store, port: 0, corsOrigins: [`http://localhost:${uiPort}`] });
  uiCodec.server.on('request', (req) => uiRequests.push(`${req.method} ${req.url}`));
  dev = await startDevServer({ binary: TEMPORAL, port: await freePort(), uiPort, dbFile: join(dir, 'temporal.sqlite'), extraArgs: ['--ui-codec-endpoint', uiCodec.url] });
  connection = await Connection.connect({ address: dev.address });
  nativeConnection = await NativeConnection.connect({ address: dev.address });
  workers = [await createInterpreterWorker({ connection: nativeConnection, definitions: [], workflowBundle: await sharedBundle() })];
  runs = workers.map((w) => w.run());
  codecServer = await startCodecServer({ codec: payloadCodec()!, store: payloadSettings().store, port: 0, token: TOKEN });
});

after(async () => {
  await browser?.close();
  await stopWorkers(workers, runs);
  await codecServer?.close();
  await uiCodec?.close();
  await connection?.close();
  await nativeConnection?.close();
  await dev?.stop();
  restoreEnv?.();
  rmSync(dir, { recursive: true, force: true });
});

test('a run with a 300 KB input and a 1.2 MB result: both stored, both references in the history', async () => {
  const doc = await loadAny({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'codeclarge', version: '0.1.0' },
    do: [{ grow: { set: { marker: '${ .marker }', a: '${ .blob }', b: '${ .blob }', c: '${ .blob }', d: '${ .blob }' } } }],
  });
  const client = new Client({ connection, ...dataConverterOptions() });
  const started = Date.now();
  result = await client.workflow.execute(doc.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [{ marker: MARKER, blob }, { definition: doc } satisfies StartOptions] });
  assert.deepEqual(result, { marker: MARKER, a: blob, b: blob, c: blob, d: blob });
  const raw = payloadsOf(await show());
  const refs = raw.filter((p) => p.encoding === 'json/protobuf' && p.data.includes('sha256-'));
  assert.ok(refs.length >= 2, `references in the history: ${refs.length} (encodings ${[...new Set(raw.map((p) => p.encoding))].join(', ')})`);
  assert.ok(!raw.some((p) => p.data.includes(MARKER)), 'the marker is in the raw history');
  console.log(`run with ${JSON.stringify({ marker: MARKER, blob }).length} B input, ${JSON.stringify(result).length} B result: ${Date.now() - started} ms; ${raw.length} payloads in the history, ${refs.length} references`);
});

test('temporal workflow show --codec-endpoint: the input decoded, the result over the display limit as a link', async () => {
  assert.ok(result, 'the run completed');
  const decoded = payloadsOf(await show('--codec-endpoint', codecServer.url, '--codec-auth', `Bearer ${TOKEN}`));
  const input = decoded.find((p) => p.data.includes(MARKER) && p.data.includes(blob.slice(0, 100)) && !p.data.includes('"a"'));
  assert.ok(input, `the decoded input is not in the show output (encodings ${[...new Set(decoded.map((p) => p.encoding))].join(', ')})`);
  assert.equal(input.encoding, 'json/plain');
  assert.deepEqual(JSON.parse(input.data), { marker: MARKER, blob });
  const links = decoded.filter((p) => p.data.includes('"swflowPayload"')).map((p) => JSON.parse(p.data) as { swflowPayload: { key: string; size: number; href: string } });
  assert.ok(links.length >= 1, 'no swflowPayload link for the 1.2 MB result');
  const link = links.find((l) => l.swflowPayload.size === Buffer.byteLength(JSON.stringify(result)))!;
  assert.ok(link, `no link of the result's size ${Buffer.byteLength(JSON.stringify(result))}: ${JSON.stringify(links)}`);
  assert.match(link.swflowPayload.key, /^sha256-[0-9a-f]{64}$/);
  assert.equal(link.swflowPayload.href, `${codecServer.url}/payloads/${link.swflowPayload.key}`);
  // No payload over the display limit in what the CLI printed.
  const largest = Math.max(...decoded.map((p) => p.data.length));
  assert.ok(largest <= 1024 * 1024, `a payload of ${largest} B shown`);

  const got = await fetch(link.swflowPayload.href, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(got.status, 200);
  assert.match(got.headers.get('content-type') ?? '', /application\/json/);
  assert.deepEqual(await got.json(), result);
  const anonymous = await fetch(link.swflowPayload.href);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
  const badKey = await fetch(`${codecServer.url}/payloads/..%2F..%2Fetc%2Fpasswd`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(badKey.status, 400);
  assert.match(((await badKey.json()) as { error: string }).error, /not a payload key/);
  const missing = await fetch(`${codecServer.url}/payloads/sha256-${'0'.repeat(64)}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  console.log(`show --codec-endpoint: ${decoded.length} payloads, largest ${largest} B; input ${input.data.length} B decoded; result ${link.swflowPayload.size} B as ${link.swflowPayload.href}; GET 200 / 401 without token / 400 bad key / 404 missing`);
});

test('swflow codec-server with a store and no keys: serves stored values and their links', async () => {
  assert.ok(result, 'the run completed');
  // A deployment without encryption: a store-only codec server cannot decrypt, so this run's
  // encrypted payloads come back encrypted; a value stored without keys comes back whole.
  const plainValue = { plain: MARKER, pad: blob.slice(0, 70_000) };
  const key = await new PayloadValues(payloadSettings().store).put(plainValue);
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'bin', 'swflow.js'), 'codec-server', '--port', '0', '--display-limit', '64KiB'], {
    env: { ...process.env, SWFLOW_CODEC_KEYS: '', SWFLOW_CODEC_KEY_FILE: '', SWFLOW_CODEC_TOKEN: TOKEN, SWFLOW_PAYLOAD_PUBLIC_URL: 'https://codec.example' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`swflow codec-server did not start in 60 s: ${err}`)), 60_000);
      child.stderr!.on('data', (d) => {
        err += d;
        const m = /listening on (http:\/\/\S+) \(no keys; bearer token required; payload store file:\S+, values over 65536 bytes as links\)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`swflow codec-server exited ${code}: ${err}`)));
    });
    const got = await fetch(`${url}/payloads/${key}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(got.status, 200);
    assert.deepEqual(await got.json(), plainValue);
    // The reference as the history holds it, decoded: over 64 KiB, so a link on the public URL.
    const refOf = (k: string) => {
      const refPayload = encodeReferencePayload({ driverName: 'file', claim: new StorageDriverClaim({ key: k }), sizeBytes: 70_000 });
      return { metadata: Object.fromEntries(Object.entries(refPayload.metadata!).map(([m, v]) => [m, Buffer.from(v!).toString('base64')])), data: Buffer.from(refPayload.data!).toString('base64') };
    };
    // With it, a reference to a payload that is gone: that one says so, the other still shows.
    const gone = `sha256-${'1'.repeat(64)}`;
    const res = await fetch(`${url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ payloads: [refOf(key), refOf(gone)] }) });
    assert.equal(res.status, 200);
    const out = (await res.json()) as { payloads: { data: string }[] };
    const shown = JSON.parse(Buffer.from(out.payloads[0].data, 'base64').toString()) as { swflowPayload: { href: string; size: number } };
    assert.equal(shown.swflowPayload.href, `https://codec.example/payloads/${key}`);
    assert.equal(shown.swflowPayload.size, Buffer.byteLength(JSON.stringify(plainValue)));
    const missing = JSON.parse(Buffer.from(out.payloads[1].data, 'base64').toString()) as { swflowPayload: { key: string; missing: string } };
    assert.equal(missing.swflowPayload.key, gone);
    assert.match(missing.swflowPayload.missing, /is not in the payload store file:/);
    console.log(`swflow codec-server (store only, display limit 64 KiB): GET ${key.slice(0, 15)}… 200, /decode of its reference → link ${shown.swflowPayload.href.slice(0, 40)}… (${shown.swflowPayload.size} B), of a missing one → "missing"`);
  } finally {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
});

test('the Temporal Web UI through the codec server: the stored input decoded, the large result as its link', { skip: noChromium }, async () => {
  assert.ok(result, 'the run completed');
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
  await page.goto(`${dev.uiUrl}/namespaces/default/workflows/${workflowId}`);
  await page.getByText('Completed').first().waitFor({ timeout: 30_000 });
  await page.getByText(MARKER).first().waitFor({ timeout: 30_000 });
  await page.getByText('swflowPayload').first().waitFor({ timeout: 30_000 });
  mkdirSync(join(__dirname, '..', '..', 'test-results'), { recursive: true });
  await page.screenshot({ path: join(__dirname, '..', '..', 'test-results', 'webui-codec-large.png'), fullPage: true });
  const text = await page.innerText('body');
  const href = /http:\/\/127\.0\.0\.1:\d+\/payloads\/sha256-[0-9a-f]{64}/.exec(text)?.[0];
  assert.ok(href?.startsWith(uiCodec.url), `no link to the codec server on the page`);
  assert.ok(!text.includes('ExternalStorageReference'), 'a reference shown undecoded');
  assert.ok(uiRequests.some((r) => r.startsWith('POST /decode')), `the UI asked the codec server: ${uiRequests.join('; ')}`);
  const got = await fetch(href!);
  assert.deepEqual(await got.json(), result);
  console.log(`Web UI: input with ${MARKER} shown decoded, result as ${href}; page text ${text.length} chars; ${uiRequests.filter((r) => r.startsWith('POST /decode')).length} /decode calls`);
});
