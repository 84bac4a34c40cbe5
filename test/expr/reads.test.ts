/**
 * The static analysis of what expressions read (src/expr/reads.ts): hand-picked cases, and a
 * differential check that each expression gives the same result (or the same failure) over the
 * minimal context as over the whole one, with real jq.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Json } from '../../src/common/model';
import { expressionReads, pickReads, secretContextOf } from '../../src/expr/reads';
import { evaluateWithSecretsSync } from '../../src/expr/secrets';
import type { ExprScope } from '../../src/expr';

const reads = (e: string, functions?: Record<string, string>) => {
  const r = expressionReads([e], functions);
  return { data: r.data, variables: Object.fromEntries(r.variables), functions: [...r.functions].sort() };
};

test('a secret joined to literals reads nothing but the secret', () => {
  assert.deepEqual(reads('${ "Bearer " + $secrets.token }'), { data: false, variables: { secrets: [['token']] }, functions: [] });
  assert.deepEqual(reads('Bearer ${ $secrets.token }'), { data: false, variables: { secrets: [['token']] }, functions: [] });
  assert.deepEqual(secretContextOf(['${ "Bearer " + $secrets.token }'], { big: 'input' }, { variables: { workflow: { definition: {} }, input: 1 } }), undefined);
  assert.deepEqual(secretContextOf(['${ $SECRETS.key }'], { big: 'input' }, { constants: { c: 1 }, workflow: { id: 'w' }, functions: { f: '.a' } }), undefined);
});

test('the data is read by paths, calls and formats where the input is the data', () => {
  for (const e of ['${ .a }', '${ . }', '${ .[0] }', '${ .. }', '${ $secrets.t + .a }', '${ length }', '${ @base64 }', '${ {a} }', '${ {"a"} }', '${ "\\(.a)" }', '${ [.a] }', '${ ($secrets.t | length), .a }', '${ {k: ($secrets.t | ascii_downcase), j: .a} }', '${ if $secrets.t | test("x") then .a else 1 end }', '${ $secrets.t as $t | .a }', '${ def f: 1; f }', '${ "unterminated }', '.a + $SECRETS.x', '${ ."a-b" }', '${ not }', '${ $secrets.t[length:] }', '${ $secrets.t[:length] }'])
    assert.equal(reads(e).data, true, e);
});

test('paths on variables, literals, string contents, comments and piped calls do not read the data', () => {
  for (const e of ['${ $secrets.t }', '${ "a.b" + $secrets.t }', '${ $secrets.t | @base64 }', '${ "\\($secrets.u):\\($secrets.p)" | @base64 }', '${ @base64 "x\\($secrets.t)" }', '${ $secrets.t | ascii_downcase | .[0:3] }', '${ {a: $secrets.t, b: 1.5} }', '${ $secrets.t # .a\n }', '${ true and null }', '${ $secrets.t // "none" }', '${ ($secrets.t).x }', '${ $context.a[0] }', '${ {if: $secrets.t} }'])
    assert.equal(reads(e).data, false, e);
});

test('variables with their fixed paths; a bare use reads the whole variable', () => {
  assert.deepEqual(reads('${ $workflow.id + $workflow.definition.document.name + $context }').variables, { workflow: [['id'], ['definition', 'document', 'name']], context: 'whole' });
  assert.deepEqual(reads('${ $task."a-b" + $task.x[0] }').variables, { task: [['a-b'], ['x']] });
  assert.deepEqual(reads('${ $input.x + $input }').variables, { input: 'whole' });
  assert.deepEqual(reads('${ "\\($item.name)" }').variables, { item: [['name']] });
});

test('fn: functions are followed, with what their operations read', () => {
  const functions = { token: '$SECRETS.t + $CONST.suffix', 'with space': '.x', chain: 'fn:token' };
  assert.deepEqual(reads('${ fn:chain }', functions), { data: false, variables: { SECRETS: [['t']], CONST: [['suffix']] }, functions: ['chain', 'token'] });
  assert.equal(reads('${ fn:with space }', functions).data, true);
  assert.equal(reads('${ $SECRETS.t | fn:with space }', functions).data, false);
  const ctx = secretContextOf(['${ fn:chain }'], { d: 1 }, { constants: { suffix: '!', other: 'big' }, workflow: { id: 'w' }, functions });
  assert.deepEqual(ctx, { scope: { constants: { suffix: '!' }, functions: { chain: 'fn:token', token: '$SECRETS.t + $CONST.suffix' } } });
});

test('pickReads keeps the subtrees read, and non-objects whole', () => {
  assert.deepEqual(pickReads({ a: { b: 1, c: 2 }, d: 3 }, [['a', 'b']]), { a: { b: 1 } });
  assert.deepEqual(pickReads({ a: [1, 2], d: 3 }, [['a', 'x']]), { a: [1, 2] });
  assert.deepEqual(pickReads({ a: 'text' }, [['a', 'x']]), { a: 'text' });
  assert.deepEqual(pickReads({ a: 1 }, [['missing']]), {});
  assert.deepEqual(pickReads([1, 2], [['a']]), [1, 2]);
  assert.deepEqual(pickReads({ a: 1 }, 'whole'), { a: 1 });
  const proto = pickReads(JSON.parse('{"__proto__": {"x": 1}, "y": 2}'), [['__proto__', 'x']]) as Record<string, Json>;
  assert.deepEqual(Object.keys(proto), ['__proto__']);
});

test('differential: every expression gives the same over the minimal context as over the whole one', () => {
  const data: Json = { a: 1, b: { c: [1, 2, 3] }, name: 'ada', 'a-b': 'dash', list: [{ n: 1 }, { n: 2 }] };
  const scope: ExprScope = {
    constants: { suffix: '!', nested: { k: 'v' } },
    workflow: { id: 'wf', instanceId: 'run' },
    variables: { workflow: { id: 'w1', definition: { document: { name: 'doc' } }, input: { big: true } }, context: { x: [1] }, task: { name: 't', 'a-b': 2 }, item: { name: 'it' }, index: 3 },
    functions: { token: '$SECRETS.t + $CONST.suffix', double: '. * 2', n: '.name' },
  };
  const secrets = { t: 'tok', u: 'user', p: 'pw' };
  const expressions = [
    '${ "Bearer " + $SECRETS.t }',
    '${ $SECRETS.t + .name }',
    'Basic ${ "\\($SECRETS.u):\\($SECRETS.p)" | @base64 }',
    '${ $SECRETS.t + $CONST.suffix + $CONST.nested.k }',
    '${ $SECRETS.t + $WORKFLOW.id }',
    '${ $SECRETS.t + $workflow.id + $workflow.definition.document.name }',
    '${ $SECRETS.t + ($context.x | tostring) + $task."a-b" + ($index | tostring) + $item.name }',
    '${ fn:token }',
    '${ $SECRETS.t + (.a | fn:double | tostring) }',
    '${ $SECRETS.t + fn:n }',
    '${ {k: $SECRETS.t, a} }',
    '${ [.list[] | .n] + [$SECRETS.t] }',
    '${ if $SECRETS.t | test("t") then .name else "no" end }',
    '${ $SECRETS.t as $x | .b.c[1] }',
    '${ reduce .list[] as $i (""; . + ($i.n | tostring)) + $SECRETS.t }',
    '${ $SECRETS.t | length }',
    '${ $workflow.missing.deeper + $SECRETS.t }',
    '${ $SECRETS.t + (keys | join(",")) }',
    '$SECRETS.t + ."a-b"',
    '${ $workflow.definition.document.name.x + $SECRETS.t }',
    '${ $context.x.y + $SECRETS.t }',
    '${ $SECRETS.t[(.list | length):] }',
    '${ {(.name): $SECRETS.t, b: $SECRETS.u} }',
    '${ $SECRETS.t as $s | {$s, n: .a} }',
    '${ [$SECRETS.t, .a] | join("-") }',
  ];
  for (const e of expressions) {
    const min = secretContextOf([e], data, scope);
    const run = (d: Json, s: ExprScope) => {
      try {
        return { value: evaluateWithSecretsSync(e, d, s, secrets) };
      } catch (err) {
        return { error: (err as Error).message };
      }
    };
    assert.deepEqual(run(min?.data ?? null, (min?.scope ?? {}) as ExprScope), run(data, scope), e);
  }
});

test('an evaluation hands jq only the paths its expression reads of each variable', async () => {
  const { evaluateExpression, evaluateTemplate, withJqEngine } = await import('../../src/expr');
  const { runJqCli } = await import('../../src/expr/engine');
  const inputs: string[] = [];
  const recording = (program: string, input: string) => (inputs.push(input), runJqCli(program, input));
  const items = Array.from({ length: 10_000 }, (_, i) => ({ id: i, name: `item-${i}` }));
  const scope: ExprScope = { variables: { workflow: { id: 'w', input: { mode: 'fast', items } }, index: 3 } };
  const cases: [string, Json, (size: number) => boolean][] = [
    ['${ $workflow.input.mode == "fast" }', true, (n) => n < 200],
    ['${ $workflow.input.mode + "-" + ($index | tostring) }', 'fast-3', (n) => n < 200],
    ['${ $workflow.input.items | length }', 10_000, (n) => n > 100_000], // read whole below the path
    ['${ $workflow | .input.mode }', 'fast', (n) => n > 100_000], // the whole variable
  ];
  withJqEngine(recording, () => {
    for (const [e, want, size] of cases) {
      inputs.length = 0;
      assert.deepEqual(evaluateExpression(e, { data: 1 }, scope), want, e);
      assert.equal(inputs.length, 1, `${e}: one jq run`);
      assert.ok(size(inputs[0].length), `${e}: jq's input was ${inputs[0].length} characters`);
    }
    // One jq run for several expressions: a variable is cut to what all of them read.
    inputs.length = 0;
    assert.deepEqual(evaluateTemplate({ a: '${ $workflow.input.mode == "fast" }', b: '${ $workflow.id + "!" }' }, null, scope), { a: true, b: 'w!' });
    assert.ok(inputs.length === 1 && inputs[0].length < 200, `template: ${inputs.map((i) => i.length)}`);
    inputs.length = 0;
    assert.deepEqual(evaluateTemplate({ a: '${ $workflow.input.mode == "fast" }', b: '${ $workflow | .id }' }, null, scope), { a: true, b: 'w' });
    assert.ok(inputs.length === 1 && inputs[0].length > 100_000, 'one reading it whole: whole');
  });
  console.log(`a $workflow with a 10,000-item input: jq gets ${'<'} 200 characters for $workflow.input.mode, the whole input for $workflow.input.items and $workflow | ...`);
});
