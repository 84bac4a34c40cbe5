/**
 * Adapter workers: one Temporal worker serving the activities of one or more adapters on a task
 * queue. `swflow worker --adapter <module…> --task-queue <queue>` is {@link runAdapterWorker}
 * with the adapters those modules export.
 */
import { metricsInterceptor } from '../metrics/interceptor';
import { resolve } from 'node:path';
import { NativeConnection, Worker, type ActivityInterceptorsFactory, type WorkerOptions } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE } from '../common/contracts';
import { connectTo, targetFromEnv, workerTarget } from '../client/connection';
import { adapterActivities, adapterServices } from './activities';
import { callInterceptor } from './call';
import { autoHeartbeat } from '../worker/heartbeat';
import { isAdapter, type Adapter } from './define';
import type { SecretValues } from './secrets';
import { dataConverterOptions } from '../codec';
import { payloadLimitInterceptor } from '../payloads/limit-interceptor';

export interface AdapterWorkerOptions {
  /** The adapters this worker serves (their activity types must not collide). */
  adapters: Adapter[];
  /** The task queue: the `metadata.worker` of the functions it serves. Default `swflow-adapters`. */
  taskQueue?: string;
  /** Default: a connection to TEMPORAL_ADDRESS (else localhost:7233), with the Temporal CLI's TLS/API-key variables. */
  connection?: NativeConnection;
  /** Default TEMPORAL_NAMESPACE, else `default`. */
  namespace?: string;
  /** `$SECRETS` values: secret name → value. Default: this process's environment. */
  secrets?: SecretValues;
  /**
   * Worker-level activity interceptors, run around every call after swflow's own (which put the
   * call together from its input and header, and heartbeat while it runs): e.g. tracing, metrics.
   */
  interceptors?: ActivityInterceptorsFactory[];
  /** Passed through to Worker.create (identity, concurrency, ...). */
  workerOptions?: Partial<WorkerOptions>;
}

/** Creates (does not run) a worker serving the adapters' activities. */
export async function createAdapterWorker(opts: AdapterWorkerOptions): Promise<Worker> {
  for (const a of opts.adapters) if (!isAdapter(a)) throw new TypeError(`createAdapterWorker: ${JSON.stringify(a)} is not an adapter (make it with defineAdapter)`);
  const activities = adapterActivities(opts.adapters, adapterServices(opts.secrets));
  const connection = opts.connection ?? (await connectFromEnv());
  const extra = opts.workerOptions ?? {};
  return Worker.create({
    ...dataConverterOptions(),
    ...extra,
    connection,
    namespace: opts.namespace ?? targetFromEnv()?.namespace ?? 'default',
    taskQueue: opts.taskQueue ?? ADAPTER_TASK_QUEUE,
    activities,
    // autoHeartbeat: calls heartbeat while they run, so a lost worker is noticed within the heartbeat timeout.
    interceptors: { ...extra.interceptors, activity: [callInterceptor, metricsInterceptor, autoHeartbeat, payloadLimitInterceptor, ...(opts.interceptors ?? []), ...(extra.interceptors?.activity ?? [])] },
  });
}

/**
 * Runs an adapter worker until the process is told to stop (SIGINT/SIGTERM: the SDK shuts the
 * worker down; calls still in flight are cancelled, fail with `WorkerShutdown`, and the
 * interpreter makes them again on another worker).
 *
 * @example
 * ```ts
 * import { runAdapterWorker } from 'swflow/adapter';
 * import inventory from './inventory';
 *
 * await runAdapterWorker({ adapters: [inventory], taskQueue: 'inventory' });
 * ```
 */
export async function runAdapterWorker(opts: AdapterWorkerOptions & { log?: (message: string) => void }): Promise<void> {
  const own = opts.connection ? undefined : await connectFromEnv();
  try {
    const worker = await createAdapterWorker({ ...opts, connection: opts.connection ?? own });
    const types = opts.adapters.flatMap((a) => Object.keys(a.activityTypes));
    opts.log?.(`serving ${types.join(', ')} on task queue ${worker.options.taskQueue} (namespace ${worker.options.namespace})`);
    await worker.run();
  } finally {
    await own?.close();
  }
}

async function connectFromEnv(): Promise<NativeConnection> {
  return connectTo(workerTarget(), (o) => NativeConnection.connect(o));
}

/** Lets require() load TypeScript: tsx's CommonJS hook, unless one is installed (the `swflow` command runs compiled JavaScript). */
function typeScriptLoader(): void {
  if (require.extensions['.ts']) return;
  try {
    require('tsx/cjs');
  } catch {
    // No tsx: require() says what it cannot load.
  }
}

/**
 * The adapters a module exports: its default export and its named exports that are adapters
 * (or arrays of adapters). TypeScript modules load through tsx.
 */
export function loadAdapters(modules: string[]): Adapter[] {
  const out: Adapter[] = [];
  for (const path of modules) {
    const file = resolve(path);
    let mod: Record<string, unknown>;
    try {
      if (/\.[cm]?ts$/.test(file)) typeScriptLoader();
      mod = require(file);
    } catch (err) {
      throw new Error(`adapter module ${path} could not be loaded: ${(err as Error).message}`);
    }
    const found = new Set<Adapter>();
    const take = (v: unknown) => {
      if (isAdapter(v)) found.add(v);
      else if (Array.isArray(v)) v.filter(isAdapter).forEach((a) => found.add(a));
    };
    take(mod);
    for (const v of Object.values(mod ?? {})) take(v);
    if (mod && typeof mod === 'object' && mod.default && typeof mod.default === 'object') for (const v of Object.values(mod.default)) take(v);
    if (found.size === 0) throw new Error(`adapter module ${path} exports no adapter: export the result of defineAdapter(...) (default or named)`);
    out.push(...found);
  }
  return out;
}
