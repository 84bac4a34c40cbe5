/**
 * The batch syntax check (`checkExpressionsSyntax`, many expressions per jq compile) gives every
 * expression exactly what the one-by-one check (`checkExpressionSyntax`) gives: the same message,
 * position and caret line, or the same "valid". Compared on generated tables of valid and broken
 * expressions (seeded mutations of real shapes) and on code written to escape the parentheses
 * the batch puts around each expression. Both paths run the real jq engine.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { checkExpressionSyntax, checkExpressionsSyntax } from '../../src/expr/syntax';
import { jqCheckCount } from '../../src/expr/engine';
import { isSelfContained } from '../../src/expr/text';

/** A small deterministic PRNG (mulberry32): the tables depend only on the seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SHAPES = [
  (i: number) => `.orders[${i}].total > ${i}`,
  (i: number) => `.customer.tier == "tier-${i}" and (.items | length) > ${i % 17}`,
  (i: number) => `[.items[] | select(.price > ${i})] | length > 0`,
  (i: number) => `(.score // 0) + ${i} >= $CONST.limit`,
  (i: number) => `.tags | any(. == "t${i}")`,
  (i: number) => `{id: .id, n: (.n + ${i}), tag: "x\\(.a + ${i})y"}`,
  (i: number) => `reduce .items[] as $it (0; . + $it.price * ${i})`,
  (i: number) => `if .a > ${i} then "big" elif .a < 0 then "neg" else empty end`,
  (i: number) => `try (.x | tonumber) catch ${i}`,
  (i: number) => `.a as [$x, {b: $y}] | $x + $y + ${i}`,
  (i: number) => `def f(g): g + ${i}; f(.a)`,
  (i: number) => `$WORKFLOW.id + "-${i}" | ascii_downcase`,
  (i: number) => `[limit(${i % 5}; .[])] | @base64 "v=\\(.)"`,
  (i: number) => `label $out | foreach .[] as $v (0; . + $v; if . > ${i} then ., break $out else . end)`,
  (i: number) => `fn:total + ${i}`,
  (i: number) => `$item.price * ${i}`,
];

/** Pieces that break (or sometimes do not break) jq code when inserted. */
const NOISE = ['(', ')', '[', ']', '{', '}', '|', ',', '"', '\\', '#', '$', ';', ':', '..', ' end', ' then', 'if ', ' as ', '"\\(', 'nosuch(1)', '$undefined', '?//', ' and', '+ ', '\n', '# c \\\n', '\\u12'];

function mutate(code: string, r: () => number): string {
  const at = Math.floor(r() * (code.length + 1));
  switch (Math.floor(r() * 4)) {
    case 0:
      return code.slice(0, at) + NOISE[Math.floor(r() * NOISE.length)] + code.slice(at);
    case 1:
      return code.slice(0, at) + code.slice(at + 1 + Math.floor(r() * 3));
    case 2:
      return code.slice(0, at);
    default:
      return code.slice(0, at) + NOISE[Math.floor(r() * NOISE.length)] + code.slice(at + 1);
  }
}

/** `count` expressions in the forms validation sees: `${ }`, bare jq, templates; `rate` of them mutated (about half broken at 0.5). */
function table(seed: number, count: number, rate = 0.5): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let code = SHAPES[i % SHAPES.length](i);
    if (r() < rate) code = mutate(code, r);
    if (r() < rate * 0.4) code = mutate(code, r);
    const form = r();
    out.push(form < 0.6 ? `\${ ${code} }` : form < 0.8 ? code : `Order \${ .id } of \${ ${code} } (${i})`);
  }
  return out;
}

/** Code aimed at the batch's own parentheses and lines: each must get its one-by-one answer. */
const ESCAPES = [
  '1) else empty end), (if false then (2',
  '.a) , (.b',
  '.a ) else empty end, (',
  '1 # a comment \\',
  '1 # a comment',
  '"\\(1) ) ("',
  '"\\(")")"',
  '.a]',
  '(.a',
  '"unterminated',
  'if false then (1',
  ') else empty end) | (',
  '1\n) else empty end), (\n2',
  'def x: 1; x',
  '. as $a | $a',
  '$__loc__',
  'include "x"; .',
  'import "a" as a; .',
  '',
  ' ',
  '"\\q"',
  '"\\u00zz"',
  '. as [$a] | $a',
  'reduce . as $x (0; .',
  '@sh "\\(.a) \\(.b)"',
  '"a" "b"',
  '.a.b.c[0]["x"]?',
  'error("x")',
  '[.[] | {a: .b}]',
];

