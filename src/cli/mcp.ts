/**
 * `swflow mcp`: the MCP server for agents (src/mcp): validate, draw and list definitions; start,
 * describe, send events to, redrive, cancel, suspend and resume runs. Over stdio (default: an MCP
 * client starts it) or streamable HTTP (`--http`, loopback by default). Temporal (TEMPORAL_ADDRESS,
 * as `swflow ui`) is connected on first use, so the definition tools work without a server.
 *
 *   swflow mcp -d ./workflows
 *   SWFLOW_OPERATOR_TOKEN=... swflow mcp --http --port 8235 -d ./workflows
 */
import { join } from 'node:path';
import { format } from 'node:util';
import type { Command } from 'commander';
import { DefinitionRegistry, requireDefinitionPaths } from '../definitions/registry';
import { OPERATOR_TOKEN_ENV, operatorToken } from '../operations/token';
import { PROJECT_ROOT } from '../platform/paths';
import { createJsonLogger, jsonLogger, logLine } from '../tracing/log';

/** Over stdio, stdout is the protocol's: every log line (text, or JSON with --log-format json) goes to stderr. */
function logToStderr(): void {
  const json = jsonLogger() ? createJsonLogger('swflow-mcp', process.stderr) : undefined;
  for (const method of ['log', 'info', 'warn', 'error'] as const) {
    const level = method === 'log' ? 'info' : method;
    console[method] = json ? (...args: unknown[]) => logLine(json, level, args) : (...args: unknown[]) => void process.stderr.write(`${format(...args)}\n`);
  }
}

/** `swflow mcp --http`'s default port (the run page's is 8234). */
export const MCP_PORT = 8235;

interface McpOptions {
  http?: boolean;
  port: string;
  host: string;
  definitions: string[];
  operatorToken?: string;
}

export function register(program: Command): void {
  program
    .command('mcp')
    .description('Serve the MCP server for agents: definition tools (validate, draw, list) and run tools (start, describe, send an event, redrive, cancel, suspend, resume)')
    .option('--http', 'serve streamable HTTP (at /mcp) instead of stdio')
    .option('--port <port>', 'HTTP port (with --http)', String(MCP_PORT))
    .option('--host <host>', 'address to listen on (with --http); anything but loopback exposes the server: put TLS in front of it', '127.0.0.1')
    .option('-d, --definitions <paths...>', 'definition folders or files the workers serve', [join(PROJECT_ROOT, 'examples')])
    .option('--operator-token <token>', `enables the tools that act on runs (default $${OPERATOR_TOKEN_ENV}); over HTTP each request must send it as Authorization: Bearer <token>`)
    .action(async (opts: McpOptions) => {
      requireDefinitionPaths(opts.definitions);
      const token = operatorToken(opts.operatorToken);
      const { TemporalLink } = await import('../mcp/context');
      const link = new TemporalLink();
      const context = { registry: new DefinitionRegistry(opts.definitions), client: () => link.client(), target: link.target };
      let close: () => Promise<void>;
      if (opts.http) {
        const { startMcpHttp } = await import('../mcp/http');
        const port = Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${opts.port}: expected a port number`);
        const server = await startMcpHttp({ host: opts.host, port, token, context }).catch((err: Error) => {
          throw new Error(`The MCP server cannot listen on ${opts.host}:${opts.port} (${err.message}); choose another with --port.`);
        });
        console.log(`MCP server: ${server.url}  (Temporal ${link.target.address}, namespace ${link.target.namespace}; operator tools ${token ? 'need the bearer token' : `off: no --operator-token or $${OPERATOR_TOKEN_ENV}`})`);
        close = () => server.close();
      } else {
        logToStderr();
        const { serveStdio } = await import('../mcp/server');
        const why = `start \`swflow mcp\` with --operator-token <token> (or $${OPERATOR_TOKEN_ENV}) to enable it`;
        const server = await serveStdio({ ...context, access: token ? { allowed: true } : { allowed: false, why }, anyPath: true });
        console.info(`swflow MCP server on stdio (Temporal ${link.target.address}; operator tools ${token ? 'on' : 'off'})`);
        close = () => server.close();
        process.stdin.once('end', () => void stop());
      }
      const stop = () => close().then(() => link.close()).then(() => process.exit(0));
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());
    });
}
