/**
 * The common expression shapes evaluated in TypeScript, with jq 1.8's answers, so that a 1.0
 * `set` that appends to an array, builds an object or tests a field does not turn the whole data
 * into JSON, through jq and back (`.acc + [{id: $index}]` over 2,000 items was a 200 kB round
 * trip per iteration). SANDBOX-SAFE.
 *
 * The shapes (a subset of jq's grammar, parsed as jq parses it; anything else is left to jq):
 * paths (`.a.b`, `.a[0]`, `."k"`, `.["k"]`, `$x.y`, `(e).a`), literals (canonical numbers,
 * strings with simple escapes and `\(e)` interpolation, true/false/null), `[e, …]`, `{k: v, "k":
 * v, $x, k, (e): v}` (values are terms or pipes of terms, as in jq), `|`, `+ - * / %`, comparisons,
 * `and`/`or`, `//`, `if … then … elif … else … end`, and the builtins `length`, `not`, `type`,
 * `keys`, `add`, `first`, `last`, `tostring`, `ascii_downcase`, `ascii_upcase`. Each shape has one
 * output. Wherever jq would raise an error or could answer otherwise (non-canonical number
 * literals, non-finite results, `tostring` of a non-integer), evaluation DECLINES and the caller
 * runs jq, so errors always carry jq's own message. test/expr/shapes.test.ts proves the answers
 * equal jq's on generated cases and on the expressions of the examples and conformance cases.
 *
 * Values are shared, not copied: what the evaluator builds, and what jq returned, is known to be
 * in jq's normal form ({@link markNormal}) and is handed on as is, so an append costs O(item)
 * plus one array copy, not a clone of the data. Nothing in the interpreter mutates data in place
 * (its data steps build new values), which is what makes the sharing safe.
 */
import type { Json } from '../common/model';
import { cloneAsJq, DECLINE, isWellFormed, setKey } from './fastpath';

export type Shape =
  | { k: 'path'; from: Shape | null; steps: (string | number)[] }
  | { k: 'var'; name: string }
  | { k: 'lit'; v: Json }
  | { k: 'arr'; items: Shape[] }
  | { k: 'obj'; entries: { key: string | Shape; value: Shape }[] }
  | { k: 'bin'; op: string; l: Shape; r: Shape }
  | { k: 'neg'; e: Shape }
  | { k: 'pipe'; l: Shape; r: Shape }
  | { k: 'call'; name: string }
  | { k: 'if'; cond: Shape; then: Shape; else: Shape | null }
  | { k: 'str'; parts: (string | Shape)[] };

/** Containers known to be in jq's normal form (well-formed strings, JSON values only), deeply. */
const NORMAL = new WeakSet<object>();

/** Marks `v` (a value jq returned, or one built from normal values) as normal: it is shared from then on. */
export function markNormal<T>(v: T): T {
  if (v !== null && typeof v === 'object') NORMAL.add(v as object);
  return v;
}

// ---------------------------------------------------------------------------------- lexing

type Tok =
  | { t: 'num'; v: number; sp: boolean }
  | { t: 'str'; parts: (string | Shape)[]; sp: boolean }
  | { t: 'field'; name: string; sp: boolean }
  | { t: 'var'; name: string; sp: boolean }
  | { t: 'id'; name: string; sp: boolean }
  | { t: 'op'; v: string; sp: boolean };

