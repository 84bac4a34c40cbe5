/**
 * The run page (`swflow ui`, src/ui/) in a real browser: headless Chromium (Debian's, driven by
 * playwright-core) opens a 0.8 run and a 1.0 run on a real dev server with the real interpreter
 * worker, while they wait for an event (the current node is marked) and once they finished (the
 * path drawn), and a 1.0 run that failed (the failed task marked, the failure shown). The only
 * stand-in is the user's payment service (an activity on the adapter queue). Screenshots go to
 * test-results/ (artifacts); SWFLOW_UPDATE_SCREENSHOTS=1 also writes docs/images/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { ADAPTER_TASK_QUEUE, EVENT_SIGNAL, INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
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

const order08 = {
  id: 'uiorder08',
  name: 'Order approval (0.8)',
  version: '1.0',
  specVersion: '0.8',
  start: 'Receive Order',
  events: [{ name: 'Approval', type: 'order.approved', source: '/shop' }],
  functions: [{ name: 'chargeCard', operation: 'http://pay.example/api.json#charge' }],
  states: [
    { name: 'Receive Order', type: 'inject', data: { order: { id: 'o-1', amount: 420 } }, transition: 'Check Amount' },
    {
      name: 'Check Amount',
      type: 'switch',
      dataConditions: [{ name: 'large', condition: '${ .order.amount > 100 }', transition: 'Wait For Approval' }],
      defaultCondition: { transition: 'Charge Card' },
    },
    { name: 'Wait For Approval', type: 'event', onEvents: [{ eventRefs: ['Approval'], actions: [] }], transition: 'Charge Card' },
    { name: 'Charge Card', type: 'operation', actions: [{ name: 'charge', functionRef: { refName: 'chargeCard', arguments: { amount: '${ .order.amount }' } } }], end: true },
  ],
};

const order10 = {
  document: { dsl: '1.0.0', namespace: 'shop', name: 'order', version: '1.0.0', title: 'Order approval (1.0)' },
  do: [
    { prepare: { set: '${ . + { items: [1, 2, 3] } }' } },
    { decide: { switch: [{ broken: { when: '${ .fail == true }', then: 'explode' } }, { fine: { then: 'continue' } }] } },
    { count: { for: { each: 'item', in: '${ .items }' }, do: [{ add: { set: '${ . + { n: ((.n // 0) + 1) } }' } }] } },
    {
      guarded: {
        try: [{ risky: { raise: { error: { type: 'https://shop.example/errors/flaky', status: 503, title: 'Flaky' } } } }],
        catch: { do: [{ recover: { set: '${ . + { recovered: true } }' } }] },
      },
    },
    { both: { fork: { branches: [{ left: { set: { side: 'left' } } }, { right: { set: { side: 'right' } } }] } } },
    { approve: { listen: { to: { one: { with: { type: 'order.approved' } } } } } },
    { finish: { set: { done: true }, then: 'end' } },
    { explode: { raise: { error: { type: 'https://shop.example/errors/rejected', status: 400, title: 'Rejected order' } } } },
  ],
};

const approval = (id: string) => ({ specversion: '1.0', id, source: '/shop', type: 'order.approved', data: { ok: true } });

let server: DevServer;
let browser: Browser;
let page: Page;
let runPage: RunPage;
let client: Client;
let workers: Worker[] = [];
let running: Promise<unknown> = Promise.resolve();
let def08: WorkflowDef;
let def10: Definition;
let finished08 = '';

before(async () => {
  const cli = await resolveTemporalCli();
  assert.ok(cli, 'a Temporal CLI (TEMPORAL_CLI)');
  server = await startDevServer({ binary: cli.path, port: await freePort(), uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-runpage-')), 'db.sqlite') });
  const a = await loadAnyDefinition(order08);
  const b = await loadAnyDefinition(order10);
  assert.ok(a.definition, JSON.stringify(a.problems));
  assert.ok(b.definition, JSON.stringify(b.problems));
  def08 = a.definition as WorkflowDef;
  def10 = b.definition;
  const connection = await NativeConnection.connect({ address: server.address });
  const interpreter = await createInterpreterWorker({ connection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [def08, def10] });
  // The user's payment service, mocked: the only stand-in here.
  const payments = await Worker.create({ connection, taskQueue: ADAPTER_TASK_QUEUE, activities: { default: async () => ({ receipt: 'r-1' }) } });
  workers = [interpreter, payments];
  running = Promise.all(workers.map((w) => w.run()));
  client = new Client({ connection: await Connection.connect({ address: server.address }) });
  runPage = await startRunPage({ client, registry: new DefinitionRegistry([def08, def10]), webUiUrl: server.uiUrl });
  // Runs started from here link to the page in the Web UI (staticDetails).
  process.env.SWFLOW_UI_URL = runPage.url;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
});

after(async () => {
  delete process.env.SWFLOW_UI_URL;
  await browser?.close();
  await runPage?.close();
  for (const w of workers) w.shutdown();
  await running;
  await server?.stop();
});

/** Waits until the page shows the run in `status` (it polls every second while the run runs). */
async function shows(status: string): Promise<void> {
  await page.locator(`body[data-run-status="${status}"]`).waitFor({ timeout: 20_000 });
}

