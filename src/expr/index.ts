/**
 * Workflow expressions (jq 1.8.2 built to WebAssembly, see engine.ts), evaluated
 * deterministically and synchronously: in Node and inside the Temporal workflow sandbox alike.
 * SANDBOX-SAFE: no node: imports, no fs, no process.
 *
 * - `${ expr }` marks an expression (whitespace around it allowed); fields that are always
 *   expressions also take bare jq; strings without `${` are literals; a string mixing text and
 *   `${ }` is interpolated (strings inserted as is, other values as JSON).
 * - Variables: `$CONST`, `$WORKFLOW`, `scope.variables` (e.g. a foreach iterationParam), and
 *   `fn:name` calls, rewritten into jq `def`s of the expression functions' operations.
 * - `$ENV`/`env` are `{}`; `input`/`inputs` raise errors.
 * - One jq run per evaluation site: {@link evaluateTemplate} batches every embedded expression
 *   of a value into ONE program; simple paths (`.a.b`, `.a[0]`, `$CONST.x`, `.`) are answered
 *   in TypeScript (see fastpath.ts) with no jq run at all.
 * - Secrets: the workflow never holds secret values. `$SECRETS` is rejected here with an
 *   {@link ExpressionError}; function arguments that reference it travel unevaluated to the
 *   activity (`FunctionCall.secretArguments`, see {@link splitSecretArguments}), which evaluates
 *   them with `evaluateWithSecrets` (src/expr/secrets.ts, Node side). See README.md.
 *
 * Initialisation: the engine is loaded synchronously when this module is imported, so every
 * function here can be called right away (`initExpressions()` is kept for older callers). See
 * engine.ts for the sandbox details.
 */
import type { Json } from '../common/model';
import { checkJq, isEngineReady, runJqCli, startEngine, type JqCliRun } from './engine';
import { ExpressionError, JqEngineError } from './errors';
import { DECLINE, evalFastPath, parseFastPath, setKey, type FastPath } from './fastpath';
import { findFnRefs, findVariables, fnIdentifier, isSelfContained, splitTemplate, unwrapExpression, type Segment } from './text';
import { expressionReads, pickReads, type VariableReads } from './reads';
import { evalShape, markNormal, parseShape, type Shape } from './shapes';

export { ExpressionError, JqEngineError, type ExpressionErrorKind } from './errors';

export interface ExprScope {
  /** `$CONST` (definition constants). */
  constants?: Json;
  /** `$WORKFLOW` (`instanceId`, `id`, `name`, `version`, `startTime`, ...). */
  workflow?: Json;
  /** Other `$vars`, e.g. a foreach iterationParam `{ person: {...} }`. */
  variables?: Record<string, Json>;
  /** Expression functions: name -> jq operation, for `fn:name`. */
  functions?: Record<string, string>;
  /** How the run evaluates (absent: as runs recorded before `expression-work`). */
  policy?: EvalPolicy;
}

/**
 * A run's way of evaluating (feature `expression-work`), one object for the whole run: the common
 * shapes in TypeScript with values shared (shapes.ts), each jq run under a step budget, and the
 * work done counted in deterministic units, which the walk budget reads to yield in time.
 */
export interface EvalPolicy {
  /** jq steps one evaluation may take before it fails (0: no bound). */
  readonly fuel: number;
  /** Work so far: bytes into and out of jq, jq steps, shape evaluations. The same on every replay. */
  work: number;
}

/**
 * Work units: a unit is about a byte jq parses or prints (~30 MB/s here). A jq step costs 4 (4–28
 * million steps a second, by what they allocate), a shape evaluation 64 (a few µs).
 */
const SHAPE_WORK = 64;
const STEP_WORK = 4;

/** Resolves when the jq engine is loaded: at once, loading is synchronous (kept for older callers). */
export function initExpressions(): Promise<void> {
  return startEngine();
}

