/**
 * The seam between the generic workflow and the interpreter worker's local activity that
 * resolves (by workflow type) and pins the definition. Types and constants only.
 */
import type { WorkflowDef } from '../dsl/model';

export const RESOLVE_DEFINITION_ACTIVITY = 'swflow.resolveDefinition';

export interface ResolveRequest {
  /** The workflow type: `<id>` or `<id>@<version>`. */
  type: string;
  /** Given when the run was started with StartOptions.definition (then only hashed). */
  definition?: WorkflowDef;
}

export interface ResolveResult {
  /** The normalized definition; omitted when the request carried it. */
  definition?: WorkflowDef;
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
}

/** Search attributes written once per workflow task, just before the run blocks (ui.ts). */
export const FEATURE_UPSERTS_BEFORE_BLOCKING = 'upserts-before-blocking';
/** Expressible retry strategies as the activity's Temporal RetryPolicy (retry.ts). */
export const FEATURE_NATIVE_RETRY_POLICY = 'native-retry-policy';
/** keepActive instances whose flow ended run their event start state again per new matching event (runtime.ts). */
export const FEATURE_KEEP_ACTIVE_EVENTS = 'keep-active-events';
/** A redelivered event (same source and id as one consumed) is not consumed again (events/mailbox.ts). */
export const FEATURE_EVENT_DEDUPE = 'event-dedupe';
/** The SwAwaitedEvents search attribute: the CloudEvent types the run waits for, kept current (ui.ts, events/mailbox.ts). */
export const FEATURE_AWAITED_EVENTS_ATTRIBUTE = 'awaited-events-attribute';
/** What this worker's interpreter knows (returned by the resolve local activity). */
export const INTERPRETER_FEATURES = [FEATURE_UPSERTS_BEFORE_BLOCKING, FEATURE_NATIVE_RETRY_POLICY, FEATURE_KEEP_ACTIVE_EVENTS, FEATURE_EVENT_DEDUPE, FEATURE_AWAITED_EVENTS_ATTRIBUTE];

export const VALIDATE_DATA_ACTIVITY = 'swflow.validateData';

export interface ValidateDataRequest {
  schema: unknown;
  data: unknown;
}

/** Readable problems (`/path: message`); empty when the data matches the schema. */
export type ValidateDataResult = string[];
