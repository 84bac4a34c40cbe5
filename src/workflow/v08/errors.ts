/**
 * Errors as the interpreter sees them: any failure (a service's ApplicationFailure, a
 * timeout, a child workflow failure, an expression error) becomes a {@link SwError} that
 * `errors[]` definitions match by code, name or description; unhandled ones fail the run
 * with a message naming the state, the action, the function and the service's message.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  TemporalFailure,
  TimeoutFailure,
  isCancellation,
} from '@temporalio/workflow';
import type { ErrorDef, ErrorHandlerDef, StateDef, WorkflowDef } from '../../common/model';
import type { ServiceErrorDetails } from '../../common/contracts';
import { errorClass, SwflowError } from '../../common/errors';
import { SwExpressionError } from '../expressions';

/** The code of every timeout (state, action, branch, event, consume-event, activity): handled by an error definition with `code: timeout`. */
export const TIMEOUT_CODE = 'timeout';
/** The code of an expression that fails to evaluate (jq error, wrong type): handled by `code: expression`. */
export const EXPRESSION_CODE = 'expression';

export type SwErrorKind = 'service' | 'timeout' | 'expression' | 'subflow' | 'runtime';

export interface SwError {
  kind: SwErrorKind;
  /** The service's code (e.g. "404"), or "timeout" for timeouts. */
  code?: string;
  /** The failure type (ApplicationFailure type), when there is one. */
  type?: string;
  message: string;
}

/** Where an error happened, for the failure message. */
export interface ErrorSite {
  state: string;
  action?: string;
  function?: string;
  subflow?: string;
  event?: string;
}

/** An error raised by an action, with its site; the state's error handling sees `error`. */
export class ActionError extends SwflowError {
  static {
    errorClass(this, 'ActionError');
  }

  constructor(
    readonly error: SwError,
    readonly site: ErrorSite,
  ) {
    super(describe(error, site));
  }
}

/** A timeout raised by the interpreter itself (event, state, action, branch timeouts). */
export class SwTimeoutError extends SwflowError {
  static {
    errorClass(this, 'SwTimeoutError');
  }
}

function detailsOf(f: ApplicationFailure): Partial<ServiceErrorDetails> | undefined {
  const d = f.details?.[0];
  return d && typeof d === 'object' ? (d as Partial<ServiceErrorDetails>) : undefined;
}

/** The innermost meaningful failure of a chain (activity → application, child → application). */
function innermost(err: unknown): unknown {
  let cur = err;
  for (let i = 0; i < 10; i++) {
    if ((cur instanceof ActivityFailure || cur instanceof ChildWorkflowFailure) && cur.cause) cur = cur.cause;
    else break;
  }
  return cur;
}

export function classify(err: unknown): SwError {
  if (err instanceof ActionError) return err.error;
  if (err instanceof SwTimeoutError) return { kind: 'timeout', code: TIMEOUT_CODE, type: TIMEOUT_CODE, message: err.message };
  if (err instanceof SwExpressionError) return { kind: 'expression', code: EXPRESSION_CODE, type: EXPRESSION_CODE, message: err.message };
  const inner = innermost(err);
  const viaChild = err instanceof ChildWorkflowFailure;
  if (inner instanceof ApplicationFailure) {
    const d = detailsOf(inner);
    const code = d?.code !== undefined ? String(d.code) : inner.type ?? undefined;
    const message = d?.message ?? inner.message;
    return { kind: viaChild ? 'subflow' : 'service', code, type: inner.type ?? undefined, message };
  }
  if (inner instanceof TimeoutFailure) return { kind: 'timeout', code: TIMEOUT_CODE, type: TIMEOUT_CODE, message: `timed out (${timeoutTypeName(inner.timeoutType)})` };
  if (inner instanceof TemporalFailure) return { kind: viaChild ? 'subflow' : 'runtime', message: inner.message || String(inner) };
  return { kind: 'runtime', message: (err as Error)?.message ?? String(err) };
}

