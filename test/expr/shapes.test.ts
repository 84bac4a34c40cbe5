/**
 * Differential test: the shapes evaluated in TypeScript (src/expr/shapes.ts) against real jq 1.8,
 * on generated expressions over generated data and on every `${ }` expression of the examples,
 * the conformance cases, the spec's 1.0.3 examples and the 0.8 corpus. For every case, either both
 * give the same value (compared as JSON text, so key order counts, and with deepStrictEqual, so -0
 * counts) or jq fails and the shape declined (jq then gives the error with its own message).
 * Declining where jq answers is allowed (jq answers then), but the shapes must answer most cases.
 *
 * jq runs are batched: one program per expression over all its inputs, each inside `try`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Json } from '../../src/common/model';
import { evaluateExpression, evaluateTemplate, initExpressions, toJqJson, type EvalPolicy } from '../../src/expr';
import { DECLINE, evalShape, parseShape } from '../../src/expr/shapes';
import { runJq } from '../../src/expr/engine';
import { splitTemplate, unwrapExpression } from '../../src/expr/text';
import { mulberry32 } from '../helpers/prng';

const KEYS = ['a', 'b', 'x', 'n', 's', 'acc', 'é', '', '0', '__proto__', 'k😀', 'if'];
const STRINGS = ['', 'a', 'hello', 'Hello World', 'ünï', '日本', '😀', 'a"q', '\\', 'new\nline', '\ud800lone', 'ABC', '\ue000', 'zz'];
const NUMBERS = [0, -0, 1, -1, 2, 3, 7, 42, -5, 0.5, 1.25, -2.5, 1e21, 2 ** 53, 1e300, 5e-324, 0.1, 100];

function dataGen(rand: () => number) {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const scalar = (): Json => {
    const r = rand();
    if (r < 0.12) return null;
    if (r < 0.22) return rand() < 0.5;
    if (r < 0.6) return pick(NUMBERS);
    return pick(STRINGS);
  };
  const value = (depth: number): Json => {
    const r = rand();
    if (depth <= 0 || r < 0.35) return scalar();
    if (r < 0.65) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth - 1));
    const o: Record<string, Json> = {};
    for (let i = Math.floor(rand() * 5); i > 0; i--) Object.defineProperty(o, pick(KEYS), { value: value(depth - 1), enumerable: true, writable: true, configurable: true });
    return o;
  };
  /** Data shaped like the expressions expect most of the time: `.a`, `.n` numbers, `.s` strings, `.acc` arrays. */
  const data = (): Json => {
    if (rand() < 0.15) return value(3);
    const o: Record<string, Json> = {};
    o.a = rand() < 0.7 ? { b: value(2), x: pick(NUMBERS) } : value(2);
    o.n = rand() < 0.8 ? pick(NUMBERS) : value(1);
    o.s = rand() < 0.8 ? pick(STRINGS) : value(1);
    o.acc = rand() < 0.8 ? Array.from({ length: Math.floor(rand() * 4) }, () => value(1)) : value(1);
    if (rand() < 0.5) o.x = value(2);
    return o;
  };
  return { data, value };
}

function exprGen(rand: () => number) {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const LITERALS = ['0', '1', '2', '3', '-1', '0.5', '1.25', '100', '"a"', '""', '"x y"', '"é"', '"😀"', '"\\u00e9"', '"q\\"t"', '"\\n"', 'true', 'false', 'null', '[]', '{}'];
  const PATHS = ['.', '.a', '.a.b', '.a.x', '.n', '.s', '.acc', '.acc[0]', '.acc[-1]', '.x', '."a"', '.["n"]', '.a["b"]', '.acc.[1]', '$v', '$v.a', '$v[0]', '.missing', '.a.b.c'];
  const BUILTINS = ['length', 'not', 'type', 'keys', 'add', 'first', 'last', 'tostring', 'ascii_downcase', 'ascii_upcase'];
  const BIN = ['+', '+', '+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', 'and', 'or', '//'];
  const term = (d: number): string => {
    const r = rand();
    if (d <= 0 || r < 0.3) return rand() < 0.6 ? pick(PATHS) : pick(LITERALS);
    if (r < 0.4) return `[${Array.from({ length: 1 + Math.floor(rand() * 3) }, () => exp(d - 1)).join(', ')}]`;
    if (r < 0.5) {
      const entries = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
        const k = rand();
        if (k < 0.4) return `${pick(['a', 'b', 'n', 'id', 'if', 'name'])}: ${exp(d - 1)}`;
        if (k < 0.6) return `"${pick(['k', 'a b', 'é', '0'])}": ${exp(d - 1)}`;
        if (k < 0.7) return '$v';
        if (k < 0.8) return pick(['a', 'n', 's', '"acc"']);
        return `(${pick(['.s', '"k"', '.n', '$v'])}): ${exp(d - 1)}`;
      });
      return `{${entries.join(', ')}}`;
    }
    if (r < 0.6) return `(${exp(d - 1)})`;
    if (r < 0.68) return `(${exp(d - 1)} | ${pick(BUILTINS)})`;
    if (r < 0.74) return `if ${exp(d - 1)} then ${exp(d - 1)}${rand() < 0.3 ? ` elif ${exp(d - 1)} then ${exp(d - 1)}` : ''}${rand() < 0.8 ? ` else ${exp(d - 1)}` : ''} end`;
    if (r < 0.8) return `"<\\(${exp(d - 1)})>${rand() < 0.5 ? `\\(${pick(PATHS)})` : ''}"`;
    if (r < 0.85) return `-${pick(['.n', '1', '.a.x', '(.n + 1)', '$v'])}`;
    if (r < 0.9) return `(${exp(d - 1)}).a`;
    return pick(BUILTINS);
  };
  const exp = (d: number): string => {
    let e = term(d);
    for (let i = Math.floor(rand() * 3); i > 0; i--) e = `${e} ${pick(BIN)} ${term(d - 1)}`;
    // A pipe inside `[a | b, c]` takes the comma too (`a | (b, c)`): parenthesised below the top.
    if (rand() < 0.1) e = d >= 3 ? `${e} | ${pick(BUILTINS)}` : `(${e} | ${pick(BUILTINS)})`;
    return e;
  };
  return { exp: () => exp(3) };
}

