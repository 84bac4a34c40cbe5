/**
 * Expression checks used by validation. jq syntax comes from `src/expr/syntax.ts`
 * (`checkExpressionSyntax(expr, functionNames)`: jq's message, or undefined when it
 * compiles); when that module is not available a small structural check is used instead.
 */

type Checker = (expr: string, functionNames?: string[]) => string | undefined | Promise<string | undefined>;
type ManyChecker = (exprs: readonly string[]) => (string | undefined)[];

let checker: Checker | null | undefined;
let manyChecker: ManyChecker | undefined;
let secretsRef: ((expr: string, functions?: Record<string, string>) => boolean) | undefined;

function loadChecker(): Checker | null {
  if (checker !== undefined) return checker;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('../../expr/syntax');
    checker =
      typeof mod.checkExpressionSyntaxAsync === 'function'
        ? mod.checkExpressionSyntaxAsync
        : typeof mod.checkExpressionSyntax === 'function'
          ? mod.checkExpressionSyntax
          : null;
    if (typeof mod.checkExpressionsSyntax === 'function') manyChecker = mod.checkExpressionsSyntax;
  } catch {
    checker = null;
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('../../expr/index');
    if (typeof mod.referencesSecrets === 'function') secretsRef = mod.referencesSecrets;
  } catch {
    /* fall back to the regexp below */
  }
  return checker ?? null;
}

/** True when the jq syntax checker of src/expr is in use (tests use it to adapt). */
export function usingJqChecker(): boolean {
  return loadChecker() !== null;
}

/** The jq text of an expression: `${ ... }` unwrapped, or the text itself (bare jq fields). */
export function unwrap(text: string): string {
  const m = /^\s*\$\{([\s\S]*)\}\s*$/.exec(text);
  return (m ? m[1] : text).trim();
}

/**
 * jq's message when `expr` (`${ }`, bare jq, or a string with `${ }` parts) does not
 * compile. `fn:` names are checked separately (fnRefs), so any is accepted here.
 */
export async function jqProblem(expr: string): Promise<string | undefined> {
  const c = loadChecker();
  if (c) {
    try {
      return await c(expr, undefined);
    } catch (err) {
      return (err as Error).message;
    }
  }
  const parts = templateParts(expr);
  for (const p of parts) {
    const problem = structuralProblem(p);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * {@link jqProblem} for many texts at once (validation passes a document's distinct texts): the
 * same answers, from far fewer jq compiles when src/expr's batch check is there.
 */
export async function jqProblems(exprs: readonly string[]): Promise<Map<string, string | undefined>> {
  const distinct = [...new Set(exprs)];
  loadChecker();
  let problems: (string | undefined)[] | undefined;
  if (manyChecker) {
    try {
      problems = manyChecker(distinct);
    } catch {
      problems = undefined; // the engine failed: one by one, each with its own message
    }
  }
  problems ??= await Promise.all(distinct.map((e) => jqProblem(e)));
  return new Map(distinct.map((e, i) => [e, problems![i]]));
}

/**
 * `check` called once per distinct text: documents repeat their expressions (the same
 * `${ .order.id }` in many actions, in every state), and each jq check is a compile of its
 * own (about a millisecond). Make one per validation: the map lives as long as the function.
 */
export function oncePerText<T>(check: (text: string) => T): (text: string) => T {
  const seen = new Map<string, T>();
  return (text) => {
    if (seen.has(text)) return seen.get(text) as T;
    const result = check(text);
    seen.set(text, result);
    return result;
  };
}

function templateParts(text: string): string[] {
  const whole = /^\s*\$\{([\s\S]*)\}\s*$/.exec(text);
  if (whole) return [whole[1]];
  if (!text.includes('${')) return [text];
  return [...text.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1]);
}

export function referencesSecrets(expr: string, functions?: Record<string, string>): boolean {
  loadChecker();
  if (secretsRef) return secretsRef(expr, functions);
  return /\$SECRETS\b/.test(expr);
}

/** `fn:name` references inside an expression. */
export function fnRefs(expr: string): string[] {
  return [...expr.matchAll(/\bfn:([A-Za-z_][\w-]*)/g)].map((m) => m[1]);
}

/** Balanced brackets and closed strings: what can be checked without a jq parser. */
function structuralProblem(expr: string): string | undefined {
  if (!expr.trim()) return 'empty expression';
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i];
    if (ch === '"') {
      i++;
      while (i < expr.length && expr[i] !== '"') {
        if (expr[i] === '\\') i++;
        i++;
      }
      if (i >= expr.length) return 'unterminated string';
      continue;
    }
    if (ch === '#') {
      while (i < expr.length && expr[i] !== '\n') i++;
      continue;
    }
    if ('([{'.includes(ch)) stack.push(ch);
    else if (ch in pairs) {
      if (stack.pop() !== pairs[ch]) return `unexpected '${ch}'`;
    }
  }
  if (stack.length) return `unclosed '${stack[stack.length - 1]}'`;
  if (/(^|[^|])\|\s*$/.test(expr) || /^\s*\|/.test(expr)) return "dangling '|'";
  return undefined;
}
