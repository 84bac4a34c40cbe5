/**
 * Node-side expression checks for validation (src/dsl). Uses the same jq engine and the same
 * program assembly as the runtime, but compiles without running (`if false then (...)`), so
 * checking never executes user code.
 */
import { checkSyntaxBatchWithEngine, checkSyntaxWithEngine, expressionsReady, initExpressions, referencesSecrets } from './index';

export { referencesSecrets, initExpressions };

/**
 * jq's compile message for `expr`, or undefined when it compiles. `expr` may be `${ ... }`,
 * bare jq, or a string with several `${ }` (each is checked).
 * `functionNames`: the definition's expression functions; `fn:other` is then reported as
 * unknown (undefined: any `fn:name` is accepted). `variables`: extra `$names` in scope besides
 * `$CONST`, `$WORKFLOW`, `$SECRETS` (e.g. a foreach iterationParam); undefined accepts any.
 *
 * Synchronous: the engine is loaded (synchronously) when src/expr is imported.
 */
export function checkExpressionSyntax(expr: string, functionNames?: string[], variables?: string[]): string | undefined {
  if (!expressionsReady()) throw new Error('checkExpressionSyntax: the jq engine failed to load');
  return checkSyntaxWithEngine(expr, functionNames, variables);
}

/** Async convenience: waits for the engine, then {@link checkExpressionSyntax}. */
export async function checkExpressionSyntaxAsync(expr: string, functionNames?: string[], variables?: string[]): Promise<string | undefined> {
  await initExpressions();
  return checkSyntaxWithEngine(expr, functionNames, variables);
}

/**
 * {@link checkExpressionSyntax} for many expressions at once: the same message (or undefined)
 * for each, in order, from far fewer jq compiles (valid expressions are compiled in groups; see
 * `checkSyntaxBatchWithEngine` in index.ts). Validation checks a document's distinct texts so.
 */
export function checkExpressionsSyntax(exprs: readonly string[], functionNames?: string[], variables?: string[]): (string | undefined)[] {
  if (!expressionsReady()) throw new Error('checkExpressionsSyntax: the jq engine failed to load');
  return checkSyntaxBatchWithEngine(exprs, functionNames, variables);
}
