/**
 * A real MCP server for the `call: mcp` tests, built with the MCP TypeScript SDK's McpServer:
 * tools `add` (structured result), `whoami` (what the server knows of its client and process),
 * `fail` (a result with `isError: true`) and `slow` (waits), a prompt `greeting`, a resource
 * `config://app` and a resource template `users://{id}/profile`.
 *
 * Run as a child process it serves stdio (`node --import tsx test/adapters/mcp-server.ts`;
 * with MCP_PID_FILE it writes its pid there first). {@link startHttpMcpServer} serves it over
 * streamable HTTP on a local port (stateless: one server per request), requiring a bearer token
 * and logging every JSON-RPC message with its headers.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** The MCP server (stdio: the initialize request it answered is kept for `whoami`). */
export function mcpServer(): McpServer {
  const server = new McpServer({ name: 'swflow-test-server', version: '1.2.3' });
  let initialize: { protocolVersion?: string; clientInfo?: unknown } = {};
  const inner = server.server as unknown as { _oninitialize(r: { params: typeof initialize }): Promise<unknown> };
  const answer = inner._oninitialize.bind(inner);
  inner._oninitialize = (r) => ((initialize = r.params), answer(r));

  server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
    structuredContent: { sum: a + b },
  }));
  server.registerTool('whoami', { description: 'What the server knows of its client and process' }, async (extra) => {
    const facts = {
      client: initialize.clientInfo ?? null,
      protocolVersion: initialize.protocolVersion ?? extra.requestInfo?.headers['mcp-protocol-version'] ?? null,
      greeting: process.env.MCP_GREETING ?? null,
      cwd: process.cwd(),
      pid: process.pid,
      tenant: extra.requestInfo?.headers['x-tenant'] ?? null,
    };
    return { content: [{ type: 'text', text: JSON.stringify(facts) }], structuredContent: facts };
  });
  server.registerTool('fail', { description: 'Always fails', inputSchema: { item: z.string() } }, async ({ item }) => ({
    content: [{ type: 'text', text: `the warehouse has no ${item}` }],
    isError: true,
  }));
  server.registerTool('slow', { description: 'Answers after ms milliseconds', inputSchema: { ms: z.number() } }, async ({ ms }) => {
    await new Promise((r) => setTimeout(r, ms));
    return { content: [{ type: 'text', text: `slept ${ms}` }] };
  });
  server.registerPrompt('greeting', { description: 'Greets someone', argsSchema: { name: z.string() } }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}` } }],
  }));
  server.registerResource('config', 'config://app', { description: 'The app configuration', mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: '{"mode":"test"}' }],
  }));
  server.registerResource(
    'profile',
    new ResourceTemplate('users://{id}/profile', { list: undefined }),
    { description: 'A user profile', mimeType: 'text/plain' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `profile of user ${String(id)}` }] }),
  );
  return server;
}

export interface HttpMcpServer {
  url: string;
  /** Every JSON-RPC message received, with the request's headers. */
  received: { method?: string; params?: Record<string, unknown>; headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

/** The server over streamable HTTP at `http://127.0.0.1:<port>/mcp`, answering 401 without `Bearer <token>`. */
export async function startHttpMcpServer(token: string): Promise<HttpMcpServer> {
  const received: HttpMcpServer['received'] = [];
  const http = createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"unauthorized"}');
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    for (const m of [body].flat() as { method?: string; params?: Record<string, unknown> }[]) received.push({ method: m.method, params: m.params, headers: req.headers });
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    close: () => new Promise((r) => (http.closeAllConnections(), http.close(() => r()))),
  };
}

if (require.main === module) {
  if (process.env.MCP_PID_FILE) writeFileSync(process.env.MCP_PID_FILE, String(process.pid));
  void mcpServer().connect(new StdioServerTransport());
}