// Thrown inside the parser and evaluator to give up on a shape; not an error (no stack to capture).
const DECLINED = Symbol('declined');
const no = (): never => {
  throw DECLINED;
};

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y;
const OPS = ['//=', '|=', '+=', '-=', '*=', '/=', '%=', '==', '!=', '<=', '>=', '?//', '//', '..', '|', ',', '+', '-', '*', '/', '%', '<', '>', '(', ')', '[', ']', '{', '}', ':', '?', '=', ';', '.'];

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    let sp = false;
    while (i < n && /\s/.test(src[i])) {
      i++;
      sp = true;
    }
    if (i >= n) break;
    const c = src[i];
    if (c === '#' || c === '@') no(); // comments and formats: jq's
    if (c === '"') {
      const [parts, end] = lexString(src, i + 1);
      out.push({ t: 'str', parts, sp });
      i = end;
      continue;
    }
    if (c === '$') {
      IDENT.lastIndex = i + 1;
      const m = IDENT.exec(src);
      if (!m) no();
      const name = m![0];
      if (name === '__loc__' || src.startsWith('::', i + 1 + name.length)) no();
      out.push({ t: 'var', name, sp });
      i += 1 + name.length;
      continue;
    }
    if (c === '.' && src[i + 1] !== '.') {
      IDENT.lastIndex = i + 1;
      const m = IDENT.exec(src);
      if (m) {
        out.push({ t: 'field', name: m[0], sp });
        i += 1 + m[0].length;
        continue;
      }
      if (/[0-9]/.test(src[i + 1] ?? '')) no(); // `.5`: not canonical
    }
    if (/[0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      const text = NUMBER.exec(src)![0];
      const v = Number(text);
      // jq 1.8 keeps a literal's own digits (`1.0`, `1e3`, 20-digit integers): only canonical ones here.
      if (!Number.isFinite(v) || String(v) !== text) no();
      out.push({ t: 'num', v, sp });
      i += text.length;
      if (/[A-Za-z_.]/.test(src[i] ?? '')) no();
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      IDENT.lastIndex = i;
      const name = IDENT.exec(src)![0];
      if (src.startsWith('::', i + name.length)) no();
      out.push({ t: 'id', name, sp });
      i += name.length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) no();
    out.push({ t: 'op', v: op!, sp });
    i += op!.length;
  }
  return out;
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** A string literal's parts from after its opening quote; `\(e)` parts are parsed shapes. */
function lexString(src: string, from: number): [(string | Shape)[], number] {
  const parts: (string | Shape)[] = [];
  let lit = '';
  let i = from;
  while (i < src.length) {
    const c = src[i];
    if (c === '"') {
      if (lit || parts.length === 0) parts.push(lit);
      if (!isWellFormed(lit)) no();
      return [parts, i + 1];
    }
    if (c === '\\') {
      const e = src[i + 1];
      if (e === '(') {
        const end = closingParen(src, i + 2);
        if (lit) parts.push(lit);
        if (!isWellFormed(lit)) no();
        lit = '';
        parts.push(parseShape(src.slice(i + 2, end)) ?? no());
        i = end + 1;
        continue;
      }
      if (e === 'u') {
        const hex = src.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) no();
        const code = parseInt(hex, 16);
        if (code >= 0xd800 && code <= 0xdfff) no(); // surrogates: jq's own pairing rules
        lit += String.fromCharCode(code);
        i += 6;
        continue;
      }
      const r = ESCAPES[e];
      if (r === undefined) no();
      lit += r;
      i += 2;
      continue;
    }
    lit += c;
    i++;
  }
  return no();
}

