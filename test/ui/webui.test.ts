/**
 * A person looking at a run in the Temporal Web UI sees the workflow's own vocabulary:
 * headless Chromium (Debian's, driven by playwright-core) opens a finished run on the dev
 * server's UI and finds the definition's state names on the page (activity/timer summaries
 * in the event history, the current-details table under User Metadata). The screenshots are
 * kept in test-results/ as artifacts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { launchChromium, noChromium } from '../helpers/browser';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { loadDefinition } from '../../src/dsl';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { freePort } from '../helpers/ports';

const ROOT = join(__dirname, '..', '..');
const ARTIFACTS = join(ROOT, 'test-results');

const definitionDoc = {
  id: 'uiorder',
  name: 'Order shown in the Web UI',
  version: '1.0',
  specVersion: '0.8',
  start: 'Receive Order',
  functions: [{ name: 'chargeCard', operation: 'http://pay.example/api.json#charge' }],
  states: [
    { name: 'Receive Order', type: 'inject', data: { order: { id: 'o-1', amount: 42 } }, transition: 'Charge Card' },
    {
      name: 'Charge Card',
      type: 'operation',
      actions: [{ name: 'charge', functionRef: { refName: 'chargeCard', arguments: { amount: '${ .order.amount }' } } }],
      transition: 'Cool Down',
    },
    { name: 'Cool Down', type: 'sleep', duration: 'PT1S', end: true },
  ],
};

let server: DevServer;
let browser: Browser | undefined;
const workflowId = `ui-order-${Date.now()}`;
let result: unknown;
let workers: Worker[] = [];
let running: Promise<unknown> = Promise.resolve();

before(async () => {
  const cli = await resolveTemporalCli();
  server = await startDevServer({
    binary: cli!.path,
    port: await freePort(),
    uiPort: await freePort(),
    dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-ui-')), 'db.sqlite'),
  });
  const loaded = await loadDefinition(definitionDoc);
  assert.ok(loaded.definition, JSON.stringify(loaded.problems));

  const connection = await NativeConnection.connect({ address: server.address });
  const interpreter = await createInterpreterWorker({ connection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [] });
  // The user's payment service, mocked: the only stand-in in this test.
  const payments = await Worker.create({
    connection,
    taskQueue: ADAPTER_TASK_QUEUE,
    activities: { default: async () => ({ receipt: 'r-1' }) },
  });
  // The workers keep running while the browser looks: the UI's User Metadata tab asks the
  // worker (a query) for the current details.
  workers = [interpreter, payments];
  running = Promise.all(workers.map((w) => w.run()));
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  result = await client.workflow.execute('uiorder', {
    taskQueue: INTERPRETER_TASK_QUEUE,
    workflowId,
    args: [{}, { definition: loaded.definition }],
    staticSummary: 'uiorder 1.0: Order shown in the Web UI',
  });
});

after(async () => {
  await browser?.close();
  for (const w of workers) w.shutdown();
  await running;
  await server?.stop();
});

test('the run completed with the merged data', () => {
  assert.deepEqual(result, { order: { id: 'o-1', amount: 42 }, receipt: 'r-1' });
});

test(
  'the state names of a finished run are on its Web UI page',
  { skip: noChromium },
  async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
    await page.goto(`${server.uiUrl}/namespaces/default/workflows/${workflowId}`);
    await page.getByText('Completed').first().waitFor({ timeout: 30_000 });

    // Event history: the activity and the timer carry "<state> › <action> → <function>" summaries.
    await page.getByText('Charge Card', { exact: false }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(ARTIFACTS, 'webui-history.png'), fullPage: true });
    const history = await page.innerText('body');
    assert.match(history, /Charge Card › charge → chargeCard/);
    assert.match(history, /Cool Down/);

    // User Metadata: the summary names the definition; the details table lists the path taken.
    await page.getByText('User Metadata').first().click();
    await page.getByText('Current Details').first().waitFor({ timeout: 30_000 });
    // The UI renders the details' Markdown in a sandboxed frame: read every frame's text.
    const pageText = async () =>
      (await Promise.all(page.frames().map((f) => f.innerText('body').catch(() => '')))).join('\n');
    let metadata = '';
    for (let i = 0; i < 60 && !metadata.includes('Cool Down'); i++) {
      await page.waitForTimeout(500);
      metadata = await pageText();
    }
    await page.screenshot({ path: join(ARTIFACTS, 'webui-metadata.png'), fullPage: true });
    for (const state of ['Receive Order', 'Charge Card', 'Cool Down']) assert.ok(metadata.includes(state), `${state} on the page`);
    assert.match(metadata, /uiorder/);
  },
);
