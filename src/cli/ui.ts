/**
 * `swflow ui`: the run page alone (src/ui/server.ts), against a running Temporal server
 * (TEMPORAL_ADDRESS, default 127.0.0.1:7233) whose workers serve `--definitions`. `swflow start`
 * serves the same page next to its workers.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { DefinitionRegistry } from '../definitions/registry';
import { PROJECT_ROOT } from '../platform/paths';
import { dataConverterOptions } from '../codec';
import { OPERATOR_TOKEN_ENV, operatorToken } from '../operations/token';

/** The run page's default port (`swflow ui`, `swflow start`). */
export const UI_PORT = 8234;

interface UiOptions {
  port: string;
  host: string;
  definitions: string[];
  webUi?: string;
  operatorToken?: string;
}

/** The operator token flag, shared by `swflow ui` and `swflow start`. */
export const OPERATOR_TOKEN_HELP = `turn on the run page's actions (cancel, suspend, resume, send an event, redrive), each needing this token (default $${OPERATOR_TOKEN_ENV}, which keeps it out of the process list; unset: actions off)`;

/** The line the run page's startup prints about its actions (never the token). */
export const actionsLine = (token: string | undefined) =>
  token ? "Run page actions: on (each needs the operator token; the page asks for it once)" : `Run page actions: off (--operator-token or $${OPERATOR_TOKEN_ENV} turns them on)`;

export function register(program: Command): void {
  program
    .command('ui')
    .description('Serve the run page: the definitions as graphs, and a run drawn on its graph, live (reads Temporal, stores nothing)')
    .option('--port <port>', 'HTTP port', String(UI_PORT))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('-d, --definitions <paths...>', 'definition folders or files the workers serve', [join(PROJECT_ROOT, 'examples')])
    .option('--operator-token <token>', OPERATOR_TOKEN_HELP)
    .option('--web-ui <url>', 'the Temporal Web UI, for links to runs (default $TEMPORAL_WEB_UI, else http://localhost:8233 for a local server)')
    .action(async (opts: UiOptions) => {
      const target = targetFromEnv() ?? { address: '127.0.0.1:7233', namespace: 'default' };
      const connection = await Connection.connect(connectionOptions(target));
      const client = new Client({ connection, namespace: target.namespace, ...dataConverterOptions() });
      const local = /^(127\.0\.0\.1|localhost):/.test(target.address);
      const webUiUrl = opts.webUi ?? process.env.TEMPORAL_WEB_UI ?? (local ? 'http://localhost:8233' : undefined);
      const token = operatorToken(opts.operatorToken);
      const { startRunPage } = await import('../ui/server');
      const page = await startRunPage({ client, registry: new DefinitionRegistry(opts.definitions), webUiUrl, host: opts.host, port: Number(opts.port), operatorToken: token }).catch((err: Error) => {
        throw new Error(`The run page cannot listen on ${opts.host}:${opts.port} (${err.message}); choose another with --port.`);
      });
      console.log(`Run page: ${page.url}  (Temporal ${target.address}, namespace ${target.namespace})`);
      console.log(actionsLine(token));
      console.log(`Set SWFLOW_UI_URL=${page.url} where runs are started, so the Web UI links each run to it.`);
      const stop = () => void page.close().then(() => connection.close()).then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
