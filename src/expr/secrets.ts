/**
 * Activity side of `$SECRETS` (Node only; never imported by workflow code).
 *
 * Design: the workflow never holds secret values, so they can never reach Temporal history.
 * - Validation rejects `$SECRETS` everywhere except function `arguments` (see
 *   `referencesSecrets` / `findSecretReferences` in src/expr/index.ts).
 * - The interpreter splits arguments with `splitSecretArguments`: strings referencing
 *   `$SECRETS` stay unevaluated in `FunctionCall.secretArguments` (JSON Pointer -> expression),
 *   the rest is evaluated in the workflow.
 * - The activity resolves them here with the secret values (from its environment / secret
 *   store), after the history-visible input was recorded; results go only to the service.
 */
import type { Json } from '../common/model';
import { evaluateTemplate, initExpressions, type ExprScope } from './index';
import { setKey } from './fastpath';

/**
 * Evaluates `expr` (`${ }`, bare jq, or a string with `${ }` interpolation) with `$SECRETS`
 * bound to `secrets`. Async because it makes sure the engine is loaded first.
 */
export async function evaluateWithSecrets(expr: string, data: Json, scope: ExprScope | undefined, secrets: Record<string, Json>): Promise<Json> {
  await initExpressions();
  return evaluateWithSecretsSync(expr, data, scope, secrets);
}

/** Synchronous {@link evaluateWithSecrets} (the engine must be loaded). */
export function evaluateWithSecretsSync(expr: string, data: Json, scope: ExprScope | undefined, secrets: Record<string, Json>): Json {
  const isTemplate = /\$\{/.test(expr);
  // Bare jq: wrap so evaluateTemplate treats it as one expression.
  return evaluateTemplate(isTemplate ? expr : '${' + expr + '}', data, scope, secrets);
}

function unescapePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Puts evaluated secret arguments back into `args` (a copy): `secretArguments` maps JSON
 * Pointers (as produced by `splitSecretArguments`) to expressions.
 */
export async function resolveSecretArguments(
  args: Json,
  secretArguments: Record<string, string> | undefined,
  data: Json,
  scope: ExprScope | undefined,
  secrets: Record<string, Json>,
): Promise<Json> {
  if (!secretArguments || Object.keys(secretArguments).length === 0) return args;
  await initExpressions();
  let root: Json = args === null || args === undefined ? {} : JSON.parse(JSON.stringify(args));
  for (const [pointer, expr] of Object.entries(secretArguments)) {
    const value = evaluateWithSecretsSync(expr, data, scope, secrets);
    if (pointer === '') {
      root = value;
      continue;
    }
    const parts = pointer.split('/').slice(1).map(unescapePointer);
    let cur = root as Record<string, Json> | Json[];
    for (let i = 0; i < parts.length - 1; i++) {
      const k = parts[i];
      const next = (cur as Record<string, Json>)[k];
      if (next === null || typeof next !== 'object' || !Object.prototype.hasOwnProperty.call(cur, k)) setKey(cur as Record<string, Json>, k, {});
      cur = (cur as Record<string, Json>)[k] as Record<string, Json>;
    }
    setKey(cur as Record<string, Json>, parts[parts.length - 1], value);
  }
  return root;
}
