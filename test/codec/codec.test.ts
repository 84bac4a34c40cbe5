/**
 * Encrypted payloads end to end on a real dev server that stores to a SQLite file: with codec keys
 * configured, a 0.8 definition and a 1.0 document run with an input, a call of a real local HTTP
 * service through the built-in adapter worker, an event signal and a result; the database file
 * holds none of that plaintext (its bytes are searched), `temporal workflow show` without the codec
 * shows `binary/encrypted`, and with `--codec-endpoint` (swflow's codec server) the plaintext.
 * Key rotation: the runs start on workers holding key A and finish on the `swflow worker`, `adapters`
 * and `gateway` processes holding [B, A] (the 0.8 event goes through the gateway).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { EVENT_SIGNAL, INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import type { Definition, Json } from '../../src/common/model';
import { dataConverterOptions, payloadCodec, keyringFromEnv, ENCODING_ENCRYPTED } from '../../src/codec';
import { startCodecServer, type CodecServer } from '../../src/codec/server';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { runSwflow } from '../helpers/cli';
import { freePort } from '../helpers/ports';
import { payloadsOf } from '../helpers/payloads';
import { reversed, startReplyService, type ReplyService } from '../helpers/reply-service';
import { SERVING, SwflowProcess } from '../reliability/harness';
import { def, loadAny, sharedBundle } from '../workflow/helpers';

const run = promisify(execFile);

const TEMPORAL = process.env.TEMPORAL_CLI ?? '/usr/local/bin/temporal';
const KEY_A = `key-a:${randomBytes(32).toString('base64')}`;
const KEY_B = `key-b:${randomBytes(32).toString('base64')}`;
const TOKEN = `codec-token-${randomBytes(8).toString('hex')}`;

// Plaintext markers: what must never reach the database unencrypted.
const IN08 = 'in08-plain-4f1c9e';
const IN10 = 'in10-plain-b27d05';
const EVT08 = 'evt08-plain-91aa3c';
const EVT10 = 'evt10-plain-0c6e7f';
// The service answers with the reversed argument: a call result found nowhere else.
const SVC08 = `svc-${reversed(IN08)}`;
const SVC10 = `svc-${reversed(IN10)}`;
const SVC_EVT10 = `svc-${reversed(EVT10)}`;
const MARKERS = { IN08, IN10, EVT08, EVT10, SVC08, SVC10, SVC_EVT10 };
/** The input of a run started by a client without keys: stored in the clear (the search's control). */
const CONTROL = 'control-plain-5e0b12';

let dir = '';
let dev: DevServer;
let service: ReplyService;
let base = '';
let connection: Connection;
let nativeConnection: NativeConnection;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let codecServer: CodecServer;
let procs: SwflowProcess[] = [];
const savedKeys = process.env.SWFLOW_CODEC_KEYS;
const results: Record<string, Json> = {};
const ids = { v08: `codec-08-${randomBytes(4).toString('hex')}`, v10: `codec-10-${randomBytes(4).toString('hex')}` };

async function startWorkers(): Promise<void> {
  workers = [
    await createInterpreterWorker({ connection: nativeConnection, definitions: [], workflowBundle: await sharedBundle() }),
    await createBuiltinAdapterWorker({ connection: nativeConnection }),
  ];
  runs = workers.map((w) => w.run());
}

/** A client as swflow's commands make one: the codec from the environment's keys. */
const client = () => new Client({ connection, ...dataConverterOptions() });

