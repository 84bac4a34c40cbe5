/**
 * What expressions read, found from their text alone (no jq run): the `$variables` they name (and
 * the fixed paths under them, `$workflow.id`), whether they read the data `.`, and the `fn:`
 * functions they call. Used to send a function call's secret expressions only the context they
 * read ({@link secretContextOf}), instead of the whole data and scope. SANDBOX-SAFE.
 *
 * Conservative: over-reporting only costs bytes, under-reporting would break an evaluation. The
 * data counts as read wherever the current input may be the data (the start of the expression, of
 * a bracket, of an `if` branch, after `,` `;`, after `E as $x |`) and the code has a path (`.`,
 * `.a`, `..`, `.[0]`), a function call (`length`, `map(...)`: builtins read their input), a format
 * without a string (`@base64`) or an `fn:` call whose operation reads it. After a plain `|` the
 * input is the left side's output, not the data (`$secrets.u | @base64` reads no data). `def`
 * anywhere, an unterminated string or an unbalanced bracket: the data counts as read.
 */
import type { Json } from '../common/model';
import { setKey } from './fastpath';
import { scanCode, splitTemplate } from './text';
import type { ExprScope } from './index';

/** A variable's reads: the paths under it (`[['id'], ['definition', 'name']]`), or `whole`. */
export type VariableReads = string[][] | 'whole';

