/**
 * Differential test: the TypeScript fast path against real jq on >= 10,000 generated inputs
 * per shape. For every input, either both give the same JSON (compared as text, so key order
 * and -0 count) or jq fails and the fast path declined (so jq produces the error).
 *
 * jq runs are batched (1,000 inputs per run, each evaluated by the shape inside
 * `try ... catch`) to keep the test fast; a further sample per shape goes through the full
 * engine path (`evaluateExpressionWithJq`, one run each) and the public `evaluateExpression`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Json } from '../../src/common/model';
import { evaluateExpression, evaluateExpressionWithJq, ExpressionError, initExpressions, toJqJson } from '../../src/expr';
import { DECLINE, evalFastPath, parseFastPath } from '../../src/expr/fastpath';
import { runJq } from '../../src/expr/engine';
import { mulberry32 } from '../helpers/prng';

const PER_SHAPE = 10_000;
const FULL_PATH_SAMPLE = 150;

const KEYS = ['a', 'b', 'x', 'y', 'a-b', '日本', 'é', '', 'constructor', '__proto__', 'toString', '0', '1', 'if', 'name', 'k😀'];
const STRINGS = ['', 'hello', 'ünïcödé', '日本語', '😀 emoji', 'a"quote', 'back\\slash', 'new\nline', '\u0000ctl', '\ud800lone', 'x\udc00', '\\ud800', '\u2028', 'tab\t'];
const NUMBERS = [0, -0, 1, -1, 42, 3.5, -2.25, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 2 ** 53 + 2, 12345678901234567000, 123.456, -1e-300];

function gen(rand: () => number) {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const setOwn = (o: Record<string, unknown>, k: string, v: unknown) =>
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  const scalar = (): unknown => {
    const r = rand();
    if (r < 0.15) return null;
    if (r < 0.25) return rand() < 0.5;
    if (r < 0.55) return rand() < 0.5 ? pick(NUMBERS) : Math.round((rand() - 0.5) * 1e6) / (rand() < 0.5 ? 1 : 1000);
    return pick(STRINGS);
  };
  const value = (depth: number): unknown => {
    const r = rand();
    if (depth <= 0 || r < 0.4) return scalar();
    if (r < 0.7) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth - 1));
    const o: Record<string, unknown> = {};
    const n = Math.floor(rand() * 4);
    for (let i = 0; i < n; i++) setOwn(o, pick(KEYS), value(depth - 1));
    return o;
  };
  /** A value that follows `steps` most of the time, with random detours at every level. */
  const along = (steps: (string | number)[]): unknown => {
    if (steps.length === 0) return value(3);
    const r = rand();
    if (r < 0.12) return value(2); // anything, often a type error or null
    const [step, ...rest] = steps;
    if (typeof step === 'string') {
      const o = (rand() < 0.3 ? value(1) : {}) as Record<string, unknown>;
      const target = o && typeof o === 'object' && !Array.isArray(o) ? o : {};
      if (rand() < 0.9) setOwn(target, step, along(rest));
      return target;
    }
    const len = Math.floor(rand() * 5);
    const arr = Array.from({ length: len }, () => value(1));
    const i = step < 0 ? len + step : step;
    if (i >= 0 && i < len && rand() < 0.9) arr[i] = along(rest);
    return arr;
  };
  return { along, value };
}

const SHAPES: { expr: string; root?: string }[] = [
  { expr: '.' },
  { expr: '.a' },
  { expr: '.a.b' },
  { expr: '.a[0]' },
  { expr: '.a[-1]' },
  { expr: '.[2]' },
  { expr: '.a.[1]' },
  { expr: '."a-b"' },
  { expr: '.["x"].y' },
  { expr: '."日本"["é"][0]' },
  { expr: '.constructor.__proto__' },
  { expr: '.toString["0"]' },
  { expr: '$CONST.x.y', root: 'CONST' },
  { expr: '$person.name[1]', root: 'person' },
];

test('setup', async () => {
  await initExpressions();
});

