/**
 * The built-in adapter worker: serves the function types swflow implements itself (REST, GraphQL,
 * OData, gRPC, AsyncAPI, A2A) on `swflow-adapters`, the queue of every function without `metadata.worker`, plus any user
 * adapters given (`swflow adapters --module <file>`). Built with the public adapter SDK
 * (src/adapter-sdk): a new protocol adapter is one more entry in {@link builtinAdapters} (1.0's
 * `call: http` is adapters/http, `call: mcp` adapters/mcp, `call: a2a` adapters/a2a; `call: openapi` is served by the OpenAPI adapter, adapters/rest).
 * Your own adapters can also run in their own workers on their own queues
 * (adapters/README.md). Running calls heartbeat automatically (./heartbeat.ts).
 */
import { Worker, type ActivityInterceptorsFactory, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE } from '../common/contracts';
import { A2A_CALL_ACTIVITY, ASYNCAPI_CALL_ACTIVITY, ASYNCAPI_FUNCTION_ACTIVITY, BUILTIN_ADAPTER, builtinActivityName, GRAPHQL_FUNCTION_ACTIVITY, GRPC_CALL_ACTIVITY, MCP_CALL_ACTIVITY, ODATA_FUNCTION_ACTIVITY, OPENAPI_CALL_ACTIVITY, REST_FUNCTION_ACTIVITY, RPC_FUNCTION_ACTIVITY, type BuiltinActivity } from '../common/call-kinds';
import * as sdk from '../adapter-sdk';
import { httpAdapter } from '../../adapters/http';
import { autoHeartbeat } from './heartbeat';
import { dataConverterOptions } from '../codec';
import { payloadLimitInterceptor } from '../payloads/limit-interceptor';
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

/**
 * The protocol adapters loaded on their first call: each one's activity types (which a worker must
 * register at Worker.create) and how to load it. Their SDKs (MCP, A2A, mqtt/amqplib and
 * @asyncapi/parser, graphql, gRPC and proto-loader, swagger-parser) cost a worker ~60 MB that a
 * workload never calling them need not pay. test/worker/lazy-adapters.test.ts checks the names
 * against what the loaded adapters register.
 */
export const LAZY_ADAPTERS: readonly LazyAdapter[] = [
  { module: 'rest', activityTypes: [REST_FUNCTION_ACTIVITY, OPENAPI_CALL_ACTIVITY], load: (o) => (require('../../adapters/rest') as typeof import('../../adapters/rest')).restAdapter({ baseDirs: o.baseDirs }) },
  { module: 'graphql', activityTypes: [GRAPHQL_FUNCTION_ACTIVITY], load: () => (require('../../adapters/graphql') as typeof import('../../adapters/graphql')).graphqlAdapter() },
  { module: 'odata', activityTypes: [ODATA_FUNCTION_ACTIVITY], load: () => (require('../../adapters/odata') as typeof import('../../adapters/odata')).odataAdapter() },
  { module: 'rpc', activityTypes: [RPC_FUNCTION_ACTIVITY, GRPC_CALL_ACTIVITY], load: (o) => (require('../../adapters/rpc') as typeof import('../../adapters/rpc')).rpcAdapter({ baseDirs: o.baseDirs }) },
  { module: 'asyncapi', activityTypes: [ASYNCAPI_FUNCTION_ACTIVITY, ASYNCAPI_CALL_ACTIVITY], load: (o) => (require('../../adapters/asyncapi') as typeof import('../../adapters/asyncapi')).asyncapiAdapter({ baseDirs: o.baseDirs }) },
  { module: 'mcp', activityTypes: [MCP_CALL_ACTIVITY], load: () => (require('../../adapters/mcp') as typeof import('../../adapters/mcp')).mcpAdapter() },
  { module: 'a2a', activityTypes: [A2A_CALL_ACTIVITY], load: () => (require('../../adapters/a2a') as typeof import('../../adapters/a2a')).a2aAdapter() },
];

export interface LazyAdapter {
  /** Its folder under adapters/. */
  module: string;
  /** The activity types it registers. */
  activityTypes: BuiltinActivity[];
  load(opts: { baseDirs?: string[] }): sdk.Adapter;
}

/** An adapter registering `lazy`'s activity types that loads the real one on the first call. */
function lazyAdapter(lazy: LazyAdapter, opts: { baseDirs?: string[] }): sdk.Adapter {
  let loaded: sdk.Adapter | undefined;
  const real = (): sdk.Adapter => (loaded ??= lazy.load(opts));
  const activities: Record<string, sdk.AdapterActivity> = {};
  for (const type of lazy.activityTypes) {
    activities[builtinActivityName(type)] = (args, ctx) => {
      const fn = real().activityTypes[type];
      if (!fn) throw new Error(`adapters/${lazy.module} does not register ${type} (LAZY_ADAPTERS is out of date)`);
      return fn(args, ctx);
    };
  }
  return sdk.defineAdapter({ name: BUILTIN_ADAPTER, description: `adapters/${lazy.module}, loaded on its first call`, activities });
}

/** swflow's protocol adapters (activity types `sw.<function type>`); all but `call: http` load on their first call. */
export function builtinAdapters(opts: { baseDirs?: string[] } = {}): sdk.Adapter[] {
  return [...LAZY_ADAPTERS.map((lazy) => lazyAdapter(lazy, opts)), httpAdapter()];
}

/**
 * The activity interceptors of a worker that serves function calls (the built-in adapter worker,
 * the interpreter worker's built-in calls): Temporal's tracing, the FunctionCall put together,
 * call metrics and spans, automatic heartbeats, the payload limit. Each gives the SDK no
 * interceptor for an activity it has nothing to do for.
 */
export function callActivityInterceptors(): ActivityInterceptorsFactory[] {
  return [...tracingActivityInterceptors(), sdk.callInterceptor, metricsInterceptor, tracingCallInterceptor, autoHeartbeat, payloadLimitInterceptor];
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
    interceptors: { ...extra.interceptors, activity: [...callActivityInterceptors(), ...(opts.interceptors ?? []), ...(extra.interceptors?.activity ?? [])] },
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
    interceptors: { ...extra.interceptors, activity: [...tracingActivityInterceptors(), autoHeartbeat, payloadLimitInterceptor, ...(extra.interceptors?.activity ?? [])] },
  });
}
