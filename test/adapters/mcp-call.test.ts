/**
 * The 1.0 MCP adapter's pure parts: what an evaluated `with` asks of which server (and what a
 * definition gets wrong, said clearly), and which of the spec's errors each failure is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConfigurationError } from '../../src/adapter-sdk';
import { failureProblem } from '../../adapters/mcp';
import { durationMs, mcpCall } from '../../adapters/mcp/request';

const CLIENT = { name: 'swflow', version: '1.0.0' };
const stdio = { stdio: { command: 'mcp-server', arguments: ['--stdio', 3], environment: { TOKEN: 't', EMPTY: null } }, options: { cwd: '/srv' } };

test('with → call: method, parameters (an object or its JSON text), transports, client, protocol version, timeout', () => {
  assert.deepEqual(mcpCall({ method: 'tools/call', parameters: { name: 'add', arguments: { a: 1 } }, transport: stdio, timeout: 'PT1M30S' }, CLIENT), {
    method: 'tools/call',
    parameters: { name: 'add', arguments: { a: 1 } },
    transport: { kind: 'stdio', command: 'mcp-server', arguments: ['--stdio', '3'], environment: { TOKEN: 't' }, cwd: '/srv' },
    client: CLIENT,
    protocolVersion: '2025-06-18',
    versionRequired: false,
    timeoutMs: 90_000,
  });
  const http = mcpCall({ method: 'resources/read', parameters: '{"uri":"config://app"}', protocolVersion: '2025-03-26', client: { name: 'me', version: '2' }, transport: { http: { endpoint: { uri: 'http://h/mcp', authentication: { bearer: { token: 'x' } } }, headers: { 'X-A': 'b' } } } }, CLIENT);
  assert.deepEqual(http.transport, { kind: 'http', url: 'http://h/mcp', headers: { 'x-a': 'b' }, authentication: { bearer: { token: 'x' } } });
  assert.deepEqual([http.parameters, http.client, http.protocolVersion, http.versionRequired], [{ uri: 'config://app' }, { name: 'me', version: '2' }, '2025-03-26', true]);
  assert.deepEqual(mcpCall({ method: 'tools/list', transport: { http: { endpoint: 'https://h/mcp' } } }, CLIENT).transport, { kind: 'http', url: 'https://h/mcp', headers: {} });
});

test('a definition problem is a ConfigurationError that says what is wrong', () => {
  const bad = (w: unknown, re: RegExp) => assert.throws(() => mcpCall(w as never, CLIENT), (e: unknown) => e instanceof ConfigurationError && re.test((e as Error).message));
  bad({ method: 'tools/destroy', transport: stdio }, /method "tools\/destroy" is not one of tools\/list, tools\/call/);
  bad({ method: 'tools/list' }, /transport needs exactly one of http and stdio/);
  bad({ method: 'tools/list', transport: { ...stdio, http: { endpoint: 'http://h' } } }, /exactly one of http and stdio/);
  bad({ method: 'tools/list', transport: { stdio: {} } }, /transport\.stdio needs a command/);
  bad({ method: 'tools/list', transport: { http: { endpoint: 'file:///x' } } }, /must be http\(s\), not file:/);
  bad({ method: 'tools/list', transport: { http: { endpoint: 'not a url' } } }, /"not a url" is not a URL/);
  bad({ method: 'tools/call', transport: stdio }, /tools\/call needs parameters\.name/);
  bad({ method: 'prompts/get', parameters: 'nope', transport: stdio }, /parameters must be an object/);
  bad({ method: 'tools/list', client: { version: '1' }, transport: stdio }, /client needs a name/);
  bad({ method: 'tools/list', timeout: 'soon', transport: stdio }, /timeout "soon" is not a duration/);
});

test('durations: ISO 8601 and the object form', () => {
  assert.equal(durationMs('PT0.5S'), 500);
  assert.equal(durationMs('P1DT1H'), 90_000_000);
  assert.equal(durationMs({ minutes: 1, milliseconds: 250 }), 60_250);
  for (const d of ['P', 'PT', 'PT0S', { weeks: 1 }, {}, 5]) assert.throws(() => durationMs(d as never), ConfigurationError);
});

test('failures → the spec\'s errors: JSON-RPC answers are runtime errors with the nearest status; the SDK\'s timeout a timeout; not reaching the server communication', () => {
  const call = mcpCall({ method: 'prompts/get', parameters: { name: 'greeting' }, transport: { http: { endpoint: 'http://h/mcp' } } }, CLIENT);
  assert.deepEqual(failureProblem(new McpError(-32602, 'Invalid arguments'), call), {
    type: 'https://serverlessworkflow.io/spec/1.0.0/errors/runtime',
    status: 400,
    title: 'Invalid Params',
    detail: 'MCP prompts/get "greeting" at http://h/mcp answered JSON-RPC error -32602: Invalid arguments',
  });
  assert.equal(failureProblem(new McpError(-32601, 'no prompts'), call).status, 501);
  assert.equal(failureProblem(new McpError(-31000, 'odd'), call).status, 500);
  assert.deepEqual(failureProblem(new McpError(-32001, 'Request timed out'), call), { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/timeout', status: 408, title: 'Request Timeout', detail: 'MCP prompts/get "greeting" at http://h/mcp: no answer within the call\'s timeout' });
  const closed = failureProblem(new McpError(-32000, 'Connection closed'), { ...call, transport: { kind: 'stdio', command: 'srv', arguments: [], environment: {} } }, 'boom: no config\n');
  assert.deepEqual([closed.type, closed.status], ['https://serverlessworkflow.io/spec/1.0.0/errors/communication', 503]);
  assert.match(closed.detail!, /^MCP prompts\/get "greeting" at stdio server "srv": the connection closed before the answer .*\(stderr: boom: no config\)$/);
  assert.deepEqual([failureProblem(new StreamableHTTPError(403, 'Forbidden'), call).status, failureProblem(new StreamableHTTPError(-1, 'Unexpected content type'), call).status], [403, 502]);
  const refused = failureProblem(Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) }), call);
  assert.deepEqual([refused.type, refused.status, refused.detail], ['https://serverlessworkflow.io/spec/1.0.0/errors/communication', 503, 'MCP prompts/get "greeting" at http://h/mcp: ConnectionRefused: connect ECONNREFUSED 127.0.0.1:9']);
});
