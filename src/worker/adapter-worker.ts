/**
 * The built-in adapter worker: serves the function types swflow implements itself (REST, GraphQL,
 * OData, gRPC, AsyncAPI, A2A) on `swflow-adapters`, the queue of every function without `metadata.worker`, plus any user
 * adapters given (`swflow adapters --module <file>`). Built with the public adapter SDK
 * (src/adapter): a new protocol adapter is one more entry in {@link builtinAdapters} (1.0's
 * `call: http` is adapters/http, `call: mcp` adapters/mcp, `call: a2a` adapters/a2a; `call: openapi` is served by the OpenAPI adapter, adapters/rest).
 * Your own adapters can also run in their own workers on their own queues
 * (adapters/README.md). Running calls heartbeat automatically (./heartbeat.ts).
 */
import { Worker, type ActivityInterceptorsFactory, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE } from '../common/contracts';
import * as sdk from '../adapter';
import { restAdapter } from '../../adapters/rest';
import { graphqlAdapter } from '../../adapters/graphql';
import { odataAdapter } from '../../adapters/odata';
import { rpcAdapter } from '../../adapters/rpc';
import { asyncapiAdapter } from '../../adapters/asyncapi';
import { httpAdapter } from '../../adapters/http';
import { mcpAdapter } from '../../adapters/mcp';
import { a2aAdapter } from '../../adapters/a2a';
import { autoHeartbeat } from './heartbeat';
import { dataConverterOptions } from '../codec';
import { metricsInterceptor } from '../metrics/interceptor';
import { tracingActivityInterceptors } from '../tracing';
import { tracingCallInterceptor } from '../tracing/interceptor';

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
  return [
    restAdapter({ baseDirs: opts.baseDirs }),
    graphqlAdapter(),
    odataAdapter(),
    rpcAdapter({ baseDirs: opts.baseDirs }),
    asyncapiAdapter({ baseDirs: opts.baseDirs }),
    httpAdapter(),
    mcpAdapter(),
    a2aAdapter(),
  ];
}

export async function createBuiltinAdapterWorker(opts: AdapterWorkerOptions): Promise<Worker> {
  const adapters = [...builtinAdapters({ baseDirs: opts.baseDirs }), ...(opts.adapters ?? [])];
  const activities = {
    ...sdk.adapterActivities(adapters, sdk.adapterServices(opts.secrets)),
  };
  const extra = opts.workerOptions ?? {};
  return Worker.create({
    ...dataConverterOptions(),
    ...extra,
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    taskQueue: opts.taskQueue ?? ADAPTER_TASK_QUEUE,
    activities,
    interceptors: { ...extra.interceptors, activity: [...tracingActivityInterceptors(), sdk.callInterceptor, metricsInterceptor, tracingCallInterceptor, autoHeartbeat, ...(opts.interceptors ?? []), ...(extra.interceptors?.activity ?? [])] },
  });
}

/** A worker serving `activities` on `opts.taskQueue` (else `defaultQueue`): the built-in process worker. */
export function activityWorker(
  opts: { connection: NativeConnection; namespace?: string; taskQueue?: string; workerOptions?: Partial<WorkerOptions> },
  defaultQueue: string,
  activities: Record<string, (...args: any[]) => Promise<unknown>>,
): Promise<Worker> {
  const extra = opts.workerOptions ?? {};
  return Worker.create({
    ...dataConverterOptions(),
    ...extra,
    connection: opts.connection,
    namespace: opts.namespace ?? 'default',
    taskQueue: opts.taskQueue ?? defaultQueue,
    activities,
    interceptors: { ...extra.interceptors, activity: [...tracingActivityInterceptors(), autoHeartbeat, ...(extra.interceptors?.activity ?? [])] },
  });
}
