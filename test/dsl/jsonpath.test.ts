/**
 * JSONPath → jq (src/dsl/jsonpath.ts), Kogito `expressionLang: jsonpath` documents, and
 * Kogito string/array `arguments` (src/dsl/v08/kogito.ts).
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { loadDefinition } from '../../src/dsl';
import { simpleJsonPathToJq, translateJsonPath } from '../../src/dsl/jsonpath';
import { evaluateTemplate, initExpressions } from '../../src/expr';
import type { Json } from '../../src/common/model';

const ok = (expr: string, ctx: 'value' | 'boolean' | 'string' = 'value') => {
  const t = translateJsonPath(expr, ctx);
  assert.ok(!('error' in t), `${expr}: ${'error' in t ? t.error : ''}`);
  return t.jq;
};
const run = async (jq: string, data: Json) => {
  await initExpressions();
  return evaluateTemplate(`\${ ${jq} }`, data);
};

test('jsonpath: definite paths translate to jq paths (single value)', async () => {
  assert.equal(ok('$'), '.');
  assert.equal(ok('$.a.b'), '.a.b');
  assert.equal(ok('$.a[0]'), '.a[0]');
  assert.equal(ok("$['x']"), '.x');
  assert.equal(ok("$['x-y'].z"), '.["x-y"].z');
  assert.equal(ok('$["a b"][2]'), '.["a b"][2]');
  assert.equal(ok('$.a-b'), '.["a-b"]');
  assert.deepEqual(await run(ok("$.a['x-y'][1]"), { a: { 'x-y': [1, 2] } }), 2);
  assert.equal(simpleJsonPathToJq('$.a.b'), '.a.b');
  assert.equal(simpleJsonPathToJq('$[*]'), undefined);
});

test('jsonpath: wildcards give a list, skipping what does not match (as Jayway)', async () => {
  assert.equal(ok('$[*]'), '[.[]?]');
  assert.equal(ok('$.*'), '[.[]?]');
  assert.equal(ok('$.a[*].b'), '[.a | .[]? | objects | select(has("b")) | .b]');
  assert.deepEqual(await run(ok('$[*]'), { x: 1, y: 'a' }), [1, 'a']);
  assert.deepEqual(await run(ok('$.a[*].b'), { a: [{ b: 1 }, { c: 2 }, 3, { b: null }] }), [1, null]);
  assert.deepEqual(await run(ok('$.a[*][1]'), { a: [[1, 2], [3], 'x'] }), [2]);
});

test('jsonpath: filters select array elements, or the object itself', async () => {
  const f = ok("$.[?(@.language  == 'English')]");
  assert.deepEqual(await run(f, { language: 'English', name: 'J' }), [{ language: 'English', name: 'J' }]);
  assert.deepEqual(await run(f, { language: 'Spanish' }), []);
  const arr = ok("$.items[?(@.k == 'a' || @.ok == true && @['x-y'] != 'n')]");
  assert.deepEqual(await run(arr, { items: [{ k: 'a' }, { ok: true, 'x-y': 'm' }, { ok: true, 'x-y': 'n' }, 5] }), [{ k: 'a' }, { ok: true, 'x-y': 'm' }]);
  // A condition is true when the list is not empty (Kogito's conversion).
  const cond = ok("$[?(@.language == 'Spanish')]", 'boolean');
  assert.equal(await run(cond, { language: 'Spanish' }), true);
  assert.equal(await run(cond, { language: 'English' }), false);
});

test('jsonpath: sysout messages are text (parts concatenated)', async () => {
  const m = ok('$.greeting $.name', 'string');
  assert.equal(await run(m, { greeting: 'Hello,', name: 'John' }), 'Hello,John');
  assert.equal(await run(ok('$[*]', 'string'), { a: 1 }), '[1]');
});

test('jsonpath: constructs without an exact jq equivalent are errors', () => {
  const err = (expr: string, ctx: 'value' | 'boolean' | 'string' = 'value') => {
    const t = translateJsonPath(expr, ctx);
    assert.ok('error' in t, expr);
    return t.error;
  };
  assert.equal(err('$..a'), "deep scan '..' has no exact jq equivalent");
  assert.equal(err('$.a[1:2]'), 'array slices have no exact jq equivalent');
  assert.equal(err('$.a[-1]'), 'negative indexes are not supported');
  assert.equal(err("$['a','b']"), 'unions [a,b] have no exact jq equivalent');
  assert.equal(err('$.a.length()'), "function call 'length()' has no exact jq equivalent");
  assert.equal(err('$[?(@.n > 1)]'), "filter predicate '@.n > 1' is not supported (only @.path == / != a string or boolean)");
  assert.equal(err("$[?(@.n == '1')]"), "filter predicate '@.n == '1'' compares with a numeric string (JsonPath also matches the number)");
  assert.equal(err('$[?(@.n == 1)]'), "filter predicate '@.n == 1' compares with 1 (only strings and booleans compare the same way in jq)");
  assert.equal(err('$.a', 'boolean'), 'a condition that is a single value (not a filter or wildcard) is converted to a boolean by Jackson, which has no exact jq equivalent');
  assert.equal(err('.data'), 'it does not start with $');
  assert.equal(err('$[?(@.a == 1'), 'unclosed filter [?(...)]');
});

const doc = (over: Record<string, unknown>) => ({
  id: 'w',
  specVersion: '0.8',
  start: 'S',
  functions: [
    { name: 'print', type: 'custom', operation: 'sysout' },
    { name: 'svc', type: 'custom', operation: 'service:java:X::y' },
    { name: 'isEnglish', type: 'expression', operation: "$.[?(@.language == 'English')]" },
  ],
  ...over,
});

test('jsonpath documents: translated to jq with one warning; untranslatable expressions are errors', async () => {
  const r = await loadDefinition(
    doc({
      expressionLang: 'jsonpath',
      states: [
        {
          name: 'S',
          type: 'switch',
          dataConditions: [
            { condition: 'fn:isEnglish', transition: 'P' },
            { condition: "${ $.[?(@.language == 'Spanish')] }", transition: 'P' },
          ],
          defaultCondition: { transition: 'P' },
        },
        {
          name: 'P',
          type: 'operation',
          actions: [
            { functionRef: { refName: 'svc', arguments: { number: '$.number', literal: 'text', list: ['$.a[0]'] } }, actionDataFilter: { toStateData: '$.out' } },
            { functionRef: { refName: 'print', arguments: { message: '$.greeting $.name' } } },
          ],
          end: true,
        },
      ],
    }),
  );
  assert.ok(r.definition, JSON.stringify(r.problems));
  const d = r.definition!;
  assert.equal(d.expressionLang, 'jq');
  assert.ok(r.problems.some((p) => p.severity === 'warning' && p.message === "expressionLang 'jsonpath' (Kogito): 7 JSONPath expressions translated to jq"));
  assert.equal(d.functions.find((f) => f.name === 'isEnglish')!.operation, '${ [(if type == "array" then .[] elif type == "object" then . else error("JSONPath filter applied to \\(type)") end) | select((try .language catch null) == "English")] }');
  const sw = d.states[0] as import('../../src/common/model').SwitchState;
  assert.equal(sw.dataConditions[0].condition, '${ fn:isEnglish | length > 0 }');
  assert.match(sw.dataConditions[1].condition, /\| length > 0 }$/);
  const op = d.states[1] as import('../../src/common/model').OperationState;
  assert.deepEqual(op.actions[0].functionRef!.arguments, { number: '${ .number }', literal: 'text', list: ['${ .a[0] }'] });
  assert.equal(op.actions[0].actionDataFilter.toStateData, '${ .out }');
  assert.equal(op.actions[1].functionRef!.arguments && (op.actions[1].functionRef!.arguments as Record<string, Json>).message, '${ [(.greeting | if type == "string" then . else tojson end), (.name | if type == "string" then . else tojson end)] | join("") }');

  const bad = await loadDefinition(
    doc({
      expressionLang: 'jsonpath',
      states: [
        { name: 'S', type: 'operation', actions: [{ functionRef: { refName: 'svc', arguments: { a: '$..x' } } }], stateDataFilter: { output: '.x' }, transition: 'E' },
        { name: 'E', type: 'switch', dataConditions: [{ condition: '$.flag', transition: 'S' }], defaultCondition: { end: true } },
      ],
    }),
  );
  assert.equal(bad.definition, undefined);
  const msgs = bad.problems.filter((p) => p.severity === 'error').map((p) => p.message);
  assert.deepEqual(msgs.sort(), [
    'JSONPath argument "$..x" cannot be translated to jq: deep scan \'..\' has no exact jq equivalent',
    'JSONPath condition "$.flag" cannot be translated to jq: a condition that is a single value (not a filter or wildcard) is converted to a boolean by Jackson, which has no exact jq equivalent',
    'JSONPath stateDataFilter.output ".x" cannot be translated to jq: it does not start with $',
  ]);
});

test('Kogito arguments: an expression string, or an array whose jq strings are expressions', async () => {
  const r = await loadDefinition(
    doc({
      functions: [{ name: 'svc', type: 'custom', operation: 'service:java:X::y' }],
      states: [
        {
          name: 'S',
          type: 'operation',
          actions: [
            { functionRef: { refName: 'svc', arguments: '.inputArray' } },
            { functionRef: { refName: 'svc', arguments: '{a: .x, b: .y}' } },
            { functionRef: { refName: 'svc', arguments: '${ .z }' } },
            { functionRef: { refName: 'svc', arguments: ['.first', 'plain words', { k: '.second' }, 3] } },
          ],
          end: true,
        },
      ],
    }),
  );
  assert.ok(r.definition, JSON.stringify(r.problems));
  const args = (r.definition!.states[0] as import('../../src/common/model').OperationState).actions.map((a) => a.functionRef!.arguments);
  assert.deepEqual(args, ['${ .inputArray }', '${ {a: .x, b: .y} }', '${ .z }', ['${ .first }', 'plain words', { k: '${ .second }' }, 3]]);
  const warnings = r.problems.filter((p) => p.severity === 'warning').map((p) => p.message);
  assert.ok(warnings.includes('\'arguments\' is the jq expression ".inputArray" (Kogito), not an object: read as "${ .inputArray }"'));
  assert.ok(warnings.includes('\'arguments\' is an array (Kogito), not an object; its strings that are jq expressions are evaluated as Kogito does: ".first", ".second"'));

  const bad = await loadDefinition(doc({ functions: [{ name: 'svc', type: 'custom', operation: 'x' }], states: [{ name: 'S', type: 'operation', actions: [{ functionRef: { refName: 'svc', arguments: 'not jq at all' } }, { functionRef: { refName: 'svc', arguments: 5 } }], end: true }] }));
  assert.equal(bad.definition, undefined);
  const msgs = bad.problems.filter((p) => p.severity === 'error').map((p) => p.message);
  assert.equal(msgs.length, 2, msgs.join('\n'));
  assert.match(msgs[0], /^'arguments' is a string that is not a jq expression \(.*\): "not jq at all"$/);
  assert.equal(msgs[1], "'arguments' must be an object (got 5)");
});
