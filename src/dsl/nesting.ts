/**
 * A bound on how deep a document nests. The loader, the schema validator and the YAML parser
 * recurse per level; 10,000 levels overflow the stack (at worst inside V8's regular-expression
 * compiler, which aborts the process instead of throwing). Definitions nest a few dozen levels.
 */

/** The deepest nesting a definition may have. */
export const MAX_NESTING = 500;

/**
 * Where the text's brackets (`[`/`{` outside quoted strings and comments: JSON, YAML flow
 * collections) first nest deeper than `max`, as a character offset; undefined when they don't.
 * Iterative, linear: safe on any input.
 */
export function deepBracketOffset(text: string, max = MAX_NESTING): number | undefined {
  let depth = 0;
  let quote = '';
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (lineStart || /\s/.test(text[i - 1] ?? ''))) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end - 1;
    } else if (c === '[' || c === '{') {
      if (++depth > max) return i;
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
    lineStart = c === '\n';
  }
  return undefined;
}

/** Whether a parsed value nests deeper than `max` (iterative). */
export function nestsDeeperThan(value: unknown, max = MAX_NESTING): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d >= max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
  }
  return false;
}
