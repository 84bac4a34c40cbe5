/**
 * `swflow worker`: runs the interpreter worker against a Temporal server (TEMPORAL_ADDRESS,
 * default localhost:7233), serving the definitions of `--definitions` (default examples/).
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { NativeConnection } from '@temporalio/worker';
import { INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { PROJECT_ROOT } from '../platform/paths';
import { createInterpreterWorker } from '../worker/interpreter-worker';

interface WorkerCliOptions {
  definitions: string[];
  taskQueue: string;
}

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run the interpreter worker (the generic workflow) against a Temporal server')
    .option('-d, --definitions <paths...>', 'definition folders or files', [join(PROJECT_ROOT, 'examples')])
    .option('-q, --task-queue <queue>', 'task queue', INTERPRETER_TASK_QUEUE)
    .action((opts: WorkerCliOptions) => runWorker(opts));
}

export async function runWorker(opts: WorkerCliOptions): Promise<void> {
  const target = targetFromEnv() ?? { address: 'localhost:7233', namespace: 'default' };
  const connection = await NativeConnection.connect(connectionOptions(target));
  const worker = await createInterpreterWorker({
    connection,
    namespace: target.namespace,
    taskQueue: opts.taskQueue,
    definitions: opts.definitions,
    log: (m) => console.log(`[swflow worker] ${m}`),
  });
  console.log(`[swflow worker] serving task queue ${opts.taskQueue} on ${target.address} (namespace ${target.namespace}); definitions: ${opts.definitions.join(', ')}`);
  await worker.run();
  await connection.close();
}