const marked = (mark: string) => page.locator(`g.node[data-mark="${mark}"]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
const pathText = () => page.locator('#path li').allInnerTexts();
const takenEdges = () => page.locator('g.edge[data-taken="true"]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-from')} -> ${e.getAttribute('data-to')}`));

/** Waits until the run's `state` query reports `node` current (the worker reached it). */
async function reaches(handle: WorkflowHandle, node: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const s = await handle.query<{ currentStates: string[] }>('state').catch(() => undefined);
    if (s?.currentStates.includes(node)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.fail(`${handle.workflowId} never reached ${node}`);
}

function screenshot(name: string, docs = false): Promise<unknown> {
  const file = join(ARTIFACTS, name);
  return page.screenshot({ path: file, fullPage: true }).then(() => {
    if (docs && process.env.SWFLOW_UPDATE_SCREENSHOTS) copyFileSync(file, join(ROOT, 'docs', 'images', name));
  });
}

test('a 0.8 run: the current state while it waits, the path once it completed, links both ways', async () => {
  const handle = await startWorkflow(client, { definition: def08, workflowId: `uiorder08-${Date.now()}` });
  await reaches(handle, 'Wait For Approval');
  await page.goto(`${runPage.url}/runs/${handle.workflowId}`);
  await shows('Running');
  assert.deepEqual(await marked('current'), ['Wait For Approval']);
  assert.deepEqual((await marked('visited')).sort(), ['Check Amount', 'Receive Order', 'start']);
  assert.deepEqual((await marked('unreached')).sort(), ['Charge Card', 'end']);
  assert.deepEqual(await pathText(), ['start', 'Receive Order', 'Check Amount', 'Wait For Approval']);
  await screenshot('run-page-08-running.png');

  // The page links to the run in the Web UI; the run's details in the Web UI link to the page.
  const desc = await handle.describe();
  assert.equal(await page.locator('#webui-link').getAttribute('href'), `${server.uiUrl}/namespaces/default/workflows/${handle.workflowId}/${desc.runId}/history`);
  assert.match((await desc.staticDetails()) ?? '', new RegExp(`\\[Watch this run on its graph\\]\\(${runPage.url.replace(/\./g, '\\.')}/runs/${handle.workflowId}\\)`));

  await handle.signal(EVENT_SIGNAL, approval('a-1'));
  await handle.result();
  finished08 = handle.workflowId;
  await shows('Completed'); // the page's own poll sees it
  assert.deepEqual(await pathText(), ['start', 'Receive Order', 'Check Amount', 'Wait For Approval', 'Charge Card', 'end']);
  assert.deepEqual(await marked('current'), []);
  assert.deepEqual(await marked('unreached'), []);
  assert.deepEqual((await takenEdges()).sort(), ['Charge Card -> end', 'Check Amount -> Wait For Approval', 'Receive Order -> Check Amount', 'Wait For Approval -> Charge Card', 'start -> Receive Order']);
  // Counts and durations in the nodes; the wait took the longest.
  assert.match(await page.locator('g.node[data-id="Charge Card"] .stats').textContent() ?? '', /^×1 · \d/);
  // The keyboard: a node takes the focus, Enter shows its details.
  await page.locator('g.node[data-id="Charge Card"]').focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('#details-h').textContent(), 'Charge Card');
  assert.match(await page.locator('#details-body').innerText(), /Charge Card › charge → chargeCard/);
  await screenshot('run-page-desktop.png', true);
});

