/**
 * The built-in adapter worker: serves the function types swflow implements itself (0.8 REST over
 * OpenAPI; 1.0 `call: http` and `call: openapi`) on `swflow-adapters`, the queue of every function without `metadata.worker`.
 * Your own adapters run in their own workers on their own queues (see adapters/README.md).
 */
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE } from '../common/contracts';
import { createRestActivities } from '../../adapters/rest';
import { createHttpActivities } from '../../adapters/http';

export interface AdapterWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  /** Default `swflow-adapters` (ADAPTER_TASK_QUEUE). */
  taskQueue?: string;
  /** Where relative OpenAPI document references are found: the definition folders. */
  baseDirs?: string[];
  /** Values of `$SECRETS` (default: the environment). */
  secrets?: Record<string, string>;
  workerOptions?: Partial<WorkerOptions>;
}

export async function createAdapterWorker(opts: AdapterWorkerOptions): Promise<Worker> {
  const activities = { ...createRestActivities({ baseDirs: opts.baseDirs, secrets: opts.secrets }), ...createHttpActivities({ baseDirs: opts.baseDirs, secrets: opts.secrets }) };
  return activityWorker(opts, ADAPTER_TASK_QUEUE, activities);
}

/** A worker serving `activities` on `opts.taskQueue` (else `defaultQueue`): the built-in adapter and process workers. */
export function activityWorker(
  opts: { connection: NativeConnection; namespace?: string; taskQueue?: string; workerOptions?: Partial<WorkerOptions> },
  defaultQueue: string,
  activities: Record<string, (...args: any[]) => Promise<unknown>>,
): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    taskQueue: opts.taskQueue ?? defaultQueue,
    activities,
    ...(opts.workerOptions ?? {}),
  });
}
