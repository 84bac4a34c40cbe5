/**
 * The opt-in process worker: serves 1.0 `run.shell`, `run.script` and `run.container`
 * (adapters/process; containers through podman, or the engine `SWFLOW_CONTAINER_ENGINE` names) on
 * `swflow-processes`. Off by default — a document's shell command or script runs with this
 * worker's rights, so start it only where the documents are trusted.
 */
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { PROCESS_TASK_QUEUE } from '../common/contracts';
import { createProcessActivities } from '../../adapters/process';
import type { ContainerRuntime } from '../../adapters/process/process';
import { activityWorker } from './adapter-worker';

export interface ProcessWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  /** Default `swflow-processes` (PROCESS_TASK_QUEUE). */
  taskQueue?: string;
  workerOptions?: Partial<WorkerOptions>;
  /** The container engine for `run.container` (default: SWFLOW_CONTAINER_ENGINE / SWFLOW_CONTAINER_RUN_ARGS, podman). */
  containerRuntime?: ContainerRuntime;
}

export function createProcessWorker(opts: ProcessWorkerOptions): Promise<Worker> {
  return activityWorker(opts, PROCESS_TASK_QUEUE, createProcessActivities(opts.containerRuntime));
}
