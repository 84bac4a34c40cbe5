/**
 * Lexical helpers over expression text (no jq needed): finding `${ ... }` spans, `fn:name`
 * calls and `$variables` outside jq string literals and comments. SANDBOX-SAFE.
 */

/** A piece of a string value: literal text or the jq source of one `${ ... }`. */
export type Segment = { lit: string } | { expr: string };

/**
 * Index just past the end of the jq code starting at `from` and closed by `close` at depth 0
 * (e.g. the `}` of `${ ... }`), skipping string literals (with `\( ... )` interpolation),
 * comments and nested brackets. -1 when unterminated.
 */
export function scanCode(s: string, from: number, close: string): number {
  const stack: string[] = [close];
  let i = from;
  while (i < s.length) {
    const c = s[i];
    if (c === '"') {
      i = scanString(s, i + 1);
      if (i < 0) return -1;
      continue;
    }
    if (c === '#') {
      while (i < s.length && s[i] !== '\n') i++;
      continue;
    }
    if (c === '{') stack.push('}');
    else if (c === '(') stack.push(')');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ')' || c === ']') {
      if (stack[stack.length - 1] !== c) return -1;
      stack.pop();
      if (stack.length === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** Index just past the closing quote of a jq string whose body starts at `from`; -1 if unterminated. */
function scanString(s: string, from: number): number {
  let i = from;
  while (i < s.length) {
    const c = s[i];
    if (c === '"') return i + 1;
    if (c === '\\') {
      if (s[i + 1] === '(') {
        i = scanCode(s, i + 2, ')');
        if (i < 0) return -1;
        continue;
      }
      i += 2;
      continue;
    }
    i++;
  }
  return -1;
}

/**
 * Splits a string value into literal text and `${ ... }` expressions. A `${` without a
 * matching `}` is literal text. Returns undefined when there is no expression at all.
 */
export function splitTemplate(value: string): Segment[] | undefined {
  let at = value.indexOf('${');
  if (at < 0) return undefined;
  const out: Segment[] = [];
  let lit = '';
  let i = 0;
  while (at >= 0) {
    const end = scanCode(value, at + 2, '}');
    if (end < 0) break;
    lit += value.slice(i, at);
    if (lit) out.push({ lit });
    lit = '';
    out.push({ expr: value.slice(at + 2, end - 1) });
    i = end;
    at = value.indexOf('${', i);
  }
  if (out.length === 0) return undefined;
  lit += value.slice(i);
  if (lit) out.push({ lit });
  return out;
}

/** The jq source of a string that is exactly one `${ ... }` (surrounding whitespace allowed). */
export function unwrapExpression(value: string): string | undefined {
  const trimmed = value.trim();
  if (!trimmed.startsWith('${') || !trimmed.endsWith('}')) return undefined;
  const end = scanCode(trimmed, 2, '}');
  if (end !== trimmed.length) return undefined;
  return trimmed.slice(2, -1);
}

/** A `fn:name` occurrence in jq code. */
export interface FnRef {
  start: number;
  end: number;
  name: string;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_CHAR = /[A-Za-z0-9_]/;

/**
 * Walks jq code outside string literals and comments (but inside `\( ... )` interpolations),
 * calling `visit(i)` at each code character; `visit` returns the index to continue from.
 */
function walkCode(s: string, visit: (i: number) => number): void {
  const walk = (from: number, close: string | undefined): number => {
    let depth = 0;
    let i = from;
    while (i < s.length) {
      const c = s[i];
      if (c === '"') {
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === '\\') {
            if (s[i + 1] === '(') {
              i = walk(i + 2, ')');
              continue;
            }
            i += 2;
            continue;
          }
          i++;
        }
        i++;
        continue;
      }
      if (c === '#') {
        while (i < s.length && s[i] !== '\n') i++;
        continue;
      }
      if (close && (c === '(' || c === '[' || c === '{')) depth++;
      if (close && (c === ')' || c === ']' || c === '}')) {
        if (depth === 0 && c === close) return i + 1;
        depth--;
      }
      const next = visit(i);
      i = next > i ? next : i + 1;
    }
    return i;
  };
  walk(0, undefined);
}

/**
 * `fn:name` calls in jq code. `known` (function names, which may contain spaces) is matched
 * longest first; otherwise the name is a jq-like identifier (letters, digits, `_`, `-`).
 */
export function findFnRefs(code: string, known?: readonly string[]): FnRef[] {
  const refs: FnRef[] = [];
  const sorted = known ? [...known].sort((a, b) => b.length - a.length) : [];
  walkCode(code, (i) => {
    if (code[i] !== 'f' || code[i + 1] !== 'n' || code[i + 2] !== ':') return i;
    if (i > 0 && (IDENT_CHAR.test(code[i - 1]) || code[i - 1] === '$' || code[i - 1] === '.')) return i;
    const at = i + 3;
    for (const name of sorted) {
      if (code.startsWith(name, at) && !IDENT_CHAR.test(code[at + name.length] ?? '')) {
        refs.push({ start: i, end: at + name.length, name });
        return at + name.length;
      }
    }
    let j = at;
    if (!IDENT_START.test(code[j] ?? '')) return i;
    while (j < code.length && (IDENT_CHAR.test(code[j]) || code[j] === '-')) j++;
    refs.push({ start: i, end: j, name: code.slice(at, j) });
    return j;
  });
  return refs;
}

/** Names of `$variables` referenced in jq code (outside string literals and comments). */
export function findVariables(code: string): Set<string> {
  const vars = new Set<string>();
  walkCode(code, (i) => {
    if (code[i] !== '$') return i;
    let j = i + 1;
    if (!IDENT_START.test(code[j] ?? '')) return i;
    while (j < code.length && IDENT_CHAR.test(code[j])) j++;
    vars.add(code.slice(i + 1, j));
    return j;
  });
  return vars;
}

/** A safe jq identifier for an expression function name (names may contain spaces). */
export function fnIdentifier(name: string): string {
  let safe = '';
  for (const ch of name) safe += /[A-Za-z0-9]/.test(ch) ? ch : '_' + ch.codePointAt(0)!.toString(16) + '_';
  return 'fn__' + safe;
}

/**
 * True when jq code is self-contained for jq's lexer: every string closed, every `(`, `[`, `{`
 * (also inside `\( )` interpolations) closed by its own kind, and no comment (a comment ending
 * in a backslash goes on to the next line, so it could swallow what follows the code). Such code
 * placed between `(` and `)` can only parse as that parenthesis's inner expression: validation
 * uses this to check many expressions in one jq compile (see `checkSyntaxBatchWithEngine`).
 */
export function isSelfContained(code: string): boolean {
  const stack: string[] = [];
  // A string's text from `i`: the index past its closing quote, or past a `\(` (its `)` then
  // resumes the string: pushed as '"'); -1 when unterminated.
  const text = (i: number): number => {
    while (i < code.length) {
      if (code[i] === '"') return i + 1;
      if (code[i] !== '\\') i++;
      else if (code[i + 1] === '(') {
        stack.push('"');
        return i + 2;
      } else i += 2;
    }
    return -1;
  };
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    let next = i + 1;
    if (c === '#') return false;
    if (c === '"') next = text(i + 1);
    else if (c === ')' && stack[stack.length - 1] === '"') {
      stack.pop();
      next = text(i + 1);
    } else if (c === '(') stack.push(')');
    else if (c === '[') stack.push(']');
    else if (c === '{') stack.push('}');
    else if ((c === ')' || c === ']' || c === '}') && stack.pop() !== c) return false;
    if (next < 0) return false;
    i = next;
  }
  return stack.length === 0;
}
