/**
 * The MCP server over streamable HTTP (stateless: a server per request, answers as JSON). Each
 * request's `Authorization: Bearer <token>` decides whether it may use the operator's tools; the
 * read-only tools need none. Bound to loopback by default, and then answering only requests whose
 * Host is a loopback name: a web page in the user's browser must not reach it through a DNS name
 * of its own that resolves to 127.0.0.1 (DNS rebinding).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { bearerOf, tokenMatches } from '../operations/token';
import type { Access, McpContext } from './context';
import { createMcpServer } from './server';

export interface McpHttpOptions {
  host: string;
  port: number;
  /** The configured operator token; none: the operator's tools are refused to every request. */
  token?: string;
  context: Omit<McpContext, 'access' | 'anyPath'>;
}

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

/** The path the protocol is served at. */
export const MCP_PATH = '/mcp';

/** The largest request body taken (a definition document inside a JSON-RPC call). */
const MAX_BODY = 8 * 1024 * 1024;

export function accessOf(token: string | undefined, req: IncomingMessage): Access {
  if (!token) return { allowed: false, why: 'this server has no operator token: start `swflow mcp --http` with --operator-token <token> (or $SWFLOW_OPERATOR_TOKEN) and send it as `Authorization: Bearer <token>`' };
  const given = bearerOf(req.headers.authorization);
  if (given === undefined) return { allowed: false, why: 'send the operator token as `Authorization: Bearer <token>`' };
  return tokenMatches(token, given) ? { allowed: true } : { allowed: false, why: 'the bearer token is not the operator token' };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** A Host header's name, without its port or IPv6 brackets. */
function hostnameOf(host: string | undefined): string {
  return (host ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

export async function startMcpHttp(opts: McpHttpOptions): Promise<McpHttpServer> {
  const http: Server = createServer((req, res) => {
    void handle(req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: String(err.message).split('\n')[0] }, id: null }));
    });
  });
  const handle = async (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://mcp').pathname;
    if (path !== MCP_PATH) return void res.writeHead(404, { 'content-type': 'text/plain' }).end(`the MCP endpoint is ${MCP_PATH}`);
    // Stateless: no session to stream to (GET) or to end (DELETE).
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    if (LOOPBACK.has(opts.host) && !LOOPBACK.has(hostnameOf(req.headers.host))) {
      return void res.writeHead(403, { 'content-type': 'text/plain' }).end('this server answers only requests addressed to a loopback name (Host: 127.0.0.1, localhost or [::1])');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY) return void res.writeHead(413, { 'content-type': 'text/plain' }).end(`a request body is at most ${MAX_BODY} bytes`);
      chunks.push(c as Buffer);
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (err) {
      return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: `not JSON: ${(err as Error).message}` }, id: null }));
    }
    const server = createMcpServer({ ...opts.context, access: accessOf(opts.token, req), anyPath: false });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const port = () => (http.address() as AddressInfo).port;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolve());
  });
  const shown = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port()}${MCP_PATH}`,
    close: () => new Promise((r) => (http.closeAllConnections(), http.close(() => r()))),
  };
}
