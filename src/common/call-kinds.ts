/**
 * The activity type of every built-in activity a run schedules, declared once: the interpreter
 * schedules these names (1.0 calls: src/workflow/v1/tasks/calls/; 0.8 functions: `activityTypeOf`
 * in ./calls.ts; 1.0 `run` processes: src/workflow/v1/tasks/run.ts), the built-in adapters
 * (adapters/) register them through the SDK (src/adapter-sdk re-exports this module), and the adapter
 * worker lists them to load its adapters lazily (src/worker/adapter-worker.ts). Each is
 * `<adapter>.<activity>` of the adapter named `sw` (`adapterActivityType` in ./calls.ts).
 * Sandbox-safe: imports nothing.
 */

/** The adapter name of swflow's built-in protocol adapters: `sw.rest`, `sw.graphql`, ... */
export const BUILTIN_ADAPTER = 'sw';

/** An activity type of the built-in adapters. */
export type BuiltinActivity = `${typeof BUILTIN_ADAPTER}.${string}`;

// 1.0 `call:` kinds (adapters/http, rest, rpc, asyncapi, mcp, a2a).
export const HTTP_CALL_ACTIVITY = 'sw.http';
export const OPENAPI_CALL_ACTIVITY = 'sw.openapi';
export const GRPC_CALL_ACTIVITY = 'sw.grpc';
export const ASYNCAPI_CALL_ACTIVITY = 'sw.asyncapiCall';
export const MCP_CALL_ACTIVITY = 'sw.mcp';
export const A2A_CALL_ACTIVITY = 'sw.a2a';

/**
 * The activity of each 1.0 call kind swflow serves, by its `call:` name. The workflow runs each
 * kind through its module (src/workflow/v1/tasks/calls/kinds.ts); src/dsl reads which kinds the
 * built-in adapters serve here.
 */
export const ACTIVITY_OF_CALL: Readonly<Record<string, BuiltinActivity>> = {
  http: HTTP_CALL_ACTIVITY,
  openapi: OPENAPI_CALL_ACTIVITY,
  grpc: GRPC_CALL_ACTIVITY,
  asyncapi: ASYNCAPI_CALL_ACTIVITY,
  mcp: MCP_CALL_ACTIVITY,
  a2a: A2A_CALL_ACTIVITY,
};

// 0.8 function types (adapters/rest, graphql, odata, rpc, asyncapi): `sw.<type>`.
export const REST_FUNCTION_ACTIVITY = 'sw.rest';
export const GRAPHQL_FUNCTION_ACTIVITY = 'sw.graphql';
export const ODATA_FUNCTION_ACTIVITY = 'sw.odata';
export const RPC_FUNCTION_ACTIVITY = 'sw.rpc';
export const ASYNCAPI_FUNCTION_ACTIVITY = 'sw.asyncapi';

/**
 * The activity of each 0.8 function type a built-in adapter serves (a 0.9 `type: http` function
 * is `call: http`'s). Other types (extensions) are `sw.<type>` all the same: ./calls.ts.
 */
export const FUNCTION_ACTIVITY_OF_TYPE: Readonly<Record<string, BuiltinActivity>> = {
  rest: REST_FUNCTION_ACTIVITY,
  graphql: GRAPHQL_FUNCTION_ACTIVITY,
  odata: ODATA_FUNCTION_ACTIVITY,
  rpc: RPC_FUNCTION_ACTIVITY,
  asyncapi: ASYNCAPI_FUNCTION_ACTIVITY,
  http: HTTP_CALL_ACTIVITY,
};

/** 1.0 `run.shell`, `run.script`, `run.container`: the opt-in process worker's activities (adapters/process). */
export const PROCESS_ACTIVITY_OF_KIND = { shell: 'sw.run.shell', script: 'sw.run.script', container: 'sw.run.container' } as const;

/**
 * The name an activity type of the built-in adapters is registered under in `defineAdapter`'s
 * `activities` (`sw.http` → `http`): the inverse of `adapterActivityType('sw', name)`.
 */
export function builtinActivityName<N extends string>(type: `${typeof BUILTIN_ADAPTER}.${N}`): N {
  return type.slice(BUILTIN_ADAPTER.length + 1) as N;
}
