/**
 * 1.0 `call: mcp` end to end: documents run by the real interpreter on the dev server, calls
 * served by the built-in adapter worker (activity `sw.mcp`, adapters/mcp) against a real MCP
 * server built with the MCP SDK (./mcp-server.ts) — as a child process over stdio and over
 * streamable HTTP with a bearer token. Every method over both transports; the client, protocol
 * version, environment and headers the server sees; `$secrets` out of history; a tool error, a
 * transport failure, a refused token and a timeout as the spec's errors `try`/`catch` filters on;
 * no stdio child outlives its call, also a cancelled one.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { historyText } from '../../src/testing/history';
import { assertNoSecrets } from '../helpers/leaks';
import { adapterHarness, failureText, type AdapterHarness } from './harness';
import { startHttpMcpServer, type HttpMcpServer } from './mcp-server';

const SERVER_SCRIPT = resolve(__dirname, 'mcp-server.ts');
const SECRETS = { MCP_TOKEN: 'mcp-t0ken-9f3a71c2', MCP_GREETING: 'hush-greeting-5d1e', MCP_TENANT: 'tenant-k3y-77b0', MCP_BEARER: '{"token":"mcp-t0ken-9f3a71c2"}' };
const ERR = 'https://serverlessworkflow.io/spec/1.0.0/errors/';

let h: AdapterHarness;
let server: HttpMcpServer;

before(async () => {
  server = await startHttpMcpServer(SECRETS.MCP_TOKEN);
  h = await adapterHarness();
  h.serve(await createBuiltinAdapterWorker({ connection: h.connection, secrets: SECRETS }));
});

after(async () => {
  await h?.close();
  await server?.close();
});

const doc = (name: string, tasks: unknown[], use: Record<string, unknown> = {}) => ({
  document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' },
  use: { secrets: Object.keys(SECRETS), ...use },
  do: tasks,
});

const stdio = (environment: Record<string, string> = {}) => ({ stdio: { command: process.execPath, arguments: ['--import', 'tsx', SERVER_SCRIPT], environment } });
const httpTransport = (authentication: unknown = { bearer: { token: '${ $secrets.MCP_TOKEN }' } }, headers: Record<string, string> = {}) => ({ http: { endpoint: { uri: server.url, authentication }, headers } });

/** One task per method of the spec, collecting what each answered in the context. */
const everyMethod = (transport: unknown, extra: Record<string, unknown> = {}) => {
  const call = (name: string, method: string, parameters: unknown, collect: string) => ({
    [name]: { call: 'mcp', with: { method, ...(parameters ? { parameters } : {}), transport, ...extra }, export: { as: `$context + { ${name}: ${collect} }` } },
  });
  return [
    call('tools', 'tools/list', undefined, '[.tools[].name]'),
    call('sum', 'tools/call', { name: 'add', arguments: { a: '${ $workflow.input.a }', b: 2 } }, '.structuredContent.sum'),
    call('who', 'tools/call', { name: 'whoami' }, '.structuredContent'),
    call('prompts', 'prompts/list', undefined, '[.prompts[].name]'),
    call('prompt', 'prompts/get', { name: 'greeting', arguments: { name: 'Ada' } }, '.messages[0].content.text'),
    call('resources', 'resources/list', undefined, '[.resources[].uri]'),
    call('config', 'resources/read', { uri: 'config://app' }, '.contents[0].text | fromjson'),
    call('profile', 'resources/read', { uri: 'users://7/profile' }, '.contents[0].text'),
    call('templates', 'resources/templates/list', undefined, '[.resourceTemplates[].uriTemplate]'),
    { done: { set: '${ $context }' } },
  ];
};

