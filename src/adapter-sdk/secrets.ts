/**
 * `$SECRETS` on the activity side. The workflow never holds secret values: arguments that read
 * `$SECRETS` arrive as expressions (`FunctionCall.secretArguments`) with the data they read
 * besides (`secretContext`), and are evaluated here, in the worker, with the worker's secret
 * values. Everything they yield is registered with the call's {@link Redactor}: the values of the
 * secrets the expressions name and the evaluated results (so a jq-built value is covered too).
 */
import type { FunctionCall } from '../common/contracts';
import type { Json } from '../common/model';
import type { ExprScope } from '../expr';
import { evaluateWithSecrets, resolveSecretArguments } from '../expr/secrets';
import type { Redactor } from './redact';

/** The values `$SECRETS` has in a worker: secret name → value (a string, or any JSON). */
export type SecretValues = Record<string, Json | undefined>;

/** `$SECRETS.name`, `$SECRETS["name"]`, `$SECRETS."name"` (and 1.0's `$secrets`). */
const NAMED = /\$(?:SECRETS|secrets)\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\.?\s*\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\.\s*"((?:[^"\\]|\\.)*)")/g;

/** The secret names an expression reads (also through the `fn:` functions of its scope). */
export function secretNamesIn(expressions: string[], scope?: ExprScope): string[] {
  const text = [...expressions, ...Object.values(scope?.functions ?? {})].join('\n');
  const names = new Set<string>();
  for (const m of text.matchAll(NAMED)) names.add(m[1] ?? m[2] ?? m[3]);
  return [...names];
}

/** 1.0's spelling: the secrets are the runtime variable `$secrets`. */
const V1_SECRETS = /\$secrets(?![A-Za-z0-9_])/;

/**
 * The scope secret expressions are evaluated in: the call's secretContext, with the secret values
 * bound as 1.0's `$secrets` when an expression reads it (`$SECRETS` is bound by the evaluation).
 */
export function secretScope(call: FunctionCall, secrets?: SecretValues, expressions: string[] = []): { data: Json; scope: ExprScope | undefined } {
  const scope = call.secretContext?.scope as ExprScope | undefined;
  const v1 = secrets && expressions.some((e) => V1_SECRETS.test(e));
  return {
    data: call.secretContext?.data ?? null,
    scope: v1 ? { ...scope, variables: { ...(scope?.variables ?? {}), secrets: secrets as Json } } : scope,
  };
}

/** The call's arguments with its secret arguments evaluated (and registered for redaction). */
export async function resolveArguments(call: FunctionCall, secrets: SecretValues, redactor: Redactor): Promise<Json> {
  const expressions = Object.values(call.secretArguments ?? {});
  if (expressions.length === 0) return call.arguments;
  const { data, scope } = secretScope(call, secrets, expressions);
  for (const name of secretNamesIn(expressions, scope)) redactor.add(secrets[name]);
  const args = await resolveSecretArguments(call.arguments, call.secretArguments, data, scope, secrets as Record<string, Json>);
  for (const pointer of Object.keys(call.secretArguments ?? {})) redactor.add(at(args, pointer));
  return args;
}

/** Evaluates one expression (or literal) that may read `$SECRETS`, registering what it yields. */
export async function evaluateSecret(expr: Json, call: FunctionCall, secrets: SecretValues, redactor: Redactor): Promise<Json> {
  if (typeof expr !== 'string' || !expr.includes('${')) return expr;
  const { data, scope } = secretScope(call, secrets, [expr]);
  for (const name of secretNamesIn([expr], scope)) redactor.add(secrets[name]);
  const value = await evaluateWithSecrets(expr, data, scope, secrets as Record<string, Json>);
  redactor.add(value);
  return value;
}

function at(root: Json, pointer: string): Json | undefined {
  let cur: Json | undefined = root;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = cur && typeof cur === 'object' ? (cur as Record<string, Json>)[key] : undefined;
  }
  return cur;
}
