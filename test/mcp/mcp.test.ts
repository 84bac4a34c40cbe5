/**
 * `swflow mcp` through the MCP SDK's own client, over both transports: stdio (the SDK spawns
 * `node bin/swflow.js mcp`) and streamable HTTP (a spawned `swflow mcp --http`), against a real
 * dev server and a real interpreter worker serving the same definitions folder. The definition
 * tools, a run waited on, described, sent its event; a failed run described; redrive reached;
 * the operator's tools refused without (or with a wrong) token; the resources.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { freePort } from '../helpers/ports';
import { waitFor } from '../helpers/wait';

/**
 * redrive() is a contract only on this branch (it throws "not implemented yet"): the tool must
 * answer its error. Set to true once src/operations/redrive.ts is implemented: the tool must then
 * answer the redriven run.
 */
const ROOT = resolve(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'swflow.js');
const TOKEN = 'mcp-test-operator-token-0123456789';

const APPROVAL = `document:
  dsl: '1.0.0'
  namespace: mcp
  name: approval
  version: '1.0.0'
  title: An approval
do:
  - prepare:
      set:
        asked: true
  - wait:
      listen:
        to:
          one:
            with:
              type: mcp.approved
  - finish:
      set:
        approved: true
`;

const FAILING = `document:
  dsl: '1.0.0'
  namespace: mcp
  name: failing
  version: '1.0.0'
do:
  - first:
      set:
        step: 1
  - explode:
      raise:
        error:
          type: https://mcp.example/errors/broken
          status: 500
          title: Broken on purpose
`;

const FAILING_08 = {
  id: 'mcpfail08',
  version: '1.0',
  specVersion: '0.8',
  start: 'Prepare',
  functions: [{ name: 'reserve', type: 'expression', operation: '.nothing | error("no stock")' }],
  states: [
    { name: 'Prepare', type: 'inject', data: { a: 1 }, transition: 'Reserve Stock' },
    { name: 'Reserve Stock', type: 'operation', actions: [{ functionRef: { refName: 'reserve' } }], end: true },
  ],
};

/** Its call goes to the adapters' task queue, which no worker polls here: the activity stays pending. */
const PENDING_08 = {
  id: 'mcppending08',
  version: '1.0',
  specVersion: '0.8',
  start: 'Charge Card',
  functions: [{ name: 'chargeCard', operation: 'http://pay.example/api.json#charge' }],
  states: [{ name: 'Charge Card', type: 'operation', actions: [{ functionRef: { refName: 'chargeCard', arguments: { amount: 42 } } }], end: true }],
};

/** Line 10, column 7: `thn` is not a task property. */
const BROKEN = `document:
  dsl: '1.0.0'
  namespace: mcp
  name: broken
  version: '1.0.0'
do:
  - greet:
      set:
        a: 1
      thn: end
`;

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void> = Promise.resolve();
let dir: string;
const children: { child: ChildProcess; output: string }[] = [];
const clients: Client[] = [];
/** stdio, started with the operator token / without one. */
let stdioOp: Client;
let stdioNoToken: Client;
/** HTTP, to a server with the token: with it, with a wrong one, with none; and to a server without a token. */
let httpOp: Client;
let httpWrong: Client;
let httpNone: Client;
let httpUnconfigured: Client;
let httpUrl: string;
/** Runs later tests describe again, without a worker. */
let completedRun = '';
let failedRun08 = '';

