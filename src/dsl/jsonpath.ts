/**
 * JSONPath → jq, for the two places documents use JSONPath: the v0.1 draft's
 * `InputPath`/`ResultPath`/`OutputPath`/choice paths, and Kogito/SonataFlow's
 * `expressionLang: jsonpath`. Only exact translations are made; anything else is an error
 * naming the construct (never a guess).
 *
 * Semantics matched (Jayway JsonPath, which Kogito uses with the Jackson JsonNode provider):
 * - A *definite* path (only `.name`, `['name']`, `[n]`) yields the value itself:
 *   `$.a['b'][0]` → `.a["b"][0]`. (A missing key is `null` in jq where Jayway raises
 *   PathNotFoundException: the only difference, on a path that fails anyway.)
 * - An *indefinite* path (a wildcard `[*]`/`.*` or a filter `[?(...)]` anywhere) yields a
 *   LIST: `$[*]` → `[.[]?]`. After the first indefinite step Jayway skips what does not
 *   match instead of failing: non-objects and objects without the key for `.name`
 *   (`objects | select(has("k")) | .k`), non-arrays and short arrays for `[n]`.
 * - A filter applies to each element of an array, or to an object itself
 *   (`$[?(@.a == 'x')]` on an object is `[obj]` or `[]`). Supported predicates: `@.path == lit`
 *   and `!=`, where lit is a string that does not look like a number (Jayway compares a
 *   number with a string by converting it), `true` or `false`; joined with `&&` / `||`.
 * - Kogito converts a LIST to a boolean by non-emptiness (conditions); other values go through
 *   Jackson conversion, which has no exact jq equivalent, so a definite path as a condition is
 *   an error.
 * - Kogito evaluates `sysout` messages as strings: the text is split before every `$`, each
 *   part is a path, and the results are concatenated (strings as is, other values as JSON).
 */

export type JsonPathContext = 'value' | 'boolean' | 'string';

export type Translation = { jq: string; list: boolean } | { error: string };

type Step = { kind: 'prop'; name: string } | { kind: 'index'; n: number } | { kind: 'wild' } | { kind: 'filter'; pred: string };

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const key = (k: string) => (IDENT.test(k) ? `.${k}` : `.${JSON.stringify(k)}`);
const idx = (k: string) => (IDENT.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);
/** Path steps joined into a jq path (`.a["b-c"][0]`; `.` when empty). */
const dot = (p: string) => (p === '' ? '.' : p.startsWith('[') ? `.${p}` : p);

/** Parses `$...` into steps, or returns the reason it cannot. */
function parse(src: string): Step[] | string {
  const s = src.trim();
  if (!s.startsWith('$')) return 'it does not start with $';
  const steps: Step[] = [];
  let i = 1;
  while (i < s.length) {
    const c = s[i];
    if (s.startsWith('..', i)) return "deep scan '..' has no exact jq equivalent";
    if (c === '.') {
      if (s[i + 1] === '[') {
        i++; // `$.[...]` is read as `$[...]`
        continue;
      }
      if (s[i + 1] === '*') {
        steps.push({ kind: 'wild' });
        i += 2;
        continue;
      }
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(s.slice(i + 1));
      if (!m) return `unexpected ${JSON.stringify(s.slice(i, i + 2))} at ${i}`;
      if (s[i + 1 + m[0].length] === '(') return `function call '${m[0]}()' has no exact jq equivalent`;
      steps.push({ kind: 'prop', name: m[0] });
      i += 1 + m[0].length;
      continue;
    }
    if (c === '[') {
      const rest = s.slice(i);
      let m: RegExpExecArray | null;
      if ((m = /^\[\s*\*\s*\]/.exec(rest))) steps.push({ kind: 'wild' });
      else if ((m = /^\[\s*(\d+)\s*\]/.exec(rest))) steps.push({ kind: 'index', n: Number(m[1]) });
      else if ((m = /^\[\s*'([^'\\]*)'\s*\]/.exec(rest)) || (m = /^\[\s*"([^"\\]*)"\s*\]/.exec(rest))) steps.push({ kind: 'prop', name: m[1] });
      else if (rest.startsWith('[?(')) {
        const end = filterEnd(rest);
        if (end < 0) return 'unclosed filter [?(...)]';
        steps.push({ kind: 'filter', pred: rest.slice(3, end - 2) });
        i += end;
        continue;
      } else if (/^\[\s*-?\d*\s*:/.test(rest)) return 'array slices have no exact jq equivalent';
      else if (/^\[\s*-\d+\s*\]/.test(rest)) return 'negative indexes are not supported';
      else if (/^\[[^\]]*,/.test(rest)) return 'unions [a,b] have no exact jq equivalent';
      else return `unexpected ${JSON.stringify(rest.slice(0, 12))}`;
      i += m[0].length;
      continue;
    }
    return `unexpected ${JSON.stringify(s.slice(i, i + 12))} at ${i}`;
  }
  return steps;
}

/** Index just after the `)]` closing a filter that starts at 0 (`[?(`), or -1. */
function filterEnd(s: string): number {
  let depth = 0;
  for (let i = 2; i < s.length; i++) {
    const c = s[i];
    if (c === "'" || c === '"') {
      const j = s.indexOf(c, i + 1);
      if (j < 0) return -1;
      i = j;
    } else if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return s[i + 1] === ']' ? i + 2 : -1;
    }
  }
  return -1;
}

/** A filter predicate → a jq boolean on the element, or the reason it cannot. */
function predicate(p: string): string | { error: string } {
  // Split on || then && outside quotes (&& binds tighter, as in jq's and/or).
  const split = (text: string, op: string): string[] => {
    const out: string[] = [];
    let cur = '';
    let q = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (q) {
        if (c === q) q = '';
      } else if (c === "'" || c === '"') q = c;
      else if (text.startsWith(op, i)) {
        out.push(cur);
        cur = '';
        i += op.length - 1;
        continue;
      }
      cur += c;
    }
    out.push(cur);
    return out;
  };
  const ors = split(p, '||').map((o) => split(o, '&&'));
  const parts: string[] = [];
  for (const and of ors) {
    const conj: string[] = [];
    for (const atom of and) {
      const a = comparison(atom.trim());
      if (typeof a !== 'string') return a;
      conj.push(a);
    }
    parts.push(conj.length > 1 ? conj.map((c) => `(${c})`).join(' and ') : conj[0]);
  }
  return parts.length > 1 ? parts.map((c) => `(${c})`).join(' or ') : parts[0];
}

