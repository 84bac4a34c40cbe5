/**
 * 1.0 durations: `{ days, hours, minutes, seconds, milliseconds }`, an ISO 8601 string, or a
 * runtime expression (`${ … }`, the schema's `runtimeExpression`) that yields one of the first
 * two, evaluated where the duration is needed (feature v1-duration-expressions). Pure.
 */
import { durationIso, durationMs, durationProblem, parseDuration } from '../../common/duration';
import type { Json } from '../../common/model';
import type { Duration, TimeoutDef, V1Definition } from '../../common/model-v1';
import { SwExpressionError } from '../expressions';
import { FEATURE_V1_DURATION_EXPRESSIONS } from '../../common/features';
import type { Args } from './context';

/** Milliseconds of an inline or ISO duration. */
export { durationIso, durationMs };

/** The schema's `runtimeExpression` pattern: the whole string is one `${ … }`. */
const EXPRESSION_RE = /^\s*\$\{[\s\S]+\}\s*$/;

/** Whether a duration is written as a runtime expression, to evaluate when it is needed. */
export function isDurationExpression(d: unknown): d is string {
  return typeof d === 'string' && EXPRESSION_RE.test(d);
}

const INLINE_KEYS = ['days', 'hours', 'minutes', 'seconds', 'milliseconds'];

/** Why a value is not a duration swflow can time (an ISO 8601 string, or an inline duration object), or undefined. */
export function durationValueProblem(v: unknown): string | undefined {
  if (typeof v === 'string') return durationProblem(v);
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v);
    if (entries.length === 0) return 'an inline duration needs at least one of days, hours, minutes, seconds, milliseconds';
    for (const [k, n] of entries) {
      if (!INLINE_KEYS.includes(k)) return `an inline duration has no property '${k}' (only days, hours, minutes, seconds, milliseconds)`;
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) return `an inline duration's '${k}' must be a non-negative number, got ${preview(n)}`;
    }
    return undefined;
  }
  return 'a duration is an ISO 8601 string (e.g. "PT30S") or an object of days, hours, minutes, seconds, milliseconds';
}

/** A short rendering of a value and its JSON type, for error messages. */
function preview(v: unknown): string {
  const type = v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
  let text = JSON.stringify(v) ?? String(v);
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  return v === null ? 'null' : `${text} (${type})`;
}

/**
 * What a duration expression yielded, checked: an ISO 8601 string or an inline duration; else an
 * expression error saying which property (`timeout.after`, `retry.delay`, …) got what.
 */
export function evaluatedDuration(value: Json, expression: string, property: string): Duration {
  const problem = durationValueProblem(value);
  if (problem === undefined) return value as Duration;
  throw new SwExpressionError(`${property}: the expression ${JSON.stringify(expression.trim())} yielded ${preview(value)}, which is not a duration: ${problem}`, expression, { what: property });
}

/** The duration `d` stands for: `d` itself, or — a runtime expression — what `evaluate` yields for it, checked. */
export function resolveDuration(d: Duration, property: string, evaluate: (expression: string) => Json): Duration {
  if (!isDurationExpression(d)) return d;
  return evaluatedDuration(evaluate(d), d, property);
}

/** What evaluating a run's durations needs (the run, or a task executor's context). */
export interface DurationScope {
  readonly def: V1Definition;
  readonly features: ReadonlySet<string>;
  expressionSync(expr: string, data: Json, args: Args, what: string): Json;
}

/**
 * A duration of the document as the run uses it: on runs with v1-duration-expressions an
 * expression is evaluated (synchronously: no await, so no change to when commands are issued)
 * over `data` with `args()` (built only then); older runs take it as written (an expression then failed to parse).
 */
export function durationAt(scope: DurationScope, d: Duration, property: string, data: Json, args: () => Args): Duration {
  if (!scope.features.has(FEATURE_V1_DURATION_EXPRESSIONS)) return d;
  return resolveDuration(d, property, (expr) => scope.expressionSync(expr, data, args(), property));
}

/**
 * A task's or the workflow's `timeout` (inline, or the name of a `use.timeouts` entry) → its
 * `after` as the run uses it (see {@link durationAt}); undefined without a timeout.
 */
export function timeoutAfter(scope: DurationScope, timeout: TimeoutDef | string | undefined, data: Json, args: () => Args): Duration | undefined {
  const t = typeof timeout === 'string' ? scope.def.workflow.use?.timeouts?.[timeout] : timeout;
  if (!t) return undefined;
  return durationAt(scope, t.after, typeof timeout === 'string' ? `timeout.after (use.timeouts.${timeout})` : 'timeout.after', data, args);
}