function swflowEnv(token: string, address = env.address): Record<string, string> {
  return { ...(process.env as Record<string, string>), TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default', SWFLOW_OPERATOR_TOKEN: token };
}

async function stdioClient(token: string, address?: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '-d', dir], cwd: ROOT, env: swflowEnv(token, address), stderr: 'pipe' });
  const client = new Client({ name: 'swflow-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** Spawns `swflow mcp --http` and waits (bounded) for its URL. */
async function httpServer(token: string): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', String(port), '-d', dir], { cwd: ROOT, env: swflowEnv(token), stdio: ['ignore', 'pipe', 'pipe'] });
  const entry = { child, output: '' };
  children.push(entry);
  child.stdout!.on('data', (d) => (entry.output += d));
  child.stderr!.on('data', (d) => (entry.output += d));
  return waitFor(
    'swflow mcp --http to listen',
    async () => {
      if (child.exitCode !== null) throw new Error(`swflow mcp --http exited: ${entry.output}`);
      return /MCP server: (\S+)/.exec(entry.output)?.[1];
    },
    60_000,
  );
}

async function httpClient(url: string, bearer?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), bearer ? { requestInit: { headers: { authorization: `Bearer ${bearer}` } } } : {});
  const client = new Client({ name: 'swflow-mcp-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult & { structuredContent?: any }> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult & { structuredContent?: any };
}

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

before(async () => {
  env = await startDevEnv();
  dir = mkdtempSync(join(tmpdir(), 'swflow-mcp-'));
  writeFileSync(join(dir, 'approval.sw.yaml'), APPROVAL);
  writeFileSync(join(dir, 'failing.sw.yaml'), FAILING);
  writeFileSync(join(dir, 'fail08.sw.json'), JSON.stringify(FAILING_08, null, 2));
  writeFileSync(join(dir, 'pending08.sw.json'), JSON.stringify(PENDING_08, null, 2));
  worker = await createInterpreterWorker({ connection: env.nativeConnection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [dir] });
  running = worker.run();
  const [withToken, withoutToken] = await Promise.all([httpServer(TOKEN), httpServer('')]);
  httpUrl = withToken;
  [stdioOp, stdioNoToken, httpOp, httpWrong, httpNone, httpUnconfigured] = await Promise.all([
    stdioClient(TOKEN),
    stdioClient(''),
    httpClient(withToken, TOKEN),
    httpClient(withToken, 'not-the-token'),
    httpClient(withToken),
    httpClient(withoutToken, TOKEN),
  ]);
});

after(async () => {
  for (const c of clients) await c?.close().catch(() => {});
  for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running.catch(() => {});
  await env?.teardown();
});

const TOOLS = ['cancel_run', 'describe_run', 'draw_definition', 'list_definitions', 'redrive_run', 'resume_run', 'send_event', 'start_run', 'suspend_run', 'validate_definition'];

test('both transports list the ten tools, the operator ones marked destructive', async () => {
  for (const [name, client] of [['stdio', stdioOp], ['http', httpNone]] as const) {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOLS, name);
    const destructive = tools.filter((t) => t.annotations?.destructiveHint).map((t) => t.name).sort();
    assert.deepEqual(destructive, ['cancel_run', 'redrive_run', 'resume_run', 'send_event', 'start_run', 'suspend_run'], name);
    console.log(`${name}: ${tools.length} tools, ${destructive.length} destructive`);
  }
});

test('validate_definition: a broken document gives its finding with line, column, pointer; a good one is valid', async () => {
  for (const [name, client] of [['stdio', stdioNoToken], ['http', httpNone]] as const) {
    const bad = await call(client, 'validate_definition', { document: BROKEN });
    assert.ok(!bad.isError, textOf(bad));
    assert.equal(bad.structuredContent.valid, false);
    const f = bad.structuredContent.findings.find((x: any) => x.pointer === '/do/0/greet/thn');
    assert.ok(f, JSON.stringify(bad.structuredContent));
    assert.equal(f.severity, 'error');
    assert.equal(f.line, 10);
    assert.equal(f.column, 7);
    assert.match(f.message, /thn/);
    assert.match(textOf(bad), /not valid.*\n.*:10:7: error/);
    const good = await call(client, 'validate_definition', { document: APPROVAL });
    assert.equal(good.structuredContent.valid, true, textOf(good));
    assert.equal(good.structuredContent.definition.id, 'mcp/approval');
    console.log(`${name}: broken → ${bad.structuredContent.findings.length} finding(s), first at ${f.line}:${f.column} ${f.pointer}; approval valid`);
  }
  // By path: stdio may read any file; HTTP only files inside its --definitions folders.
  const file = join(mkdtempSync(join(tmpdir(), 'swflow-mcp-outside-')), 'broken.yaml');
  writeFileSync(file, BROKEN);
  const byPath = await call(stdioNoToken, 'validate_definition', { path: file });
  assert.equal(byPath.structuredContent.findings[0].line, 10);
  const outside = await call(httpNone, 'validate_definition', { path: file });
  assert.equal(outside.isError, true);
  assert.match(textOf(outside), /only files inside the --definitions folders/);
  const inside = await call(httpNone, 'validate_definition', { path: join(dir, 'failing.sw.yaml') });
  assert.equal(inside.structuredContent.valid, true, textOf(inside));
  console.log(`by path: stdio read ${file}; http refused it, read ${join(dir, 'failing.sw.yaml')}`);
});