interface Outcome {
  ok?: Json;
  err?: Json;
}

/** jq's outcome of `expr` on each [data, $v] input, in one run. */
function viaJq(expr: string, inputs: [Json, Json][]): Outcome[] | undefined {
  const program = `[.[] | . as [$__d, $v] | try ([$__d | first(${expr})] | {ok: .[0]}) catch {err: .}]`;
  const run = runJq(program, toJqJson(inputs));
  if (run.kind !== 'ok') return undefined; // does not compile (with $v bound): nothing to compare
  return (JSON.parse(run.outputs) as Outcome[][])[0];
}

function compare(expr: string, inputs: [Json, Json][], tally: { answered: number; declined: number; errors: number; compiled?: number; parsed?: number }, onlyV = false): void {
  const shape = parseShape(expr);
  const want = viaJq(expr, inputs);
  if (!want) {
    // What jq does not compile is never a shape (validation rejects it anyway).
    if (onlyV) assert.equal(shape, undefined, `jq does not compile ${expr}, but it parsed as a shape`);
    return;
  }
  tally.compiled = (tally.compiled ?? 0) + 1;
  if (!shape) {
    if (process.env.SHAPES_DEBUG) console.log('not a shape:', expr);
    return;
  }
  tally.parsed = (tally.parsed ?? 0) + 1;
  assert.equal(want.length, inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    const [data, v] = inputs[i];
    const got = evalShape(shape, data, (name) => (name === 'v' ? v : undefined));
    const w: Outcome = want[i];
    const where = `${expr} on ${toJqJson(data)} with $v = ${toJqJson(v)}`;
    if ('err' in w) {
      tally.errors++;
      assert.equal(got, DECLINE, `jq fails (${JSON.stringify(w.err)}) but the shape answered ${JSON.stringify(got)}: ${where}`);
    } else if (got === DECLINE) tally.declined++;
    else {
      tally.answered++;
      assert.equal(JSON.stringify(got), JSON.stringify(w.ok), where);
      assert.deepStrictEqual(got, w.ok, where);
    }
  }
}

test('setup', async () => {
  await initExpressions();
});

test('generated expressions: the shapes give jq 1.8\'s answer or decline where jq fails (2,500 expressions × 40 inputs)', () => {
  const rand = mulberry32(0x5a4e5);
  const g = dataGen(rand);
  const e = exprGen(rand);
  const tally = { answered: 0, declined: 0, errors: 0, compiled: 0, parsed: 0 };
  for (let i = 0; i < 2500; i++) {
    const expr = e.exp();
    const inputs: [Json, Json][] = Array.from({ length: 40 }, () => [g.data(), rand() < 0.5 ? g.value(2) : { a: 1 }]);
    compare(expr, inputs, tally, true);
  }
  if (process.env.SHAPES_DEBUG) console.log(JSON.stringify(tally));
  // The generator must exercise answers and errors, and the shapes must parse and answer most of it.
  assert.ok(tally.parsed > tally.compiled * 0.98, `parsed ${tally.parsed} of the ${tally.compiled} that jq compiles`);
  assert.ok(tally.answered > 15_000, JSON.stringify(tally));
  assert.ok(tally.errors > 5_000, JSON.stringify(tally));
  assert.ok(tally.declined < tally.answered / 5, JSON.stringify(tally));
});