function comparison(atom: string): string | { error: string } {
  const m = /^@((?:\.[A-Za-z_][A-Za-z0-9_-]*|\[\s*'[^'\\]*'\s*\]|\[\s*"[^"\\]*"\s*\])*)\s*(==|!=)\s*(.+)$/.exec(atom);
  if (!m) return { error: `filter predicate '${atom}' is not supported (only @.path == / != a string or boolean)` };
  const names = [...m[1].matchAll(/\.([A-Za-z_][A-Za-z0-9_-]*)|\[\s*'([^'\\]*)'\s*\]|\[\s*"([^"\\]*)"\s*\]/g)].map((x) => x[1] ?? x[2] ?? x[3]);
  const lit = m[3].trim();
  let value: string;
  const str = /^'([^'\\]*)'$/.exec(lit) ?? /^"([^"\\]*)"$/.exec(lit);
  if (str) {
    if (/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(str[1])) return { error: `filter predicate '${atom}' compares with a numeric string (JsonPath also matches the number)` };
    value = JSON.stringify(str[1]);
  } else if (lit === 'true' || lit === 'false') value = lit;
  else return { error: `filter predicate '${atom}' compares with ${lit} (only strings and booleans compare the same way in jq)` };
  // JsonPath: a missing key, or a non-object on the way, is "undefined" (equal to nothing).
  const path = names.length ? `(try ${dot(names.map(idx).join(''))} catch null)` : '.';
  return `${path} ${m[2]} ${value}`;
}

/** One JSONPath (`$...`) as jq. */
function pathToJq(src: string): Translation {
  const steps = parse(src);
  if (typeof steps === 'string') return { error: steps };
  let definite = '';
  const pipe: string[] = [];
  let list = false;
  for (const st of steps) {
    if (!list) {
      if (st.kind === 'prop') definite += idx(st.name);
      else if (st.kind === 'index') definite += `[${st.n}]`;
      else {
        list = true;
        if (definite) pipe.push(dot(definite));
        if (st.kind === 'wild') pipe.push('.[]?');
        else {
          const p = predicate(st.pred);
          if (typeof p !== 'string') return p;
          pipe.push(`(if type == "array" then .[] elif type == "object" then . else error("JSONPath filter applied to \\(type)") end) | select(${p})`);
        }
      }
      continue;
    }
    if (st.kind === 'prop') pipe.push(`objects | select(has(${JSON.stringify(st.name)})) | ${key(st.name)}`);
    else if (st.kind === 'index') pipe.push(`arrays | select(length > ${st.n}) | .[${st.n}]`);
    else if (st.kind === 'wild') pipe.push('.[]?');
    else {
      const p = predicate(st.pred);
      if (typeof p !== 'string') return p;
      pipe.push(`(if type == "array" then .[] elif type == "object" then . else empty end) | select(${p})`);
    }
  }
  if (!list) return { jq: dot(definite), list: false };
  return { jq: `[${pipe.join(' | ')}]`, list: true };
}

/**
 * A JSONPath expression (as Kogito evaluates it in `ctx`) as one jq expression (without
 * `${ }`), or the reason it has no exact equivalent.
 */
export function translateJsonPath(expr: string, ctx: JsonPathContext = 'value'): Translation {
  const text = expr.trim();
  if (ctx === 'string') {
    const parts = text.split(/(?=\$)/).map((p) => p.trim());
    const out: string[] = [];
    for (const part of parts) {
      const t = pathToJq(part);
      if ('error' in t) return t;
      out.push(`(${t.jq} | if type == "string" then . else tojson end)`);
    }
    return { jq: out.length === 1 ? out[0] : `[${out.join(', ')}] | join("")`, list: false };
  }
  const t = pathToJq(text);
  if ('error' in t) return t;
  if (ctx === 'boolean') {
    if (!t.list) return { error: 'a condition that is a single value (not a filter or wildcard) is converted to a boolean by Jackson, which has no exact jq equivalent' };
    return { jq: `${t.jq} | length > 0`, list: false };
  }
  return t;
}

/**
 * A definite JSONPath (`$`, `$.a.b`, `$.a[0]`, `$['x']`) as a jq path, or undefined when it
 * is not one (used where a path is required: v0.1 InputPath/ResultPath/OutputPath).
 */
export function simpleJsonPathToJq(p: string): string | undefined {
  const t = pathToJq(p);
  return 'error' in t || t.list ? undefined : t.jq;
}