test('draw_definition and list_definitions', async () => {
  const byId = await call(httpNone, 'draw_definition', { definitionId: 'mcp/approval' });
  assert.ok(!byId.isError, textOf(byId));
  assert.match(byId.structuredContent.mermaid, /^flowchart/m);
  assert.match(byId.structuredContent.mermaid, /wait/);
  const byText = await call(stdioNoToken, 'draw_definition', { document: FAILING });
  assert.match(byText.structuredContent.mermaid, /explode/);
  const broken = await call(stdioNoToken, 'draw_definition', { document: BROKEN });
  assert.equal(broken.isError, true);
  assert.match(textOf(broken), /does not load[\s\S]*:10:7/);
  const list = await call(httpNone, 'list_definitions');
  const defs = list.structuredContent.definitions.map((d: any) => `${d.id}@${d.version} ${d.dsl} ${d.name} ${d.file}`).sort();
  assert.deepEqual(defs, [
    `mcp/approval@1.0.0 1.0.0 An approval ${join(dir, 'approval.sw.yaml')}`,
    `mcp/failing@1.0.0 1.0.0 failing ${join(dir, 'failing.sw.yaml')}`,
    `mcpfail08@1.0 0.8 mcpfail08 ${join(dir, 'fail08.sw.json')}`,
    `mcppending08@1.0 0.8 mcppending08 ${join(dir, 'pending08.sw.json')}`,
  ]);
  console.log(`draw: ${byId.structuredContent.mermaid.split('\n').length} Mermaid lines by id; list: ${defs.length} definitions`);
});

test('a run started, described at the event it waits for, sent the event, completes', async () => {
  const started = await call(stdioOp, 'start_run', { definitionId: 'mcp/approval', input: { order: 7 }, workflowId: `mcp-approval-${Date.now()}` });
  assert.ok(!started.isError, textOf(started));
  const { workflowId, runId } = started.structuredContent;
  assert.ok(runId, textOf(started));
  const waiting = await waitFor('the run to wait at its listen task', async () => {
    const d = await call(httpNone, 'describe_run', { workflowId });
    return d.structuredContent.currentSteps?.some((s: string) => s.endsWith('/wait')) ? d : undefined;
  });
  assert.equal(waiting.structuredContent.status, 'RUNNING');
  assert.equal(waiting.structuredContent.definitionId, 'mcp/approval');
  assert.equal(waiting.structuredContent.definitionVersion, '1.0.0');
  assert.deepEqual(waiting.structuredContent.awaitedEvents, ['mcp.approved']);
  const sent = await call(httpOp, 'send_event', { workflowId, type: 'mcp.approved', source: 'mcp.test', data: { by: 'agent' } });
  assert.ok(!sent.isError, textOf(sent));
  assert.equal(sent.structuredContent.status, 202);
  const output = await env.client.workflow.getHandle(workflowId).result();
  assert.deepEqual(output, { approved: true }); // 1.0's set replaces the data
  completedRun = workflowId;
  const done = await call(stdioNoToken, 'describe_run', { workflowId });
  assert.equal(done.structuredContent.status, 'COMPLETED');
  assert.deepEqual(done.structuredContent.currentSteps, []);
  assert.deepEqual(done.structuredContent.stepsEntered, ['/do/0/prepare', '/do/1/wait', '/do/2/finish']);
  console.log(`run ${workflowId}: waited at ${waiting.structuredContent.currentSteps.join(',')}, event ${sent.structuredContent.eventId} delivered, completed; stepsEntered ${done.structuredContent.stepsEntered.join(' ')}`);
});

test('a failed run is described with its failure and the failing task; redrive_run answers redrive()', async () => {
  const started = await call(httpOp, 'start_run', { definitionId: 'mcp/failing', workflowId: `mcp-failing-${Date.now()}` });
  assert.ok(!started.isError, textOf(started));
  const { workflowId } = started.structuredContent;
  await assert.rejects(env.client.workflow.getHandle(workflowId).result());
  const d = await call(stdioNoToken, 'describe_run', { workflowId });
  assert.ok(!d.isError, textOf(d));
  assert.equal(d.structuredContent.status, 'FAILED');
  assert.equal(d.structuredContent.failure.step, '/do/1/explode');
  assert.match(d.structuredContent.failure.message, /Broken on purpose/);
  assert.match(textOf(d), /failed in \/do\/1\/explode/);
  // A 0.8 run names the state that failed.
  const s08 = await call(httpOp, 'start_run', { definitionId: 'mcpfail08' });
  await assert.rejects(env.client.workflow.getHandle(s08.structuredContent.workflowId).result());
  failedRun08 = s08.structuredContent.workflowId;
  const d08 = await call(httpNone, 'describe_run', { workflowId: failedRun08 });
  assert.equal(d08.structuredContent.failure.step, 'Reserve Stock', textOf(d08));
  assert.match(d08.structuredContent.failure.message, /no stock/);
  assert.deepEqual(d08.structuredContent.stepsEntered, ['Prepare', 'Reserve Stock']);
  const missing = await call(httpNone, 'describe_run', { workflowId: 'no-such-run' });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /no run with workflow id "no-such-run"/);
  const r = await call(stdioOp, 'redrive_run', { workflowId, dryRun: true });
  assert.ok(!r.isError, textOf(r));
  assert.equal(r.structuredContent.step, '/do/1/explode');
  console.log(`failed 0.8 run ${s08.structuredContent.workflowId}: step ${d08.structuredContent.failure.step} (steps from the ${d08.structuredContent.stepsFrom})`);
  console.log(`failed run ${workflowId}: step ${d.structuredContent.failure.step}, "${d.structuredContent.failure.message}"; redrive_run: ${textOf(r).split('\n')[0]}`);
});