test('a 1.0 run: the current task while it listens, the path through switch, for, try, fork once it completed', async () => {
  const handle = await startWorkflow(client, { id: 'shop/order', input: {}, workflowId: `order10-${Date.now()}` });
  await reaches(handle, '/do/5/approve');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${runPage.url}/runs/${handle.workflowId}`);
  await shows('Running');
  assert.deepEqual(await marked('current'), ['/do/5/approve']);
  assert.deepEqual((await marked('unreached')).sort(), ['/do/6/finish', '/do/7/explode', 'end']);
  const visited = await marked('visited');
  for (const t of ['/do/2/count/do/0/add', '/do/3/guarded/try/0/risky', '/do/3/guarded/catch/do/0/recover', '/do/4/both/fork/branches/0/left', '/do/4/both/fork/branches/1/right']) assert.ok(visited.includes(t), `${t} visited`);
  assert.deepEqual(await marked('failed'), [], 'a caught error is no failure of the run');
  await page.locator('g.node[data-id="/do/3/guarded/try/0/risky"]').focus();
  await page.keyboard.press('Enter');
  assert.match(await page.locator('#details-body').innerText(), /Errors\s+1 \(handled\)/);
  assert.match(await page.locator('g.node[data-id="/do/2/count/do/0/add"] .stats').textContent() ?? '', /^×3 · /);
  await screenshot('run-page-10-running-phone.png');
  // Phone-sized: the run list stacks above the graph, the graph scrolls inside its box.
  const side = await page.locator('nav.side').boundingBox();
  const main = await page.locator('main').boundingBox();
  assert.ok(side && main && main.y >= side.y + side.height - 1, 'the lists stack above the graph');
  assert.ok(await page.evaluate('document.documentElement.scrollWidth <= 390'), 'no sideways scrolling of the page');

  await handle.signal(EVENT_SIGNAL, approval('a-2'));
  await handle.result();
  await shows('Completed');
  const path = await pathText();
  assert.equal(path[0], 'start');
  assert.equal(path[path.length - 1], 'end');
  assert.ok(path.includes('finish (/do/6/finish)') && !path.some((p) => p.startsWith('explode')), path.join(' | '));
  assert.deepEqual(await marked('unreached'), ['/do/7/explode']);
  const taken = await takenEdges();
  for (const e of ['/do/1/decide -> /do/2/count', '/do/5/approve -> /do/6/finish', '/do/6/finish -> end', '/do/3/guarded -> /do/3/guarded/try/0/risky', '/do/4/both -> /do/4/both/fork/branches/1/right']) assert.ok(taken.includes(e), `${e} taken: ${taken.join(', ')}`);
  assert.ok(!taken.includes('/do/1/decide -> /do/7/explode'));
  await page.locator('g.node[data-id="/do/5/approve"]').focus();
  await page.keyboard.press('Enter');
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot('run-page-phone.png', true);
});

test('a failed 1.0 run: the task where it failed, and the failure', async () => {
  const handle = await startWorkflow(client, { id: 'shop/order', input: { fail: true }, workflowId: `order10-failed-${Date.now()}` });
  await assert.rejects(handle.result());
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.goto(`${runPage.url}/runs/${handle.workflowId}`);
  await shows('Failed');
  assert.deepEqual(await marked('failed'), ['/do/7/explode']);
  assert.match(await page.locator('#failure').innerText(), /Failed at explode: .*Rejected order/);
  assert.deepEqual(await pathText(), ['start', 'prepare (/do/0/prepare)', 'decide (/do/1/decide)', 'explode (/do/7/explode)']);
  await screenshot('run-page-10-failed.png');
});

test('the definitions the worker serves are listed, runs filter by definition and status', async () => {
  await page.goto(`${runPage.url}/definitions/${encodeURIComponent('shop/order@1.0.0')}?status=Failed`);
  await page.locator('#definitions li').first().waitFor();
  assert.deepEqual(await page.locator('#definitions li a span:first-child').allInnerTexts(), ['Order approval (1.0)', 'Order approval (0.8)']);
  await page.locator('#runs li a').first().waitFor({ timeout: 10_000 });
  const runs = await page.locator('#runs li a').allInnerTexts();
  assert.equal(runs.length, 1, runs.join(' | '));
  assert.match(runs[0], /order10-failed-/);
  // The definition's graph without a run: every node not reached.
  assert.equal(await page.locator('g.node').count(), 15); // start, end, 8 tasks, 5 in composites
  assert.equal(await page.locator('g.node[data-mark="unreached"]').count(), 15);
  const res = await fetch(`${runPage.url}/api/runs?status=Bogus`);
  assert.equal(res.status, 400);
  assert.match(((await res.json()) as { error: string }).error, /status must be one of Running, Completed/);
});

test('swflow ui: the page alone, against the server TEMPORAL_ADDRESS names', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ui', '--port', '0', '-d', join(ROOT, 'examples'), '--web-ui', 'http://webui.example:8233'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: server.address },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 30_000);
      child.stdout!.on('data', () => {
        const m = /Run page: (http:\/\/\S+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`swflow ui exited (${code}): ${output}`)));
    });
    const defs = (await (await fetch(`${url}/api/definitions`)).json()) as { definitions: { key: string }[] };
    assert.ok(defs.definitions.some((d) => d.key === 'helloworld@1.0'), JSON.stringify(defs));
    const runs = (await (await fetch(`${url}/api/runs?definition=uiorder08&status=Completed`)).json()) as { runs: { workflowId: string }[] };
    assert.deepEqual(runs.runs.map((r) => r.workflowId), [finished08]);
    const run = (await (await fetch(`${url}/api/runs/${finished08}`)).json()) as { webUi: string; overlay: { path: string[] } };
    assert.match(run.webUi, new RegExp(`^http://webui\\.example:8233/namespaces/default/workflows/${finished08}/`));
    assert.deepEqual(run.overlay.path, ['start', 'Receive Order', 'Check Amount', 'Wait For Approval', 'Charge Card', 'end']);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
});

test('the Temporal Web UI shows the link to the run page in the run\'s details', async () => {
  await page.setViewportSize({ width: 1400, height: 1400 });
  await page.goto(`${server.uiUrl}/namespaces/default/workflows/${finished08}`);
  await page.getByText('Completed').first().waitFor({ timeout: 30_000 });
  await page.getByText('User Metadata').first().click();
  // The UI renders the details' Markdown in a sandboxed frame: look in every frame.
  const target = `${runPage.url}/runs/${finished08}`;
  let href: string | null = null;
  for (let i = 0; i < 60 && !href; i++) {
    for (const f of page.frames()) {
      href = await f.locator(`a[href="${target}"]`).first().getAttribute('href', { timeout: 100 }).catch(() => null);
      if (href) break;
    }
    if (!href) await page.waitForTimeout(500);
  }
  await page.screenshot({ path: join(ARTIFACTS, 'run-page-webui-link.png'), fullPage: true });
  assert.equal(href, target);
});