export interface ExpressionReads {
  /** Whether the data (`.` at the root) may be read. */
  data: boolean;
  /** `$name` (without the `$`) → what is read of it. */
  variables: Map<string, VariableReads>;
  /** The `fn:` functions called, also through other functions. */
  functions: Set<string>;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_CHAR = /[A-Za-z0-9_]/;
const SPACE = /\s/;

/** Words that are syntax, not calls (calls read their input). */
const KEYWORDS = new Set(['and', 'or', 'if', 'then', 'elif', 'else', 'end', 'as', 'def', 'reduce', 'foreach', 'try', 'catch', 'label', 'import', 'include', '__loc__']);
/** Literals: terms that read nothing. */
const LITERALS = new Set(['true', 'false', 'null']);
/** Builtins that ignore their input (their arguments are code over it, scanned as such): `range(5)`, `now`. */
const INPUTLESS = new Set(['range', 'now', 'empty', 'infinite', 'nan', 'env', 'builtins', 'input_filename']);

interface Frame {
  /** What closes it: `)`, `]`, `}`, `end` (an `if`), or '' (the whole expression). */
  close: string;
  /** Whether `.` is the data at the frame's start (and after `,` `;` and branch keywords). */
  start: boolean;
  /** Whether `.` is the data here. */
  root: boolean;
  /** `as` seen since the last `|`, `,` or `;`: the `|` after `E as $x` keeps the input. */
  sawAs: boolean;
}

/**
 * What `expressions` read. Each is a value string as written: `${ ... }` expressions inside it
 * are analysed, or, when it has none, the whole string as bare jq (how secret arguments are
 * evaluated). `functions`: the expression functions in scope (name → operation), for `fn:`.
 */
export function expressionReads(expressions: readonly string[], functions?: Record<string, string>): ExpressionReads {
  const reads: ExpressionReads = { data: false, variables: new Map(), functions: new Set() };
  const names = functions ? Object.keys(functions).sort((a, b) => b.length - a.length) : [];
  const seen = new Set<string>();
  const analyse = (code: string, root: boolean): void => {
    scan(code, root, reads, names, (name, callRoot) => {
      reads.functions.add(name);
      const op = functions?.[name];
      const key = `${name}\u0000${callRoot}`;
      if (op === undefined || seen.has(key)) return;
      seen.add(key);
      for (const c of codesOf(op)) analyse(c, callRoot);
    });
  };
  for (const e of expressions) for (const c of codesOf(e)) analyse(c, true);
  return reads;
}

/** The jq code of a value string: its `${ }` parts, else the string itself (bare jq). */
function codesOf(value: string): string[] {
  const parts = splitTemplate(value);
  if (!parts) return [value];
  return parts.flatMap((p) => ('expr' in p ? [p.expr] : []));
}

function scan(code: string, root: boolean, reads: ExpressionReads, fnNames: readonly string[], onFn: (name: string, root: boolean) => void): void {
  const frames: Frame[] = [{ close: '', start: root, root, sawAs: false }];
  const top = () => frames[frames.length - 1];
  const push = (close: string) => frames.push({ close, start: top().root, root: top().root, sawAs: false });
  const reset = () => {
    const f = top();
    f.root = f.start;
    f.sawAs = false;
  };
  const readData = () => {
    if (top().root) reads.data = true;
  };
  // Whether the previous token is a term a `.field` or `[...]` attaches to (`$x.a`, `(e).a`).
  let term = false;
  let i = 0;
  const n = code.length;
  while (i < n) {
    const c = code[i];
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < n && code[i] !== '\n') i++;
      continue;
    }
    if (c === '"') {
      i = scanString(code, i + 1, reads, fnNames, onFn, top().root);
      term = true;
      // `{"a"}` is `{"a": .a}` (over-reports `{k: "v"}`: safe).
      if (top().close === '}' && /^\s*[,}]/.test(code.slice(i))) readData();
      continue;
    }
    if (c === '$') {
      let j = i + 1;
      if (!IDENT_START.test(code[j] ?? '')) {
        i++;
        term = false;
        continue;
      }
      while (j < n && IDENT_CHAR.test(code[j])) j++;
      const name = code.slice(i + 1, j);
      const path: string[] = [];
      // A fixed path right after the variable: what follows only sees the value at its end.
      for (;;) {
        if (code[j] !== '.') break;
        if (IDENT_START.test(code[j + 1] ?? '')) {
          let k = j + 2;
          while (k < n && IDENT_CHAR.test(code[k])) k++;
          path.push(code.slice(j + 1, k));
          j = k;
          continue;
        }
        const quoted = /^\."([^"\\]*)"/.exec(code.slice(j));
        if (quoted) {
          path.push(quoted[1]);
          j += quoted[0].length;
          continue;
        }
        break;
      }
      addVariable(reads, name, path);
      i = j;
      term = true;
      continue;
    }
    if (c === '.') {
      if (code[i + 1] === '.') {
        readData(); // `..`
        i += 2;
        term = true;
        continue;
      }
      if (!term) readData();
      i++;
      if (IDENT_START.test(code[i] ?? '')) while (i < n && IDENT_CHAR.test(code[i])) i++;
      term = true;
      continue;
    }
    if (/[0-9]/.test(c)) {
      const m = /^[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]+)?/.exec(code.slice(i))!;
      i += Math.max(1, m[0].length);
      term = true;
      continue;
    }
    if (c === '@') {
      let j = i + 1;
      while (j < n && IDENT_CHAR.test(code[j])) j++;
      let k = j;
      while (k < n && SPACE.test(code[k])) k++;
      if (code[k] !== '"') readData(); // `@base64` alone formats its input
      i = j;
      term = true;
      continue;
    }
    if (IDENT_START.test(c)) {
      if (code.startsWith('fn:', i) && (i === 0 || !IDENT_CHAR.test(code[i - 1]))) {
        const at = i + 3;
        let name = fnNames.find((f) => code.startsWith(f, at) && !IDENT_CHAR.test(code[at + f.length] ?? ''));
        let end = name !== undefined ? at + name.length : at;
        if (name === undefined && IDENT_START.test(code[at] ?? '')) {
          while (end < n && (IDENT_CHAR.test(code[end]) || code[end] === '-')) end++;
          name = code.slice(at, end);
        }
        if (name !== undefined) {
          onFn(name, top().root);
          i = end;
          term = true;
          continue;
        }
      }
      let j = i;
      while (j < n && (IDENT_CHAR.test(code[j]) || (code[j] === ':' && code[j + 1] === ':' && IDENT_START.test(code[j + 2] ?? '')))) j += code[j] === ':' ? 2 : 1;
      const word = code.slice(i, j);
      let k = j;
      while (k < n && SPACE.test(code[k])) k++;
      i = j;
      if (code[k] === ':' && code[k + 1] !== ':' && top().close === '}') {
        term = false; // an object key (`{a: ...}`), not a call (`.[length:]` is one: not in an object)
        continue;
      }
      if (LITERALS.has(word)) {
        term = true;
        continue;
      }
      if (KEYWORDS.has(word)) {
        term = word === 'end';
        if (word === 'def') reads.data = true; // a def's body sees whatever its caller gives it
        else if (word === 'as' || word === 'label') top().sawAs = true;
        else if (word === 'if') push('end');
        else if ((word === 'then' || word === 'elif' || word === 'else') && top().close === 'end') reset();
        else if (word === 'end' && top().close === 'end') frames.pop();
        continue;
      }
      if (!INPUTLESS.has(word)) readData(); // a call: builtins read their input
      term = true;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') {
      // `x[...]` indexes x: inside, `.` is still the input of x's context.
      push(c === '(' ? ')' : c === '[' ? ']' : '}');
      i++;
      term = false;
      continue;
    }
    if (c === ')' || c === ']' || c === '}') {
      while (frames.length > 1 && top().close !== c) frames.pop(); // an `if` left open: tolerated
      if (frames.length > 1) frames.pop();
      else reads.data = true; // unbalanced: unsure
      i++;
      term = true;
      continue;
    }
    if (c === '|' && code[i + 1] !== '=') {
      const f = top();
      if (!f.sawAs) f.root = false; // the input is now the left side's output
      f.sawAs = false;
      i++;
      term = false;
      continue;
    }
    if (c === ',' || c === ';') {
      reset();
      i++;
      term = false;
      continue;
    }
    if (c === '?') {
      i++;
      term = true;
      continue;
    }
    i++;
    term = false;
  }
}