test('suspend_run, resume_run and cancel_run act on a waiting run', async () => {
  const started = await call(stdioOp, 'start_run', { definitionId: 'mcp/approval', workflowId: `mcp-pause-${Date.now()}` });
  const { workflowId } = started.structuredContent;
  const suspended = await call(stdioOp, 'suspend_run', { workflowId });
  assert.ok(!suspended.isError, textOf(suspended));
  assert.equal(suspended.structuredContent.status, 'suspended');
  const resumed = await call(httpOp, 'resume_run', { workflowId });
  assert.equal(resumed.structuredContent.status, 'running', textOf(resumed));
  const cancelled = await call(httpOp, 'cancel_run', { workflowId });
  assert.ok(!cancelled.isError, textOf(cancelled));
  const status = await waitFor('the run to end cancelled', async () => {
    const d = await call(httpNone, 'describe_run', { workflowId });
    return d.structuredContent.status === 'RUNNING' ? undefined : d.structuredContent.status;
  });
  assert.equal(status, 'CANCELLED');
  console.log(`run ${workflowId}: suspended, resumed, cancelled → ${status}`);
});

test('describe_run lists a run\'s pending activity with its step', async () => {
  const started = await call(httpOp, 'start_run', { definitionId: 'mcppending08' });
  assert.ok(!started.isError, textOf(started));
  const { workflowId } = started.structuredContent;
  const d = await waitFor('the call to be pending', async () => {
    const r = await call(stdioNoToken, 'describe_run', { workflowId });
    return r.structuredContent.pendingActivities?.length ? r : undefined;
  });
  assert.deepEqual(d.structuredContent.currentSteps, ['Charge Card']);
  const [a] = d.structuredContent.pendingActivities;
  assert.equal(a.state, 'SCHEDULED', JSON.stringify(a));
  assert.ok(a.activityType, JSON.stringify(a));
  await call(httpOp, 'cancel_run', { workflowId });
  console.log(`run ${workflowId} at ${d.structuredContent.currentSteps.join(',')}: pending ${a.activityType} ${a.state} attempt ${a.attempt}`);
});

test('the operator tools are refused without the token, with a wrong one, and when the server has none', async () => {
  const probe = `mcp-refused-${Date.now()}`;
  const calls: [string, Record<string, unknown>][] = [
    ['start_run', { definitionId: 'mcp/approval', workflowId: probe }],
    ['send_event', { workflowId: probe, type: 'mcp.approved' }],
    ['redrive_run', { workflowId: probe }],
    ['cancel_run', { workflowId: probe }],
    ['suspend_run', { workflowId: probe }],
    ['resume_run', { workflowId: probe }],
  ];
  const cases = [
    ['http, no token', httpNone, /send the operator token as `Authorization: Bearer <token>`/],
    ['http, wrong token', httpWrong, /the bearer token is not the operator token/],
    ['http, server without a token', httpUnconfigured, /this server has no operator token: start `swflow mcp --http` with --operator-token/],
    ['stdio, server without a token', stdioNoToken, /start `swflow mcp` with --operator-token <token> \(or \$SWFLOW_OPERATOR_TOKEN\) to enable it/],
  ] as const;
  let refused = 0;
  for (const [name, client, why] of cases) {
    for (const [tool, args] of calls) {
      const r = await call(client, tool, args);
      assert.equal(r.isError, true, `${name} ${tool}: ${textOf(r)}`);
      assert.equal(r.structuredContent.refused, true);
      assert.match(textOf(r), new RegExp(`^${tool} is an operator action: `));
      assert.match(textOf(r), why);
      assert.ok(!textOf(r).includes(TOKEN), 'the token is never echoed');
      refused++;
    }
  }
  for (const { output } of children) assert.ok(!output.includes(TOKEN), 'the token is never logged');
  // Nothing was started under the probe's id.
  await assert.rejects(env.client.workflow.getHandle(probe).describe(), /not found/i);
  console.log(`${refused} operator calls refused over ${cases.length} client setups; none started ${probe}`);
});

