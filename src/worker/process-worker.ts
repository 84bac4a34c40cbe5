/**
 * The opt-in process worker: serves 1.0 `run.shell` and `run.script` (adapters/process) on
 * `swflow-processes`. Off by default — a document's shell command or script runs with this
 * worker's rights, so start it only where the documents are trusted.
 */
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { PROCESS_TASK_QUEUE } from '../common/contracts';
import { createProcessActivities } from '../../adapters/process';

export interface ProcessWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  /** Default `swflow-processes` (PROCESS_TASK_QUEUE). */
  taskQueue?: string;
  workerOptions?: Partial<WorkerOptions>;
}

export async function createProcessWorker(opts: ProcessWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    taskQueue: opts.taskQueue ?? PROCESS_TASK_QUEUE,
    activities: createProcessActivities(),
    ...(opts.workerOptions ?? {}),
  });
}
