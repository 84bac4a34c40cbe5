/**
 * The Temporal Web UI shows encrypted runs decrypted through `swflow codec-server`: a dev server
 * whose UI is configured with the codec endpoint (`--ui-codec-endpoint`, what `ui.codec.endpoint`
 * is on a cluster's UI server), a run whose input and result are AES-256-GCM ciphertext on the
 * server, and headless Chromium (Debian's, driven by playwright-core) on the run's page: the
 * plaintext appears there, fetched by the browser from the codec server across origins (CORS for
 * the UI's origin only). Control: the same server's history holds only `binary/encrypted`.
 * Screenshot in test-results/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { launchChromium, noChromium } from '../helpers/browser';
import { INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import { dataConverterOptions, ENCODING_ENCRYPTED, payloadCodec } from '../../src/codec';
import { startCodecServer, type CodecServer } from '../../src/codec/server';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { freePort } from '../helpers/ports';
import { def, sharedBundle } from '../workflow/helpers';

const ROOT = join(__dirname, '..', '..');
const ARTIFACTS = join(ROOT, 'test-results');
const TEMPORAL = process.env.TEMPORAL_CLI ?? '/usr/local/bin/temporal';
const MARKER = `webui-plain-${randomBytes(4).toString('hex')}`;
const savedKeys = process.env.SWFLOW_CODEC_KEYS;

let dir = '';
let dev: DevServer;
let codecServer: CodecServer;
let connection: Connection;
let nativeConnection: NativeConnection;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let browser: Browser | undefined;
const decodeRequests: string[] = [];
const workflowId = `webui-codec-${randomBytes(4).toString('hex')}`;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-webui-codec-'));
  process.env.SWFLOW_CODEC_KEYS = `ui-key:${randomBytes(32).toString('base64')}`;
  const uiPort = await freePort();
  const codecPort = await freePort();
  // The codec server admits the UI's origin only; the UI asks it from the browser.
  codecServer = await startCodecServer({
    codec: payloadCodec()!,
    host: '127.0.0.1',
    port: codecPort,
    corsOrigins: [`http://localhost:${uiPort}`],
    log: (m) => decodeRequests.push(m),
  });
  codecServer.server.on('request', (req) => decodeRequests.push(`${req.method} ${req.url} origin=${req.headers.origin ?? ''}`));
  dev = await startDevServer({
    binary: TEMPORAL,
    port: await freePort(),
    uiPort,
    dbFile: join(dir, 'temporal.sqlite'),
    extraArgs: ['--ui-codec-endpoint', codecServer.url],
  });
  connection = await Connection.connect({ address: dev.address });
  nativeConnection = await NativeConnection.connect({ address: dev.address });
  workers = [await createInterpreterWorker({ connection: nativeConnection, definitions: [], workflowBundle: await sharedBundle() })];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await browser?.close();
  await stopWorkers(workers, runs);
  await codecServer?.close();
  await connection?.close();
  await nativeConnection?.close();
  await dev?.stop();
  if (savedKeys === undefined) delete process.env.SWFLOW_CODEC_KEYS;
  else process.env.SWFLOW_CODEC_KEYS = savedKeys;
  rmSync(dir, { recursive: true, force: true });
});

test('an encrypted run: ciphertext on the server, plaintext on its Web UI page through the codec server', { skip: noChromium }, async () => {
  const definition = await def({
    id: 'webuicodec',
    specVersion: '0.8',
    version: '1.0',
    start: 'Greet',
    states: [{ name: 'Greet', type: 'inject', data: {}, stateDataFilter: { output: '${ . + { greeting: ("hello " + .who) } }' }, end: true }],
  });
  const client = new Client({ connection, ...dataConverterOptions() });
  const result = await client.workflow.execute(definition.id, {
    taskQueue: INTERPRETER_TASK_QUEUE,
    workflowId,
    args: [{ who: MARKER }, { definition } satisfies StartOptions],
  });
  assert.deepEqual(result, { who: MARKER, greeting: `hello ${MARKER}` });

  // Control: a client without the codec reads only ciphertext from the server.
  const raw = new Client({ connection });
  const history = await raw.workflow.getHandle(workflowId).fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  assert.equal(Buffer.from(started?.metadata?.encoding ?? new Uint8Array()).toString(), ENCODING_ENCRYPTED);
  assert.ok(!JSON.stringify(history).includes(Buffer.from(MARKER).toString('base64').slice(0, 16)), 'no base64 plaintext in the history');

  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
  await page.goto(`${dev.uiUrl}/namespaces/default/workflows/${workflowId}`);
  await page.getByText('Completed').first().waitFor({ timeout: 30_000 });
  // Input and Result are decoded by the browser's call to the codec server.
  await page.getByText(`hello ${MARKER}`).first().waitFor({ timeout: 30_000 });
  await page.screenshot({ path: join(ARTIFACTS, 'webui-codec.png'), fullPage: true });
  const text = await page.innerText('body');
  assert.ok(text.includes(MARKER), 'the input is shown in plaintext');
  assert.ok(!text.includes(ENCODING_ENCRYPTED), 'no payload left encrypted on the page');
  assert.ok(decodeRequests.some((r) => r.startsWith('POST /decode') && r.includes(`origin=http://localhost:`)), `the browser asked the codec server: ${decodeRequests.join('; ')}`);
});