test('resources: each definition and the specifications\' JSON schemas', async () => {
  for (const [name, client] of [['stdio', stdioNoToken], ['http', httpNone]] as const) {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    for (const u of ['swflow://definitions/mcp%2Fapproval/1.0.0', 'swflow://definitions/mcp%2Ffailing/1.0.0', 'swflow://schemas/1.0.3/workflow.yaml', 'swflow://schemas/0.8/workflow.json']) {
      assert.ok(uris.includes(u), `${name}: ${u} in ${uris.join(' ')}`);
    }
    const def = await client.readResource({ uri: 'swflow://definitions/mcp%2Fapproval/1.0.0' });
    assert.equal((def.contents[0] as { text: string }).text, APPROVAL);
    assert.equal(def.contents[0].mimeType, 'application/yaml');
    const v1 = await client.readResource({ uri: 'swflow://schemas/1.0.3/workflow.yaml' });
    assert.match((v1.contents[0] as { text: string }).text, /serverlessworkflow\.io\/schemas\/1\.0\.3\/workflow\.yaml/);
    const v08 = await client.readResource({ uri: 'swflow://schemas/0.8/workflow.json' });
    assert.equal(JSON.parse((v08.contents[0] as { text: string }).text).$id, 'https://serverlessworkflow.io/schemas/0.8/workflow.json');
    await assert.rejects(client.readResource({ uri: 'swflow://definitions/mcp%2Fnothing/1.0.0' }), /no definition mcp\/nothing/);
    console.log(`${name}: ${resources.length} resources (${uris.filter((u) => u.startsWith('swflow://schemas/')).length} schemas), definition and schemas read`);
  }
});

test('the HTTP server answers only requests addressed to a loopback name', async () => {
  const url = new URL(httpUrl);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  // fetch cannot set Host: a raw request through node:http can.
  const { request } = await import('node:http');
  const status = await new Promise<number>((done, fail) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...headers, host: `rebound.example:${url.port}` } }, (res) => (res.resume(), done(res.statusCode!)));
    req.on('error', fail);
    req.end(body);
  });
  assert.equal(status, 403);
  const get = await fetch(httpUrl, { headers: { accept: 'text/event-stream' } });
  assert.equal(get.status, 405);
  console.log(`Host rebound.example → ${status}; GET → ${get.status}`);
});

test('without a Temporal server the definition tools work and the run tools say which server does not answer', async () => {
  const deadAddress = `127.0.0.1:${await freePort()}`;
  const client = await stdioClient(TOKEN, deadAddress);
  const v = await call(client, 'validate_definition', { document: BROKEN });
  assert.equal(v.structuredContent.findings[0].line, 10);
  const list = await call(client, 'list_definitions');
  assert.equal(list.structuredContent.definitions.length, 4);
  const d = await call(client, 'describe_run', { workflowId: 'anything' });
  assert.equal(d.isError, true);
  assert.match(textOf(d), new RegExp(`^describe_run: The Temporal server at TEMPORAL_ADDRESS=${deadAddress} does not answer`));
  console.log(`Temporal at ${deadAddress} down: validate and list answered; describe_run: ${textOf(d).slice(0, 90)}`);
});

test('without a worker, describe_run reads a closed run from its history', async () => {
  assert.ok(completedRun && failedRun08, 'the earlier tests ran');
  worker.shutdown();
  await running;
  const failed = await call(httpNone, 'describe_run', { workflowId: failedRun08 });
  assert.equal(failed.structuredContent.stepsFrom, 'history', textOf(failed));
  assert.match(failed.structuredContent.queryError, /did not answer/);
  assert.equal(failed.structuredContent.definitionId, 'mcpfail08');
  assert.equal(failed.structuredContent.failure.step, 'Reserve Stock');
  assert.ok(failed.structuredContent.stepsEntered.includes('Reserve Stock'), JSON.stringify(failed.structuredContent.stepsEntered));
  const done = await call(httpNone, 'describe_run', { workflowId: completedRun });
  assert.equal(done.structuredContent.status, 'COMPLETED');
  assert.equal(done.structuredContent.stepsFrom, 'history');
  console.log(`no worker: ${failedRun08} failed at ${failed.structuredContent.failure.step}, steps ${failed.structuredContent.stepsEntered.join(' ')}; ${completedRun} steps ${done.structuredContent.stepsEntered.join(' ')}`);
});