function compare(exprs: string[], functionNames?: string[], variables?: string[]): { valid: number; broken: number; batchCompiles: number; aloneCompiles: number } {
  let c0 = jqCheckCount();
  const batch = checkExpressionsSyntax(exprs, functionNames, variables);
  const batchCompiles = jqCheckCount() - c0;
  c0 = jqCheckCount();
  const alone = exprs.map((e) => checkExpressionSyntax(e, functionNames, variables));
  const aloneCompiles = jqCheckCount() - c0;
  assert.equal(batch.length, exprs.length);
  for (let i = 0; i < exprs.length; i++) assert.equal(batch[i], alone[i], `expression ${i}: ${JSON.stringify(exprs[i])}`);
  const broken = alone.filter((m) => m !== undefined).length;
  return { valid: exprs.length - broken, broken, batchCompiles, aloneCompiles };
}

test('the batch check gives each of 600 generated expressions its one-by-one message (any fn:, any $var)', () => {
  const exprs = table(34, 600);
  const r = compare(exprs);
  console.log(`600 generated expressions, any fn:/$var: ${r.valid} valid, ${r.broken} broken, identical results; jq compiles: batch ${r.batchCompiles}, one by one ${r.aloneCompiles}`);
  assert.ok(r.valid >= 150 && r.broken >= 150, 'the table holds both');
  // As documents are: a few broken among many valid (groups that compile, groups halved).
  const few = compare(table(35, 1500, 0.03));
  console.log(`1,500 generated expressions, 3% mutated: ${few.valid} valid, ${few.broken} broken, identical results; jq compiles: batch ${few.batchCompiles}, one by one ${few.aloneCompiles}`);
  assert.ok(few.broken >= 10 && few.batchCompiles < few.aloneCompiles / 2);
});

test('the same with the definition\'s functions and variables (unknown fn:, undefined $var reported alike)', () => {
  const exprs = table(8, 400);
  const r = compare(exprs, ['total', 'Increment Count'], ['item']);
  const r2 = compare(exprs, [], []);
  console.log(`400 generated expressions with fn:total and $item: ${r.valid} valid, ${r.broken} broken; with none defined: ${r2.valid} valid, ${r2.broken} broken; identical results`);
  assert.ok(r2.broken > r.broken, 'unknown fn: and $item count as broken without definitions');
});

test('code written to escape the batch\'s parentheses gets its one-by-one answer', () => {
  // Alone, and hidden among valid expressions (so the batch, not the small-group path, sees it).
  const filler = Array.from({ length: 40 }, (_, i) => `\${ .f${i} + ${i} }`);
  const mixed = ESCAPES.flatMap((e, i) => [`\${ ${e} }`, e, ...filler.slice(i % 10, (i % 10) + 5)]);
  const r = compare(mixed);
  const own = ESCAPES.map((e) => [e, isSelfContained(e)] as const);
  console.log(`${ESCAPES.length} escape attempts in ${mixed.length} expressions: ${r.valid} valid, ${r.broken} broken, identical; self-contained (batched): ${own.filter(([, s]) => s).length}`);
  assert.equal(checkExpressionsSyntax(['${ .a ) , ( .b }'])[0], checkExpressionSyntax('${ .a ) , ( .b }'));
});

test('valid expressions are compiled together: 1,000 distinct ones in a handful of jq compiles', () => {
  const exprs = Array.from({ length: 1000 }, (_, i) => `\${ ${SHAPES[i % 14](i)} }`);
  const r = compare(exprs);
  console.log(`1,000 distinct valid expressions: batch ${r.batchCompiles} jq compiles, one by one ${r.aloneCompiles}`);
  assert.equal(r.broken, 0);
  assert.equal(r.aloneCompiles, 1000);
  assert.ok(r.batchCompiles <= 8, `batch compiles: ${r.batchCompiles}`);
  // One broken expression among them costs a few more compiles, not one per expression.
  const one = [...exprs];
  one[517] = '${ .a | }';
  const c0 = jqCheckCount();
  const res = checkExpressionsSyntax(one);
  const compiles = jqCheckCount() - c0;
  console.log(`1,000 with one broken: ${compiles} jq compiles, its message: ${JSON.stringify(res[517])}`);
  assert.equal(res[517], checkExpressionSyntax('${ .a | }'));
  assert.equal(res.filter((m) => m !== undefined).length, 1);
  assert.ok(compiles <= 30, `compiles: ${compiles}`);
});

test('isSelfContained follows jq\'s lexer: strings, interpolations, comments, bracket kinds', () => {
  const cases: [string, boolean][] = [
    ['.a | {b: [.c[0], (1)]}', true],
    ['"x\\(.a | "y\\(.b)")z"', true],
    ['"\\\\(" + .a', true],
    ['"\\")"', true],
    ['.a)', false],
    ['(.a]', false],
    ['"open', false],
    ['"x\\(.a"', false],
    ['1 # note', false],
    ['"#" + .a', true],
  ];
  for (const [code, want] of cases) assert.equal(isSelfContained(code), want, code);
  console.log(`isSelfContained: ${cases.length} lexer cases`);
});
