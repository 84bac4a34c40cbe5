/**
 * Validation stays linear in the size of the document: each distinct expression is compiled by
 * jq once however often the document repeats it, and distinct valid expressions are compiled
 * many to a jq program (counted through the engine, not timed); every use still gets its own
 * problem, at its own place, with the message the expression gets alone. Timings:
 * bench/validate-scale.ts.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { loadAnyDefinition } from '../../src/dsl';
import { jqCheckCount } from '../../src/expr/engine';
import { oncePerText } from '../../src/dsl/v08/expressions';
import { checkExpressionSyntax } from '../../src/expr/syntax';

type Doc = Record<string, any>;

/** A 0.8 document: `n` actions calling one function, each with `args(i)` as arguments. */
function doc08(n: number, args: (i: number) => Doc): Doc {
  const states = Array.from({ length: n }, (_, i) => ({
    name: `S${i}`,
    type: 'operation',
    actions: [{ functionRef: { refName: 'f', arguments: args(i) } }],
    ...(i + 1 < n ? { transition: `S${i + 1}` } : { end: true }),
  }));
  return { id: 'many', version: '1.0', specVersion: '0.8', start: 'S0', functions: [{ name: 'f', operation: 'https://api.example/openapi.json#f' }], states };
}

/** A 1.0 document: `n` set tasks, each with `value(i)`. */
function doc10(n: number, value: (i: number) => string): Doc {
  return { document: { dsl: '1.0.0', namespace: 'test', name: 'many', version: '1.0.0' }, do: Array.from({ length: n }, (_, i) => ({ [`t${i}`]: { set: { v: value(i) } } })) };
}

async function compiles(doc: Doc): Promise<{ checks: number; problems: { pointer?: string; message: string }[]; valid: boolean }> {
  await loadAnyDefinition(doc10(1, () => '${ .warm }')); // the engine loaded, the checker module resolved
  const before = jqCheckCount();
  const r = await loadAnyDefinition(doc);
  return { checks: jqCheckCount() - before, problems: r.problems.map((p) => ({ pointer: p.pointer, message: p.message })), valid: !!r.definition };
}

test('0.8: 1,000 uses of one expression are compiled once; two distinct ones twice', async () => {
  const one = await compiles(doc08(1000, () => ({ id: '${ .order.id }' })));
  assert.deepEqual(one.problems, []);
  assert.ok(one.valid);
  assert.equal(one.checks, 1);
  const two = await compiles(doc08(1000, (i) => ({ id: i % 2 ? '${ .order.id }' : '${ .order.total * 2 }' })));
  assert.ok(two.valid);
  assert.equal(two.checks, 2);
});

test('0.8: a broken expression used 3 times is compiled once and reported at each use', async () => {
  const r = await compiles(doc08(3, () => ({ id: '${ .a | }' })));
  assert.equal(r.checks, 1);
  assert.equal(r.valid, false);
  const expected = [0, 1, 2].map((i) => `/states/${i}/actions/0/functionRef/arguments/id`);
  assert.deepEqual(r.problems.map((p) => p.pointer), expected);
  for (const p of r.problems) assert.match(p.message, /^expression does not compile: .*: "\$\{ \.a \| \}"$/);
  assert.equal(new Set(r.problems.map((p) => p.message)).size, 1, 'the same message at each place');
});

test('1.0: 1,000 uses of one expression are compiled once; a broken one is reported at each use', async () => {
  const one = await compiles(doc10(1000, () => '${ .order.id }'));
  assert.deepEqual(one.problems, []);
  assert.equal(one.checks, 1);
  const bad = await compiles(doc10(3, (i) => (i === 1 ? '${ .order.id }' : '${ .a | }')));
  assert.equal(bad.checks, 2);
  assert.deepEqual(bad.problems.map((p) => p.pointer), ['/do/0/t0/set/v', '/do/2/t2/set/v']);
  for (const p of bad.problems) assert.match(p.message, /^invalid runtime expression: /);
});

test('oncePerText: one call per distinct text, the result of the first reused (promises included)', async () => {
  const calls: string[] = [];
  const check = oncePerText(async (text: string) => {
    calls.push(text);
    return text.length > 3 ? `long ${text}` : undefined;
  });
  assert.deepEqual(await Promise.all(['a', 'abcd', 'a', 'abcd', 'a'].map(check)), [undefined, 'long abcd', undefined, 'long abcd', undefined]);
  assert.deepEqual(calls, ['a', 'abcd']);
});

/** Distinct conditions (a generated routing table): `broken` indexes get a broken text. */
const distinct = (i: number, broken: Set<number>): string => (broken.has(i) ? `\${ .orders[${i}].total > }` : `\${ .orders[${i}].total > ${i} and (.tags | any(. == "t${i}")) }`);

test('0.8: 2,000 distinct conditions cost a few jq compiles; the broken ones are reported at their place with their own message', async () => {
  const broken = new Set([3, 1200, 1999]);
  const conditions = (b: Set<number>) => Array.from({ length: 2000 }, (_, i) => ({ condition: distinct(i, b), transition: 'S0' }));
  const route = (b: Set<number>) => ({ name: 'Route', type: 'switch', dataConditions: conditions(b), defaultCondition: { transition: 'S0' } });
  const base = doc08(1, () => ({ id: '${ .id }' }));
  const valid = await compiles({ ...base, start: 'Route', states: [route(new Set()), ...base.states] });
  assert.deepEqual(valid.problems, []);
  assert.ok(valid.valid);
  const bad = await compiles({ ...base, start: 'Route', states: [route(broken), ...base.states] });
  console.log(`0.8, 2,000 distinct conditions: ${valid.checks} jq compiles when valid, ${bad.checks} with 3 broken`);
  assert.ok(valid.checks <= 12, `compiles: ${valid.checks}`);
  assert.ok(bad.checks <= 100, `compiles: ${bad.checks} (a few per broken one, not one per expression)`);
  assert.deepEqual(bad.problems.map((p) => p.pointer), [...broken].map((i) => `/states/0/dataConditions/${i}/condition`));
  for (const [k, i] of [...broken].entries()) {
    const alone = checkExpressionSyntax(distinct(i, broken))!;
    assert.equal(bad.problems[k].message, `expression does not compile: ${alone.split('\n')[0].trim()}: ${JSON.stringify(distinct(i, broken))}`);
  }
});

test('1.0: 2,000 distinct expressions cost a few jq compiles; the broken ones are reported at their place with their own message', async () => {
  const broken = new Set([0, 777]);
  const valid = await compiles(doc10(2000, (i) => distinct(i, new Set())));
  assert.deepEqual(valid.problems, []);
  const bad = await compiles(doc10(2000, (i) => distinct(i, broken)));
  console.log(`1.0, 2,000 distinct expressions: ${valid.checks} jq compiles when valid, ${bad.checks} with 2 broken`);
  assert.ok(valid.checks <= 12, `compiles: ${valid.checks}`);
  assert.deepEqual(bad.problems.map((p) => p.pointer), ['/do/0/t0/set/v', '/do/777/t777/set/v']);
  for (const [k, i] of [...broken].entries()) assert.equal(bad.problems[k].message, `invalid runtime expression: ${checkExpressionSyntax(distinct(i, broken))}`);
});
