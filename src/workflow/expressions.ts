/**
 * The interpreter's single door to the expression engine (src/expr): every expression the
 * workflow evaluates goes through here, with the run's scope ($CONST, fn:, variables).
 */
import {
  evaluateCondition,
  evaluateExpression,
  evaluateTemplate,
  isExpression,
  hasExpression,
  referencesSecrets,
  splitSecretArguments,
  expressionSource,
  ExpressionError,
  type ExpressionErrorKind,
  type ExprScope,
  type EvalPolicy,
} from '../expr';
import { errorClass } from '../common/errors';
import type { Json } from '../common/model';
import type { PathSeg } from './v08/data/merge';

export { isExpression, referencesSecrets, splitSecretArguments, ExpressionError };
export type { ExprScope, EvalPolicy };

/** Where an expression is evaluated, for error messages. */
export interface ExprSite {
  state?: string;
  what: string;
}

/**
 * An expression that failed in the interpreter, at `site`: the message says where (state,
 * property). Its own class because the interpreter handles it as the definition's error
 * (0.8 `code: expression`, 1.0 an expression problem), where an ExpressionError met elsewhere
 * is a runtime error.
 */
export class SwExpressionError extends ExpressionError {
  static {
    errorClass(this, 'SwExpressionError');
  }

  constructor(
    message: string,
    expression: string,
    readonly site: ExprSite,
    jqMessage = message,
    kind: ExpressionErrorKind = 'runtime',
  ) {
    super(expression, jqMessage, kind, message);
  }
}

function wrap(err: unknown, expr: string, site: ExprSite): never {
  if (err instanceof SwExpressionError) throw err;
  const jq = (err as { jqMessage?: string }).jqMessage ?? (err as Error)?.message ?? String(err);
  const where = site.state ? `state "${site.state}", ${site.what}` : site.what;
  throw new SwExpressionError(`Expression ${JSON.stringify(expr)} (${where}) failed: ${jq}`, expr, site, jq, err instanceof ExpressionError ? err.kind : 'runtime');
}

/** {@link evalExprSync} as runs without the `sync-expressions` feature await it (kept for their replay). */
export async function evalExpr(expr: string, data: Json, scope: ExprScope, site: ExprSite): Promise<Json> {
  try {
    const v = await evaluateExpression(expr, data, scope);
    return (v === undefined ? null : v) as Json;
  } catch (err) {
    wrap(err, expr, site);
  }
}

/** {@link evalConditionSync} as runs without the `sync-expressions` feature await it (kept for their replay). */
export async function evalCondition(expr: string, data: Json, scope: ExprScope, site: ExprSite): Promise<boolean> {
  try {
    return Boolean(await evaluateCondition(expr, data, scope));
  } catch (err) {
    wrap(err, expr, site);
  }
}

/** An expression's value (`null` for no output); a failure is an SwExpressionError saying where. */
export function evalExprSync(expr: string, data: Json, scope: ExprScope, site: ExprSite): Json {
  try {
    const v = evaluateExpression(expr, data, scope);
    return (v === undefined ? null : v) as Json;
  } catch (err) {
    wrap(err, expr, site);
  }
}

/** An expression's truth (jq's: everything but `false` and `null` holds). */
export function evalConditionSync(expr: string, data: Json, scope: ExprScope, site: ExprSite): boolean {
  try {
    return Boolean(evaluateCondition(expr, data, scope));
  } catch (err) {
    wrap(err, expr, site);
  }
}

/** A value that may be an expression string, an object with embedded `${}`, or literal JSON. */
export function evalValueSync(value: Json | undefined, data: Json, scope: ExprScope, site: ExprSite): Json | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return hasExpression(value) ? evalExprSync(value, data, scope, site) : value;
  if (value === null || typeof value !== 'object') return value;
  try {
    return evaluateTemplate(value, data, scope) as Json;
  } catch (err) {
    wrap(err, JSON.stringify(value), site);
  }
}

/** {@link evalValueSync} as runs without the `sync-expressions` feature await it (kept for their replay). */
export async function evalValue(value: Json | undefined, data: Json, scope: ExprScope, site: ExprSite): Promise<Json | undefined> {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return hasExpression(value) ? evalExpr(value, data, scope, site) : value;
  if (value === null || typeof value !== 'object') return value;
  try {
    return (await evaluateTemplate(value, data, scope)) as Json;
  } catch (err) {
    wrap(err, JSON.stringify(value), site);
  }
}

/** The jq text of an expression, without its `${ }`. */
export function innerExpression(expr: string): string {
  return expressionSource(expr).trim();
}

/** The path an expression such as `${ .a.b }` designates in `data` (for toStateData / outputCollection). */
export function pathOfSync(expr: string, data: Json, scope: ExprScope, site: ExprSite): PathSeg[] {
  return checkedPath(evalExprSync(pathExpression(expr), data, scope, site), expr, site);
}

/** {@link pathOfSync} as runs without the `sync-expressions` feature await it (kept for their replay). */
export async function pathOf(expr: string, data: Json, scope: ExprScope, site: ExprSite): Promise<PathSeg[]> {
  const v = await evalExpr(pathExpression(expr), data, scope, site);
  return checkedPath(v, expr, site);
}

const pathExpression = (expr: string): string => '${ path(' + innerExpression(expr) + ') }';

function checkedPath(v: Json, expr: string, site: ExprSite): PathSeg[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' || typeof s === 'number')) {
    throw new SwExpressionError(`Expression ${JSON.stringify(expr)} (${site.what}) does not designate a path in the data`, expr, site);
  }
  return v as PathSeg[];
}

/**
 * A value in `evaluate.mode: loose` (1.0): "evaluates any value provided; if the evaluation fails,
 * it results in a string with the expression as its content". Every string of the value is
 * evaluated as jq, `${ }` or not; a string without `${ }` that fails (does not compile, or errors
 * on the data) stands for itself. A string the author marked with `${ }` is an expression as in
 * strict mode: its failure is an error. Empty strings stay strings.
 */
export function evalLooseSync(value: Json | undefined, data: Json, scope: ExprScope, site: ExprSite): Json | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') {
    if (hasExpression(value)) return evalExprSync(value, data, scope, site);
    if (!value.trim()) return value;
    try {
      const v = evaluateExpression(value, data, scope);
      return (v === undefined ? null : v) as Json;
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map((v) => evalLooseSync(v, data, scope, site) ?? null);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: evalLooseSync(v, data, scope, site) ?? null, enumerable: true, writable: true, configurable: true });
  return out;
}