/** The index of the `)` closing an interpolation whose code starts at `from` (strings skipped). */
function closingParen(src: string, from: number): number {
  let depth = 1;
  let i = from;
  while (i < src.length) {
    const c = src[i];
    if (c === '"') {
      i++;
      while (i < src.length && src[i] !== '"') i += src[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
    i++;
  }
  return no();
}

// ---------------------------------------------------------------------------------- parsing

const BUILTINS = new Set(['length', 'not', 'type', 'keys', 'add', 'first', 'last', 'tostring', 'ascii_downcase', 'ascii_upcase']);
const KEYWORDS = new Set(['if', 'then', 'elif', 'else', 'end', 'as', 'def', 'reduce', 'foreach', 'try', 'catch', 'label', 'import', 'include', 'and', 'or', '__loc__']);
const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }

  private isOp(v: string): boolean {
    const t = this.toks[this.i];
    return t !== undefined && t.t === 'op' && t.v === v;
  }

  private isWord(v: string): boolean {
    const t = this.toks[this.i];
    return t !== undefined && t.t === 'id' && t.name === v;
  }

  private expect(v: string): void {
    if (!this.isOp(v)) no();
    this.i++;
  }

  private expectWord(v: string): void {
    if (!this.isWord(v)) no();
    this.i++;
  }

  whole(): Shape {
    const s = this.pipe();
    if (this.i !== this.toks.length) no();
    return s;
  }

  /** `a | b` (right associative, lowest). */
  pipe(): Shape {
    const l = this.alt();
    if (this.isOp('|')) {
      this.i++;
      return { k: 'pipe', l, r: this.pipe() };
    }
    return l;
  }

  /** `a // b` (right associative). */
  private alt(): Shape {
    const l = this.or();
    if (this.isOp('//')) {
      this.i++;
      return { k: 'bin', op: '//', l, r: this.alt() };
    }
    return l;
  }

  private or(): Shape {
    let l = this.and();
    while (this.isWord('or')) {
      this.i++;
      l = { k: 'bin', op: 'or', l, r: this.and() };
    }
    return l;
  }

  private and(): Shape {
    let l = this.comparison();
    while (this.isWord('and')) {
      this.i++;
      l = { k: 'bin', op: 'and', l, r: this.comparison() };
    }
    return l;
  }

  private comparison(): Shape {
    const l = this.additive();
    const t = this.peek();
    if (t?.t === 'op' && COMPARISONS.has(t.v)) {
      this.i++;
      const r = this.additive();
      const next = this.peek();
      if (next?.t === 'op' && COMPARISONS.has(next.v)) no(); // non-associative in jq
      return { k: 'bin', op: t.v, l, r };
    }
    return l;
  }

  private additive(): Shape {
    let l = this.multiplicative();
    for (;;) {
      const t = this.peek();
      if (t?.t !== 'op' || (t.v !== '+' && t.v !== '-')) return l;
      this.i++;
      l = { k: 'bin', op: t.v, l, r: this.multiplicative() };
    }
  }

  private multiplicative(): Shape {
    let l = this.unary();
    for (;;) {
      const t = this.peek();
      if (t?.t !== 'op' || (t.v !== '*' && t.v !== '/' && t.v !== '%')) return l;
      this.i++;
      l = { k: 'bin', op: t.v, l, r: this.unary() };
    }
  }

  /** jq's `'-' Term`: the minus binds to the term (`-1 * 2` is `(-1) * 2`). */
  private unary(): Shape {
    if (this.isOp('-')) {
      this.i++;
      return { k: 'neg', e: this.postfix() };
    }
    return this.postfix();
  }

  /** A term and its suffixes (`.a`, `."k"`, `[0]`, `["k"]`, `.[0]`). */
  postfix(): Shape {
    let s = this.primary();
    for (;;) {
      const t = this.peek();
      if (!t) return s;
      if (t.t === 'field') {
        if (t.sp) no();
        this.i++;
        s = appendStep(s, t.name);
        continue;
      }
      if (t.t === 'op' && t.v === '[') {
        if (t.sp) no();
        this.i++;
        s = appendStep(s, this.indexStep());
        continue;
      }
      if (t.t === 'op' && t.v === '.') {
        // `.a.[0]`, `.a."k"`, `$x."k"`
        if (t.sp) no();
        this.i++;
        s = appendStep(s, this.dotStep() ?? no());
        continue;
      }
      if (t.t === 'op' && t.v === '?') no();
      return s;
    }
  }

  /** After a `.`: `[…]` or `"k"` written right after it (the step), else undefined (the `.` stands alone). */
  private dotStep(): string | number | undefined {
    const t = this.peek();
    if (!t || t.sp) return undefined;
    if (t.t === 'op' && t.v === '[') {
      this.i++;
      return this.indexStep();
    }
    if (t.t === 'str') {
      if (t.parts.length !== 1 || typeof t.parts[0] !== 'string') no();
      this.i++;
      return t.parts[0] as string;
    }
    return undefined;
  }

  /** After `[`: a canonical integer or a plain string, then `]`. */
  private indexStep(): string | number {
    const t = this.peek();
    let step: string | number;
    if (t?.t === 'num' && Number.isInteger(t.v) && Math.abs(t.v) < 1e9) step = t.v;
    else if (t?.t === 'op' && t.v === '-' && this.toks[this.i + 1]?.t === 'num') {
      const v = (this.toks[this.i + 1] as { v: number }).v;
      if (!Number.isInteger(v) || v === 0 || v >= 1e9) no();
      this.i++;
      step = -v;
    } else if (t?.t === 'str' && t.parts.length === 1 && typeof t.parts[0] === 'string') step = t.parts[0];
    else return no();
    this.i++;
    this.expect(']');
    return step;
  }

  private primary(): Shape {
    const t = this.peek() ?? no();
    this.i++;
    switch (t.t) {
      case 'num':
        return { k: 'lit', v: t.v };
      case 'str':
        return t.parts.length === 1 && typeof t.parts[0] === 'string' ? { k: 'lit', v: t.parts[0] } : { k: 'str', parts: t.parts };
      case 'field':
        return { k: 'path', from: null, steps: [t.name] };
      case 'var':
        return { k: 'var', name: t.name };
      case 'id': {
        if (t.name === 'true' || t.name === 'false') return { k: 'lit', v: t.name === 'true' };
        if (t.name === 'null') return { k: 'lit', v: null };
        if (t.name === 'if') return this.ifBody();
        if (!BUILTINS.has(t.name) || this.isOp('(')) return no();
        return { k: 'call', name: t.name };
      }
      case 'op': {
        if (t.v === '.') {
          const step = this.dotStep();
          return { k: 'path', from: null, steps: step === undefined ? [] : [step] };
        }
        if (t.v === '(') {
          const e = this.pipe();
          this.expect(')');
          return e;
        }
        if (t.v === '[') {
          if (this.isOp(']')) {
            this.i++;
            return { k: 'arr', items: [] };
          }
          const items = [this.itemExp()];
          while (this.isOp(',')) {
            this.i++;
            items.push(this.itemExp());
          }
          this.expect(']');
          return { k: 'arr', items };
        }
        if (t.v === '{') return this.object();
        return no();
      }
    }
  }

  /** An element of `[a, b]`: an expression without `,`; `[a | b, c]` is `[a | (b, c)]` in jq, left to it. */
  private itemExp(): Shape {
    const s = this.alt();
    if (this.isOp('|')) no(); // `[a | b, c]` is `[a | (b, c)]` in jq: left to jq
    return s;
  }

  private ifBody(): Shape {
    const cond = this.pipe();
    this.expectWord('then');
    const then = this.pipe();
    if (this.isWord('elif')) {
      this.i++;
      return { k: 'if', cond, then, else: this.ifBody() };
    }
    let otherwise: Shape | null = null;
    if (this.isWord('else')) {
      this.i++;
      otherwise = this.pipe();
    }
    this.expectWord('end');
    return { k: 'if', cond, then, else: otherwise };
  }

  private object(): Shape {
    const entries: { key: string | Shape; value: Shape }[] = [];
    if (this.isOp('}')) {
      this.i++;
      return { k: 'obj', entries };
    }
    for (;;) {
      const t = this.peek() ?? no();
      this.i++;
      let key: string | Shape;
      let shorthand: Shape | undefined;
      if (t.t === 'id') {
        key = t.name;
        shorthand = { k: 'path', from: null, steps: [t.name] };
        if (t.name === '__loc__') no();
      } else if (t.t === 'var') {
        key = t.name;
        shorthand = { k: 'var', name: t.name };
      } else if (t.t === 'str') {
        if (t.parts.length !== 1 || typeof t.parts[0] !== 'string') no();
        key = t.parts[0] as string;
        shorthand = { k: 'path', from: null, steps: [key] };
      } else if (t.t === 'op' && t.v === '(') {
        key = this.pipe();
        this.expect(')');
        shorthand = undefined;
      } else return no();
      let value: Shape;
      if (this.isOp(':')) {
        if (t.t === 'var') no(); // `{$x: v}` means something else in jq 1.8
        this.i++;
        value = this.objectValue();
      } else {
        if (!shorthand || (t.t === 'id' && KEYWORDS.has(t.name))) no();
        value = shorthand!;
      }
      entries.push({ key, value });
      if (this.isOp(',')) {
        this.i++;
        continue;
      }
      this.expect('}');
      return { k: 'obj', entries };
    }
  }

  /** jq's DictExpr: expressions without `,`, joined by `|` (`{a: .b | length}`, `{a: .n + 1}`). */
  private objectValue(): Shape {
    const l = this.alt();
    if (this.isOp('|')) {
      this.i++;
      return { k: 'pipe', l, r: this.objectValue() };
    }
    return l;
  }
}

