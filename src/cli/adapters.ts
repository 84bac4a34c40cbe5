/**
 * `swflow adapters`: runs the built-in adapter worker (REST) against a Temporal server
 * (TEMPORAL_ADDRESS, default localhost:7233) — to scale function calls out on their own machines.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { NativeConnection } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { PROJECT_ROOT } from '../platform/paths';
import { createAdapterWorker } from '../worker/adapter-worker';

interface AdaptersCliOptions {
  definitions: string[];
  taskQueue: string;
}

export function register(program: Command): void {
  program
    .command('adapters')
    .description('Run the built-in adapter worker (REST over OpenAPI) against a Temporal server')
    .option('-d, --definitions <dirs...>', 'folders where relative OpenAPI documents are found', [join(PROJECT_ROOT, 'examples')])
    .option('-q, --task-queue <queue>', 'task queue', ADAPTER_TASK_QUEUE)
    .action((opts: AdaptersCliOptions) => runAdapters(opts));
}

async function runAdapters(opts: AdaptersCliOptions): Promise<void> {
  const target = targetFromEnv() ?? { address: 'localhost:7233', namespace: 'default' };
  const connection = await NativeConnection.connect(connectionOptions(target));
  const worker = await createAdapterWorker({ connection, namespace: target.namespace, taskQueue: opts.taskQueue, baseDirs: opts.definitions });
  console.log(`[swflow adapters] serving task queue ${opts.taskQueue} on ${target.address} (namespace ${target.namespace})`);
  await worker.run();
  await connection.close();
}
