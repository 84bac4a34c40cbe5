/**
 * `swflow gateway`: runs the event gateway alone against a Temporal server (TEMPORAL_ADDRESS,
 * default localhost:7233), routing by the definitions of `--definitions`. Run as many as you
 * like behind a load balancer: routing needs no shared state.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { DefinitionRegistry } from '../activities/definitions';
import { GATEWAY_PORT, startGateway } from '../gateway/server';
import { PROJECT_ROOT } from '../platform/paths';

interface GatewayCliOptions {
  definitions: string[];
  port: string;
  host: string;
  taskQueue: string;
}

export function register(program: Command): void {
  program
    .command('gateway')
    .description('Run the event gateway (CloudEvents over HTTP) against a Temporal server')
    .option('-d, --definitions <paths...>', 'definition folders or files to route by', [join(PROJECT_ROOT, 'examples')])
    .option('-p, --port <port>', 'HTTP port', String(GATEWAY_PORT))
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('-q, --task-queue <queue>', 'the interpreter task queue new instances start on', INTERPRETER_TASK_QUEUE)
    .action((opts: GatewayCliOptions) => runGateway(opts));
}

async function runGateway(opts: GatewayCliOptions): Promise<void> {
  const target = targetFromEnv() ?? { address: 'localhost:7233', namespace: 'default' };
  const connection = await Connection.connect(connectionOptions(target));
  const registry = new DefinitionRegistry(opts.definitions);
  const gateway = await startGateway({
    client: new Client({ connection, namespace: target.namespace }),
    definitions: () => registry.definitions(),
    taskQueue: opts.taskQueue,
    host: opts.host,
    port: Number(opts.port),
    log: (m) => console.log(`[swflow gateway] ${m}`),
  });
  console.log(`[swflow gateway] listening on ${gateway.url}, Temporal ${target.address} (namespace ${target.namespace})`);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await gateway.close();
  await connection.close();
}
