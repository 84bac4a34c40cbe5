/**
 * The main job end to end, as a user runs it: `swflow start` (what `npm start` runs) brings up
 * the dev server from the resolved Temporal binary and the interpreter worker with examples/;
 * a workflow is started by type name through the Temporal client and through the real
 * `temporal` CLI; Ctrl-C (SIGINT) stops everything; the SQLite file keeps the runs.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../../src/platform/dev-server';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { freePort } from '../helpers/ports';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

let child: ChildProcess;
let output = '';
let address: string;
let uiPort: number;
let gatewayPort: number;
let runPagePort: number;
let dbFile: string;
let temporal: string;
const clientWorkflowId = `hello-client-${Date.now()}`;

function waitForOutput(pattern: RegExp, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms; output:\n${output}`)), ms);
    const check = () => {
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`swflow start exited (${code}) early; output:\n${output}`));
    });
    check();
  });
}

before(async () => {
  temporal = (await resolveTemporalCli())!.path;
  const port = await freePort();
  uiPort = await freePort();
  gatewayPort = await freePort();
  runPagePort = await freePort();
  address = `127.0.0.1:${port}`;
  dbFile = join(mkdtempSync(join(tmpdir(), 'swflow-start-')), 'temporal.sqlite');
  const env = { ...process.env };
  delete env.TEMPORAL_ADDRESS;
  child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'start', '--port', String(port), '--ui-port', String(uiPort), '--db', dbFile, '--gateway-port', String(gatewayPort), '--run-page-port', String(runPagePort)],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await waitForOutput(/Ctrl-C stops everything/, 120_000);
});

after(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

test('the banner says where the server, the Web UI and the examples are', () => {
  assert.match(output, new RegExp(`Temporal server\\s+${address.replace(/\./g, '\\.')}`));
  assert.match(output, new RegExp(`Temporal Web UI\\s+http://localhost:${uiPort}`));
  assert.match(output, /temporal workflow execute --type helloworld --task-queue swflow/);
});

test('the run page is served: the examples as graphs, runs linked to the Web UI', async () => {
  assert.match(output, new RegExp(`Run page\\s+http://127\\.0\\.0\\.1:${runPagePort}`));
  const page = await fetch(`http://127.0.0.1:${runPagePort}/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<title>swflow runs<\/title>/);
  const defs = (await (await fetch(`http://127.0.0.1:${runPagePort}/api/definitions`)).json()) as { definitions: { key: string }[] };
  assert.ok(defs.definitions.some((d) => d.key === 'helloworld@1.0'), JSON.stringify(defs));
  const graph = (await (await fetch(`http://127.0.0.1:${runPagePort}/api/definitions/helloworld/graph`)).json()) as { nodes: { id: string }[] };
  assert.deepEqual(graph.nodes.map((n) => n.id).sort(), ['Hello State', 'end', 'start']);
  const config = (await (await fetch(`http://127.0.0.1:${runPagePort}/api/config`)).json()) as { webUi: string };
  assert.equal(config.webUi, `http://localhost:${uiPort}`);
});

test('the Web UI answers', async () => {
  const res = await fetch(`http://localhost:${uiPort}/`);
  assert.equal(res.status, 200);
});

test('a workflow started by type name through the Temporal client returns the definition output', async () => {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const result = await client.workflow.execute('helloworld', {
      taskQueue: 'swflow',
      workflowId: clientWorkflowId,
      args: [{}],
    });
    assert.deepEqual(result, { result: 'Hello World!' });
  } finally {
    await connection.close();
  }
});

test('the greeting example calls its REST service through the OpenAPI document and the REST adapter', async () => {
  assert.match(output, /Example service\s+http:\/\/127\.0\.0\.1:8091/);
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const result = await client.workflow.execute('greeting', {
      taskQueue: 'swflow',
      workflowId: `greeting-${Date.now()}`,
      args: [{ person: { name: 'John' } }],
    });
    // The service answers { greeting }; the action's `results: ${ .greeting }` selects the string,
    // and merging a string overwrites (spec 0.8, "Data Merging"): it becomes the output.
    assert.equal(result, 'Welcome to Serverless Workflow, John!');
  } finally {
    await connection.close();
  }
});

test('a CloudEvent posted to the event gateway starts the example its start state consumes', async () => {
  assert.match(output, new RegExp(`Event gateway\\s+http://127\\.0\\.0\\.1:${gatewayPort}`));
  const res = await fetch(`http://127.0.0.1:${gatewayPort}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json' },
    body: JSON.stringify({ specversion: '1.0', id: `req-${Date.now()}`, type: 'greeting.requested', source: 'swflow.examples', data: { name: 'Ada' } }),
  });
  assert.equal(res.status, 202, await res.clone().text());
  const { delivered } = (await res.json()) as { delivered: { workflowId: string; started: boolean }[] };
  assert.equal(delivered[0].started, true);
  const connection = await Connection.connect({ address });
  try {
    const result = await new Client({ connection }).workflow.getHandle(delivered[0].workflowId).result();
    assert.deepEqual(result, { person: { name: 'Ada' }, reply: { greeting: 'Welcome to Serverless Workflow, Ada!' } });
  } finally {
    await connection.close();
  }
});

test('the 1.0 order-payment example (README): started with the temporal CLI, woken by its payment CloudEvent, records the payment with the example service', async () => {
  const workflowId = `order-${Date.now()}`;
  await run(temporal, [
    'workflow', 'start', '--address', address,
    '--type', 'examples/order-payment', '--task-queue', 'swflow', '--workflow-id', workflowId, '--input', `{"orderId":"${workflowId}"}`,
  ]);
  const payment = (id: string) =>
    fetch(`http://127.0.0.1:${gatewayPort}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/cloudevents+json' },
      body: JSON.stringify({ specversion: '1.0', id, type: 'com.example.payment.received', source: 'https://payments.example', data: { orderId: workflowId, amount: 25 } }),
    });
  // The run publishes what it waits for (SwAwaitedEvents) as it begins to wait; visibility may lag a moment.
  let res = await payment(`pay-${workflowId}`);
  for (let i = 0; i < 50 && res.status === 404; i++) {
    await new Promise((r) => setTimeout(r, 200));
    res = await payment(`pay-${workflowId}`);
  }
  assert.equal(res.status, 202, await res.clone().text());
  assert.deepEqual(((await res.json()) as any).delivered.map((d: any) => d.workflowId), [workflowId]);
  const { stdout } = await run(temporal, ['workflow', 'result', '--address', address, '--workflow-id', workflowId, '--output', 'json']);
  assert.deepEqual(JSON.parse(stdout).result, { orderId: workflowId, amount: 25, status: 'paid', receipt: `R-${workflowId}` });
  assert.match(output, /produced event com\.example\.order\.paid/, 'the announce task emitted its event (no sink configured: logged)');
});

test('a workflow started by type name through the temporal CLI returns the definition output', async () => {
  const workflowId = `hello-cli-${Date.now()}`;
  await run(temporal, [
    'workflow', 'start', '--address', address,
    '--type', 'helloworld', '--task-queue', 'swflow', '--workflow-id', workflowId, '--input', '{"who":"cli"}',
  ]);
  const { stdout } = await run(temporal, ['workflow', 'result', '--address', address, '--workflow-id', workflowId, '--output', 'json']);
  const parsed = JSON.parse(stdout);
  // Inject merges its data into the input (spec 0.8, Inject State).
  assert.deepEqual(parsed.result, { who: 'cli', result: 'Hello World!' });
});

test('Ctrl-C stops everything cleanly and the runs survive in the SQLite file', async () => {
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 0, output);
  assert.match(output, /Stopped\./);
  assert.ok(existsSync(dbFile));
  // Nothing listens any more.
  await assert.rejects(fetch(`http://localhost:${uiPort}/`));

  // A dev server started again on the same file still has the runs.
  const again = await startDevServer({ binary: temporal, port: Number(address.split(':')[1]), uiPort, dbFile });
  const connection = await Connection.connect({ address: again.address });
  try {
    const client = new Client({ connection });
    const described = await client.workflow.getHandle(clientWorkflowId).describe();
    assert.equal(described.status.name, 'COMPLETED');
    assert.equal(described.type, 'helloworld');
  } finally {
    await connection.close();
    await again.stop();
  }
});
