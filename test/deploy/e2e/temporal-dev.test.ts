/**
 * temporal-dev.yml run for real, as a developer with Docker uses it: docker-compose (Debian's
 * 1.29.2 on docker.io) with deploy/compose/temporal-dev.local-images.yml (this machine pulls from
 * no registry; the stand-ins are deploy/compose's, cached in the engine's image store). From a
 * clean state (`down -v`): `up -d`, PostgreSQL, Temporal and the UI healthy, the schema and setup
 * one-shots exited 0 with swflow's search attributes registered before any swflow process ran;
 * then `swflow start` from this checkout with TEMPORAL_ADDRESS (what `npm start` runs: no dev
 * server of its own) serves examples/ to runs started with the real Temporal CLI on the host — the
 * 0.8 hello world and the 1.0 order payment (a listen woken by a CloudEvent through the gateway,
 * found by its SwAwaitedEvents search attribute, and an HTTP call); the UI shows the runs; `down`
 * and `up -d` again (the one-shots re-run on the kept volume, the runs still there); finally
 * `down -v` leaves no volume.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { ROOT, composeStack, ensureDocker, must } from '../../helpers/containers';
import { freePort } from '../../helpers/ports';
import { waitFor } from '../../helpers/wait';
import { resolveTemporalCli } from '../../../src/platform/temporal-binary';
import { SEARCH_ATTRIBUTES } from '../../../src/common/contracts';
import { KINDS } from '../../../src/platform/search-attributes';

// Its own project (not deploy/compose's sw-cmp-e2e); fixed, so the first `down -v` clears a crashed run's leftovers.
const PROJECT = 'sw-tdev-e2e';
const OVERRIDE = 'deploy/compose/temporal-dev.local-images.yml';
const log = (m: string) => console.log(`[temporal-dev] ${m}`);

let temporal = '';
let env: NodeJS.ProcessEnv = {};
let ports: { temporal: number; ui: number; gateway: number };
let dataDir = '';
let swflow: ChildProcess | undefined;
let output = '';

const { run: compose, must: composeMust, logs, state } = composeStack(['temporal-dev.yml', OVERRIDE], ROOT, () => env, 20);
/** Every long-running service healthy, and both one-shots exited 0. */
async function ready(): Promise<void> {
  await waitUntil('postgresql, temporal, temporal-ui healthy; temporal-schema and swflow-setup exited', async () => {
    for (const s of ['postgresql', 'temporal', 'temporal-ui']) if ((await state(s))?.health !== 'healthy') return undefined;
    for (const s of ['temporal-schema', 'swflow-setup']) if ((await state(s))?.status !== 'exited') return undefined;
    return true;
  }, 240_000);
  for (const oneShot of ['temporal-schema', 'swflow-setup']) assert.deepEqual(await state(oneShot), { status: 'exited', health: undefined, exitCode: 0 }, `${oneShot} ran and succeeded:\n${await logs()}`);
}
async function waitUntil(what: string, probe: () => Promise<true | undefined>, ms: number): Promise<void> {
  await waitFor(what, probe, ms).catch(async (err) => {
    throw new Error(`${err.message}\n${await logs()}`);
  });
}

