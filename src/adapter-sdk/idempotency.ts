/**
 * The `Idempotency-Key` header (IETF draft-ietf-httpapi-idempotency-key-header) on the unsafe
 * requests of the built-in HTTP adapters (1.0 `call: http` and `call: openapi`, 0.8 `rest`): a
 * service that honours it performs a write seen again (a retry of the activity, a workflow task
 * replayed while the call was in flight) once.
 *
 * The key names the call, not the attempt: sha256 over the activity's identity in Temporal
 * (namespace, workflow id, run id, activity id — a local activity's id is its sequence number),
 * base64url, sent as the draft's structured-field string (`"…"`). Temporal retries an activity
 * under the same id, so every attempt carries the same key; two calls of a run have different
 * ids. Nothing secret goes into it, and the hash keeps ids out of the service's logs.
 *
 * Runs with the `call-ids` feature send the call's id (src/workflow/call-ids.ts) in the
 * `swflow-call` header: the key then derives from it instead of the activity id (sha256 over
 * namespace, workflow id and call id), so it also holds across the repeats that make a new
 * activity: a call made again after a lost worker, a definition retry by timer or `try`, a local
 * call handed over, a redrive after a reset.
 */
import { createHash } from 'node:crypto';
import type { Info } from '@temporalio/activity';
import { IDEMPOTENCY_KEY_METADATA, idempotencyKeyProblem } from '../common/metadata';
import { ConfigurationError } from './problems';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Methods that change nothing (RFC 9110 §9.2.1): sent without a key. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** Version tags: changing the derivation must change every key, never collide with older ones. */
const DERIVATION = 'swflow-idempotency-key/1';
const CALL_ID_DERIVATION = 'swflow-idempotency-key/call-id/1';

/**
 * The key of the call an activity serves: 43 base64url characters; undefined for an activity no
 * workflow scheduled (nothing names its call). With the call's id (`callId`), the same for every
 * time the run makes that call; without, the same for each attempt of the activity.
 */
export function idempotencyKey(info: Pick<Info, 'workflowNamespace' | 'workflowExecution' | 'activityId'>, callId?: string): string | undefined {
  if (!info.workflowExecution) return undefined;
  // JSON keeps the parts apart whatever characters a workflow id holds.
  const identity =
    callId !== undefined
      ? JSON.stringify([CALL_ID_DERIVATION, info.workflowNamespace, info.workflowExecution.workflowId, callId])
      : JSON.stringify([DERIVATION, info.workflowNamespace, info.workflowExecution.workflowId, info.workflowExecution.runId, info.activityId]);
  return createHash('sha256').update(identity).digest('base64url');
}

/** Whether a function's (or call task's) metadata leaves the key on (the default); a bad value is a ConfigurationError. */
export function idempotencyKeyEnabled(metadata: Record<string, unknown> | undefined): boolean {
  if (!metadata || !(IDEMPOTENCY_KEY_METADATA in metadata)) return true;
  const value = metadata[IDEMPOTENCY_KEY_METADATA];
  const problem = idempotencyKeyProblem(value);
  if (problem) throw new ConfigurationError(`metadata "${IDEMPOTENCY_KEY_METADATA}": ${problem}`);
  return value === true || value === 'true';
}

/**
 * Adds the call's `Idempotency-Key` to an unsafe request's headers (lower-cased names), unless
 * the definition sets that header itself (its value wins) or its metadata switches the key off.
 * PUT and DELETE get it too: idempotent by definition, the key costs them nothing and lets a
 * service that keys every write on it do so.
 */
export function addIdempotencyKey(req: { method: string; headers: Record<string, string> }, ctx: { function: { metadata?: Record<string, unknown> }; info: Parameters<typeof idempotencyKey>[0]; callId?: string }): void {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return;
  if (Object.keys(req.headers).some((name) => name.toLowerCase() === IDEMPOTENCY_KEY_HEADER)) return;
  if (!idempotencyKeyEnabled(ctx.function.metadata)) return;
  const key = idempotencyKey(ctx.info, ctx.callId);
  if (key) req.headers[IDEMPOTENCY_KEY_HEADER] = `"${key}"`;
}
