/**
 * The built-in adapter worker: serves the function types swflow implements itself (REST over
 * OpenAPI so far) on `swflow-adapters`, the queue of every function without `metadata.worker`,
 * plus any user adapters given (`swflow adapters --module <file>`). Built with the public adapter
 * SDK (src/adapter): a new protocol adapter is one more entry in {@link builtinAdapters}.
 * Your own adapters can also run in their own workers on their own queues (adapters/README.md).
 * Running calls heartbeat automatically (./heartbeat.ts, added by the SDK's createAdapterWorker).
 */
import type { ActivityInterceptorsFactory, NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE } from '../common/contracts';
import * as sdk from '../adapter';
import { restAdapter } from '../../adapters/rest';

export interface AdapterWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  /** Default `swflow-adapters` (ADAPTER_TASK_QUEUE). */
  taskQueue?: string;
  /** Where relative OpenAPI document references are found: the definition folders. */
  baseDirs?: string[];
  /** Values of `$SECRETS` (default: the environment). */
  secrets?: sdk.SecretValues;
  /** User adapters served beside the built-in ones. */
  adapters?: sdk.Adapter[];
  /** Worker-level activity interceptors (e.g. automatic heartbeating). */
  interceptors?: ActivityInterceptorsFactory[];
  workerOptions?: Partial<WorkerOptions>;
}

/** swflow's protocol adapters (activity types `sw.<function type>`). */
export function builtinAdapters(opts: { baseDirs?: string[] } = {}): sdk.Adapter[] {
  return [restAdapter({ baseDirs: opts.baseDirs })];
}

export async function createAdapterWorker(opts: AdapterWorkerOptions): Promise<Worker> {
  return sdk.createAdapterWorker({
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    taskQueue: opts.taskQueue ?? ADAPTER_TASK_QUEUE,
    adapters: [...builtinAdapters({ baseDirs: opts.baseDirs }), ...(opts.adapters ?? [])],
    secrets: opts.secrets,
    interceptors: opts.interceptors,
    workerOptions: opts.workerOptions,
  });
}