/** True when expressions can be evaluated synchronously right now (always, unless jq failed to load). */
export function expressionsReady(): boolean {
  return isEngineReady();
}

/** True when `value` is exactly one `${ ... }` (surrounding whitespace allowed). */
export function isExpression(value: string): boolean {
  return typeof value === 'string' && unwrapExpression(value) !== undefined;
}

/** True when the string contains at least one `${ ... }` (a whole expression or interpolation). */
export function hasExpression(value: string): boolean {
  return typeof value === 'string' && splitTemplate(value) !== undefined;
}

/** The jq source of `${ expr }`, or the string itself (bare jq). */
export function expressionSource(expr: string): string {
  return unwrapExpression(expr) ?? expr;
}

const SECRETS_RE = /\$SECRETS(?![A-Za-z0-9_])/;

/**
 * Whether `expr` (`${ }`, bare jq or a template string) may read `$SECRETS`, directly or
 * through the `fn:` functions it calls (when `functions` is given). Conservative: a mention
 * inside a jq string literal counts too.
 */
export function referencesSecrets(expr: string, functions?: Record<string, string>): boolean {
  if (typeof expr !== 'string') return false;
  if (SECRETS_RE.test(expr)) return true;
  if (!functions || !expr.includes('fn:')) return false;
  const seen = new Set<string>();
  const visit = (code: string): boolean => {
    for (const ref of findFnRefs(code, Object.keys(functions))) {
      if (seen.has(ref.name)) continue;
      seen.add(ref.name);
      const op = functions[ref.name];
      if (op === undefined) continue;
      if (SECRETS_RE.test(op) || visit(op)) return true;
    }
    return false;
  };
  return visit(expr);
}

/** Every string inside `value` (recursively) that references `$SECRETS`, with its JSON Pointer. */
export function findSecretReferences(value: Json, functions?: Record<string, string>, pointer = ''): { pointer: string; expression: string }[] {
  const out: { pointer: string; expression: string }[] = [];
  const walk = (v: Json, p: string): void => {
    if (typeof v === 'string') {
      if (referencesSecrets(v, functions)) out.push({ pointer: p, expression: v });
    } else if (Array.isArray(v)) v.forEach((e, i) => walk(e, `${p}/${i}`));
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], `${p}/${escapePointer(k)}`);
  };
  walk(value, pointer);
  return out;
}