const EVERY_METHOD = {
  tools: ['add', 'whoami', 'fail', 'slow'],
  sum: 3,
  prompts: ['greeting'],
  prompt: 'Say hello to Ada',
  resources: ['config://app'],
  config: { mode: 'test' },
  profile: 'profile of user 7',
  templates: ['users://{id}/profile'],
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('stdio: every method on a child process, with the client, protocol version and environment ($secrets) the definition gives; the child ends with its call', async () => {
  const { result, workflowId } = await h.run(
    doc('mcp-stdio', everyMethod(stdio({ MCP_GREETING: '${ $secrets.MCP_GREETING }' }), { client: { name: 'swflow-tests', version: '2.0.0' }, protocolVersion: '2025-03-26' })),
    { a: 1 },
  );
  const out = (await result) as Record<string, unknown> & { who: Record<string, unknown> };
  const { who, ...rest } = out;
  assert.deepEqual(rest, EVERY_METHOD);
  assert.deepEqual(who.client, { name: 'swflow-tests', version: '2.0.0' });
  assert.equal(who.protocolVersion, '2025-03-26');
  assert.equal(who.greeting, '[redacted]', 'the server got the secret in its environment, redacted from the output');
  assert.equal(who.cwd, process.cwd());
  assert.equal(alive(who.pid as number), false, 'the stdio server exited when its call ended');
  await assertNoSecrets(h.client, workflowId, [SECRETS.MCP_GREETING]);
});

test('streamable HTTP: every method, a bearer token from $secrets and a secret header the server receives and history never holds; the default protocol version and client', async () => {
  server.received.length = 0;
  const { result, workflowId } = await h.run(doc('mcp-http', everyMethod(httpTransport(undefined, { 'X-Tenant': '${ $secrets.MCP_TENANT }' }))), { a: 1 });
  const { who, ...rest } = (await result) as Record<string, unknown> & { who: Record<string, unknown> };
  assert.deepEqual(rest, EVERY_METHOD);
  assert.equal(who.tenant, '[redacted]');
  assert.equal(who.protocolVersion, '2025-06-18', 'the spec\'s default');
  const initialize = server.received.filter((r) => r.method === 'initialize');
  assert.equal(initialize.length, 9, 'one session per call');
  assert.deepEqual(initialize[0]!.params, { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'swflow', version: '1.0.0' } });
  assert.ok(server.received.every((r) => r.headers.authorization === `Bearer ${SECRETS.MCP_TOKEN}` && r.headers['x-tenant'] === SECRETS.MCP_TENANT));
  assert.deepEqual(
    server.received.filter((r) => r.method !== 'initialize' && r.method !== 'notifications/initialized').map((r) => r.method),
    ['tools/list', 'tools/call', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list', 'resources/read', 'resources/read', 'resources/templates/list'],
  );
  const history = await assertNoSecrets(h.client, workflowId, [SECRETS.MCP_TOKEN, SECRETS.MCP_TENANT]);
  assert.match(history, /\/do\/1\/sum → mcp tools\/call add @ http:\/\/127\.0\.0\.1:\d+\/mcp/, 'the activity summary names the method, tool and server');
});

test('failures are the spec\'s errors try/catch filters on: a tool error (runtime), a command that cannot start, a server that is not speaking JSON-RPC, a refused token, nothing listening, a protocol version the server refuses (communication), a timeout', async () => {
  const closedPort = await freePort();
  const guarded = (name: string, transport: unknown, errors: { type: string; status: number }, extra: Record<string, unknown> = {}) => ({
    [name]: {
      try: [{ attempt: { call: 'mcp', with: { method: 'tools/call', parameters: { name: 'fail', arguments: { item: 'apples' } }, transport, ...extra } } }],
      catch: { errors: { with: { type: `${ERR}${errors.type}`, status: errors.status } }, as: 'e', do: [{ keep: { set: { [name]: '${ $e.title + ": " + $e.detail }' }, export: { as: `$context + .` } } }] },
    },
  });
  const { result, workflowId } = await h.run(
    doc(
      'mcp-errors',
      [
        guarded('toolStdio', stdio(), { type: 'runtime', status: 500 }),
        guarded('toolHttp', httpTransport({ use: 'mcpBearer' }), { type: 'runtime', status: 500 }),
        guarded('noCommand', { stdio: { command: '/nonexistent/mcp-server' } }, { type: 'communication', status: 503 }),
        guarded('garbage', { stdio: { command: process.execPath, arguments: ['-e', 'console.log("hello, I am not JSON-RPC"); setInterval(() => {}, 1000)'] } }, { type: 'communication', status: 502 }),
        guarded('noToken', httpTransport({ bearer: { token: 'wrong-token' } }), { type: 'communication', status: 401 }),
        guarded('nobody', { http: { endpoint: `http://127.0.0.1:${closedPort}/mcp` } }, { type: 'communication', status: 503 }),
        guarded('version', httpTransport(), { type: 'communication', status: 505 }, { protocolVersion: '1999-01-01' }),
        guarded('slow', stdio(), { type: 'timeout', status: 408 }, { parameters: { name: 'slow', arguments: { ms: 20_000 } }, timeout: { milliseconds: 1500 } }),
        { done: { set: '${ $context }' } },
      ],
      { authentications: { mcpBearer: { bearer: { use: 'MCP_BEARER' } } } },
    ),
  );
  const out = (await result) as Record<string, string>;
  assert.match(out.toolStdio!, /^Tool Error: MCP tools\/call "fail" at stdio server ".*mcp-server\.ts" answered a tool error: the warehouse has no apples$/);
  assert.match(out.toolHttp!, /^Tool Error: MCP tools\/call "fail" at http:\/\/127\.0\.0\.1:\d+\/mcp answered a tool error: the warehouse has no apples$/);
  assert.match(out.noCommand!, /^Service Unavailable: MCP tools\/call "fail" at stdio server "\/nonexistent\/mcp-server": the command could not be started: spawn \/nonexistent\/mcp-server ENOENT/);
  assert.match(out.garbage!, /^Bad Gateway: MCP tools\/call "fail" at stdio server ".*": the server broke the protocol: .*JSON/);
  assert.match(out.noToken!, /^HTTP 401: MCP tools\/call "fail" at http:\/\/127\.0\.0\.1:\d+\/mcp: .*unauthorized/);
  assert.match(out.nobody!, new RegExp(`^Service Unavailable: MCP tools/call "fail" at http://127\\.0\\.0\\.1:${closedPort}/mcp: ConnectionRefused`));
  assert.match(out.version!, /^Protocol Version Not Supported: MCP tools\/call "fail" at http:\/\/127\.0\.0\.1:\d+\/mcp: the server speaks MCP 2025-11-25, the call asks for 1999-01-01$/);
  assert.match(out.slow!, /^Request Timeout: MCP tools\/call "slow" at stdio server .*: no answer within the call's timeout$/);
  await assertNoSecrets(h.client, workflowId, [SECRETS.MCP_TOKEN], [], false);

  // Uncaught, the run fails with the problem; a definition problem is a configuration error.
  const uncaught = await h.run(doc('mcp-uncaught', [{ boom: { call: 'mcp', with: { method: 'tools/call', parameters: { name: 'fail', arguments: { item: 'pears' } }, transport: stdio() } } }]));
  await assert.rejects(uncaught.result, (e: unknown) => /errors\/runtime","status":500/.test(failureText(e)) && /the warehouse has no pears/.test(failureText(e)));
  const misdefined = await h.run(doc('mcp-misdefined', [{ bad: { call: 'mcp', with: { method: 'resources/read', transport: stdio() } } }]));
  await assert.rejects(misdefined.result, (e: unknown) => /errors\/configuration/.test(failureText(e)) && /resources\/read needs parameters\.uri/.test(failureText(e)));
});

test('a call longer than its heartbeat timeout completes: the adapter worker heartbeats while the server works', async () => {
  const { result, workflowId } = await h.run(
    doc('mcp-long', [{ slow: { call: 'mcp', metadata: { 'swflow.heartbeat': 'PT1S' }, with: { method: 'tools/call', parameters: { name: 'slow', arguments: { ms: 3500 } }, transport: stdio() }, output: { as: '.content[0].text' } } }]),
  );
  assert.equal(await result, 'slept 3500');
  const history = historyText(await h.client.workflow.getHandle(workflowId).fetchHistory());
  assert.ok(!history.includes('again:'), 'the call was made once: no heartbeat timeout');
});

test('a cancelled run cancels its call: the interpreter cancels the activity, whose stdio server is ended', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-mcp-'));
  const pidFile = join(dir, 'pid');
  const handle = await h.start(
    doc('mcp-cancel', [
      { slow: { call: 'mcp', metadata: { 'swflow.heartbeat': 'PT2S' }, with: { method: 'tools/call', parameters: { name: 'slow', arguments: { ms: 120_000 } }, transport: { stdio: { ...stdio().stdio, environment: { MCP_PID_FILE: pidFile } } } } } },
    ]),
  );
  const result = handle.result();
  result.catch(() => {});
  const pid = await waitFor(() => (existsSync(pidFile) && readFileSync(pidFile, 'utf8') ? Number(readFileSync(pidFile, 'utf8')) : undefined), 20_000);
  assert.ok(alive(pid));
  await handle.cancel();
  await assert.rejects(result);
  await waitFor(() => (alive(pid) ? undefined : true), 15_000);
  const history = historyText(await handle.fetchHistory());
  assert.ok(history.includes('ACTIVITY_TASK_CANCEL_REQUESTED'), 'the interpreter cancelled the activity');
});

async function waitFor<T>(probe: () => T | undefined, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A local port nothing listens on. */
function freePort(): Promise<number> {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}
