/**
 * The run page's actions (src/ui/actions.ts) on a real dev server with the real interpreter
 * worker, in headless Chromium: off without an operator token (no buttons, endpoints 404); with
 * one, refused without it, with a wrong one or from another origin (the run unchanged); with it,
 * Suspend, Resume and Send event on a 0.8 run waiting for an event, Cancel on another, and Redrive
 * on a failed 1.0 run (the page shows what redrive answered). `swflow ui` reads the token from
 * $SWFLOW_OPERATOR_TOKEN and never prints it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { INTERPRETER_TASK_QUEUE, STATE_QUERY, type InstanceState } from '../../src/common/contracts';
import type { Definition, WorkflowDef } from '../../src/common/model';
import { loadAnyDefinition } from '../../src/dsl';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { startWorkflow } from '../../src/client/start';
import { startRunPage, type RunPage } from '../../src/ui/server';
import { freePort } from '../helpers/ports';

const ROOT = join(__dirname, '..', '..');
const ARTIFACTS = join(ROOT, 'test-results');
const TOKEN = randomBytes(24).toString('base64url');

const approval08 = {
  id: 'uiact08',
  name: 'Approval (0.8)',
  version: '1.0',
  specVersion: '0.8',
  start: 'Wait For Approval',
  events: [{ name: 'Approval', type: 'order.approved', source: '/shop' }],
  states: [{ name: 'Wait For Approval', type: 'event', onEvents: [{ eventRefs: ['Approval'], eventDataFilter: { toStateData: '${ .approval }' } }], end: true }],
};

const failing10 = {
  document: { dsl: '1.0.0', namespace: 'ops', name: 'failing', version: '1.0.0' },
  do: [{ explode: { raise: { error: { type: 'https://ops.example/errors/down', status: 503, title: 'Service down' } } } }],
};

let server: DevServer;
let browser: Browser;
let page: Page;
let offPage: RunPage;
let onPage: RunPage;
let client: Client;
let workers: Worker[] = [];
let running: Promise<unknown> = Promise.resolve();
let def08: WorkflowDef;
let def10: Definition;
const started: WorkflowHandle[] = [];

before(async () => {
  const cli = await resolveTemporalCli();
  assert.ok(cli, 'a Temporal CLI (TEMPORAL_CLI)');
  server = await startDevServer({ binary: cli.path, port: await freePort(), uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-runpage-actions-')), 'db.sqlite') });
  const a = await loadAnyDefinition(approval08);
  const b = await loadAnyDefinition(failing10);
  assert.ok(a.definition, JSON.stringify(a.problems));
  assert.ok(b.definition, JSON.stringify(b.problems));
  def08 = a.definition as WorkflowDef;
  def10 = b.definition;
  const connection = await NativeConnection.connect({ address: server.address });
  workers = [await createInterpreterWorker({ connection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [def08, def10] })];
  running = Promise.all(workers.map((w) => w.run()));
  client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const registry = new DefinitionRegistry([def08, def10]);
  offPage = await startRunPage({ client, registry });
  onPage = await startRunPage({ client, registry, operatorToken: TOKEN });
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
});

after(async () => {
  await browser?.close();
  await offPage?.close();
  await onPage?.close();
  for (const h of started) await h.terminate('test over').catch(() => {});
  for (const w of workers) w.shutdown();
  await running;
  await server?.stop();
});

async function startWaiting(name: string): Promise<WorkflowHandle> {
  const handle = await startWorkflow(client, { definition: def08, workflowId: `${name}-${Date.now()}` });
  started.push(handle);
  await until(handle, (s) => s.currentStates.includes('Wait For Approval'), 'waits for the approval');
  return handle;
}

/** Waits (bounded) until the run's `state` query satisfies `ok`. */
async function until(handle: WorkflowHandle, ok: (s: InstanceState) => boolean, what: string): Promise<InstanceState> {
  let last: InstanceState | undefined;
  for (let i = 0; i < 100; i++) {
    last = await handle.query<InstanceState>(STATE_QUERY).catch(() => undefined);
    if (last && ok(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`${handle.workflowId} never ${what} (last state: ${JSON.stringify(last && { status: last.status, currentStates: last.currentStates })})`);
}

async function shows(status: string): Promise<void> {
  await page.locator(`body[data-run-status="${status}"]`).waitFor({ timeout: 20_000 });
}

/** POSTs an action as a script would (no Origin unless given). */
async function post(base: string, workflowId: string, action: string, headers: Record<string, string> = {}, body = '{}') {
  const res = await fetch(`${base}/api/runs/${encodeURIComponent(workflowId)}/${action}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  assert.ok(!text.includes(TOKEN), 'the token is never in an answer');
  return { status: res.status, body: JSON.parse(text) as { error?: string } };
}

const visibleButtons = () => page.locator('#actions button:visible').allInnerTexts();

test('without an operator token: no buttons, and every action endpoint answers 404 saying how to turn them on', async () => {
  const handle = await startWaiting('act-off');
  await page.goto(`${offPage.url}/runs/${handle.workflowId}`);
  await shows('Running');
  assert.equal(await page.locator('#actions').isVisible(), false);
  assert.deepEqual(await visibleButtons(), []);
  const answers: number[] = [];
  for (const action of ['cancel', 'suspend', 'resume', 'events', 'redrive']) {
    const r = await post(offPage.url, handle.workflowId, action, { authorization: `Bearer ${TOKEN}` });
    assert.equal(r.status, 404, action);
    assert.match(r.body.error ?? '', /actions are off: start it with an operator token \(swflow ui --operator-token <token>.*SWFLOW_OPERATOR_TOKEN/);
    answers.push(r.status);
  }
  const config = (await (await fetch(`${offPage.url}/api/config`)).json()) as { actions: boolean };
  assert.equal(config.actions, false);
  assert.equal((await handle.query<InstanceState>(STATE_QUERY)).status, 'running');
  console.log(`actions off: 0 buttons shown, 5 endpoints answered ${answers.join(',')}, the run still running`);
});

test('with a token configured: no token, a wrong one, another origin, not JSON, not POST are refused; the run is unchanged', async () => {
  const handle = await startWaiting('act-refused');
  const wid = handle.workflowId;
  const refused: string[] = [];
  const expect = async (what: string, status: number, message: RegExp, r: Promise<{ status: number; body: { error?: string } }>) => {
    const a = await r;
    assert.equal(a.status, status, `${what}: ${JSON.stringify(a.body)}`);
    assert.match(a.body.error ?? '', message, what);
    refused.push(`${what} ${a.status}`);
  };
  for (const action of ['suspend', 'cancel', 'events', 'redrive']) {
    await expect(`${action} without a token`, 403, /needs the operator token: send Authorization: Bearer <token>/, post(onPage.url, wid, action));
    await expect(`${action} with a wrong token`, 403, /needs the operator token/, post(onPage.url, wid, action, { authorization: `Bearer ${TOKEN}x` }));
  }
  await expect('an empty bearer', 403, /needs the operator token/, post(onPage.url, wid, 'cancel', { authorization: 'Bearer ' }));
  await expect('basic auth', 403, /needs the operator token/, post(onPage.url, wid, 'cancel', { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` }));
  await expect('another origin', 403, /origin http:\/\/evil\.example is refused/, post(onPage.url, wid, 'cancel', { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' }));
  await expect('a cross-site fetch', 403, /cross-site request is refused/, post(onPage.url, wid, 'cancel', { authorization: `Bearer ${TOKEN}`, 'sec-fetch-site': 'cross-site' }));
  await expect('a text/plain body', 415, /must be JSON/, post(onPage.url, wid, 'cancel', { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' }));
  const get = await fetch(`${onPage.url}/api/runs/${wid}/cancel`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(get.status, 405);
  assert.equal(get.headers.get('allow'), 'POST');
  refused.push('GET 405');
  // Nothing reached the run: no signal, no cancel request in its history, still running.
  const history = await handle.fetchHistory();
  const touched = (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes || e.workflowExecutionCancelRequestedEventAttributes);
  assert.deepEqual(touched, []);
  assert.equal((await handle.describe()).status.name, 'RUNNING');
  assert.equal((await handle.query<InstanceState>(STATE_QUERY)).status, 'running');
  console.log(`refused ${refused.length} requests (${refused.join('; ')}); the run: 0 signals, 0 cancel requests, still running`);
});

test('in the browser with the token: Suspend, Resume, Send event (the run completes with its data)', async () => {
  const handle = await startWaiting('act-suspend');
  await page.goto(`${onPage.url}/runs/${handle.workflowId}`);
  await shows('Running');
  await page.locator('#act-suspend').waitFor({ state: 'visible', timeout: 10_000 });
  assert.deepEqual((await visibleButtons()).sort(), ['Cancel', 'Suspend', 'Use token']);
  assert.equal(await page.locator('#event-details summary').innerText(), 'Send event');
  // An action before the token is given asks for it.
  await page.click('#act-suspend');
  assert.equal(await page.locator('#action-result').innerText(), 'Enter the operator token first.');
  await page.fill('#operator-token', TOKEN);
  await page.click('#token-form button[type=submit]');
  assert.equal(await page.evaluate("sessionStorage.getItem('swflow.operatorToken')"), TOKEN);
  assert.ok(!page.url().includes(TOKEN), 'the token is not in the URL');
  assert.equal(await page.locator('#token-form').isVisible(), false);

  const t0 = Date.now();
  await page.click('#act-suspend');
  await page.locator('#action-result', { hasText: 'Suspend sent: the run is suspended.' }).waitFor({ timeout: 15_000 });
  await until(handle, (s) => s.status === 'suspended', 'says suspended');
  await page.locator('#act-resume').waitFor({ state: 'visible', timeout: 10_000 });
  assert.equal(await page.locator('#act-suspend').isVisible(), false);
  await page.locator('#run-suspended').waitFor({ timeout: 10_000 });
  await page.screenshot({ path: join(ARTIFACTS, 'run-page-actions-suspended.png'), fullPage: true });
  const suspendMs = Date.now() - t0;

  await page.click('#act-resume');
  await page.locator('#action-result', { hasText: 'Resume sent: the run is running.' }).waitFor({ timeout: 15_000 });
  await until(handle, (s) => s.status === 'running', 'says running again');
  await page.locator('#act-suspend').waitFor({ state: 'visible', timeout: 10_000 });

  assert.equal(await page.locator('#run-suspended').count(), 0);
  await page.click('#event-details summary');
  await page.fill('#event-type', 'order.approved');
  await page.fill('#event-source', '/shop');
  await page.fill('#event-data', 'not json');
  await page.click('#act-event');
  assert.match(await page.locator('#action-result').innerText(), /^Send event: the data is not JSON/);
  await page.fill('#event-data', '{"approved": true, "by": "ops"}');
  await page.click('#act-event');
  await page.locator('#action-result', { hasText: `delivered to ${handle.workflowId}` }).waitFor({ timeout: 15_000 });
  const result = (await Promise.race([handle.result(), new Promise((_, reject) => setTimeout(() => reject(new Error('the run did not complete in 20 s')), 20_000))])) as Record<string, unknown>;
  assert.deepEqual(result.approval, { approved: true, by: 'ops' });
  await shows('Completed');
  assert.equal(await page.locator('#actions').isVisible(), false, 'no actions on a completed run');
  const signals = (await handle.fetchHistory()).events?.filter((e) => e.workflowExecutionSignaledEventAttributes).map((e) => e.workflowExecutionSignaledEventAttributes!.signalName);
  assert.deepEqual(signals, ['swflow.suspend', 'swflow.resume', 'swflow.event']);
  console.log(`suspend → suspended in ${suspendMs} ms, resume → running, event → completed with ${JSON.stringify(result.approval)}; signals ${signals?.join(', ')}`);
});

test('in the browser: Cancel a second running run, Temporal says cancelled', async () => {
  const handle = await startWaiting('act-cancel');
  await page.goto(`${onPage.url}/runs/${handle.workflowId}`);
  await shows('Running');
  // The token is kept for this tab (sessionStorage): not asked again.
  await page.locator('#act-cancel').waitFor({ state: 'visible', timeout: 10_000 });
  assert.equal(await page.locator('#token-form').isVisible(), false);
  let asked = '';
  page.once('dialog', (d) => {
    asked = d.message();
    void d.accept();
  });
  await page.click('#act-cancel');
  await page.locator('#action-result', { hasText: 'cancellation requested' }).waitFor({ timeout: 15_000 });
  assert.match(asked, new RegExp(`Cancel ${handle.workflowId}\\?`));
  let status = '';
  for (let i = 0; i < 100 && status !== 'CANCELLED'; i++) {
    status = (await handle.describe()).status.name;
    if (status !== 'CANCELLED') await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(status, 'CANCELLED');
  await shows('Canceled');
  console.log(`cancel confirmed ("${asked}"), Temporal status CANCELLED`);
});

test('a failed run shows Redrive; clicking it shows what redrive answered', async () => {
  const handle = await startWorkflow(client, { id: 'ops/failing', input: {}, workflowId: `act-failed-${Date.now()}` });
  await assert.rejects(handle.result());
  await page.goto(`${onPage.url}/runs/${handle.workflowId}`);
  await shows('Failed');
  await page.locator('#act-redrive').waitFor({ state: 'visible', timeout: 10_000 });
  assert.deepEqual(await visibleButtons(), ['Forget it', 'Redrive']);
  const failedRunId = (await handle.describe()).runId;
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/api/runs/${handle.workflowId}/redrive`), { timeout: 30_000 }), page.click('#act-redrive')]);
  const answer = (await res.json()) as { error?: string; step?: string; newRunId?: string };
  const request = res.request();
  assert.equal(request.method(), 'POST');
  assert.equal(request.headers().authorization, `Bearer ${TOKEN}`);
  assert.deepEqual(JSON.parse(request.postData() ?? ''), { runId: failedRunId });
  await page.locator('#action-result').filter({ hasText: /\S/ }).waitFor({ timeout: 10_000 });
  const shown = await page.locator('#action-result').innerText();
  assert.ok(res.ok(), `redrive answered ${res.status()} ${JSON.stringify(answer)}`);
  // The step it restarts at and a link to the new run.
  assert.ok(shown.includes(`Redriven from ${answer.step}`), shown);
  assert.equal(await page.locator('#redrive-link').getAttribute('href'), `/runs/${handle.workflowId}?runId=${answer.newRunId}`);
  console.log(`redrive answered ${res.status()} ${JSON.stringify(answer)}; the page shows "${shown}"`);
});

test('swflow ui: the token from $SWFLOW_OPERATOR_TOKEN turns the actions on, and is never printed', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ui', '--port', '0', '-d', join(ROOT, 'examples')], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: server.address, SWFLOW_OPERATOR_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 30_000);
      child.stdout!.on('data', () => {
        const m = /Run page: (http:\/\/\S+)[\s\S]*Run page actions:/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`swflow ui exited (${code}): ${output}`)));
    });
    assert.match(output, /Run page actions: on \(each needs the operator token/);
    const config = (await (await fetch(`${url}/api/config`)).json()) as { actions: boolean };
    assert.equal(config.actions, true);
    const refused = await post(url, 'nobody', 'cancel');
    assert.equal(refused.status, 403);
    const missing = await post(url, 'nobody', 'cancel', { authorization: `Bearer ${TOKEN}` });
    assert.equal(missing.status, 404);
    assert.match(missing.body.error ?? '', /no running run with workflow id "nobody"/);
    assert.ok(!output.includes(TOKEN), 'the token is not printed');
    console.log(`swflow ui with $SWFLOW_OPERATOR_TOKEN: actions on, no token → ${refused.status}, token + unknown run → ${missing.status}, token printed 0 times`);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
});