function escapePointer(k: string): string {
  return k.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Splits function-call arguments for {@link FunctionCall}: strings that reference `$SECRETS`
 * are removed from `arguments` (replaced by null) and returned, unevaluated, in
 * `secretArguments` keyed by JSON Pointer (`/token`, `/headers/Authorization`). The rest is
 * left for {@link evaluateTemplate}. The activity side puts them back with
 * `resolveSecretArguments` (src/expr/secrets.ts).
 */
export function splitSecretArguments(
  args: Json,
  functions?: Record<string, string>,
): { arguments: Json; secretArguments?: Record<string, string> } {
  const refs = findSecretReferences(args, functions);
  if (refs.length === 0) return { arguments: args };
  const secretArguments: Record<string, string> = {};
  for (const r of refs) secretArguments[r.pointer] = r.expression;
  const strip = (v: Json, p: string): Json => {
    if (typeof v === 'string') return p in secretArguments ? null : v;
    if (Array.isArray(v)) return v.map((e, i) => strip(e, `${p}/${i}`));
    if (v && typeof v === 'object') {
      const o: Record<string, Json> = {};
      for (const k of Object.keys(v)) setKey(o, k, strip(v[k], `${p}/${escapePointer(k)}`));
      return o;
    }
    return v;
  };
  return { arguments: strip(args, ''), secretArguments };
}

// ---------------------------------------------------------------------------------------------
// Compilation (cached) and program assembly

interface Compiled {
  /** The expression as given (for messages). */
  expression: string;
  /** jq source with fn: calls rewritten. */
  body: string;
  /** Expression functions used (transitively), in definition order. */
  fns: string[];
  /** `$variables` referenced (also through functions). */
  vars: string[];
  /**
   * What the expression reads of each variable (reads.ts), when it calls no expression function:
   * jq gets only those paths, not the whole value (a `$workflow.input.x` test in a loop over a big
   * input would otherwise serialize the input at every evaluation).
   */
  picks?: Map<string, VariableReads>;
  fast?: FastPath;
  /** The expression as a shape evaluated in TypeScript (shapes.ts); null: not one; undefined: not parsed yet. */
  shape?: Shape | null;
  /** The jq source (for parsing the shape when first needed). */
  src: string;
  /** Whether it may read the data `.` (reads.ts); false only for expressions without `fn:` that cannot. */
  readsData: boolean;
}

const CACHE_LIMIT = 5000;
const plainCache = new Map<string, Compiled>();
const fnCaches = new WeakMap<Record<string, string>, Map<string, Compiled>>();

function cacheFor(functions: Record<string, string> | undefined, src: string): Map<string, Compiled> {
  if (!functions || !src.includes('fn:')) return plainCache;
  let m = fnCaches.get(functions);
  if (!m) {
    m = new Map();
    fnCaches.set(functions, m);
  }
  return m;
}

function rewriteFns(code: string, names: readonly string[], used: (name: string) => void): string {
  const refs = findFnRefs(code, names);
  if (refs.length === 0) return code;
  let out = '';
  let at = 0;
  for (const r of refs) {
    used(r.name);
    out += code.slice(at, r.start) + fnIdentifier(r.name);
    at = r.end;
  }
  return out + code.slice(at);
}

/** `src` is jq source (already unwrapped). */
function compile(expression: string, src: string, functions: Record<string, string> | undefined, allowUnknownFns = false): Compiled {
  const cache = cacheFor(functions, src);
  const key = allowUnknownFns ? '\u0000' + expression : expression;
  const hit = cache.get(key);
  if (hit) return hit;
  const names = functions ? Object.keys(functions) : [];
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const vars = findVariables(src);
  const visit = (name: string, from: string | undefined): void => {
    if (name === from) return; // direct recursion is fine in jq
    const st = state.get(name);
    if (st === 'done') return;
    if (st === 'visiting') {
      throw new ExpressionError(expression, `expression functions call each other in a cycle (fn:${name})`, 'syntax');
    }
    const op = functions?.[name];
    if (op === undefined) {
      if (allowUnknownFns) {
        state.set(name, 'done');
        order.push(name);
        return;
      }
      throw new ExpressionError(expression, `unknown expression function fn:${name}`, 'syntax');
    }
    state.set(name, 'visiting');
    const opSrc = unwrapExpression(op) ?? op;
    for (const v of findVariables(opSrc)) vars.add(v);
    for (const r of findFnRefs(opSrc, names)) visit(r.name, name);
    state.set(name, 'done');
    order.push(name);
  };
  const body = rewriteFns(src, names, (n) => visit(n, undefined));
  const compiled: Compiled = { expression, body, fns: order, vars: [...vars], src, readsData: true };
  if (order.length === 0) {
    compiled.fast = parseFastPath(src);
    const reads = expressionReads([unwrapExpression(expression) === undefined ? src : expression]);
    if (vars.size) compiled.picks = reads.variables;
    compiled.readsData = reads.data;
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

function fnDefs(fns: string[], functions: Record<string, string> | undefined, stub: boolean): string {
  let out = '';
  const names = functions ? Object.keys(functions) : [];
  for (const name of fns) {
    const op = functions?.[name];
    if (op === undefined || stub) {
      out += `def ${fnIdentifier(name)}: null; `;
      continue;
    }
    const src = unwrapExpression(op) ?? op;
    out += `def ${fnIdentifier(name)}: (\n${rewriteFns(src, names, () => undefined)}\n); `;
  }
  return out;
}

const BUILTIN_VARS = new Set(['ENV', '__loc__', '__prog_args']);

const PRELUDE =
  'def env: {}; ' +
  'def input: error("input is not available in workflow expressions"); ' +
  'def inputs: error("inputs is not available in workflow expressions"); ' +
  '. as [$__swd, $__swv] | {} as $ENV | ';

/** The variables object handed to jq, and the bindings for it. */
function bindVars(vars: string[], scope: ExprScope | undefined, secrets?: Json, picks?: Map<string, VariableReads>): { values: Record<string, Json>; binds: string } {
  const values: Record<string, Json> = {};
  let binds = '';
  for (const v of vars) {
    if (BUILTIN_VARS.has(v) || v.startsWith('__sw')) continue;
    let value: Json | undefined;
    if (v === 'CONST') value = scope?.constants ?? {};
    else if (v === 'WORKFLOW') value = scope?.workflow ?? {};
    else if (v === 'SECRETS') value = secrets;
    else value = scope?.variables?.[v];
    if (value === undefined) continue; // jq reports "$v is not defined"
    const read = picks?.get(v);
    values[v] = read && v !== 'SECRETS' ? pickReads(value, read) : value;
    binds += `$__swv[${JSON.stringify(v)}] as $${v} | `;
  }
  return { values, binds };
}

/**
 * What the expressions of one jq run read of each variable, together: a variable one of them
 * reads whole (or without a known read) is passed whole. Undefined when every variable goes whole.
 */
function picksOf(list: Compiled[]): Map<string, VariableReads> | undefined {
  if (list.length === 1) return list[0].picks;
  const out = new Map<string, VariableReads>();
  const whole = new Set<string>();
  for (const c of list) {
    for (const v of c.vars) {
      const read = c.picks?.get(v);
      if (!read || read === 'whole') whole.add(v);
      else if (!whole.has(v)) out.set(v, [...((out.get(v) as string[][] | undefined) ?? []), ...read]);
    }
  }
  for (const v of whole) out.delete(v);
  return out.size ? out : undefined;
}

/** JSON text for jq: lone surrogates (which jq's parser rejects) become U+FFFD. */
export function toJqJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  if (!text.includes('\\ud')) return text;
  // JSON.stringify escapes exactly the lone surrogates as \udXXX; skip escaped backslashes.
  return text.replace(/\\\\|\\ud[89a-f][0-9a-f]{2}/g, (m) => (m === '\\\\' ? m : '\\ufffd'));
}

/** A jq engine as src/expr uses it (see {@link withJqEngine}). */
export type JqEngine = (program: string, inputJson: string, budget?: number) => JqCliRun;

let engine: JqEngine = runJqCli;

/**
 * @internal Runs `fn` with another jq engine behind the same program assembly: the benchmark
 * and the replay test compare the former jq-wasm engine with ours this way.
 */
export function withJqEngine<T>(other: JqEngine, fn: () => T): T {
  const saved = engine;
  engine = other;
  try {
    return fn();
  } finally {
    engine = saved;
  }
}

/** jq's message without the `jq: error (at ...)` decoration; line numbers made relative. */
export function jqErrorMessage(stderr: string, lineOffset = 0): { message: string; kind: 'syntax' | 'runtime' } {
  const text = stderr.trim();
  if (/^jq: \d+ compile errors?$/m.test(text)) {
    const lines = text
      .split('\n')
      .filter((l) => !/^jq: \d+ compile errors?$/.test(l))
      .map((l) => l.replace(/^jq: error: /, ''))
      .map((l) => l.replace(/at <top-level>, line (\d+)/g, (_m, n: string) => `at line ${Math.max(1, Number(n) - lineOffset)}`));
    return { message: lines.join('\n').trim(), kind: 'syntax' };
  }
  const at = text.lastIndexOf('jq: error (at ');
  if (at >= 0) {
    const rest = text.slice(at);
    const m = /^jq: error \(at [^)]*\)( \(not a string\))?: ?/.exec(rest);
    if (m) return { message: rest.slice(m[0].length) + (m[1] ? ' (not a string)' : ''), kind: 'runtime' };
  }
  const parse = text.lastIndexOf('jq: error: ');
  if (parse >= 0) return { message: text.slice(parse + 'jq: error: '.length), kind: 'runtime' };
  return { message: text || 'jq failed', kind: 'runtime' };
}

function lineCount(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Runs compiled expressions (one jq program) on `data`; returns each one's first output
 * (null if none). Throws ExpressionError naming the failing expression.
 */
function runCompiled(list: Compiled[], data: Json, scope: ExprScope | undefined, secrets?: Json): Json[] {
  const vars = new Set<string>();
  const fns: string[] = [];
  for (const c of list) {
    for (const v of c.vars) vars.add(v);
    for (const f of c.fns) if (!fns.includes(f)) fns.push(f);
  }
  const { values, binds } = bindVars([...vars], scope, secrets, picksOf(list));
  const head = PRELUDE + binds + fnDefs(fns, scope?.functions, false) + '$__swd | ';
  const single = list.length === 1;
  const program = single
    ? `${head}[first((\n${list[0].body}\n))]`
    : `${head}[${list.map((c) => `([first((\n${c.body}\n))] | .[0])`).join(', ')}]`;
  let run: JqCliRun;
  const policy = scope?.policy;
  try {
    // With a policy, data no expression of the run reads stays out of it (`[range(.n)]` reads `.`, `[range(5)]` does not).
    const input = toJqJson([policy && !list.some((c) => c.readsData) ? null : data, values]);
    run = engine(program, input, policy?.fuel ?? 0);
    if (policy) policy.work += input.length + run.outputs.length + STEP_WORK * (run.steps ?? 0);
  } catch (err) {
    if (!(err instanceof JqEngineError)) throw err;
    // The engine trapped (and was replaced): attribute it like any other failure.
    run = { exitCode: -1, outputs: '[]', stderr: `jq: error: ${err.message}` };
  }
  if (run.exitCode === 0) {
    // The program's one output is an array (`[first(e)]`, or one such per expression); none after `halt`.
    const out = (JSON.parse(run.outputs) as Json[][])[0];
    // What jq returns is in its normal form: later shape evaluations share it instead of copying.
    if (policy && out) for (const v of out) markNormal(v);
    if (single) return [out?.length ? out[0] : null];
    return out ?? list.map(() => null);
  }
  if (run.budgetExceeded) {
    // Not attributed one by one: each would run into the same bound again.
    const which = single ? list[0].expression : list.map((c) => c.expression).join(', ');
    throw new ExpressionError(which, `the evaluation did not finish within ${policy?.fuel ?? 0} jq steps (the bound on one evaluation, about a second of work: an endless or far too large computation)`, 'runtime');
  }
  if (!single) {
    // Attribute the failure: rerun one by one (error path only).
    const results: Json[] = [];
    for (const c of list) results.push(runCompiled([c], data, scope, secrets)[0]);
    return results; // not reached unless the batch failed for a reason no single one has
  }
  const { message, kind } = jqErrorMessage(run.stderr, lineCount(head) + 1);
  throw new ExpressionError(list[0].expression, message, kind);
}

function secretsRejected(expression: string): ExpressionError {
  return new ExpressionError(
    expression,
    '$SECRETS cannot be used in workflow expressions (secret values never enter workflow history); use it in function arguments only',
    'syntax',
  );
}

function rootValue(root: string, data: Json, scope: ExprScope | undefined): Json | undefined {
  if (root === '.') return data;
  if (root === 'CONST') return scope?.constants ?? {};
  if (root === 'WORKFLOW') return scope?.workflow ?? {};
  if (BUILTIN_VARS.has(root) || root === 'SECRETS' || root.startsWith('__sw')) return undefined;
  const vars = scope?.variables;
  return vars && Object.prototype.hasOwnProperty.call(vars, root) ? vars[root] : undefined;
}

function tryFast(c: Compiled, data: Json, scope: ExprScope | undefined): Json | typeof DECLINE {
  const policy = scope?.policy;
  if (policy && c.fns.length === 0) {
    if (c.shape === undefined) c.shape = parseShape(c.src) ?? null;
    if (!c.shape) return DECLINE;
    policy.work += SHAPE_WORK;
    return evalShape(c.shape, data, (name) => rootValue(name, data, scope));
  }
  if (!c.fast) return DECLINE;
  const root = rootValue(c.fast.root, data, scope);
  if (root === undefined) return DECLINE;
  return evalFastPath(c.fast, root);
}

/** @internal Compiles an expression (`${ }` or bare jq) for this scope. */
export function compileExpression(expr: string, scope?: ExprScope): Compiled {
  if (typeof expr !== 'string') throw new ExpressionError(String(expr), 'an expression must be a string', 'syntax');
  if (referencesSecrets(expr, scope?.functions)) throw secretsRejected(expr);
  const src = unwrapExpression(expr) ?? expr;
  return compile(expr, src, scope?.functions);
}

/**
 * Evaluates `expr` (`${ ... }` or bare jq; a string mixing text and `${ }` is interpolated)
 * against `data`: jq's first output, null if none.
 */
export function evaluateExpression(expr: string, data: Json, scope?: ExprScope): Json {
  if (typeof expr === 'string' && unwrapExpression(expr) === undefined && splitTemplate(expr)) {
    return evaluateTemplate(expr, data, scope);
  }
  const c = compileExpression(expr, scope);
  const fast = tryFast(c, data, scope);
  if (fast !== DECLINE) return fast;
  return runCompiled([c], data, scope)[0];
}

/** @internal The same evaluation without the fast path (for the differential test and benchmarks). */
export function evaluateExpressionWithJq(expr: string, data: Json, scope?: ExprScope, secrets?: Json): Json {
  if (referencesSecrets(expr, scope?.functions) && secrets === undefined) throw secretsRejected(expr);
  const src = unwrapExpression(expr) ?? expr;
  return runCompiled([compile(expr, src, scope?.functions)], data, scope, secrets)[0];
}

/** jq truthiness of {@link evaluateExpression}: false and null are false, anything else true. */
export function evaluateCondition(expr: string, data: Json, scope?: ExprScope): boolean {
  const v = evaluateExpression(expr, data, scope);
  return v !== false && v !== null;
}

interface Site {
  segments: Segment[];
  whole: boolean;
}

function templateSite(value: string): Site | undefined {
  const segments = splitTemplate(value);
  if (!segments) return undefined;
  const exprs = segments.filter((s) => 'expr' in s);
  const whole = exprs.length === 1 && segments.every((s) => 'expr' in s || s.lit.trim() === '');
  return { segments, whole };
}

/**
 * Evaluates every `${ }` inside `value` (recursively through arrays and objects; keys are
 * literal) with ONE jq run for all of them (none when all are simple paths). A string that is
 * entirely one `${ }` takes the value's JSON type; other strings with `${ }` are interpolated;
 * everything else is returned as is.
 */
export function evaluateTemplate(value: Json, data: Json, scope?: ExprScope, secrets?: Json): Json {
  const exprs: string[] = [];
  const collect = (v: Json): void => {
    if (typeof v === 'string') {
      const site = templateSite(v);
      if (site) for (const s of site.segments) if ('expr' in s) exprs.push(s.expr);
    } else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) collect(v[k]);
  };
  collect(value);
  if (exprs.length === 0) return value;
  const results = evaluateSources(exprs, data, scope, secrets);
  let n = 0;
  const rebuild = (v: Json): Json => {
    if (typeof v === 'string') {
      const site = templateSite(v);
      if (!site) return v;
      if (site.whole) {
        const r = results[n];
        n += 1;
        return r;
      }
      let s = '';
      for (const seg of site.segments) {
        if ('lit' in seg) s += seg.lit;
        else {
          const r = results[n++];
          s += typeof r === 'string' ? r : JSON.stringify(r);
        }
      }
      return s;
    }
    if (Array.isArray(v)) return v.map(rebuild);
    if (v && typeof v === 'object') {
      const o: Record<string, Json> = {};
      for (const k of Object.keys(v)) setKey(o, k, rebuild(v[k]));
      return o;
    }
    return v;
  };
  return rebuild(value);
}

/** Evaluates jq sources (the insides of `${ }`): fast paths in TS, the rest in one jq run. */
function evaluateSources(sources: string[], data: Json, scope: ExprScope | undefined, secrets: Json | undefined): Json[] {
  const results: Json[] = new Array(sources.length);
  const slow: Compiled[] = [];
  const slowAt: number[] = [];
  for (let i = 0; i < sources.length; i++) {
    const expression = '${' + sources[i] + '}';
    if (secrets === undefined && referencesSecrets(sources[i], scope?.functions)) throw secretsRejected(expression);
    const c = compile(expression, sources[i], scope?.functions);
    const fast = tryFast(c, data, scope);
    if (fast !== DECLINE) results[i] = fast;
    else {
      slow.push(c);
      slowAt.push(i);
    }
  }
  if (slow.length) {
    const out = runCompiled(slow, data, scope, secrets);
    slowAt.forEach((at, j) => (results[at] = out[j] === undefined ? null : out[j]));
  }
  return results;
}

/**
 * @internal For syntax checking (src/expr/syntax.ts): compiles without running. Returns jq's
 * message or undefined. `functionNames`: known expression functions (undefined: any fn:name
 * is accepted); `variables`: extra `$names` in scope (undefined: any `$name` is accepted).
 */
export function checkSyntaxWithEngine(expr: string, functionNames?: string[], variables?: string[]): string | undefined {
  const functions = functionNames ? Object.fromEntries(functionNames.map((n) => [n, 'null'])) : undefined;
  for (const src of syntaxSources(expr)) {
    const c = compileForSyntax(expr, src, functions, functionNames === undefined);
    if (typeof c === 'string') return c;
    const head = PRELUDE + syntaxHead(c, variables) + 'if false then (';
    const program = `${head}\n${c.body}\n) else empty end`;
    const errors = checkJq(program);
    if (errors !== undefined) {
      const { message } = jqErrorMessage(errors, lineCount(head) + 1);
      // An error on our closing line means the expression ended too early.
      const lastLine = lineCount(c.body) + 1;
      const m = /^(.*) at line (\d+), column \d+:\n[^\n]*\) else empty end\n[^\n]*/.exec(message);
      if (m && Number(m[2]) > lastLine) {
        const head1 = m[1].includes("unexpected ')'") ? m[1].replace("unexpected ')'", 'unexpected end of expression') : m[1] + ' at end of expression';
        return (head1 + message.slice(m[0].length)).trim();
      }
      return message;
    }
  }
  return undefined;
}