function appendStep(s: Shape, step: string | number): Shape {
  if (s.k === 'path') return { k: 'path', from: s.from, steps: [...s.steps, step] };
  return { k: 'path', from: s, steps: [step] };
}

/** Parses jq source (unwrapped from `${ }`) into a shape, or undefined when it is not one of the shapes. */
export function parseShape(src: string): Shape | undefined {
  try {
    const toks = lex(src);
    if (toks.length === 0) return undefined;
    const shape = new Parser(toks).whole();
    return checkKeys(shape) ? shape : undefined;
  } catch (e) {
    if (e === DECLINED) return undefined;
    throw e;
  }
}

/** Object keys and path steps that jq could see differently (U+FFFD can collide with normalised input): left to jq. */
function checkKeys(s: Shape): boolean {
  switch (s.k) {
    case 'path':
      return s.steps.every((p) => typeof p !== 'string' || (!p.includes('\uFFFD') && isWellFormed(p))) && (s.from === null || checkKeys(s.from));
    case 'arr':
      return s.items.every(checkKeys);
    case 'obj':
      return s.entries.every((e) => (typeof e.key === 'string' ? isWellFormed(e.key) : checkKeys(e.key)) && checkKeys(e.value));
    case 'bin':
    case 'pipe':
      return checkKeys(s.l) && checkKeys(s.r);
    case 'neg':
      return checkKeys(s.e);
    case 'if':
      return checkKeys(s.cond) && checkKeys(s.then) && (s.else === null || checkKeys(s.else));
    case 'str':
      return s.parts.every((p) => typeof p === 'string' || checkKeys(p));
    default:
      return true;
  }
}

