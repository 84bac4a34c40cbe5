import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  evaluateCondition,
  evaluateExpression,
  evaluateTemplate,
  ExpressionError,
  findSecretReferences,
  initExpressions,
  isExpression,
  referencesSecrets,
  splitSecretArguments,
  type ExprScope,
} from '../../src/expr';
import { checkExpressionSyntax } from '../../src/expr/syntax';
import { evaluateWithSecrets, resolveSecretArguments } from '../../src/expr/secrets';
import * as engine from '../../src/expr/engine';

const scope: ExprScope = {
  constants: { AGE: { MIN_ADULT: 18 }, greeting: 'hi' },
  workflow: { id: 'wf', instanceId: 'run-1', name: 'Test', version: '1.0', startTime: '2024-01-01T00:00:00Z' },
  variables: { person: { name: 'Ann', age: 31 } },
  functions: {
    isAdult: '.applicant | .age >= $CONST.AGE.MIN_ADULT',
    'Increment Count Function': '${ .count + 1 }',
    double: '(fn:Increment Count Function) * 2',
    greet: '"\\($CONST.greeting) \\(.applicant.name)"',
  },
};
const data = { applicant: { name: 'Bob', age: 17 }, count: 4, items: [{ n: 1 }, { n: 5 }, { n: 9 }], greetings: 'hello' };