function timeoutTypeName(t: unknown): string {
  const names: Record<number, string> = { 1: 'startToClose', 2: 'scheduleToStart', 3: 'scheduleToClose', 4: 'heartbeat' };
  return typeof t === 'number' ? names[t] ?? String(t) : String(t);
}

/**
 * An error definition matches an error by `code` (the service's code or HTTP status, or the
 * interpreter's `timeout` / `expression`); a definition without a code matches by `name` (equal
 * to the code or the failure type); and by `description` equal to the error's message (as CWM does).
 */
export function errorMatches(e: SwError, d: ErrorDef): boolean {
  const hasCode = d.code !== undefined && d.code !== null && d.code !== '';
  if (hasCode && e.code !== undefined && String(d.code) === e.code) return true;
  if (!hasCode && (d.name === e.code || d.name === e.type)) return true;
  if (d.description !== undefined && d.description !== null && d.description !== '' && d.description === e.message) return true;
  return false;
}

/** The names of the defined errors this error is. */
export function matchingErrorNames(def: WorkflowDef, e: SwError): string[] {
  return def.errors.filter((d) => errorMatches(e, d)).map((d) => d.name);
}

/** The state's first onErrors handler that handles `e` ("*" handles everything). */
export function findHandler(def: WorkflowDef, state: StateDef, e: SwError): ErrorHandlerDef | undefined {
  const names = new Set(matchingErrorNames(def, e));
  return state.onErrors?.find((h) => h.errorRefs.some((r) => r === '*' || names.has(r)));
}

export function describe(e: SwError, site: ErrorSite): string {
  const parts = [`state "${site.state}"`];
  if (site.action) parts.push(`action "${site.action}"`);
  if (site.function) parts.push(`function "${site.function}"`);
  if (site.subflow) parts.push(`subflow "${site.subflow}"`);
  if (site.event) parts.push(`event "${site.event}"`);
  const code = e.code && e.code !== e.message ? ` (code ${e.code})` : '';
  return `${parts.join(', ')} failed: ${e.message}${code}`;
}

/** The non-retryable failure that ends a run for an unhandled error. */
export function runFailure(err: unknown, state?: string, withSite = false): ApplicationFailure {
  if (err instanceof ApplicationFailure && err.nonRetryable && !(err.cause)) return err;
  const e = classify(err);
  const message =
    err instanceof ActionError ? err.message : state ? describe(e, { state }) : e.message;
  // The site goes with the failure for a foreach chunk's parent (iteration-failure-index).
  const site = withSite && err instanceof ActionError ? { site: { ...err.site }, ...(e.type !== undefined ? { type: e.type } : {}) } : {};
  return ApplicationFailure.create({
    message,
    type: e.code ?? e.kind,
    nonRetryable: true,
    details: [{ code: e.code, message: e.message, kind: e.kind, ...site }],
  });
}

/**
 * A foreach chunk child's failure as the error of the iteration that failed in it (its site and
 * error as the child recorded them: iteration-failure-index); undefined when the failure is not
 * one (a child from before the feature, a timeout of the child itself).
 */
export function iterationFailure(err: unknown): ActionError | undefined {
  if (!(err instanceof ChildWorkflowFailure)) return undefined;
  const inner = err.cause;
  if (!(inner instanceof ApplicationFailure)) return undefined;
  const d = inner.details?.[0] as { code?: string; message?: string; kind?: SwErrorKind; type?: string; site?: ErrorSite } | undefined;
  if (!d || typeof d !== 'object' || !d.site || typeof d.site.state !== 'string' || typeof d.message !== 'string') return undefined;
  return new ActionError({ kind: d.kind ?? 'service', message: d.message, ...(d.code !== undefined && d.code !== null ? { code: String(d.code) } : {}), ...(d.type !== undefined ? { type: d.type } : {}) }, d.site);
}

export { isCancellation, CancelledFailure };
