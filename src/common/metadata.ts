/**
 * swflow's own keys in a function definition's `metadata` (0.8: "Metadata information. Can be
 * used to define custom function information"). Pure: imported by validation (src/dsl) and by
 * the workflow sandbox (src/workflow/timeouts.ts).
 *
 * `swflow.heartbeat` says how a lost adapter worker is noticed while a call is in flight:
 * - absent: the call's activity gets a heartbeat timeout of {@link DEFAULT_HEARTBEAT_TIMEOUT};
 *   swflow's workers heartbeat by themselves while any call runs (src/worker/heartbeat.ts), so
 *   a killed or disconnected worker is noticed within that time and the call is made again;
 * - an ISO 8601 duration (`PT2M`): that heartbeat timeout, for an adapter that heartbeats less often;
 * - `off` (or `false`): no heartbeat timeout, for an adapter that cannot heartbeat (e.g. one
 *   written with another Temporal SDK that does not). Its lost worker is then noticed only by
 *   the definition's `actionExecTimeout`, if any.
 */
import { durationProblem, parseDuration } from './duration';

/** The function metadata key that sets the heartbeat timeout of the function's calls. */
export const HEARTBEAT_METADATA = 'swflow.heartbeat';

/** The heartbeat timeout of a function call when the function's metadata does not set one. */
export const DEFAULT_HEARTBEAT_TIMEOUT = 'PT30S';

const OFF = new Set(['off', 'false']);

/** Why `value` is not a valid `swflow.heartbeat`, or undefined when it is. */
export function heartbeatProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && OFF.has(value.trim().toLowerCase())) return undefined;
  const problem = durationProblem(value);
  if (problem) return `${problem}, or "off"`;
  if (parseDuration(value as string) < 1000) return `"${String(value)}" is shorter than a second: a worker cannot heartbeat that often`;
  return undefined;
}

/** The heartbeat timeout (ms) of a call of a function with this metadata; undefined = none (`off`). */
export function heartbeatTimeoutMs(metadata: Record<string, string> | undefined): number | undefined {
  const v = metadata?.[HEARTBEAT_METADATA];
  if (v === undefined || v === '') return parseDuration(DEFAULT_HEARTBEAT_TIMEOUT);
  if (OFF.has(v.trim().toLowerCase())) return undefined;
  return parseDuration(v);
}

/**
 * `swflow.local: true` runs the calls of a function served by swflow's built-in adapters (REST,
 * GraphQL, OData, gRPC, AsyncAPI; 1.0 `call: http|openapi|grpc|asyncapi`) as Temporal *local
 * activities* on the interpreter worker that runs the workflow, instead of activities on
 * `swflow-adapters`: no task queue round trip per call (a 10-call run takes a fraction of the
 * time, bench/README.md "Peer"), at the cost of what a local activity gives up: the call shows
 * as a marker, not an activity, in the Web UI; it runs on the workflow's worker (no separate
 * scaling); a killed worker is noticed by the workflow task timeout, and the call is made again.
 * For short calls (seconds). Runs with the `local-calls` feature.
 */
export const LOCAL_METADATA = 'swflow.local';

/**
 * Whether a 0.8 function's calls are served by swflow's built-in adapters (a protocol type, the
 * default `rest` included, and no `metadata.worker`): only those can run locally.
 */
export function servedByBuiltinAdapters(fn: { type?: unknown; metadata?: Record<string, unknown> }): boolean {
  return fn.type !== 'custom' && fn.type !== 'expression' && !fn.metadata?.worker;
}

/** Why `value` is not a valid `swflow.local`, or undefined when it is. */
export function localProblem(value: unknown): string | undefined {
  if (value === true || value === false || value === 'true' || value === 'false') return undefined;
  return `${JSON.stringify(value)} is not true or false`;
}

/**
 * Whether a call runs locally: its own metadata (the function's, or the 1.0 call task's) says
 * `swflow.local: true` (or "true"); without the key, the workflow's metadata (0.8 top-level
 * `metadata`, 1.0 `document.metadata`) gives the default for all its built-in calls; without
 * either, `byDefault` (the interpreter's: reads with the `local-reads` feature).
 */
export function isLocalCall(metadata: Record<string, unknown> | undefined, workflowMetadata?: Record<string, unknown>, byDefault = false): boolean {
  return localSetting(metadata, workflowMetadata) ?? byDefault;
}

/**
 * What the metadata says about running a call locally: `true`, `false`, or undefined when neither
 * the call's own metadata nor the workflow's sets `swflow.local` (then the interpreter decides:
 * reads run locally with the `local-reads` feature).
 */
export function localSetting(metadata: Record<string, unknown> | undefined, workflowMetadata?: Record<string, unknown>): boolean | undefined {
  const v = metadata && LOCAL_METADATA in metadata ? metadata[LOCAL_METADATA] : workflowMetadata?.[LOCAL_METADATA];
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  return undefined;
}

/**
 * `swflow.localBound` bounds how long a local call without a timeout of its own (no 0.8
 * `actionExecTimeout`) may run as a local activity: past it, the local attempt is cancelled and the
 * same call is made as a regular activity on the run's queue — pending, heartbeating, shown by
 * `temporal workflow describe` and the Web UI (feature `local-call-hand-over`, host/calls-in-flight.ts).
 * A duration (`PT5S`), or `off` (the call stays local however long it runs). docs/stuck-calls.md.
 */
export const LOCAL_BOUND_METADATA = 'swflow.localBound';

/** The bound of a local call when its metadata does not set one. */
export const DEFAULT_LOCAL_BOUND = 'PT30S';

/** Why `value` is not a valid `swflow.localBound`, or undefined when it is. */
export function localBoundProblem(value: unknown): string | undefined {
  if (typeof value === 'string' && OFF.has(value.trim().toLowerCase())) return undefined;
  const problem = durationProblem(value);
  if (problem) return `${problem}, or "off"`;
  if (parseDuration(value as string) < 1000) return `"${String(value)}" is shorter than a second`;
  return undefined;
}

/** The bound (ms) of a local call with this metadata; undefined = none (`off`). */
export function localBoundMs(metadata: Record<string, unknown> | undefined): number | undefined {
  const v = metadata?.[LOCAL_BOUND_METADATA];
  if (typeof v !== 'string' || v === '') return parseDuration(DEFAULT_LOCAL_BOUND);
  if (OFF.has(v.trim().toLowerCase())) return undefined;
  return parseDuration(v);
}

/**
 * `swflow.idempotencyKey: false` (or "false") on a function's (0.8) or call task's (1.0) metadata:
 * its HTTP calls are sent without the `Idempotency-Key` header the built-in HTTP adapters add to
 * every unsafe request (src/adapter-sdk/idempotency.ts). Absent or true: the header is sent.
 */
export const IDEMPOTENCY_KEY_METADATA = 'swflow.idempotencyKey';

/** Why `value` is not a valid `swflow.idempotencyKey`, or undefined when it is. */
export function idempotencyKeyProblem(value: unknown): string | undefined {
  if (value === true || value === false || value === 'true' || value === 'false') return undefined;
  return `${JSON.stringify(value)} is not true or false`;
}
