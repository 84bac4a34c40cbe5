/**
 * The Temporal Web UI lists every call of a run with its summary, on the default path: reads run
 * as local activities (feature `local-reads`: markers), writes as activities (`eager-calls`). A
 * dev server with its UI, the interpreter worker `swflow start` runs (it serves built-in calls), a
 * real HTTP service; headless Chromium (Debian's, playwright-core) on the run's page finds each
 * call's summary there. Screenshot in test-results/webui-calls.png.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Browser } from 'playwright-core';
import { launchChromium, noChromium } from '../helpers/browser';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { freePort } from '../helpers/ports';
import { sharedBundle } from '../workflow/helpers';

const ARTIFACTS = join(__dirname, '..', '..', 'test-results');
const TEMPORAL = process.env.TEMPORAL_CLI ?? '/usr/local/bin/temporal';

let dir = '';
let dev: DevServer;
let service: Server;
let base = '';
let connection: Connection;
let nativeConnection: NativeConnection;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let browser: Browser | undefined;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-webui-calls-'));
  service = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ method: req.method, path: req.url }));
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  const step = (name: string, method: string, path: string) => ({ [name]: { call: 'http', with: { method, endpoint: `${base}${path}` } } });
  writeFileSync(
    join(dir, 'webui-calls.sw.json'),
    JSON.stringify({
      document: { dsl: '1.0.3', namespace: 'ui', name: 'webui-calls', version: '1.0.0' },
      do: [step('lookupCustomer', 'get', '/customers/7'), step('lookupOrders', 'get', '/orders?customer=7'), step('placeOrder', 'post', '/orders')],
    }),
  );
  dev = await startDevServer({ binary: TEMPORAL, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'temporal.sqlite') });
  connection = await Connection.connect({ address: dev.address });
  nativeConnection = await NativeConnection.connect({ address: dev.address });
  workers = [await createInterpreterWorker({ connection: nativeConnection, definitions: [dir], workflowBundle: await sharedBundle(), builtinCalls: true })];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await browser?.close();
  await stopWorkers(workers, runs);
  await connection?.close();
  await nativeConnection?.close();
  await dev?.stop();
  await new Promise((r) => service.close(r));
  rmSync(dir, { recursive: true, force: true });
});

test('the Web UI shows each call of a run with its summary: reads (local activities) and a write (an activity)', { skip: noChromium }, async () => {
  const client = new Client({ connection });
  const workflowId = 'webui-calls-1';
  await client.workflow.execute('ui/webui-calls', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [{}] });
  const summaries = [`/do/0/lookupCustomer → GET ${base}/customers/7`, `/do/1/lookupOrders → GET ${base}/orders?customer=7`, `/do/2/placeOrder → POST ${base}/orders`];

  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1600, height: 1800 } });
  await page.goto(`${dev.uiUrl}/namespaces/default/workflows/${workflowId}`);
  // The event table: a "Local Activity" row per read, an "Activity Task Scheduled" row for the write, each with its summary.
  await page.getByText(summaries[0]).first().waitFor({ timeout: 30_000 });
  await page.screenshot({ path: join(ARTIFACTS, 'webui-calls.png'), fullPage: true });
  const text = await page.innerText('body');
  for (const s of summaries) assert.ok(text.includes(s), `the page shows "${s}"`);
  // The reads and the pin are local activities; the write is an activity.
  assert.equal(text.match(/Local Activity/g)?.length, 3, 'three Local Activity rows (the pin and the two reads)');
  assert.ok(text.includes('Activity Task Scheduled'), 'the write is an activity');
});