/** The jq sources a syntax check compiles: the one `${ }`, each `${ }` of a template, or bare jq. */
function syntaxSources(expr: string): string[] {
  const whole = unwrapExpression(expr);
  return whole !== undefined ? [whole] : splitTemplate(expr)?.flatMap((s) => ('expr' in s ? [s.expr] : [])) ?? [expr];
}

/** {@link compile} for a syntax check of one source of `expr`: jq's message instead of an ExpressionError. */
function compileForSyntax(expr: string, src: string, functions: Record<string, string> | undefined, allowUnknownFns: boolean): Compiled | string {
  try {
    return compile(syntaxSources(expr).length === 1 ? expr : '${' + src + '}', src, functions, allowUnknownFns);
  } catch (e) {
    if (e instanceof ExpressionError) return e.jqMessage;
    throw e;
  }
}

/** What a syntax check puts between the prelude and the expression: `null` bindings of its variables, stub `fn` defs. */
function syntaxHead(c: Compiled, variables: string[] | undefined): string {
  let binds = '';
  const allowed = variables ? new Set(['CONST', 'WORKFLOW', 'SECRETS', ...variables]) : undefined;
  for (const v of c.vars) {
    if (BUILTIN_VARS.has(v) || v.startsWith('__sw')) continue;
    if (allowed && !allowed.has(v)) continue;
    binds += `null as $${v} | `;
  }
  return binds + fnDefs(c.fns, undefined, true);
}

