/**
 * Pinning: the seam between the generic workflow and the interpreter worker's local activities
 * that resolve (by workflow type) and pin the definition, and check data against schemas.
 * Types and constants only: sandbox-safe.
 */
import type { Definition } from './model';
import type { PinnedFunction } from './model-v1';

export const RESOLVE_DEFINITION_ACTIVITY = 'swflow.resolveDefinition';

export interface ResolveRequest {
  /** The workflow type: `<id>` or `<id>@<version>`. */
  type: string;
  /** Given when the run was started with StartOptions.definition (then only hashed). */
  definition?: Definition;
  /** The run carries its pinned function documents (StartOptions.functions): none are fetched. */
  functionsPinned?: boolean;
  /**
   * The run was reset before pinning (a redrive to its first workflow task): the worker reads the
   * reset's reason, which may carry the run over to another definition (src/common/redrive.ts).
   */
  afterReset?: boolean;
}

export interface ResolveResult {
  /** The normalized definition (0.8-family, or 1.0 as written); omitted when the request carried it. */
  definition?: Definition;
  /** sha256 of the canonical JSON of the definition (SwDefinitionHash). */
  hash: string;
  /** Where it came from (file path, or "start options"). */
  source: string;
  /** The custom search attributes registered on the server (only those are upserted). */
  searchAttributes: string[];
  /**
   * Interpreter behaviours that change the commands a run issues, switched on for runs that start
   * on a worker knowing them. Recorded in history with this result (the local activity's marker),
   * so a replay takes the same path: histories recorded before a feature existed lack it and replay
   * with the old behaviour. (Used instead of patched(): no extra marker / TemporalChangeVersion
   * upsert per run, and no patch marker right after this local activity's marker, which Core
   * rejected on some query-triggered replays.)
   */
  features?: string[];
  /**
   * 1.0 runs publish lifecycle CloudEvents (`io.serverlessworkflow.workflow.*`, `….task.*`) to
   * the worker's event sinks: opted into per interpreter worker, recorded with this result.
   */
  lifecycleEvents?: boolean;
  /**
   * The worker serves Prometheus metrics: the run tells its Node side about itself through the
   * `swflow.metrics` sink (common/metrics-sink.ts; no command, history unchanged).
   */
  metrics?: boolean;
  /**
   * The worker has no payload store (src/payloads): the largest value, as JSON bytes, the run
   * hands to Temporal (call and child inputs, its output, what it carries to its next run); a
   * larger one fails the step with `PayloadTooLarge` naming it (workflow/host/payload-limit.ts).
   * Absent (a store, or a run recorded before): nothing is checked.
   */
  payloadLimit?: number;
  /**
   * The worker traces (OpenTelemetry, src/tracing): the run makes spans for itself, its states or
   * tasks and actions in the sandbox (workflow/host/tracing.ts; no command, history unchanged).
   */
  tracing?: boolean;
  /**
   * The function documents a 1.0 definition calls (cataloged functions `name:version@catalog`,
   * functions by URI), by call string, fetched now (feature `v1-catalogs`): pinned with the
   * definition, so a catalog that changes never changes a running run, and replays never fetch.
   */
  functions?: Record<string, PinnedFunction>;
  /**
   * The 0.8 REST functions whose OpenAPI operation only reads (GET, HEAD, OPTIONS), by name, found
   * in their documents now (feature `local-reads`: their calls run as local activities). Recorded
   * with the pin, so a document that changes never changes a running run.
   */
  readFunctions?: string[];
}

export const VALIDATE_DATA_ACTIVITY = 'swflow.validateData';

/**
 * A local activity that does nothing: the walk's yield with `expression-work`. Its result comes
 * back as a new activation (the SDK's 5 s bound is per activation, and the worker's other runs go
 * in between) without ending the workflow task, so a yield costs a millisecond, where a 1 ms
 * timer waits for the server's timer queue (~1 s on the dev server).
 */
export const YIELD_ACTIVITY = 'swflow.yield';

export interface ValidateDataRequest {
  /** An inline JSON Schema; or */
  schema?: unknown;
  /** a 1.0 external resource (`{ endpoint, name? }`, its policy resolved from `use`): then the answer is a ValidateResourceResult. */
  resource?: { endpoint?: unknown; name?: string };
  data: unknown;
}

/** The answer for a `resource`: the problems, and the schema fetched (recorded: the run keeps using it). */
export interface ValidateResourceResult {
  problems: string[];
  schema: unknown;
}

/** Readable problems (`/path: message`); empty when the data matches the schema. */
export type ValidateDataResult = string[];

