/**
 * `swflow processes`: runs the opt-in process worker (1.0 `run.shell` / `run.script`, queue
 * `swflow-processes`) against a Temporal server (TEMPORAL_ADDRESS …, as `swflow adapters`).
 * Start it only where the documents are trusted: their commands run with this process's rights.
 */
import type { Command } from 'commander';
import { NativeConnection } from '@temporalio/worker';
import { PROCESS_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { createProcessWorker } from '../worker/process-worker';

export function register(program: Command): void {
  program
    .command('processes')
    .description("Run the opt-in worker for 1.0 run.shell / run.script / run.container tasks (executes the documents' commands)")
    .option('-q, --task-queue <queue>', 'task queue', PROCESS_TASK_QUEUE)
    .action(async (opts: { taskQueue: string }) => {
      const target = targetFromEnv() ?? { address: 'localhost:7233', namespace: 'default' };
      const connection = await NativeConnection.connect(connectionOptions(target));
      const worker = await createProcessWorker({ connection, namespace: target.namespace, taskQueue: opts.taskQueue });
      console.log(`[swflow processes] serving task queue ${opts.taskQueue} on ${target.address} (namespace ${target.namespace}): run.shell / run.script / run.container execute with this process's rights`);
      await worker.run();
      await connection.close();
    });
}