// ---------------------------------------------------------------------------------- evaluation

const hasOwn = Object.prototype.hasOwnProperty;

/** Where variables come from: `$name` → its value, undefined when not bound (jq: a compile error). */
export type ShapeVars = (name: string) => Json | undefined;

/**
 * Evaluates `s` on `input` (`.`): jq's one output, or DECLINE where jq would fail or might answer
 * otherwise. `input` and the variables may be in any form: what is read of them is normalised
 * (jq's view: lone surrogates U+FFFD, no undefined) unless already known normal.
 */
export function evalShape(s: Shape, input: Json, vars: ShapeVars): Json | typeof DECLINE {
  try {
    return normal(ev(s, { v: input, normal: isNormal(input) }, vars));
  } catch (e) {
    if (e === DECLINED) return DECLINE;
    throw e;
  }
}

/** A value being evaluated, and whether it is known to be in jq's normal form. */
interface Val {
  v: Json;
  normal: boolean;
}

function isNormal(v: unknown): boolean {
  return v === null || typeof v === 'boolean' || (typeof v === 'object' ? NORMAL.has(v as object) : false);
}

/** `v` in jq's normal form, shared when already known normal. */
function normal(x: Val): Json {
  if (x.normal) return x.v;
  if (typeof x.v === 'number') {
    if (!Number.isFinite(x.v)) return null;
    return x.v === 0 ? 0 : x.v;
  }
  return markNormal(cloneAsJq(x.v));
}

function nv(v: Json): Val {
  return { v, normal: true };
}

function ev(s: Shape, input: Val, vars: ShapeVars): Val {
  switch (s.k) {
    case 'lit':
      return nv(s.v);
    case 'var': {
      const v = vars(s.name);
      if (v === undefined) no();
      return { v: v!, normal: isNormal(v) };
    }
    case 'path': {
      const from = s.from === null ? input : ev(s.from, input, vars);
      if (s.steps.length === 0) return from;
      const v = walk(from.v, s.steps);
      // Below a normal container everything is normal: mark what is handed on, so it is shared later too.
      return from.normal ? nv(markNormal(v)) : { v, normal: isNormal(v) };
    }
    case 'pipe':
      return ev(s.r, ev(s.l, input, vars), vars);
    case 'arr': {
      const out: Json[] = new Array(s.items.length);
      for (let i = 0; i < s.items.length; i++) out[i] = normal(ev(s.items[i], input, vars));
      return nv(markNormal(out));
    }
    case 'obj': {
      const out: Record<string, Json> = {};
      for (const e of s.entries) {
        let key: string;
        if (typeof e.key === 'string') key = e.key;
        else {
          const k = normal(ev(e.key, input, vars));
          if (typeof k !== 'string') no();
          key = k as string;
        }
        const value = normal(ev(e.value, input, vars));
        setKey(out, key, value);
      }
      return nv(markNormal(out));
    }
    case 'neg': {
      const v = normal(ev(s.e, input, vars));
      // jq negates a number it read (a literal) in decimal, where -(0) is 0, and one it computed as a double (-0): left to jq.
      if (typeof v !== 'number' || v === 0) no();
      return nv(finite(-(v as number)));
    }
    case 'bin':
      return binary(s.op, s.l, s.r, input, vars);
    case 'if': {
      const c = normal(ev(s.cond, input, vars));
      if (c !== null && c !== false) return ev(s.then, input, vars);
      return s.else === null ? input : ev(s.else, input, vars);
    }
    case 'str': {
      let out = '';
      for (const p of s.parts) out += typeof p === 'string' ? p : jqToString(normal(ev(p, input, vars)));
      return nv(out);
    }
    case 'call':
      return nv(builtin(s.name, normal(input)));
  }
}