test('the shapes left to jq: what jq could read or answer otherwise', () => {
  for (const e of ['.a?', '..', '.a[]', '.[1:2]', '. a', '.a .b', '.a, .b', '[.a | .b, .c]', '1.0', '1e3', '.5', '100000000000000000001', 'map(.a)', 'length(.)', '$__loc__', '@base64', '.a as $x | $x', 'reduce .[] as $x (0; . + $x)', 'def f: 1; f', '.a |= 1', '"\\ud800"', '.["\uFFFD"]', '{$v: 1}', 'try .a', '.a // empty', 'input', '# c\n.a', 'a::b']) {
    assert.equal(parseShape(e), undefined, e);
  }
});

/** Every string holding a `${ }` in the documents under `dir` (JSON, YAML, and the YAML blocks of the CTK's features and the spec's pages). */
function corpus(dir: string, out: Set<string>): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules' && !name.startsWith('.')) corpus(p, out);
      continue;
    }
    if (!/\.(json|ya?ml|feature|md)$/.test(name)) continue;
    const text = readFileSync(p, 'utf8');
    const texts = /\.(feature|md)$/.test(name) ? [...text.matchAll(/(?:"""|```)ya?ml\n([\s\S]*?)(?:"""|```)/g)].map((m) => m[1]) : [text];
    for (const t of texts) {
      let doc: unknown;
      try {
        doc = name.endsWith('.json') ? JSON.parse(t) : parseYaml(t);
      } catch {
        continue;
      }
      const walk = (v: unknown): void => {
        if (typeof v === 'string') {
          const whole = unwrapExpression(v);
          if (whole !== undefined) out.add(whole);
          else for (const s of splitTemplate(v) ?? []) if ('expr' in s) out.add(s.expr);
        } else if (Array.isArray(v)) v.forEach(walk);
        else if (v && typeof v === 'object') Object.values(v).forEach(walk);
      };
      walk(doc);
    }
  }
}

test('the expressions of the examples, conformance cases, spec examples and the 0.8 corpus', () => {
  const root = resolve(__dirname, '../..');
  const exprs = new Set<string>();
  for (const d of ['examples', 'test/fixtures', 'bench/definitions', 'bench/peer/swflow', '../shared/conformance', '../shared/specs', '../shared/corpus']) corpus(join(root, d), exprs);
  assert.ok(exprs.size > 200, `only ${exprs.size} expressions found`);
  const rand = mulberry32(0xc0ffee);
  const g = dataGen(rand);
  const tally = { answered: 0, declined: 0, errors: 0 };
  let shapes = 0;
  for (const expr of exprs) {
    if (!parseShape(expr)) continue;
    shapes++;
    // Their own variables are not bound here ($v is): those compile errors are skipped by viaJq.
    compare(expr, Array.from({ length: 30 }, () => [g.data(), g.value(2)] as [Json, Json]), tally);
  }
  assert.ok(shapes > 100, `${shapes} of ${exprs.size} expressions are shapes`);
  assert.ok(tally.answered > 1000, JSON.stringify(tally));
});

test('through the public API: a policy evaluates shapes, shares values, and counts the work', () => {
  const policy: EvalPolicy = { fuel: 1_000_000, work: 0 };
  const items = Array.from({ length: 1000 }, (_, i) => ({ id: i }));
  const data = { acc: items };
  const first = evaluateTemplate({ acc: '${ .acc + [{id: $index}] }' }, data, { variables: { index: 1000 }, policy }) as { acc: Json[] };
  assert.equal(first.acc.length, 1001);
  assert.deepEqual(first.acc[1000], { id: 1000 });
  // Items are shared, not copied, once known normal (the first evaluation copied the raw input once).
  const second = evaluateTemplate({ acc: '${ .acc + [{id: $index}] }' }, first, { variables: { index: 1001 }, policy }) as { acc: Json[] };
  assert.equal(second.acc[0], first.acc[0]);
  assert.ok(policy.work > 0 && policy.work < 1000, `shape work ${policy.work}`);
  // Without a policy: the same values as before, through jq.
  assert.deepEqual(evaluateTemplate({ acc: '${ .acc + [{id: $index}] }' }, data, { variables: { index: 1000 } }), first);
  // A jq run counts its bytes and steps.
  const before = policy.work;
  assert.deepEqual(evaluateExpression('${ [.acc[] | .id] | add }', data, { policy }), (999 * 1000) / 2);
  assert.ok(policy.work - before > JSON.stringify(data).length, `jq work ${policy.work - before}`);
});

test('a lone surrogate in the data reads as jq reads it (U+FFFD), through the policy too', () => {
  const policy: EvalPolicy = { fuel: 0, work: 0 };
  const data = { s: 'a\ud800b', o: { k: ['x\udc00'] } };
  for (const e of ['.s', '.s + "!"', '.o', '{o}', '.s | length', '.o.k[0] < "y"']) {
    assert.deepStrictEqual(evaluateExpression('${ ' + e + ' }', data, { policy }), evaluateExpression('${ ' + e + ' }', data), e);
  }
});