// The address a user gives: the published port on localhost.
const address = () => `localhost:${ports.temporal}`;
const cli = (args: string[]) => must(temporal, [...args, '--address', address(), '--namespace', 'default'], { timeoutMs: 120_000 });
async function result(id: string): Promise<any> {
  return JSON.parse(await cli(['workflow', 'result', '--workflow-id', id, '-o', 'json'])).result;
}
function waitForOutput(pattern: RegExp, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms; output:\n${output}`)), ms);
    const check = () => {
      if (!pattern.test(output)) return;
      clearTimeout(timer);
      resolve();
    };
    swflow!.stdout!.on('data', check);
    swflow!.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`swflow start exited (${code}) early; output:\n${output}`));
    });
    check();
  });
}

before(async () => {
  await ensureDocker(log);
  const cliBin = await resolveTemporalCli(log);
  assert.ok(cliBin, 'the Temporal CLI (built with Go, .cache/bin/temporal)');
  temporal = cliBin.path;
  ports = { temporal: await freePort(), ui: await freePort(), gateway: await freePort() };
  env = { ...process.env, COMPOSE_PROJECT_NAME: PROJECT, HOST_PORT_TEMPORAL: String(ports.temporal), HOST_PORT_UI: String(ports.ui) };
  delete env.POSTGRES_PASSWORD;
  const t = Date.now();
  await must(join(ROOT, 'deploy', 'images', 'build-stand-ins.sh'), [], { timeoutMs: 40 * 60_000 });
  log(`stand-in images ready (build-stand-ins.sh ${((Date.now() - t) / 1000).toFixed(1)} s)`);
  dataDir = mkdtempSync(join(tmpdir(), 'sw-tdev-data-'));
});

after(async () => {
  if (swflow && swflow.exitCode === null && swflow.signalCode === null) swflow.kill('SIGKILL');
  if (env.COMPOSE_PROJECT_NAME) await compose(['down', '-v', '--remove-orphans']);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test('up -d from a clean state; swflow start from the checkout runs the 0.8 hello world and the 1.0 order payment on it; down -v', { timeout: 15 * 60_000 }, async () => {
  const started = Date.now();
  await composeMust(['down', '-v', '--remove-orphans']);
  let t = Date.now();
  await composeMust(['up', '-d']);
  const upMs = Date.now() - t;
  await ready();
  log(`up -d from a clean state: ${(upMs / 1000).toFixed(1)} s; healthy and both one-shots exited 0 after ${((Date.now() - t) / 1000).toFixed(1)} s`);
  assert.match((await compose(['logs', '--no-color', 'swflow-setup'])).out, /swflow-setup: namespace default on temporal:7233 has swflow's search attributes/);

  // The one-shot, not swflow, registered them: no swflow process has run yet.
  const connection = await Connection.connect({ address: address() });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    for (const [name, kind] of Object.entries(SEARCH_ATTRIBUTES)) assert.equal(customAttributes?.[name], KINDS[kind].indexed, `${name} (${kind}) is registered`);
  } finally {
    await connection.close();
  }
  const ui = await fetch(`http://127.0.0.1:${ports.ui}/`);
  assert.equal(ui.status, 200, 'the Temporal UI answers on its published port');

  // As `TEMPORAL_ADDRESS=localhost:7233 npm start` (package.json: MALLOC_ARENA_MAX=2 node bin/swflow.js start),
  // on free ports for what it serves; the payload store (default: under the data folder) in a temporary one.
  t = Date.now();
  const swEnv: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_ADDRESS: address(), MALLOC_ARENA_MAX: '2', SWFLOW_DATA: dataDir };
  for (const name of ['TEMPORAL_NAMESPACE', 'SWFLOW_METRICS_PORT', 'SWFLOW_PAYLOAD_STORE', 'TEMPORAL_WEB_UI']) delete swEnv[name];
  swflow = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'start', '--gateway-port', String(ports.gateway), '--run-page-port', '0'], { cwd: ROOT, env: swEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  swflow.stdout!.on('data', (d) => (output += d));
  swflow.stderr!.on('data', (d) => (output += d));
  await waitForOutput(/Ctrl-C stops everything/, 240_000);
  assert.match(output, new RegExp(`Using the Temporal server at ${address()} \\(namespace default\\); starting none\\.`));
  assert.doesNotMatch(output, /Could not register search attributes/);
  assert.match(output, /Example service\s+http:\/\/127\.0\.0\.1:8091/, 'the example service (order-payment records payments with it; port 8091 must be free)');
  log(`swflow start (TEMPORAL_ADDRESS=${address()}) ready in ${((Date.now() - t) / 1000).toFixed(1)} s, starting no dev server`);

  t = Date.now();
  await cli(['workflow', 'start', '--type', 'helloworld', '--task-queue', 'swflow', '--workflow-id', 'tdev-hello', '--input', '{"who":"temporal-dev"}']);
  assert.deepEqual(await result('tdev-hello'), { who: 'temporal-dev', result: 'Hello World!' });

  const orderId = 'tdev-42';
  await cli(['workflow', 'start', '--type', 'examples/order-payment', '--task-queue', 'swflow', '--workflow-id', orderId, '--input', JSON.stringify({ orderId })]);
  // The gateway finds the run by SwAwaitedEvents (the attribute the one-shot registered); 404 until the run waits.
  const payment = () =>
    fetch(`http://127.0.0.1:${ports.gateway}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ specversion: '1.0', id: `pay-${orderId}`, type: 'com.example.payment.received', source: 'https://payments.example', data: { orderId, amount: 25 } }),
    });
  const res = await waitFor('the payment event delivered', async () => {
    const r = await payment();
    return r.status === 404 ? undefined : r;
  }, 60_000);
  const body = (await res.json()) as any;
  assert.equal(res.status, 202, JSON.stringify(body));
  assert.deepEqual(body.delivered.map((d: any) => d.workflowId), [orderId]);
  assert.deepEqual(await result(orderId), { orderId, amount: 25, status: 'paid', receipt: `R-${orderId}` });
  log(`helloworld (0.8) and examples/order-payment (1.0: listen woken through the gateway, HTTP call) completed in ${((Date.now() - t) / 1000).toFixed(1)} s, started with the Temporal CLI on ${address()}`);

  // The UI reads the same server: both runs are there.
  let listed: any;
  await waitFor('the UI listing both runs', async () => {
    listed = await (await fetch(`http://127.0.0.1:${ports.ui}/api/v1/namespaces/default/workflows?query=${encodeURIComponent("ExecutionStatus = 'Completed'")}`)).json();
    const ids = (listed.executions ?? []).map((e: any) => e.execution?.workflowId);
    return ['tdev-hello', orderId].every((id) => ids.includes(id)) || undefined;
  }, 30_000).catch((err) => {
    throw new Error(`${err.message}: ${JSON.stringify(listed).slice(0, 800)}`);
  });

  const exited = new Promise<number | null>((resolve) => swflow!.once('exit', resolve));
  swflow.kill('SIGINT');
  assert.equal(await exited, 0, output.slice(-3000));

  // A second `up -d` on the kept volume, as every later day starts: the one-shots run again, harmlessly.
  t = Date.now();
  await composeMust(['down']);
  await composeMust(['up', '-d']);
  await ready();
  const completed = JSON.parse((await cli(['workflow', 'list', '--query', "ExecutionStatus = 'Completed'", '-o', 'json'])) || '[]').map((w: any) => w.execution.workflowId);
  for (const id of ['tdev-hello', orderId]) assert.ok(completed.includes(id), `${id} is still listed after down + up`);
  log(`down (no -v) and up -d again: ready in ${((Date.now() - t) / 1000).toFixed(1)} s, the schema and setup one-shots exited 0 again, both runs kept`);

  t = Date.now();
  await composeMust(['down', '-v']);
  assert.equal((await must('docker', ['volume', 'ls', '-q', '--filter', `name=${PROJECT}_postgresql`])).trim(), '', 'down -v removes the volume');
  log(`down -v in ${((Date.now() - t) / 1000).toFixed(1)} s: containers, network and volume removed; ${((Date.now() - started) / 1000).toFixed(1)} s in all (images aside)`);
});