/** A path's steps from `v`, as jq: null stays null; a wrong kind is jq's error (DECLINE). */
function walk(v: Json, steps: (string | number)[]): Json {
  let cur: unknown = v === undefined ? null : v;
  for (const step of steps) {
    if (cur === null || cur === undefined) {
      cur = null;
      continue;
    }
    if (typeof step === 'string') {
      if (typeof cur !== 'object' || Array.isArray(cur)) no();
      cur = hasOwn.call(cur, step) ? (cur as Record<string, unknown>)[step] : null;
    } else {
      if (!Array.isArray(cur)) no();
      const arr = cur as unknown[];
      const i = step < 0 ? arr.length + step : step;
      cur = i >= 0 && i < arr.length ? arr[i] : null;
    }
    if (cur === undefined) cur = null;
  }
  return cur as Json;
}

function finite(n: number): number {
  if (!Number.isFinite(n)) no(); // jq prints infinities as ±1.797e308 and NaN as null: left to jq
  return n;
}

const truthy = (v: Json): boolean => v !== null && v !== false;

function binary(op: string, ls: Shape, rs: Shape, input: Val, vars: ShapeVars): Val {
  if (op === '//') {
    const l = ev(ls, input, vars);
    return truthy(l.v === undefined ? null : l.v) ? l : ev(rs, input, vars);
  }
  if (op === 'and' || op === 'or') {
    const l = truthy(normal(ev(ls, input, vars)));
    if (op === 'and' && !l) return nv(false);
    if (op === 'or' && l) return nv(true);
    return nv(truthy(normal(ev(rs, input, vars))));
  }
  // jq evaluates the right operand first (both are generators over the same input).
  const r = ev(rs, input, vars);
  const l = ev(ls, input, vars);
  if (COMPARISONS.has(op)) {
    const c = compare(normal(l), normal(r));
    return nv(op === '==' ? c === 0 : op === '!=' ? c !== 0 : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0);
  }
  const a = normal(l);
  const b = normal(r);
  switch (op) {
    case '+':
      return nv(plus(a, b));
    case '-':
      if (typeof a === 'number' && typeof b === 'number') return nv(finite(a - b));
      if (Array.isArray(a) && Array.isArray(b)) return nv(markNormal(a.filter((x) => !b.some((y) => compare(x, y) === 0))));
      return no();
    case '*':
      if (typeof a === 'number' && typeof b === 'number') return nv(finite(a * b));
      if (isObject(a) && isObject(b)) return nv(deepMerge(a, b));
      return no();
    case '/':
      if (typeof a === 'number' && typeof b === 'number' && b !== 0) return nv(finite(a / b));
      return no();
    case '%': {
      // jq 1.8 converts both to integers; only small ones here, where that is exact.
      if (typeof a !== 'number' || typeof b !== 'number' || !Number.isInteger(a) || !Number.isInteger(b) || b === 0) return no();
      if (Math.abs(a) > 2 ** 31 || Math.abs(b) > 2 ** 31) return no();
      const m = a % b;
      return nv(m === 0 ? 0 : m);
    }
  }
  return no();
}

function isObject(v: Json): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function deepMerge(a: Record<string, Json>, b: Record<string, Json>): Json {
  const out: Record<string, Json> = {};
  for (const k of Object.keys(a)) setKey(out, k, a[k]);
  for (const k of Object.keys(b)) {
    const x = hasOwn.call(out, k) ? out[k] : undefined;
    const y = b[k];
    setKey(out, k, x !== undefined && isObject(x) && isObject(y) ? deepMerge(x, y) : y);
  }
  return markNormal(out);
}

const KIND_ORDER = (v: Json): number => (v === null ? 0 : v === false ? 1 : v === true ? 2 : typeof v === 'number' ? 3 : typeof v === 'string' ? 4 : Array.isArray(v) ? 5 : 6);

