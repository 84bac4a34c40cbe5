/**
 * The swflow MCP server (`swflow mcp`): tools and resources for agents that write workflow
 * definitions and operate their runs. One McpServer per client (stdio) or per HTTP request
 * (stateless), each knowing what that client may do (McpContext.access), all sharing the process's
 * definitions and Temporal connection.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpContext } from './context';
import { registerDefinitionResources, registerDefinitionTools } from './definitions';
import { registerRunTools } from './runs';

const { version } = require('../../package.json') as { version: string };

const INSTRUCTIONS =
  'swflow runs Serverless Workflow definitions (0.8 and 1.0) durably on Temporal. Validate and draw a definition before running it; ' +
  'list_definitions names what the workers serve; describe_run tells where a run is and why it failed. ' +
  'start_run, send_event, redrive_run, cancel_run, suspend_run and resume_run act on live runs and need the operator token.';

export function createMcpServer(ctx: McpContext): McpServer {
  const server = new McpServer({ name: 'swflow', version }, { instructions: INSTRUCTIONS });
  registerDefinitionTools(server, ctx);
  registerRunTools(server, ctx);
  registerDefinitionResources(server, ctx);
  return server;
}

/** Serves one client over stdin/stdout (logs go to stderr: stdout is the protocol's). */
export async function serveStdio(ctx: McpContext): Promise<McpServer> {
  const server = createMcpServer(ctx);
  await server.connect(new StdioServerTransport());
  return server;
}