async function awaiting(handle: WorkflowHandle, type: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const awaited = ((await handle.describe()).searchAttributes.SwAwaitedEvents ?? []) as string[];
    if (awaited.some((a) => a.includes(type))) return;
    if (Date.now() > deadline) throw new Error(`${handle.workflowId} never waited for ${type} (SwAwaitedEvents ${JSON.stringify(awaited)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}


before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-codec-'));
  service = await startReplyService();
  base = service.base;
  dev = await startDevServer({ binary: TEMPORAL, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'temporal.sqlite') });
  connection = await Connection.connect({ address: dev.address });
  nativeConnection = await NativeConnection.connect({ address: dev.address });
});

async function stopProcs(): Promise<void> {
  await Promise.all(procs.map((p) => p.stop('SIGTERM')));
  procs = [];
}

after(async () => {
  await stopWorkers(workers, runs);
  await stopProcs();
  await codecServer?.close();
  await connection?.close();
  await nativeConnection?.close();
  await dev?.stop();
  await service?.close();
  if (savedKeys === undefined) delete process.env.SWFLOW_CODEC_KEYS;
  else process.env.SWFLOW_CODEC_KEYS = savedKeys;
  rmSync(dir, { recursive: true, force: true });
});

test('runs with key A, finish after rotation to [B, A]: input, call, event and result correct', async () => {
  process.env.SWFLOW_CODEC_KEYS = KEY_A;
  await startWorkers();
  const doc08 = {
    id: 'codec08',
    specVersion: '0.8',
    version: '1.0',
    start: 'Call',
    events: [{ name: 'Approved', type: 'codec.approved08', source: 'test' }],
    functions: [{ name: 'echo', operation: `${base}/openapi.json#echo` }],
    states: [
      { name: 'Call', type: 'operation', actions: [{ functionRef: { refName: 'echo', arguments: { note: '${ .secret }' } }, actionDataFilter: { toStateData: '${ .call }' } }], transition: 'Wait' },
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Approved'], eventDataFilter: { toStateData: '${ .approval }' } }], end: true },
    ],
  };
  const v08: Definition = await def(doc08);
  // The gateway routes the 0.8 event by the definition files it serves.
  mkdirSync(join(dir, 'defs'));
  writeFileSync(join(dir, 'defs', 'codec08.sw.json'), JSON.stringify(doc08));
  const v10 = await loadAny({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'codec10', version: '0.1.0' },
    do: [
      { echo: { call: 'http', with: { method: 'post', endpoint: `${base}/echo10`, body: { note: '${ .secret }' } }, export: { as: '${ { reply: .reply } }' } } },
      { approval: { listen: { to: { one: { with: { type: 'codec.approved10' } } } } } },
      { confirm: { call: 'http', with: { method: 'post', endpoint: `${base}/echo10`, body: { note: '${ .[0].approval }' } }, export: { as: '${ $context + { confirmed: .reply } }' } } },
      { done: { set: { reply: '${ $context.reply }', confirmed: '${ $context.confirmed }' } } },
    ],
  });
  const c = client();
  const start = (d: Definition, id: string, input: Json) => c.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: id, args: [input, { definition: d } satisfies StartOptions] });
  const h08 = await start(v08, ids.v08, { secret: IN08 });
  const h10 = await start(v10, ids.v10, { secret: IN10 });
  await awaiting(h08, 'codec.approved08');
  await awaiting(h10, 'codec.approved10');

  // Rotation: the real `swflow worker`, `adapters` and `gateway` processes and a client hold [B, A]; B encrypts from now on.
  await stopWorkers(workers, runs);
  workers = [];
  runs = [];
  process.env.SWFLOW_CODEC_KEYS = `${KEY_B},${KEY_A}`;
  const keys = { SWFLOW_CODEC_KEYS: `${KEY_B},${KEY_A}` };
  const gatewayPort = await freePort();
  procs = await Promise.all([
    new SwflowProcess(['worker', '--definitions', join(dir, 'defs'), '--no-schedules'], dev.address, keys).ready(SERVING),
    new SwflowProcess(['adapters', '--definitions', join(dir, 'defs')], dev.address, keys).ready(SERVING),
    new SwflowProcess(['gateway', '--definitions', join(dir, 'defs'), '--port', String(gatewayPort)], dev.address, keys).ready(/listening on/),
  ]);
  const rotated = client();
  const sent = await fetch(`http://127.0.0.1:${gatewayPort}/`, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify({ specversion: '1.0', id: 'e08', source: 'test', type: 'codec.approved08', data: { approval: EVT08 } }) });
  assert.ok(sent.status < 300, `the gateway answered ${sent.status}: ${await sent.text()}`);
  await rotated.workflow.getHandle(ids.v10).signal(EVENT_SIGNAL, { specversion: '1.0', id: 'e10', source: 'test', type: 'codec.approved10', data: { approval: EVT10 } });
  results.v08 = await rotated.workflow.getHandle(ids.v08).result();
  results.v10 = await rotated.workflow.getHandle(ids.v10).result();
  assert.deepEqual(results.v08, { secret: IN08, call: { reply: SVC08 }, approval: { approval: EVT08 } });
  assert.deepEqual(results.v10, { reply: SVC10, confirmed: SVC_EVT10 });

  // The history holds payloads of both keys, all encrypted.
  const events = (await connection.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: ids.v10 } })).history?.events ?? [];
  const text = JSON.stringify(events);
  const keyIds = [...text.matchAll(/"encryption-key-id":"([^"]+)"/g)].map((m) => Buffer.from(m[1], 'base64').toString());
  assert.ok(keyIds.includes('key-a') && keyIds.includes('key-b'), `key ids in the history: ${[...new Set(keyIds)].join(', ')}`);
  // A client without the keys sees ciphertext, and says which key it lacks.
  await assert.rejects(new Client({ connection, ...dataConverterOptions({ SWFLOW_CODEC_KEYS: `key-c:${randomBytes(32).toString('base64')}` }) }).workflow.getHandle(ids.v10).result(), /key id "key-b", which this process does not know/);
  const plainClient = new Client({ connection });
  await assert.rejects(plainClient.workflow.getHandle(ids.v10).result(), /binary\/encrypted|Unknown encoding/);
  // The control for the database search: a client without keys starts a run; its input is stored in the
  // clear (the workers with keys still read it: unencrypted payloads pass through decoding).
  const echo = await loadAny({ document: { dsl: '1.0.3', namespace: 'tests', name: 'plain', version: '0.1.0' }, do: [{ keep: { set: { got: '${ .control }' } } }] });
  const plain = await plainClient.workflow.start(echo.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `plain-${ids.v10}`, args: [{ control: CONTROL }, { definition: echo } satisfies StartOptions] });
  assert.deepEqual(await rotated.workflow.getHandle(plain.workflowId).result(), { got: CONTROL });
});

