/**
 * Validation stays linear in the size of the document: each distinct expression is compiled by
 * jq once however often the document repeats it (counted through the engine, not timed), and
 * every use still gets its own problem, at its own place. Timings: bench/validate-scale.ts.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { loadAnyDefinition } from '../../src/dsl';
import { jqCheckCount } from '../../src/expr/engine';
import { oncePerText } from '../../src/dsl/v08/expressions';

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
