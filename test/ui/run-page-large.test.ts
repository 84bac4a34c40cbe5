/**
 * The run page with a large value (docs/large-data.md): a 1.0 run on a real dev server and
 * interpreter worker, with a file payload store (threshold 64 KiB) and codec keys, whose ~3.1 MB
 * input is stored and whose output is small. The page's API gives sizes, `stored`, previews and
 * links; headless Chromium on the run page shows `stored: 3.1 MB` and a short preview (the page
 * holds no megabytes of JSON), its View link returns the whole input and its Download link a file.
 * Screenshot in test-results/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { launchChromium, noChromium } from '../helpers/browser';
import { INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import type { Json } from '../../src/common/model';
import { dataConverterOptions } from '../../src/codec';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { PREVIEW_CHARS, startRunPage, type RunPage } from '../../src/ui/server';
import { freePort } from '../helpers/ports';
import { setEnv } from '../helpers/env';
import { loadAny, sharedBundle } from '../workflow/helpers';

const ARTIFACTS = join(__dirname, '..', '..', 'test-results');
/** Puts back the environment this file's clients and workers were given. */
let restoreEnv: (() => void) | undefined;
const MARKER = `page-large-${randomBytes(4).toString('hex')}`;
// ~3.1 MB of JSON: 1,550 rows of 2 KB.
const input: Json = { marker: MARKER, rows: Array.from({ length: 1550 }, (_, i) => ({ i, pad: randomBytes(1500).toString('base64') })) };
const inputBytes = Buffer.byteLength(JSON.stringify(input));

let dir = '';
let server: DevServer;
let connection: Connection;
let nativeConnection: NativeConnection;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let runPage: RunPage;
let browser: Browser | undefined;
const workflowId = `page-large-${randomBytes(4).toString('hex')}`;
let output: Json;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-page-large-'));
  restoreEnv = setEnv({ SWFLOW_PAYLOAD_STORE: `file://${join(dir, 'payloads')}`, SWFLOW_PAYLOAD_THRESHOLD: '64KiB', SWFLOW_CODEC_KEYS: `page-key:${randomBytes(32).toString('base64')}` });
  const cli = await resolveTemporalCli();
  assert.ok(cli);
  server = await startDevServer({ binary: cli.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  connection = await Connection.connect({ address: server.address });
  nativeConnection = await NativeConnection.connect({ address: server.address });
  workers = [await createInterpreterWorker({ connection: nativeConnection, definitions: [], workflowBundle: await sharedBundle() })];
  runs = workers.map((w) => w.run());
  const doc = await loadAny({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'pagelarge', version: '0.1.0' },
    do: [{ count: { set: { marker: '${ .marker }', rows: '${ .rows | length }' } } }],
  });
  const client = new Client({ connection, ...dataConverterOptions() });
  output = await client.workflow.execute(doc.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [input, { definition: doc } satisfies StartOptions] });
  assert.deepEqual(output, { marker: MARKER, rows: 1550 });
  runPage = await startRunPage({ client, registry: new DefinitionRegistry([]), queryTimeoutMs: 3000 });
});

after(async () => {
  await browser?.close();
  await runPage?.close();
  await stopWorkers(workers, runs);
  await connection?.close();
  await nativeConnection?.close();
  await server?.stop();
  restoreEnv?.();
  rmSync(dir, { recursive: true, force: true });
});

test('the API: sizes, stored or not, previews and links to the whole values', async () => {
  const res = await fetch(`${runPage.url}/api/runs/${workflowId}`);
  const text = await res.text();
  assert.equal(res.status, 200, text.slice(0, 500));
  assert.ok(text.length < 200_000, `the run's JSON is ${text.length} B`);
  const body = JSON.parse(text) as { data: { input: Record<string, Json>; output: Record<string, Json> } };
  const { input: i, output: o } = body.data;
  assert.equal(i.size, inputBytes);
  assert.equal(i.stored, true);
  assert.equal(i.truncated, true);
  assert.equal(String(i.preview).length, PREVIEW_CHARS);
  assert.ok(String(i.preview).startsWith(`{"marker":"${MARKER}"`));
  assert.deepEqual({ ...o, href: undefined }, { size: Buffer.byteLength(JSON.stringify(output)), stored: false, preview: JSON.stringify(output), truncated: false, href: undefined });
  const whole = await fetch(`${runPage.url}${i.href}`);
  assert.equal(whole.status, 200);
  assert.deepEqual(await whole.json(), input);
  const out = await fetch(`${runPage.url}${o.href}&download=1`);
  assert.match(out.headers.get('content-disposition') ?? '', new RegExp(`attachment; filename="${workflowId}-output.json"`));
  assert.deepEqual(await out.json(), output);
  const none = await fetch(`${runPage.url}/api/runs/no-such-run/input`);
  assert.equal(none.status, 404);
  await none.body?.cancel();
  console.log(`API: input ${i.size} B stored (preview ${String(i.preview).length} chars), output ${o.size} B inline; run JSON ${text.length} B; GET input ${inputBytes} B equal; output download named`);
});

test('the page in a browser: stored: 3.1 MB, a short preview, View and Download give the whole input', { skip: noChromium }, async () => {
  browser = await launchChromium();
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1300, height: 1400 } });
  const page = await context.newPage();
  await page.goto(`${runPage.url}/runs/${workflowId}`);
  await page.locator('#value-input').waitFor({ timeout: 30_000 });
  const inputText = await page.locator('#value-input').innerText();
  assert.match(inputText, /stored: 3\.1 MB/);
  assert.match(inputText, new RegExp(`${inputBytes.toLocaleString('en')} bytes`));
  const outputText = await page.locator('#value-output').innerText();
  assert.ok(!/stored/.test(outputText), outputText);
  assert.match(outputText, new RegExp(`${Buffer.byteLength(JSON.stringify(output))} B`));
  const preview = await page.locator('#value-input pre').innerText();
  assert.ok(preview.length <= PREVIEW_CHARS + 2 && preview.endsWith('…'), `preview of ${preview.length} chars`);
  const html = await page.content();
  assert.ok(html.length < 100_000, `the page holds ${html.length} B`);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, 'run-page-large.png'), fullPage: true });

  // View: the whole input, from the run page's server.
  const [viewed] = await Promise.all([context.waitForEvent('page', { timeout: 30_000 }), page.locator('#value-input a.view').click()]);
  await viewed.waitForLoadState('load', { timeout: 30_000 });
  const viewedText = await viewed.locator('body').innerText();
  assert.deepEqual(JSON.parse(viewedText), input);
  // Download: the same, as a file named after the run.
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.locator('#value-input a.download').click()]);
  assert.equal(download.suggestedFilename(), `${workflowId}-input.json`);
  const file = await download.path();
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), input);
  console.log(`browser: "${inputText.split('\n')[0]}"; output "${outputText.split('\n')[0]}"; preview ${preview.length} chars; page ${html.length} B; View ${viewedText.length} B and Download ${download.suggestedFilename()} equal to the input`);
});