/** jq's total order of values (jv_cmp): kinds first, strings by code point, objects by their sorted keys, then values. */
export function compare(a: Json, b: Json): number {
  const ka = KIND_ORDER(a);
  const kb = KIND_ORDER(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  if (typeof a === 'number') return a < (b as number) ? -1 : a > (b as number) ? 1 : 0;
  if (typeof a === 'string') return compareStrings(a, b as string);
  if (Array.isArray(a)) {
    const bb = b as Json[];
    for (let i = 0; i < a.length && i < bb.length; i++) {
      const c = compare(a[i], bb[i]);
      if (c !== 0) return c;
    }
    return a.length < bb.length ? -1 : a.length > bb.length ? 1 : 0;
  }
  if (isObject(a)) {
    const bo = b as Record<string, Json>;
    const keysA = sortedKeys(a);
    const keysB = sortedKeys(bo);
    const c = compare(keysA, keysB);
    if (c !== 0) return c;
    for (const k of keysA) {
      const d = compare(a[k], bo[k]);
      if (d !== 0) return d;
    }
    return 0;
  }
  return 0;
}

/** Code point order (jq compares UTF-8 bytes): UTF-16 order differs for astral vs U+E000–U+FFFF. */
function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1; // a surrogate (an astral code point) is above every BMP one
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function sortedKeys(o: Record<string, Json>): string[] {
  return Object.keys(o).sort(compareStrings);
}

function jqToString(v: Json): string {
  if (typeof v === 'string') return v;
  if (v === null || typeof v === 'boolean') return String(v);
  // jq prints numbers its own way past the safe integers: left to jq.
  if (typeof v === 'number' && Number.isSafeInteger(v)) return Object.is(v, -0) ? '-0' : String(v);
  return no();
}

function builtin(name: string, v: Json): Json {
  switch (name) {
    case 'length':
      if (v === null) return 0;
      if (typeof v === 'number') return Math.abs(v);
      if (typeof v === 'string') {
        let n = 0;
        for (let i = 0; i < v.length; i++) {
          const c = v.charCodeAt(i);
          if (c < 0xdc00 || c > 0xdfff) n++;
        }
        return n;
      }
      if (Array.isArray(v)) return v.length;
      if (isObject(v)) return Object.keys(v).length;
      return no();
    case 'not':
      return !truthy(v);
    case 'type':
      return v === null ? 'null' : typeof v === 'boolean' ? 'boolean' : typeof v === 'number' ? 'number' : typeof v === 'string' ? 'string' : Array.isArray(v) ? 'array' : 'object';
    case 'keys':
      if (Array.isArray(v)) return markNormal(v.map((_, i) => i));
      if (isObject(v)) return markNormal(sortedKeys(v));
      return no();
    case 'add': {
      if (v === null || typeof v !== 'object') return no();
      const items = Array.isArray(v) ? v : Object.keys(v).map((k) => v[k]);
      let acc: Json = null;
      for (const x of items) acc = plus(acc, x);
      return acc;
    }
    case 'first':
    case 'last': {
      if (v === null) return null;
      if (!Array.isArray(v)) return no();
      const at = name === 'first' ? 0 : v.length - 1;
      return at >= 0 && at < v.length ? v[at] : null;
    }
    case 'tostring':
      if (typeof v === 'string') return v;
      return jqToString(v);
    case 'ascii_downcase':
    case 'ascii_upcase':
      if (typeof v !== 'string') return no();
      return name === 'ascii_downcase' ? v.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : v.replace(/[a-z]+/g, (m) => m.toUpperCase());
  }
  return no();
}

/** jq's `+`: null is the identity; numbers, strings, arrays (an append is one copy), objects (the right wins). */
function plus(a: Json, b: Json): Json {
  if (a === null) return b;
  if (b === null) return a;
  if (typeof a === 'number' && typeof b === 'number') return finite(a + b);
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return markNormal(a.length === 0 ? b : b.length === 0 ? a : a.concat(b));
  if (isObject(a) && isObject(b)) {
    const out: Record<string, Json> = {};
    for (const k of Object.keys(a)) setKey(out, k, a[k]);
    for (const k of Object.keys(b)) setKey(out, k, b[k]);
    return markNormal(out);
  }
  return no();
}

export { DECLINE };
