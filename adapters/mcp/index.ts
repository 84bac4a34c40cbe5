/**
 * The built-in adapter of Serverless Workflow 1.0 `call: mcp` (activity `sw.mcp`), written with
 * the public adapter SDK on the MCP TypeScript SDK: each call opens its own session to the MCP
 * server — a child process over `stdio` (`command`, `arguments`, `environment`;
 * `transport.options.cwd`) or streamable HTTP (`endpoint` with its `authentication`, `headers`) —
 * initializes it with the call's `protocolVersion` and `client`, sends the one method, and closes
 * it (./client.ts). The output is the JSON-RPC result. `$secrets` in `with` arrive resolved and
 * are redacted from whatever leaves the worker; the authentication policy's header is made here
 * (the SDK's authenticationHeaders: basic, bearer, an OAuth2/OIDC token from the worker's cache).
 *
 * Failures are RFC 7807 problems naming the server and the method:
 * - the server's own error — a tool result with `isError: true`, a JSON-RPC error answer — is a
 *   `runtime` error (the spec: "on failure, runtimes must raise an error with type runtime"),
 *   500 for a tool error, else the HTTP status nearest the JSON-RPC code (-32602 → 400, …);
 * - not reaching the server — a command that cannot start, a process that exits, a refused
 *   connection, an HTTP status, a broken protocol — is a `communication` error (503, or the status);
 * - the call's `timeout` elapsed: a `timeout` error (408);
 * - a refused token request: `authentication` (401); a definition problem: `configuration`.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { authenticationHeaders, BUILTIN_ADAPTER, builtinActivityName, MCP_CALL_ACTIVITY, ConfigurationError, configurationFailure, defineAdapter, ErrorCodes, ErrorTypes, isAdapterError, networkFailure, problemFailure, type ActivityContext, type Adapter, type Json, type Problem } from '../../src/adapter-sdk';
import { ProtocolVersionError, sendMcp } from './client';
import { mcpCall, type McpCall } from './request';

/** The client a call announces without `client`. */
export const DEFAULT_CLIENT = { name: 'swflow', version: '1.0.0' };

/** JSON-RPC errors of the SDK itself, not answers of the server. */
const CONNECTION_CLOSED = -32000;
const REQUEST_TIMEOUT = -32001;

/** The HTTP status nearest a JSON-RPC error code the server answered. */
const STATUS_OF_CODE: Record<number, [number, string]> = {
  [-32700]: [400, 'Parse Error'],
  [-32600]: [400, 'Invalid Request'],
  [-32601]: [501, 'Method Not Found'],
  [-32602]: [400, 'Invalid Params'],
  [-32603]: [500, 'Internal Error'],
  [-32002]: [404, 'Resource Not Found'],
};

/** One `call: mcp`: the method its evaluated `with` names, sent to its server. */
export async function invokeMcp(args: Json, ctx: ActivityContext): Promise<Json> {
  let call: McpCall;
  let headers: Record<string, string> = {};
  try {
    call = mcpCall(args, DEFAULT_CLIENT);
    if (call.transport.kind === 'http') headers = { ...call.transport.headers, ...(await authenticationHeaders(call.transport.authentication, ctx)) };
  } catch (err) {
    if (err instanceof ConfigurationError) throw configurationFailure(`${ctx.state}: ${err.message}`);
    if (isAdapterError(err) && err.code === ErrorCodes.AuthError) {
      if (err.nonRetryable) throw configurationFailure(`${ctx.state}: ${err.message}`);
      throw problemFailure({ type: ErrorTypes.authentication, status: 401, title: 'Unauthorized', detail: `${ctx.state}: ${err.message}` });
    }
    throw err;
  }
  const session: { stderr?: string } = {};
  let result: unknown;
  try {
    result = await sendMcp(call, headers, ctx.signal, session);
  } catch (err) {
    if (ctx.signal.aborted) throw err; // the SDK reports the cancellation
    throw problemFailure(failureProblem(err, call, session.stderr));
  }
  const r = result as { isError?: boolean; content?: unknown };
  if (call.method === 'tools/call' && r?.isError === true) {
    throw problemFailure({ type: ErrorTypes.runtime, status: 500, title: 'Tool Error', detail: `${describe(call)} answered a tool error: ${contentText(r.content)}` });
  }
  return JSON.parse(JSON.stringify(result ?? null)) as Json;
}

/** `MCP tools/call "add" at http://host/mcp`: what the messages name. */
export function describe(call: McpCall): string {
  const p = call.parameters;
  const subject = typeof p.name === 'string' ? ` "${p.name}"` : typeof p.uri === 'string' ? ` ${p.uri}` : '';
  const t = call.transport;
  const server = t.kind === 'http' ? t.url : `stdio server "${[t.command, ...t.arguments].join(' ').slice(0, 160)}"`;
  return `MCP ${call.method}${subject} at ${server}`;
}

/** The problem of a failed session (see the module comment). */
export function failureProblem(err: unknown, call: McpCall, stderr?: string): Problem {
  const where = describe(call);
  const said = stderr?.trim() ? ` (stderr: ${stderr.trim()})` : '';
  const communication = (status: number, title: string, why: string): Problem => ({ type: ErrorTypes.communication, status, title, detail: `${where}: ${why}${said}` });
  if (err instanceof McpError) {
    if (err.code === REQUEST_TIMEOUT) return { type: ErrorTypes.timeout, status: 408, title: 'Request Timeout', detail: `${where}: no answer within the call's timeout` };
    if (err.code === CONNECTION_CLOSED) return communication(503, 'Service Unavailable', `the connection closed before the answer (${err.message})`);
    const [status, title] = STATUS_OF_CODE[err.code] ?? [500, 'JSON-RPC Error'];
    return { type: ErrorTypes.runtime, status, title, detail: `${where} answered JSON-RPC error ${err.code}: ${err.message.replace(/^MCP error -?\d+: /, '')}` };
  }
  if (err instanceof StreamableHTTPError) {
    const status = typeof err.code === 'number' && err.code >= 400 ? err.code : 502;
    return communication(status, status === 502 ? 'Bad Gateway' : `HTTP ${status}`, err.message);
  }
  if (err instanceof ProtocolVersionError) return communication(505, 'Protocol Version Not Supported', err.message);
  const e = err as { code?: unknown; syscall?: string; message?: string };
  if (call.transport.kind === 'stdio' && typeof e?.syscall === 'string' && e.syscall.startsWith('spawn')) {
    return communication(503, 'Service Unavailable', `the command could not be started: ${e.message ?? String(err)}`);
  }
  if (err instanceof SyntaxError || (err as Error)?.name === 'ZodError') return communication(502, 'Bad Gateway', `the server broke the protocol: ${(err as Error).message.slice(0, 300)}`);
  const net = networkFailure(err);
  return communication(503, 'Service Unavailable', `${net.code}: ${net.message}`);
}

/** The text of a tool result's content (its text blocks, else the JSON). */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return JSON.stringify(content ?? null);
  const texts = content.filter((c) => c && typeof c === 'object' && c.type === 'text' && typeof c.text === 'string').map((c) => c.text as string);
  return (texts.length ? texts.join('\n') : JSON.stringify(content)).slice(0, 1000);
}

/** The `call: mcp` adapter (activity `sw.mcp`). */
export function mcpAdapter(): Adapter {
  return defineAdapter({ name: BUILTIN_ADAPTER, description: '1.0 call: mcp', activities: { [builtinActivityName(MCP_CALL_ACTIVITY)]: invokeMcp } });
}