/** Expressions per jq compile in {@link checkSyntaxBatchWithEngine}; a failing group is halved down to {@link SYNTAX_ALONE}, then checked one by one. */
const SYNTAX_BATCH = 256;
const SYNTAX_ALONE = 4;

/**
 * {@link checkSyntaxWithEngine} for many expressions: the same result for each, in order, with
 * far fewer jq compiles (each compile costs ~1–2 ms, mostly jq binding its builtins, whatever
 * the expression). Expressions whose jq code is self-contained ({@link isSelfContained}) are
 * checked together, each as `(<its bindings and defs> (<code>))`, joined by `,` after one
 * prelude: code that cannot close the parenthesis around it parses
 * there exactly as it does alone, in its own scope, so a group that compiles means every member
 * compiles alone. A group that fails is halved until the failing members are found, and those
 * (and the code that is not self-contained) go through {@link checkSyntaxWithEngine}, so every
 * message and position is the one-by-one check's own.
 */
export function checkSyntaxBatchWithEngine(exprs: readonly string[], functionNames?: string[], variables?: string[]): (string | undefined)[] {
  const out: (string | undefined)[] = new Array(exprs.length).fill(undefined);
  const functions = functionNames ? Object.fromEntries(functionNames.map((n) => [n, 'null'])) : undefined;
  const one = (i: number) => (out[i] = checkSyntaxWithEngine(exprs[i], functionNames, variables));
  const grouped: { index: number; part: string }[] = [];
  for (let i = 0; i < exprs.length; i++) {
    const parts: string[] = [];
    for (const src of syntaxSources(exprs[i])) {
      const c = isSelfContained(src) ? compileForSyntax(exprs[i], src, functions, functionNames === undefined) : undefined;
      if (c === undefined || typeof c === 'string') break;
      // Only compiled, never run, so no `if false` around it (a third of the compile's cost).
      parts.push(`(${syntaxHead(c, variables)}(\n${c.body}\n))`);
    }
    if (parts.length === syntaxSources(exprs[i]).length) grouped.push({ index: i, part: parts.join(', ') });
    else one(i);
  }
  const check = (group: { index: number; part: string }[]): void => {
    if (group.length <= SYNTAX_ALONE) {
      for (const g of group) one(g.index);
      return;
    }
    if (checkJq(`${PRELUDE}${group.map((g) => g.part).join(',\n')}`) === undefined) return;
    const half = group.length >> 1;
    check(group.slice(0, half));
    check(group.slice(half));
  };
  for (let at = 0; at < grouped.length; at += SYNTAX_BATCH) check(grouped.slice(at, at + SYNTAX_BATCH));
  return out;
}

/**
 * {@link evaluateExpression} under the name that states its contract: synchronous (a value,
 * never a promise; the engine loads when src/expr is imported), so callers need no `await`.
 */
export const evaluateExpressionSync: typeof evaluateExpression = evaluateExpression;

/** {@link evaluateCondition}, synchronous by contract (see {@link evaluateExpressionSync}). */
export const evaluateConditionSync: typeof evaluateCondition = evaluateCondition;

/** {@link evaluateTemplate}, synchronous by contract (see {@link evaluateExpressionSync}). */
export const evaluateTemplateSync: typeof evaluateTemplate = evaluateTemplate;