test('the codec server: /decode for the right token, 401 without it, CORS preflight', async () => {
  process.env.SWFLOW_CODEC_KEYS = `${KEY_B},${KEY_A}`;
  codecServer = await startCodecServer({ codec: payloadCodec(keyringFromEnv())!, port: 0, token: TOKEN, corsOrigins: ['http://localhost:8233'] });
  const [encrypted] = await payloadCodec(keyringFromEnv({ SWFLOW_CODEC_KEYS: KEY_A }))!.encode([defaultPayloadConverter.toPayload({ secret: IN08 })!]);
  const body = JSON.stringify({ payloads: [{ metadata: Object.fromEntries(Object.entries(encrypted.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])), data: Buffer.from(encrypted.data!).toString('base64') }] });
  const post = (path: string, headers: Record<string, string>, b = body) => fetch(`${codecServer.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers }, body: b });

  const ok = await post('/decode', { authorization: `Bearer ${TOKEN}`, origin: 'http://localhost:8233' });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('access-control-allow-origin'), 'http://localhost:8233');
  const decoded = (await ok.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
  assert.equal(Buffer.from(decoded.payloads[0].metadata.encoding, 'base64').toString(), 'json/plain');
  assert.deepEqual(JSON.parse(Buffer.from(decoded.payloads[0].data, 'base64').toString()), { secret: IN08 });

  assert.equal((await post('/decode', {})).status, 401);
  assert.equal((await post('/decode', { authorization: `Bearer ${TOKEN}x` })).status, 401);
  assert.equal((await post('/decode', { authorization: TOKEN })).status, 401);

  // /encode encrypts with the current key (B) and decodes back.
  const enc = (await (await post('/encode', { authorization: `Bearer ${TOKEN}` }, JSON.stringify({ payloads: [{ metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: Buffer.from('"x"').toString('base64') }] }))).json()) as { payloads: { metadata: Record<string, string> }[] };
  assert.equal(Buffer.from(enc.payloads[0].metadata['encryption-key-id'], 'base64').toString(), 'key-b');
  assert.equal(Buffer.from(enc.payloads[0].metadata.encoding, 'base64').toString(), ENCODING_ENCRYPTED);

  const bad = await post('/decode', { authorization: `Bearer ${TOKEN}` }, '{"payloads": 3}');
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /\{ "payloads": \[\.\.\.\] \}/);

  const preflight = await fetch(`${codecServer.url}/decode`, { method: 'OPTIONS', headers: { origin: 'http://localhost:8233', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace,authorization' } });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:8233');
  assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type, x-namespace, authorization');
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
  const otherOrigin = await fetch(`${codecServer.url}/decode`, { method: 'OPTIONS', headers: { origin: 'http://evil.example' } });
  assert.equal(otherOrigin.headers.get('access-control-allow-origin'), null);
});

test('temporal workflow show: binary/encrypted without the codec, plaintext with --codec-endpoint', async () => {
  assert.ok(codecServer, 'the codec server test ran first');
  const show = async (id: string, ...extra: string[]) => JSON.parse((await run(TEMPORAL, ['workflow', 'show', '--address', dev.address, '-w', id, '-o', 'json', ...extra], { maxBuffer: 64 * 1024 * 1024 })).stdout) as unknown;
  for (const [id, markers] of [[ids.v08, [IN08, SVC08, EVT08]], [ids.v10, [IN10, SVC10, EVT10, SVC_EVT10]]] as const) {
    const raw = payloadsOf(await show(id));
    assert.ok(raw.length > 5, `${id}: ${raw.length} payloads`);
    assert.ok(raw.some((p) => p.encoding === ENCODING_ENCRYPTED), `no ${ENCODING_ENCRYPTED} among ${[...new Set(raw.map((p) => p.encoding))].join(', ')}`);
    const rawText = raw.map((p) => p.data).join('\n');
    for (const m of markers) assert.ok(!rawText.includes(m), `${m} in a payload shown without the codec`);
    const decoded = payloadsOf(await show(id, '--codec-endpoint', codecServer.url, '--codec-auth', `Bearer ${TOKEN}`));
    assert.ok(!decoded.some((p) => p.encoding === ENCODING_ENCRYPTED), 'a payload left encrypted with the codec endpoint');
    const decodedText = decoded.map((p) => p.data).join('\n');
    for (const m of markers) assert.ok(decodedText.includes(m), `${m} not in the decoded show output of ${id}`);
    // Without the token the CLI cannot decode.
    const refused = await show(id, '--codec-endpoint', codecServer.url, '--command-timeout', '5s').then((out) => payloadsOf(out).map((p) => p.data).join('\n'), (e: { stdout?: string; stderr?: string }) => `${e.stdout}${e.stderr}`);
    for (const m of markers) assert.ok(!refused.includes(m), `${m} shown without the codec token`);
  }
});

test('the database file holds no plaintext of inputs, call arguments and results, events or results', async () => {
  // Stop everything that writes, then read the SQLite file and its WAL as bytes.
  await stopWorkers(workers, runs);
  workers = [];
  await stopProcs();
  await dev.stop();
  const files = readdirSync(dirname(dev.dbFile)).filter((n) => n.startsWith(basename(dev.dbFile)));
  const bytes = Buffer.concat(files.map((n) => readFileSync(join(dirname(dev.dbFile), n))));
  assert.ok(bytes.length > 100_000, `database files ${files.join(', ')}: ${bytes.length} bytes`);
  // The control: what is stored in the clear is found (workflow ids, search attributes, the encoding).
  assert.ok(bytes.includes(ids.v08) && bytes.includes(ids.v10), 'workflow ids not found: the search reads the wrong bytes');
  assert.ok(bytes.includes('tests/codec10'), 'SwDefinitionId not found');
  assert.ok(bytes.includes(ENCODING_ENCRYPTED), `${ENCODING_ENCRYPTED} not found`);
  assert.ok(bytes.includes(CONTROL), 'the unencrypted control input is not found: payloads are not stored as the search expects');
  for (const [name, m] of Object.entries(MARKERS)) {
    for (const form of [m, Buffer.from(m).toString('base64').slice(0, 16), Buffer.from(m, 'utf16le').toString('latin1')]) {
      assert.ok(!bytes.includes(form), `${name} (${JSON.stringify(form)}) is in the database in the clear`);
    }
  }
});

test('swflow codec-server: the command serves the environment\'s keys; refuses to start without keys or a token', async () => {
  const noKeys = await runSwflow('127.0.0.1:1', ['codec-server', '--port', '0'], { SWFLOW_CODEC_KEYS: '', SWFLOW_CODEC_KEY_FILE: '' });
  assert.equal(noKeys.code, 1);
  assert.match(noKeys.err, /no codec keys: set SWFLOW_CODEC_KEYS/);
  const noToken = await runSwflow('127.0.0.1:1', ['codec-server', '--port', '0'], { SWFLOW_CODEC_KEYS: KEY_A, SWFLOW_CODEC_TOKEN: '' });
  assert.equal(noToken.code, 1);
  assert.match(noToken.err, /give --token \(or SWFLOW_CODEC_TOKEN\), or --allow-anonymous/);

  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'bin', 'swflow.js'), 'codec-server', '--port', '0', '--cors-origin', 'http://localhost:8233'], {
    env: { ...process.env, SWFLOW_CODEC_KEYS: `${KEY_B},${KEY_A}`, SWFLOW_CODEC_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d) => {
        err += d;
        const m = /listening on (http:\/\/\S+) \(keys key-b, key-a; current key-b; bearer token required; CORS for http:\/\/localhost:8233\)/.exec(err);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`swflow codec-server exited ${code}: ${err}`)));
    });
    const [encrypted] = await payloadCodec(keyringFromEnv({ SWFLOW_CODEC_KEYS: KEY_A }))!.encode([defaultPayloadConverter.toPayload(IN10)!]);
    const body = JSON.stringify({ payloads: [{ metadata: Object.fromEntries(Object.entries(encrypted.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')])), data: Buffer.from(encrypted.data!).toString('base64') }] });
    const res = await fetch(`${url}/decode`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body });
    assert.equal(res.status, 200);
    const out = (await res.json()) as { payloads: { data: string }[] };
    assert.equal(Buffer.from(out.payloads[0].data, 'base64').toString(), JSON.stringify(IN10));
    assert.equal((await fetch(`${url}/decode`, { method: 'POST', body })).status, 401);
  } finally {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
});
