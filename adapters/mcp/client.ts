/**
 * One MCP session per call, on the MCP TypeScript SDK: connect (the SDK's `initialize`, asking
 * for the call's protocol version and announcing its client), send the one request, close — the
 * stdio child is ended and an HTTP session terminated whatever happened. Cancellation (the
 * activity's signal) and the call's `timeout` reach both the handshake and the request.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { McpCall } from './request';
import { errorClass, httpFetchAsFetch, SwflowError, traceHeaders } from '../../src/adapter-sdk';

/** No timeout of the call's own: setTimeout's largest delay (the SDK's default would be 60 s). */
const NO_TIMEOUT_MS = 2 ** 31 - 1;
/** How much of a stdio server's stderr a failure quotes. */
const STDERR_TAIL = 1000;

/** The server did not agree to the protocol version the definition asked for. */
export class ProtocolVersionError extends SwflowError {
  static {
    errorClass(this, 'ProtocolVersionError');
  }
}

/**
 * Runs `call` on a new session; `headers` are the HTTP transport's (with authentication);
 * `session.stderr` keeps the end of a stdio server's stderr.
 * Rejects with the SDK's errors (McpError for JSON-RPC errors, timeouts and a closed connection;
 * spawn and network errors as Node gives them; StreamableHTTPError with the HTTP status).
 */
export async function sendMcp(call: McpCall, headers: Record<string, string>, signal: AbortSignal, session: { stderr?: string } = {}): Promise<unknown> {
  const deadline = Date.now() + (call.timeoutMs ?? NO_TIMEOUT_MS);
  const options = (): RequestOptions => ({ signal, timeout: Math.max(1, Math.min(NO_TIMEOUT_MS, deadline - Date.now())) });
  const transport = transportOf(call, headers, session);
  let negotiated: string | undefined;
  askFor(transport, call.protocolVersion, (v) => (negotiated = v));
  const client = new Client(call.client, { capabilities: {} });
  // A stdio server that writes something other than JSON-RPC on stdout breaks the protocol: fail now, not at the timeout.
  let broken: (err: unknown) => void = () => {};
  const protocolBroken = new Promise<never>((_, reject) => (broken = reject));
  protocolBroken.catch(() => {});
  client.onerror = (err) => {
    if (call.transport.kind === 'stdio' && (err instanceof SyntaxError || (err as Error)?.name === 'ZodError')) broken(err);
  };
  try {
    await Promise.race([client.connect(transport, options()), protocolBroken]);
    if (call.versionRequired && negotiated !== undefined && negotiated !== call.protocolVersion) {
      throw new ProtocolVersionError(`the server speaks MCP ${negotiated}, the call asks for ${call.protocolVersion}`);
    }
    return await Promise.race([request(client, call, options()), protocolBroken]);
  } finally {
    await close(client, transport);
  }
}

function request(client: Client, call: McpCall, options: RequestOptions): Promise<unknown> {
  const p = call.parameters as never;
  switch (call.method) {
    case 'tools/list':
      return client.listTools(p, options);
    case 'tools/call':
      return client.callTool(p, undefined, options);
    case 'prompts/list':
      return client.listPrompts(p, options);
    case 'prompts/get':
      return client.getPrompt(p, options);
    case 'resources/list':
      return client.listResources(p, options);
    case 'resources/read':
      return client.readResource(p, options);
    case 'resources/templates/list':
      return client.listResourceTemplates(p, options);
  }
}

function transportOf(call: McpCall, headers: Record<string, string>, session: { stderr?: string }): Transport {
  const t = call.transport;
  // The active trace context (`traceparent`) goes on every request of the session when the process traces.
  if (t.kind === 'http') return new StreamableHTTPClientTransport(new URL(t.url), { fetch: httpFetchAsFetch, requestInit: { headers: { ...traceHeaders(), ...headers } } });
  const stdio = new StdioClientTransport({ command: t.command, args: t.arguments, env: t.environment, ...(t.cwd ? { cwd: t.cwd } : {}), stderr: 'pipe' });
  // Read stderr (a full pipe would block the server), keeping its end for failure messages.
  stdio.stderr?.on('data', (chunk: Buffer) => {
    session.stderr = `${session.stderr ?? ''}${chunk.toString('utf8')}`.slice(-STDERR_TAIL);
  });
  return stdio;
}

/**
 * The SDK's client always offers its latest protocol version in `initialize`: offer the call's
 * instead, and learn what the server chose (the client tells an HTTP transport; a stdio one is
 * told the same way here).
 */
function askFor(transport: Transport, version: string, chosen: (v: string) => void): void {
  const send = transport.send.bind(transport);
  transport.send = (message, opts) => {
    const m = message as { method?: string; params?: Record<string, unknown> };
    return send(m.method === 'initialize' ? ({ ...m, params: { ...m.params, protocolVersion: version } } as unknown as typeof message) : message, opts);
  };
  const set = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    chosen(v);
    set?.(v);
  };
}

/** Ends the session: an HTTP session is terminated (best effort), the client and transport closed (a stdio child ended). */
async function close(client: Client, transport: Transport): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await Promise.race([transport.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, 2000).unref())]);
  }
  await client.close().catch(() => {});
  await transport.close().catch(() => {});
}