for (const shape of SHAPES) {
  test(`fast path == jq for ${shape.expr} on ${PER_SHAPE} inputs`, () => {
    const fp = parseFastPath(shape.expr);
    assert.ok(fp, `${shape.expr} is a fast-path shape`);
    const rand = mulberry32(0x5eed + shape.expr.length * 7919 + shape.expr.charCodeAt(shape.expr.length - 1));
    const g = gen(rand);
    const inputs: unknown[] = [];
    for (let i = 0; i < PER_SHAPE; i++) inputs.push(rand() < 0.85 ? g.along(fp.steps) : g.value(3));

    // Reference: jq, batched. The shape is applied to each input exactly as written.
    const bind = shape.root ? `$__in as $${shape.root} | ` : '';
    const program = `[.[] | . as $__in | try ([${bind}${shape.root ? 'null' : '$__in'} | first(${shape.expr})] | {ok: .[0]}) catch {err: .}]`;
    const expected: { ok?: Json; err?: Json }[] = [];
    for (let i = 0; i < inputs.length; i += 1000) {
      const run = runJq(program, toJqJson(inputs.slice(i, i + 1000)));
      assert.equal(run.kind, 'ok', JSON.stringify(run));
      const [outputs] = JSON.parse(run.kind === 'ok' ? run.outputs : '[]') as { ok?: Json; err?: Json }[][];
      expected.push(...outputs);
    }
    assert.equal(expected.length, inputs.length);

    let oks = 0;
    let errs = 0;
    for (let i = 0; i < inputs.length; i++) {
      const got = evalFastPath(fp, inputs[i] as Json);
      const want = expected[i];
      if ('err' in want) {
        errs++;
        assert.equal(got, DECLINE, `jq fails (${JSON.stringify(want.err)}) but fast path answered for input ${toJqJson(inputs[i])}`);
      } else {
        oks++;
        assert.notEqual(got, DECLINE, `fast path declined where jq answers, input ${toJqJson(inputs[i])}`);
        // Text (key order) and deep strict equality (Object.is: -0 vs 0, which JSON text hides).
        assert.equal(JSON.stringify(got), JSON.stringify(want.ok), `input ${toJqJson(inputs[i])}`);
        assert.deepStrictEqual(got, want.ok, `input ${toJqJson(inputs[i])}`);
      }
    }
    // The generator must exercise both outcomes (values found, errors), else the test is weak.
    assert.ok(oks > PER_SHAPE / 4, `successes: ${oks}`);
    if (shape.expr !== '.') assert.ok(errs > PER_SHAPE / 50, `errors: ${errs}`);

    // Full engine path (one jq run each) and the public API (fast path + fallback), on a sample.
    for (let i = 0; i < FULL_PATH_SAMPLE; i++) {
      const input = inputs[i] as Json;
      const scope = shape.root === 'CONST' ? { constants: input } : shape.root ? { variables: { [shape.root]: input } } : undefined;
      const data = shape.root ? null : input;
      const viaJq = (() => {
        try {
          return { ok: evaluateExpressionWithJq(shape.expr, data, scope) };
        } catch (e) {
          assert.ok(e instanceof ExpressionError);
          return { err: e.jqMessage };
        }
      })();
      const viaApi = (() => {
        try {
          return { ok: evaluateExpression('${ ' + shape.expr + ' }', data, scope) };
        } catch (e) {
          assert.ok(e instanceof ExpressionError);
          return { err: e.jqMessage };
        }
      })();
      assert.equal(JSON.stringify(viaApi), JSON.stringify(viaJq));
      assert.equal(JSON.stringify(viaJq), JSON.stringify(expected[i]));
    }
  });
}

test('shapes outside the fast path are left to jq', () => {
  for (const e of ['.a | .b', '.a?', '..', '.a[]', '.[1:2]', '. a', '.a .b', '.a."b\\"c"', '.["a\\(1)"]', '$__loc__', '.a[01]', '.a[-0]', '.a[1.5]', '.foo::bar', '.a,.b', '"\uFFFD"', '.["\uFFFD"]']) {
    if (e === '$__loc__') continue; // parsed, but its root is never provided by a scope
    assert.equal(parseFastPath(e), undefined, e);
  }
});