/** Index past a string literal whose body starts at `from`; its `\( )` parts are code over the same input. */
function scanString(code: string, from: number, reads: ExpressionReads, fnNames: readonly string[], onFn: (name: string, root: boolean) => void, root: boolean): number {
  let i = from;
  while (i < code.length) {
    const c = code[i];
    if (c === '"') return i + 1;
    if (c === '\\' && code[i + 1] === '(') {
      const end = scanCode(code, i + 2, ')');
      if (end < 0) break;
      scan(code.slice(i + 2, end - 1), root, reads, fnNames, onFn);
      i = end;
      continue;
    }
    i += c === '\\' ? 2 : 1;
  }
  reads.data = true; // unterminated: unsure
  return code.length;
}

function addVariable(reads: ExpressionReads, name: string, path: string[]): void {
  const had = reads.variables.get(name);
  if (had === 'whole') return;
  if (path.length === 0) reads.variables.set(name, 'whole');
  else reads.variables.set(name, [...(had ?? []), path]);
}

/**
 * `value` cut down to what `reads` reads of it: the subtrees at the paths (whole below them). A
 * value that is not an object is kept whole (jq's `.a` on it errors, or gives null: the same).
 */
export function pickReads(value: Json, reads: VariableReads): Json {
  if (reads === 'whole' || reads.some((p) => p.length === 0) || !value || typeof value !== 'object' || Array.isArray(value)) return value;
  const byKey = new Map<string, string[][]>();
  for (const [key, ...rest] of reads) byKey.set(key, [...(byKey.get(key) ?? []), rest]);
  const out: Record<string, Json> = {};
  for (const [key, rest] of byKey) {
    if (Object.prototype.hasOwnProperty.call(value, key)) setKey(out, key, pickReads((value as Record<string, Json>)[key], rest));
  }
  return out;
}

/** What a call's secret expressions are evaluated over in the worker: the data (when read) and the scope they read. */
export interface SecretContext {
  /** The data `.`; absent when no expression reads it. */
  data?: Json;
  scope: { constants?: Json; workflow?: Json; variables?: Record<string, Json>; functions?: Record<string, string> };
}

/** Variables bound in the worker, never sent. */
const SECRET_VARIABLES = new Set(['SECRETS', 'secrets']);

/**
 * The context `expressions` (secret arguments, auth properties) need in the worker: the data only
 * when they read it, and of the scope only the constants (`$CONST`), `$WORKFLOW`, variables and
 * `fn:` functions they read, each cut to the paths read. Undefined when they need nothing
 * (`${ "Bearer " + $secrets.token }`).
 */
export function secretContextOf(expressions: readonly string[], data: Json, scope: ExprScope): SecretContext | undefined {
  const reads = expressionReads(expressions, scope.functions);
  const out: SecretContext = { scope: {} };
  if (reads.data) out.data = data;
  for (const [name, what] of reads.variables) {
    if (SECRET_VARIABLES.has(name)) continue;
    if (name === 'CONST') out.scope.constants = pickReads(scope.constants ?? {}, what);
    else if (name === 'WORKFLOW') out.scope.workflow = pickReads(scope.workflow ?? {}, what);
    else if (scope.variables && Object.prototype.hasOwnProperty.call(scope.variables, name)) {
      out.scope.variables ??= {};
      setKey(out.scope.variables, name, pickReads(scope.variables[name], what));
    }
  }
  for (const name of reads.functions) {
    const op = scope.functions?.[name];
    if (op === undefined) continue;
    out.scope.functions ??= {};
    setKey(out.scope.functions as Record<string, Json>, name, op);
  }
  return out.data === undefined && Object.keys(out.scope).length === 0 ? undefined : out;
}