/** Expect an ExpressionError and return it. */
function fails(f: () => unknown): ExpressionError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof ExpressionError, `expected ExpressionError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected an ExpressionError');
}

test('setup: engine loads', async () => {
  await initExpressions();
});

test('isExpression: ${ } form, whitespace, literals', () => {
  assert.equal(isExpression('${ .a }'), true);
  assert.equal(isExpression('${ .greetings } '), true);
  assert.equal(isExpression('  ${.a}\n'), true);
  assert.equal(isExpression('${ {a: 1} | .a }'), true);
  assert.equal(isExpression('${ "}" }'), true);
  assert.equal(isExpression('.a'), false);
  assert.equal(isExpression('hello'), false);
  assert.equal(isExpression('${ .a } and ${ .b }'), false);
  assert.equal(isExpression('x ${ .a }'), false);
  assert.equal(isExpression('${ .a'), false);
});

test('evaluateExpression: ${ } and bare jq, first output, null when none', () => {
  assert.equal(evaluateExpression('${ .greetings } ', data), 'hello');
  assert.equal(evaluateExpression('.applicant.name', data), 'Bob');
  assert.deepEqual(evaluateExpression('${ [.items[] | select(.n > 2) | .n] }', data), [5, 9]);
  assert.equal(evaluateExpression('${ .items[] | .n }', data), 1);
  assert.equal(evaluateExpression('${ empty }', data), null);
  assert.equal(evaluateExpression('${ .missing }', data), null);
  assert.equal(evaluateExpression('${ 1, error("not reached") }', data), 1);
  assert.equal(evaluateExpression('${ .a # a comment\n }', { a: 2 }), 2);
  assert.deepEqual(evaluateExpression('${ {a: "}"} }', null), { a: '}' });
});

test('strings without ${ are literals in templates; mixed strings are interpolated', () => {
  assert.equal(evaluateTemplate('.applicant.name', data), '.applicant.name');
  assert.equal(evaluateTemplate('plain text', data), 'plain text');
  assert.equal(evaluateTemplate('Hi ${ .applicant.name }, n=${ .count } ${ .items[0] }', data), 'Hi Bob, n=4 {"n":1}');
  assert.equal(evaluateExpression('Hi ${ .applicant.name }', data), 'Hi Bob');
  assert.equal(evaluateTemplate('cost ${', data), 'cost ${');
});

test('evaluateTemplate: recursive, typed results, literals untouched', () => {
  const value = {
    name: '${ .applicant.name }',
    age: '${ .applicant.age } ',
    nested: { list: ['${ .count + 1 }', 'lit', 7, null, true, { deep: '${ [.items[].n] }' }] },
    big: 12345678901234567000,
    keep: '.count',
    '${ .key }': 'keys are literal',
  };
  assert.deepEqual(evaluateTemplate(value, data, scope), {
    name: 'Bob',
    age: 17,
    nested: { list: [5, 'lit', 7, null, true, { deep: [1, 5, 9] }] },
    big: 12345678901234567000,
    keep: '.count',
    '${ .key }': 'keys are literal',
  });
  const noExpr = { a: [1, 'x'] };
  assert.equal(evaluateTemplate(noExpr, data), noExpr);
});

test('evaluateTemplate runs ONE jq program for all embedded expressions', () => {
  let before = engine.jqRunCount();
  {
    const args = { a: '${ .count + 1 }', b: ['${ .applicant.age * 2 }', 'lit'], c: '${ .items | length }', d: '${ .applicant.name | ascii_upcase }', e: 'n=${ [.items[].n] | add }', f: '${ .applicant.name }' };
    assert.deepEqual(evaluateTemplate(args, data, scope), { a: 5, b: [34, 'lit'], c: 3, d: 'BOB', e: 'n=15', f: 'Bob' });
    assert.equal(engine.jqRunCount() - before, 1);
    before = engine.jqRunCount();
    assert.deepEqual(evaluateTemplate({ a: '${ .applicant.name }', b: '${ $CONST.AGE.MIN_ADULT }', c: '${ . }' }, { applicant: { name: 'x' } }, scope), {
      a: 'x',
      b: 18,
      c: { applicant: { name: 'x' } },
    });
    assert.equal(engine.jqRunCount() - before, 0, 'simple paths need no jq run');
    before = engine.jqRunCount();
    for (const e of Object.values(args)) evaluateTemplate(e, data, scope);
    assert.equal(engine.jqRunCount() - before, 5, 'one by one: one run per non-simple site');
  }
});

test('$CONST, $WORKFLOW and iteration variables', () => {
  assert.equal(evaluateExpression('${ $CONST.AGE.MIN_ADULT }', data, scope), 18);
  assert.equal(evaluateExpression('${ $CONST.AGE.MIN_ADULT + 1 }', data, scope), 19);
  assert.equal(evaluateExpression('${ $WORKFLOW.instanceId }', data, scope), 'run-1');
  assert.equal(evaluateExpression('${ $WORKFLOW | "\\(.id)@\\(.version)" }', data, scope), 'wf@1.0');
  assert.equal(evaluateExpression('${ $person.name }', data, scope), 'Ann');
  assert.equal(evaluateExpression('${ $person.age > .applicant.age }', data, scope), true);
  assert.deepEqual(evaluateExpression('${ $CONST }', data, {}), {});
  const e = fails(() => evaluateExpression('${ $nobody.name }', data, scope));
  assert.match(e.jqMessage, /\$nobody is not defined/);
});

test('fn: expression functions, names with spaces, $CONST inside, nesting', () => {
  assert.equal(evaluateExpression('${ fn:isAdult }', data, scope), false);
  assert.equal(evaluateCondition('${ fn:isAdult }', { applicant: { age: 40 } }, scope), true);
  assert.equal(evaluateExpression('${ fn:Increment Count Function }', data, scope), 5);
  assert.equal(evaluateExpression('${ fn:double }', data, scope), 10);
  assert.equal(evaluateExpression('${ fn:greet }', data, scope), 'hi Bob');
  assert.deepEqual(evaluateExpression('${ [.items[] | {count: .n} | fn:Increment Count Function] }', data, scope), [2, 6, 10]);
  assert.equal(evaluateExpression('${ "fn:isAdult" }', data, scope), 'fn:isAdult', 'not inside strings');
  const e = fails(() => evaluateExpression('${ fn:nope }', data, scope));
  assert.match(e.jqMessage, /unknown expression function fn:nope/);
  const cyc = fails(() => evaluateExpression('${ fn:a }', data, { functions: { a: 'fn:b', b: 'fn:a' } }));
  assert.match(cyc.jqMessage, /cycle/);
});

test('evaluateCondition: jq truthiness', () => {
  assert.equal(evaluateCondition('${ .count > 3 }', data), true);
  assert.equal(evaluateCondition('${ .missing }', data), false);
  assert.equal(evaluateCondition('${ false }', data), false);
  assert.equal(evaluateCondition('${ 0 }', data), true);
  assert.equal(evaluateCondition('${ "" }', data), true);
  assert.equal(evaluateCondition('.items | length == 3', data), true);
});

test('$ENV and env are hidden; input/inputs are errors', () => {
  assert.deepEqual(evaluateExpression('${ $ENV }', data), {});
  assert.deepEqual(evaluateExpression('${ env }', data), {});
  assert.equal(evaluateExpression('${ $ENV.PATH }', data), null);
  assert.equal(evaluateExpression('${ env.HOME }', data), null);
  assert.match(fails(() => evaluateExpression('${ input }', data)).jqMessage, /input is not available/);
  assert.match(fails(() => evaluateExpression('${ [inputs] }', data)).jqMessage, /inputs is not available/);
});

test('errors name the expression and carry jq message', () => {
  const e = fails(() => evaluateExpression('${ .count.x }', data));
  assert.equal(e.expression, '${ .count.x }');
  assert.equal(e.jqMessage, 'Cannot index number with string ("x")');
  assert.equal(e.kind, 'runtime');
  assert.match(e.message, /\.count\.x/);
  assert.equal(fails(() => evaluateExpression('${ error("boom") }', data)).jqMessage, 'boom');
  const s = fails(() => evaluateExpression('${ .a | }', data));
  assert.equal(s.kind, 'syntax');
  assert.match(s.jqMessage, /syntax error/);
  // In a batch, the failing expression is the one named.
  const b = fails(() => evaluateTemplate({ ok: '${ .count + 1 }', bad: '${ .applicant.name + 1 }', ok2: '${ now }' }, data));
  assert.equal(b.expression, '${ .applicant.name + 1 }');
  assert.match(b.jqMessage, /cannot be added/);
});

test('checkExpressionSyntax: jq messages at validation time, never runs the expression', () => {
  assert.equal(checkExpressionSyntax('${ .a.b }'), undefined);
  assert.equal(checkExpressionSyntax('.a | map(. + 1)'), undefined);
  assert.equal(checkExpressionSyntax('${ [repeat(1)] | length }'), undefined, 'compiles; would never terminate if run');
  assert.equal(checkExpressionSyntax('${ $CONST.x + $WORKFLOW.id }'), undefined);
  assert.match(checkExpressionSyntax('${ .a | }')!, /syntax error, unexpected end of expression/);
  assert.match(checkExpressionSyntax('if . then 1')!, /syntax error/);
  assert.match(checkExpressionSyntax('${ nosuchfn(1) }')!, /nosuchfn\/1 is not defined/);
  assert.equal(checkExpressionSyntax('${ fn:isAdult and fn:Increment Count Function > 1 }', ['isAdult', 'Increment Count Function']), undefined);
  assert.match(checkExpressionSyntax('${ fn:other }', ['isAdult'])!, /unknown expression function fn:other/);
  assert.equal(checkExpressionSyntax('${ fn:anything }'), undefined);
  assert.equal(checkExpressionSyntax('${ $item.x }'), undefined);
  assert.match(checkExpressionSyntax('${ $item.x }', [], ['person'])!, /\$item is not defined/);
  assert.equal(checkExpressionSyntax('${ $person.x }', [], ['person']), undefined);
  assert.equal(checkExpressionSyntax('Hello ${ .a } and ${ .b }'), undefined);
  assert.match(checkExpressionSyntax('Hello ${ .a } and ${ .b | }')!, /syntax error/);
});

test('secrets: detection, rejection in the workflow, evaluation on the activity side', async () => {
  assert.equal(referencesSecrets('${ $SECRETS.token }'), true);
  assert.equal(referencesSecrets('${ "Bearer " + $SECRETS.apiKey }'), true);
  assert.equal(referencesSecrets('${ $SECRETSX }'), false);
  assert.equal(referencesSecrets('${ .secrets }'), false);
  assert.equal(referencesSecrets('${ fn:auth }', { auth: '$SECRETS.k' }), true);
  assert.equal(referencesSecrets('${ fn:auth }', { auth: '.k' }), false);
  assert.deepEqual(findSecretReferences({ a: 'x', h: { Authorization: '${ "Bearer " + $SECRETS.t }' }, l: ['${ $SECRETS.u }'] }), [
    { pointer: '/h/Authorization', expression: '${ "Bearer " + $SECRETS.t }' },
    { pointer: '/l/0', expression: '${ $SECRETS.u }' },
  ]);
  const e = fails(() => evaluateExpression('${ $SECRETS.token }', data, scope));
  assert.match(e.jqMessage, /\$SECRETS cannot be used/);
  fails(() => evaluateTemplate({ a: '${ .count }', b: '${ $SECRETS.x }' }, data, scope));

  const args = { user: '${ .applicant.name }', headers: { Authorization: '${ "Bearer " + $SECRETS.token }' } };
  const split = splitSecretArguments(args);
  assert.deepEqual(split.secretArguments, { '/headers/Authorization': '${ "Bearer " + $SECRETS.token }' });
  assert.equal(JSON.stringify(split.arguments).includes('SECRETS'), false);
  const evaluated = evaluateTemplate(split.arguments, data, scope);
  const resolved = await resolveSecretArguments(evaluated, split.secretArguments, data, scope, { token: 's3cr3t' });
  assert.deepEqual(resolved, { user: 'Bob', headers: { Authorization: 'Bearer s3cr3t' } });
  assert.equal(await evaluateWithSecrets('${ $SECRETS.token + .greetings }', data, scope, { token: 'k-' }), 'k-hello');
  assert.equal(await evaluateWithSecrets('$SECRETS.token', data, scope, { token: 'bare' }), 'bare');
});

test('now is a number (workflow time inside the sandbox, see sandbox.test.ts)', () => {
  const now = evaluateExpression('${ now }', null) as number;
  assert.ok(Math.abs(now * 1000 - Date.now()) < 5000);
});

test('program cache: repeated evaluation gives the same results', () => {
  for (let i = 0; i < 50; i++) assert.equal(evaluateExpression('${ .count * 2 + $CONST.AGE.MIN_ADULT }', data, scope), 26);
});
