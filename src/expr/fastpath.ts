/**
 * Plain-TypeScript evaluation of the most common expression shapes, used only where it gives
 * exactly jq's answer (checked by test/expr/fastpath.test.ts on >= 10,000 random inputs per
 * shape). Shapes: `.`, a root (`.` or `$VAR`) followed by steps `.ident`, `."key"`, `.["key"]`,
 * `["key"]`, `[N]`, `.[N]` (N a small integer, negative counts from the end), no whitespace.
 *
 * Anything jq would reject (indexing a number/string/boolean, a string key on an array, a
 * number on an object) DECLINES (returns {@link DECLINE}) so that jq itself produces the
 * error with its exact message. SANDBOX-SAFE.
 */
import type { Json } from '../common/model';

export interface FastPath {
  /** '.' for the input, otherwise a variable name ($CONST -> 'CONST'). */
  root: string;
  steps: (string | number)[];
}

export const DECLINE: unique symbol = Symbol('decline');

const IDENT = '[A-Za-z_][A-Za-z0-9_]*';
// A quoted key without escapes or interpolation.
const QUOTED = '"[^"\\\\]*"';
const INDEX = '(?:0|-?[1-9][0-9]{0,8})';
const STEP = new RegExp(`^(?:\\.(${IDENT})|\\.?\\[(${QUOTED}|${INDEX})\\]|\\.(${QUOTED}))`);
const ROOT = new RegExp(`^(?:\\$(${IDENT})|\\.)`);

/** Parses `src` (jq source, already unwrapped from `${ }`) into a fast path, or undefined. */
export function parseFastPath(src: string): FastPath | undefined {
  const s = src.trim();
  const root = ROOT.exec(s);
  if (!root) return undefined;
  const steps: (string | number)[] = [];
  let i = root[0].length;
  const isDot = root[1] === undefined;
  if (isDot && i < s.length) {
    // `.ident`, `."k"` and `.[...]` start right at the root dot: re-read from position 0.
    i = 0;
  }
  while (i < s.length) {
    const m = STEP.exec(s.slice(i));
    if (!m) return undefined;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(m[2].startsWith('"') ? m[2].slice(1, -1) : Number(m[2]));
    else steps.push(m[3].slice(1, -1));
    i += m[0].length;
  }
  if (isDot && steps.length === 0 && s !== '.') return undefined;
  for (const k of steps) {
    // jq's lexer would see a lone surrogate differently; U+FFFD keys can collide with
    // normalised lone surrogates in the input (see normaliseForJq). Let jq decide.
    if (typeof k === 'string' && (k.includes('\uFFFD') || !isWellFormed(k))) return undefined;
  }
  return { root: isDot ? '.' : root[1], steps };
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Evaluates a fast path on `root`; DECLINE where jq would raise an error. */
export function evalFastPath(p: FastPath, root: Json | undefined): Json | typeof DECLINE {
  let cur: unknown = root === undefined ? null : root;
  for (const step of p.steps) {
    if (cur === null || cur === undefined) {
      cur = null;
      continue;
    }
    if (typeof step === 'string') {
      if (typeof cur !== 'object' || Array.isArray(cur)) return DECLINE;
      cur = hasOwn.call(cur, step) ? (cur as Record<string, unknown>)[step] : null;
    } else {
      if (!Array.isArray(cur)) return DECLINE;
      const i = step < 0 ? cur.length + step : step;
      cur = i >= 0 && i < cur.length ? cur[i] : null;
    }
    if (cur === undefined) cur = null;
  }
  return cloneAsJq(cur);
}

/** Whether `s` has no lone surrogate (jq would read one as U+FFFD). */
export function isWellFormed(s: string): boolean {
  const f = (s as { isWellFormed?: () => boolean }).isWellFormed;
  if (f) return f.call(s);
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

function wellFormed(s: string): string {
  if (isWellFormed(s)) return s;
  const f = (s as { toWellFormed?: () => string }).toWellFormed;
  if (f) return f.call(s);
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * A fresh copy of `v` as it comes back from a jq round trip: JSON.stringify semantics
 * (undefined/functions dropped from objects, null in arrays, non-finite numbers null, -0 is 0)
 * and lone surrogates replaced by U+FFFD (as the engine normalises its input).
 */
export function cloneAsJq(v: unknown): Json {
  switch (typeof v) {
    case 'string':
      return wellFormed(v);
    case 'number':
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'boolean':
      return v;
    case 'object': {
      if (v === null) return null;
      if (Array.isArray(v)) {
        const out: Json[] = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const e = v[i];
          out[i] = e === undefined || typeof e === 'function' || typeof e === 'symbol' ? null : cloneAsJq(e);
        }
        return out;
      }
      const out: Record<string, Json> = {};
      for (const k of Object.keys(v)) {
        const e = (v as Record<string, unknown>)[k];
        if (e === undefined || typeof e === 'function' || typeof e === 'symbol') continue;
        setKey(out, wellFormed(k), cloneAsJq(e));
      }
      return out;
    }
    default:
      return null;
  }
}

/** `o[k] = v`, also for k === '__proto__' (assignment would set the prototype instead). */
export function setKey(o: Record<string, Json>, k: string, v: Json): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}
