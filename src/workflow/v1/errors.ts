/**
 * 1.0 errors: RFC 7807 problem details whose `instance` is the JSON pointer of the task that
 * raised them (`/do/0/tryGetPet/try/0/getPet`). Every failure a task meets — a service's, a
 * timeout, a jq error, a failed schema check — becomes a {@link WorkflowError} here, which
 * `try`/`catch` filters and which, uncaught, fails the run with the problem as the failure's
 * details.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  TemporalFailure,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { Json } from '../../common/model';
import type { Problem } from '../../common/problem';

export type { Problem };
import type { ErrorDef } from '../../common/model-v1';
import { errorClass, SwflowError } from '../../common/errors';
import { SwExpressionError } from '../expressions';
import { SwTimeoutError } from '../v08/errors';

/** The standard error types' base URI as 1.0.x writes it. */
export const STANDARD_ERRORS = 'https://serverlessworkflow.io/spec/1.0.0/errors/';
/**
 * The same types under the URIs they are also written with: the specification's new home
 * (after 1.0.3) and the pre-1.0 spelling that the conformance kit and the .NET SDK still use
 * (`ctk/features/try.feature` filters on `https://serverlessworkflow.io/dsl/errors/types/communication`).
 */
const ALIASES = ['https://open-workflow-specification.org/spec/1.0.0/errors/', 'https://serverlessworkflow.io/dsl/errors/types/'];

export type StandardError = 'configuration' | 'validation' | 'expression' | 'authentication' | 'authorization' | 'timeout' | 'communication' | 'runtime';

const STATUS: Record<StandardError, number> = {
  configuration: 400,
  validation: 400,
  expression: 400,
  authentication: 401,
  authorization: 403,
  timeout: 408,
  communication: 500,
  runtime: 500,
};

const TITLES: Record<StandardError, string> = {
  configuration: 'Configuration Error',
  validation: 'Validation Error',
  expression: 'Expression Error',
  authentication: 'Authentication Error',
  authorization: 'Authorization Error',
  timeout: 'Timeout',
  communication: 'Communication Error',
  runtime: 'Runtime Error',
};

/** The standard name of a type URI under any of its spellings (`communication`), if standard. */
export function standardName(type: string): StandardError | undefined {
  for (const base of [STANDARD_ERRORS, ...ALIASES]) {
    if (type.startsWith(base)) {
      const name = type.slice(base.length) as StandardError;
      if (name in STATUS) return name;
    }
  }
  return undefined;
}

/** A raised (or escalated) error: the problem, `instance` set. */
export class WorkflowError extends SwflowError {
  static {
    errorClass(this, 'WorkflowError');
  }

  constructor(readonly problem: Problem) {
    super(describe(problem));
  }

  static standard(kind: StandardError, instance: string, detail?: string, status?: number): WorkflowError {
    return new WorkflowError({ type: STANDARD_ERRORS + kind, status: status ?? STATUS[kind], title: TITLES[kind], instance, ...(detail !== undefined ? { detail } : {}) });
  }
}

export function describe(p: Problem): string {
  const head = p.title ?? p.type;
  return `${head}${p.detail ? `: ${p.detail}` : ''} (status ${p.status}${p.instance ? `, at ${p.instance}` : ''})`;
}

/** The problem as plain JSON (what `$error` and the failure details hold). */
export function problemJson(p: Problem): Json {
  const out: Record<string, Json> = { type: p.type, status: p.status };
  if (p.title !== undefined) out.title = p.title;
  if (p.detail !== undefined) out.detail = p.detail;
  if (p.instance !== undefined) out.instance = p.instance;
  return out;
}

function isProblem(v: unknown): v is Problem {
  return !!v && typeof v === 'object' && typeof (v as Problem).type === 'string' && typeof (v as Problem).status === 'number';
}

/**
 * Any failure met at `instance` → a WorkflowError. Adapters report problems in the failure's
 * `details[0]`; a plain `{ code, message }` service error (0.8-style adapters, `swflow test`
 * mocks) is a communication error whose status is the code when it is an HTTP status.
 */
export function toWorkflowError(err: unknown, instance: string): WorkflowError {
  if (err instanceof WorkflowError) return err;
  if (err instanceof SwTimeoutError) return WorkflowError.standard('timeout', instance, err.message);
  if (err instanceof SwExpressionError) return WorkflowError.standard('expression', instance, err.message);
  let cur: unknown = err;
  for (let i = 0; i < 10 && (cur instanceof ActivityFailure || cur instanceof ChildWorkflowFailure) && cur.cause; i++) cur = cur.cause;
  if (cur instanceof ApplicationFailure) {
    const d = cur.details?.[0];
    if (isProblem(d)) return new WorkflowError({ ...d, instance: d.instance && err instanceof ChildWorkflowFailure ? instance : d.instance ?? instance });
    return fromServiceError(cur, instance);
  }
  if (cur instanceof TimeoutFailure) return WorkflowError.standard('timeout', instance, 'the call timed out');
  if (cur instanceof TemporalFailure) return WorkflowError.standard('runtime', instance, cur.message);
  return WorkflowError.standard('runtime', instance, (err as Error)?.message ?? String(err));
}

/**
 * A failure in the 0.8 shape — `details[0]` `{ code, message }` as a 0.8 run's failure, a
 * 0.8-style adapter or a `swflow test` mock gives it (the `code` a 0.8 `errors[].code` matches,
 * src/workflow/v08/errors.ts `classify`) — as a 1.0 error: a communication error whose status is the
 * code when it is an HTTP status, else 500 titled by the code. The other way, a problem's 0.8
 * view, is `serviceErrorOfProblem` (src/common/problem.ts).
 */
export function fromServiceError(failure: ApplicationFailure, instance: string): WorkflowError {
  const d = failure.details?.[0];
  const code = d && typeof d === 'object' ? (d as { code?: unknown }).code : undefined;
  const message = d && typeof d === 'object' && typeof (d as { message?: unknown }).message === 'string' ? String((d as { message: string }).message) : failure.message;
  const status = Number(code ?? failure.type);
  if (Number.isInteger(status) && status >= 100 && status <= 599) return WorkflowError.standard('communication', instance, message, status);
  return new WorkflowError({ type: STANDARD_ERRORS + 'communication', status: 500, title: String(code ?? failure.type ?? 'Service Error'), detail: message, instance });
}

/**
 * `catch.errors.with`: every property given must match. A type matches its standard name under
 * any spelling; `details` (as the schema names it) is compared with `detail`.
 */
export function matchesFilter(p: Problem, filter: Record<string, Json> | undefined): boolean {
  if (!filter) return true;
  for (const [k, want] of Object.entries(filter)) {
    if (want === undefined || want === null) continue;
    if (k === 'type') {
      const a = standardName(String(want));
      const b = standardName(p.type);
      if (!(want === p.type || (a !== undefined && a === b))) return false;
    } else if (k === 'status') {
      if (Number(want) !== p.status) return false;
    } else {
      const have = k === 'details' ? p.detail : (p as unknown as Record<string, unknown>)[k];
      if (have !== want) return false;
    }
  }
  return true;
}

/** A `raise` error definition, its expressions already evaluated. */
export function raised(def: ErrorDef, instance: string): WorkflowError {
  return new WorkflowError({ ...def, status: Number(def.status), instance: def.instance ?? instance });
}

/** The failure that ends a run for an uncaught error: the problem is its details. */
export function runFailure(e: WorkflowError): ApplicationFailure {
  return ApplicationFailure.create({ type: e.problem.type, message: e.message, nonRetryable: true, details: [problemJson(e.problem)] });
}
