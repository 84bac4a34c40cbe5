/**
 * The 1.0 lifecycle `workflow.completed` event carries `outputUri` for a large output: a worker
 * that publishes lifecycle events to a real HTTP sink, with a file payload store and codec keys,
 * on a real dev server. A 1 MB output: the event has `outputUri` and no `output`, the stored
 * payload is encrypted, and reading the URI back (the store's file: URI through the codec; the
 * codec server link when SWFLOW_PAYLOAD_PUBLIC_URL names it) gives the output. The same output
 * twice is the same key. A small output is carried as before.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { Payload } from '@temporalio/common';
import { INTERPRETER_TASK_QUEUE, type CloudEventJson, type StartOptions } from '../../src/common/contracts';
import type { Json } from '../../src/common/model';
import { dataConverterOptions, payloadCodec } from '../../src/codec';
import { startCodecServer, type CodecServer } from '../../src/codec/server';
import { httpSink } from '../../src/gateway/sink';
import { payloadSettings } from '../../src/payloads/config';
import { jsonText } from '../../src/payloads/values';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { setEnv } from '../helpers/env';
import { startDevEnv } from '../helpers/temporal';
import { loadAny, sharedBundle } from '../workflow/helpers';

/** Puts back the environment this file's clients and workers were given. */
let restoreEnv: (() => void) | undefined;
const TOKEN = `out-token-${randomBytes(8).toString('hex')}`;
const MARKER = `out-marker-${randomBytes(4).toString('hex')}`;
const COMPLETED = 'io.serverlessworkflow.workflow.completed.v1';

let dir = '';
let env: TestWorkflowEnvironment;
let sink: Server;
let sinkUrl = '';
let codecServer: CodecServer;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
const received: CloudEventJson[] = [];
let n = 0;
// ~250 KB of base64 text; the output holds it four times (~1 MB).
const blob = randomBytes(187_500).toString('base64');

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-output-uri-'));
  restoreEnv = setEnv({ SWFLOW_PAYLOAD_STORE: `file://${join(dir, 'payloads')}`, SWFLOW_PAYLOAD_THRESHOLD: '256KiB', SWFLOW_CODEC_KEYS: `out-key:${randomBytes(32).toString('base64')}`, SWFLOW_PAYLOAD_PUBLIC_URL: undefined });
  sink = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push(JSON.parse(body) as CloudEventJson);
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/events`;
  codecServer = await startCodecServer({ codec: payloadCodec()!, store: payloadSettings().store, port: 0, token: TOKEN });
  env = await startDevEnv();
  workers = [await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle(), lifecycleEvents: true, eventSinks: [httpSink(sinkUrl)] })];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
  await codecServer?.close();
  await new Promise<void>((r) => (sink ? sink.close(() => r()) : r()));
  restoreEnv?.();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a 1.0 document whose output is four copies of `.blob` plus the marker; its completed event. */
async function runOnce(input: Record<string, Json>): Promise<{ result: Json; completed: CloudEventJson; bytes: number }> {
  const doc = await loadAny({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'outputuri', version: '0.1.0' },
    do: [{ grow: { set: { marker: '${ .marker }', a: '${ .blob }', b: '${ .blob }', c: '${ .blob }', d: '${ .blob }' } } }],
  });
  const client = new Client({ connection: env.connection, ...dataConverterOptions() });
  const workflowId = `output-uri-${++n}-${randomBytes(3).toString('hex')}`;
  const result = await client.workflow.execute(doc.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [input, { definition: doc } satisfies StartOptions] });
  // The run closes only once its lifecycle events were delivered.
  const completed = received.find((e) => e.type === COMPLETED && (e.data as { name?: string }).name?.startsWith(`${workflowId}.`));
  assert.ok(completed, `no completed event for ${workflowId} among ${received.map((e) => e.type).join(', ')}`);
  return { result, completed, bytes: Buffer.byteLength(JSON.stringify(completed)) };
}

let firstKey = '';

test('a 1 MB output: the completed event has outputUri (the store\'s file URI), no output; the URI reads back to the output', async () => {
  const { result, completed, bytes } = await runOnce({ marker: MARKER, blob });
  const data = completed.data as Record<string, Json>;
  assert.ok(!('output' in data), 'the completed event still carries output');
  const uri = String(data.outputUri);
  assert.match(uri, /^file:\/\/.*\/sha256-[0-9a-f]{64}$/);
  firstKey = /sha256-[0-9a-f]{64}$/.exec(uri)![0];
  assert.ok(bytes < 2000, `the completed event is ${bytes} B`);
  // The stored payload is encrypted; read back through the codec it is the output.
  const raw = readFileSync(fileURLToPath(uri));
  assert.ok(!raw.includes(MARKER), 'the output is stored in the clear');
  const payload = temporal.api.common.v1.Payload.decode(raw) as Payload;
  assert.equal(Buffer.from(payload.metadata!.encoding!).toString(), 'binary/encrypted');
  const [decoded] = await payloadCodec()!.decode([payload]);
  assert.deepEqual(JSON.parse(jsonText(decoded)), result);
  assert.deepEqual(result, { marker: MARKER, a: blob, b: blob, c: blob, d: blob });
  console.log(`1 MB output (${Buffer.byteLength(JSON.stringify(result))} B): completed event ${bytes} B with outputUri ${uri.slice(0, 30)}…; stored ${raw.length} B encrypted, read back equal`);
});

test('with SWFLOW_PAYLOAD_PUBLIC_URL: outputUri is the codec server link, whose GET gives the output; same output, same key', async () => {
  assert.ok(firstKey, 'the first test ran');
  process.env.SWFLOW_PAYLOAD_PUBLIC_URL = `${codecServer.url}/`;
  try {
    const { result, completed } = await runOnce({ marker: MARKER, blob });
    const data = completed.data as Record<string, Json>;
    assert.ok(!('output' in data));
    assert.equal(data.outputUri, `${codecServer.url}/payloads/${firstKey}`);
    const got = await fetch(String(data.outputUri), { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(got.status, 200);
    assert.deepEqual(await got.json(), result);
    const anonymous = await fetch(String(data.outputUri));
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    console.log(`public URL: outputUri ${data.outputUri}; GET 200 (${Buffer.byteLength(JSON.stringify(result))} B), 401 without the token; same key as the first run`);
  } finally {
    delete process.env.SWFLOW_PAYLOAD_PUBLIC_URL;
  }
});

test('a small output: the completed event carries output as before', async () => {
  const { result, completed, bytes } = await runOnce({ marker: MARKER, blob: 'small' });
  const data = completed.data as Record<string, Json>;
  assert.ok(!('outputUri' in data));
  assert.deepEqual(data.output, result);
  assert.deepEqual(result, { marker: MARKER, a: 'small', b: 'small', c: 'small', d: 'small' });
  console.log(`small output: completed event ${bytes} B with output inline`);
});
