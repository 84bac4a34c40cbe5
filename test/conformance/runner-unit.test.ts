/** Pure tests of the test runner's parts: case loading, mock rules, expectations, diffs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaseError, loadCaseFile, parseCase } from '../../src/testing/case';
import { jsonDiff, jsonEqual, subsetMismatch } from '../../src/testing/compare';
import { checkOutcome, type RunOutcome } from '../../src/testing/expect';
import { MockService, functionTaskQueues, mockProblems } from '../../src/testing/mocks';
import type { FunctionCall } from '../../src/common/contracts';
import type { WorkflowDef } from '../../src/common/model';

const SHARED_CASES = join(__dirname, '..', '..', '..', 'shared', 'conformance', 'cases');

function parse(doc: unknown) {
  return parseCase(doc, '/tmp/x/my.case.yaml');
}

function call(name: string, args: unknown, extra: Partial<FunctionCall> = {}): FunctionCall {
  return {
    function: { name, type: 'rest', operation: 'x', metadata: {} },
    arguments: args as never,
    workflow: { id: 'w', instanceId: 'r', definitionId: 'd' },
    state: 'S',
    ...extra,
  };
}

test('every shared conformance case loads', () => {
  const files = readdirSync(SHARED_CASES).filter((f) => f.endsWith('.case.yaml'));
  assert.ok(files.length >= 13);
  for (const f of files) {
    const c = loadCaseFile(join(SHARED_CASES, f));
    assert.equal(c.name, f.replace('.case.yaml', ''));
  }
});

test('defaults: input {}, status completed, at waiting', () => {
  const c = parse({ definition: { id: 'a' }, events: [{ event: { type: 't', source: 's' } }] });
  assert.deepEqual(c.input, {});
  assert.equal(c.expect.status, 'completed');
  assert.deepEqual(c.events[0].at, { kind: 'waiting' });
  assert.equal(c.name, 'my');
});

test('workflow paths resolve relative to the case file', () => {
  const c = parse({ workflow: './wf/a.sw.json', subflows: ['../b.sw.yaml', { id: 'inline' }] });
  assert.deepEqual(c.workflow, { kind: 'file', path: '/tmp/x/wf/a.sw.json', label: './wf/a.sw.json' });
  assert.equal(c.subflows[0].kind === 'file' && c.subflows[0].path, '/tmp/b.sw.yaml');
  assert.equal(c.subflows[1].kind, 'inline');
});

test('malformed cases name the file and the field', () => {
  const bad: [unknown, RegExp][] = [
    [{}, /workflow\/definition: give exactly one/],
    [{ workflow: 'a', definition: {} }, /exactly one/],
    [{ definition: {}, expect: { status: 'done' } }, /expect\.status: must be one of/],
    [{ definition: {}, functions: { f: [{ when: '.a' }] } }, /functions\.f\[0\]: a rule needs/],
    [{ definition: {}, functions: { f: [{ result: 1, error: { code: 1 } }] } }, /functions\.f\[0\]: give either/],
    [{ definition: {}, functions: { f: [{ times: 0, result: 1 }] } }, /functions\.f\[0\]\.times/],
    [{ definition: {}, events: [{ at: 'later', event: { type: 't' } }] }, /events\[0\]\.at/],
    [{ definition: {}, events: [{ at: 'waiting', event: { source: 's' } }] }, /events\[0\]\.event\.type/],
    [{ definition: {}, expect: { status: 'invalid' } }, /expect\.error\.messageContains/],
    [{ definition: {}, expect: { calls: [{ fn: 'x' }] } }, /expect\.calls\[0\]/],
    [{ definition: {}, bogus: 1 }, /bogus: unknown field/],
    [{ definition: {}, input: [1] }, /input: must be a JSON object/],
  ];
  for (const [doc, re] of bad) {
    assert.throws(
      () => parse(doc),
      (err: unknown) => err instanceof CaseError && err.message.startsWith('/tmp/x/my.case.yaml: ') && re.test(err.message),
      `${JSON.stringify(doc)} should fail with ${re}`,
    );
  }
});

test('a case file that is not YAML fails with the file name', () => {
  const dir = mkdtempSync(join(tmpdir(), 'swcase-'));
  const f = join(dir, 'bad.case.yaml');
  writeFileSync(f, 'a: [unclosed');
  assert.throws(() => loadCaseFile(f), new RegExp(`${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not valid YAML`));
});

test('event timing: start, durations', () => {
  const c = parse({
    definition: {},
    events: [
      { at: 'start', event: { type: 'a' } },
      { at: 'PT5M', event: { type: 'b' } },
    ],
  });
  assert.deepEqual(c.events[0].at, { kind: 'start' });
  assert.deepEqual(c.events[1].at, { kind: 'after', iso: 'PT5M', ms: 300_000 });
  assert.throws(() => parse({ definition: {}, events: [{ at: 'PT1M', event: { type: 'b' } }, { at: 'start', event: { type: 'a' } }] }), /events\[1\]\.at/);
});

test('jsonEqual and subsetMismatch', () => {
  assert.ok(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: 2 }));
  assert.ok(!jsonEqual([1, 2], [2, 1]));
  assert.ok(!jsonEqual(1, '1'));
  assert.equal(subsetMismatch({ a: { b: 1 } }, { a: { b: 1, c: 2 }, d: 3 }), undefined);
  assert.equal(subsetMismatch({ a: { b: 2 } }, { a: { b: 1 } }), '$.a.b');
  assert.equal(subsetMismatch({ a: [1] }, { a: [1, 2] }), '$.a');
  assert.equal(subsetMismatch({ x: 1 }, null), '$');
});

test('jsonDiff shows expected and actual lines', () => {
  const d = jsonDiff({ a: 1, b: 2 }, { a: 1, b: 3 });
  assert.match(d, /^- {3}"b": 2$/m);
  assert.match(d, /^\+ {3}"b": 3$/m);
  assert.match(d, /^ {4}"a": 1,$/m);
});

function outcome(o: Partial<RunOutcome>): RunOutcome {
  return { status: 'completed', calls: [], producedEvents: [], statesEntered: [], ...o };
}

test('checkOutcome: status, output, outputContains, error', () => {
  const c = parse({ definition: {}, expect: { output: { a: 1 } } });
  assert.deepEqual(checkOutcome(c.expect, outcome({ output: { a: 1 } })), []);
  const p = checkOutcome(c.expect, outcome({ output: { a: 2 } }));
  assert.equal(p.length, 1);
  assert.match(p[0], /output differs[\s\S]*- {3}"a": 1[\s\S]*\+ {3}"a": 2/);
  const f = checkOutcome(c.expect, outcome({ status: 'failed', errorMessage: 'boom' }));
  assert.deepEqual(f, ['expected status completed, got failed (error: boom)']);

  const e = parse({ definition: {}, expect: { status: 'failed', error: { messageContains: 'boom' } } });
  assert.deepEqual(checkOutcome(e.expect, outcome({ status: 'failed', errorMessage: 'a boom b' })), []);
  assert.match(checkOutcome(e.expect, outcome({ status: 'failed', errorMessage: 'other' }))[0], /does not contain "boom"/);

  const s = parse({ definition: {}, expect: { outputContains: { m: [1, 2] } } });
  assert.deepEqual(checkOutcome(s.expect, outcome({ output: { m: [1, 2], z: 1 } })), []);
  assert.match(checkOutcome(s.expect, outcome({ output: { m: [1] } }))[0], /first difference at \$\.m/);
});

test('checkOutcome: calls, produced events, states, history', () => {
  const c = parse({
    definition: {},
    expect: {
      calls: [{ function: 'f', arguments: { x: 1 } }, { function: 'g' }],
      producedEvents: [{ type: 'done', data: { ok: true } }],
      states: ['A', 'B'],
      historyExcludes: ['s3cret'],
    },
  });
  const good = outcome({
    calls: [
      { function: 'f', arguments: { x: 1 } },
      { function: 'g', arguments: { anything: true } },
    ],
    producedEvents: [{ type: 'done', data: { ok: true } }],
    statesEntered: ['A', 'B'],
    historyText: '{"events":[]}',
  });
  assert.deepEqual(checkOutcome(c.expect, good), []);
  const bad = checkOutcome(
    c.expect,
    outcome({
      calls: [{ function: 'f', arguments: { x: 2 } }],
      producedEvents: [{ type: 'done', data: { ok: false } }],
      statesEntered: ['A'],
      historyText: '{"payload":"the s3cret value"}',
    }),
  );
  assert.equal(bad.length, 6, bad.join('\n'));
  assert.match(bad[0], /call #1 to f: arguments differ/);
  assert.match(bad[1], /expected call #2 to g was not made/);
  assert.match(bad[2], /calls made \(1\): f; expected \(2\): f, g/);
  assert.match(bad[3], /produced event #1 \(done\): data differs/);
  assert.match(bad[4], /states entered differ/);
  assert.match(bad[5], /history contains "s3cret"/);
  const none = parse({ definition: {}, expect: { calls: [] } });
  assert.match(checkOutcome(none.expect, outcome({ calls: [{ function: 'f', arguments: null }] }))[0], /unexpected call #1: f\(null\)/);
});

const evalSimple = (expr: string, data: unknown) => {
  // tiny stand-in for jq: '${ .k == "v" }'
  const m = /^\$\{\s*\.(\w+)\s*==\s*"([^"]*)"\s*\}$/.exec(expr.trim());
  if (!m) throw new Error(`unsupported expression ${expr}`);
  return (data as Record<string, unknown>)[m[1]] === m[2];
};

test('mock rules: when, times, error, fall-through, recording', async () => {
  const c = parse({
    definition: {},
    functions: {
      f: [
        { when: '${ .name == "a" }', result: 'A' },
        { times: 2, error: { code: '503', message: 'Service Unavailable' } },
        { result: { ok: 1 } },
      ],
      g: [{ when: '${ .name == "x" }', result: null }],
      h: [{ result: null }],
    },
  });
  const m = new MockService(c.functions, { evaluate: evalSimple });
  assert.equal(await m.handle(call('f', { name: 'a' })), 'A');
  for (let i = 0; i < 2; i++) {
    await assert.rejects(m.handle(call('f', { name: 'b' })), (err: any) => {
      assert.equal(err.type, '503');
      assert.equal(err.message, 'Service Unavailable');
      assert.equal(err.nonRetryable, false);
      assert.deepEqual(err.details, [{ code: '503', message: 'Service Unavailable' }]);
      return true;
    });
  }
  assert.deepEqual(await m.handle(call('f', { name: 'b' })), { ok: 1 });
  assert.equal(await m.handle(call('h', {})), null);
  assert.deepEqual(m.problems, []);
  await assert.rejects(m.handle(call('g', { name: 'y' })), (err: any) => err.nonRetryable === true && /no rule of functions\.g/.test(err.message));
  await assert.rejects(m.handle(call('zzz', {})), /has no mock/);
  assert.equal(m.problems.length, 2);
  assert.deepEqual(
    m.calls.map((x) => [x.function, x.rule]),
    [
      ['f', 0],
      ['f', 1],
      ['f', 1],
      ['f', 2],
      ['h', 0],
      ['g', undefined],
      ['zzz', undefined],
    ],
  );
});

test('mock delay uses the given sleep; secret arguments are resolved', async () => {
  const slept: number[] = [];
  const c = parse({ definition: {}, functions: { f: [{ delay: 'PT30S', result: 1 }] } });
  const m = new MockService(c.functions, {
    evaluate: evalSimple,
    sleep: async (ms) => {
      slept.push(ms);
    },
    resolveSecretArguments: async (args, s) => ({ ...(args as object), ...Object.fromEntries(Object.keys(s).map((k) => [k.slice(1), `resolved-${k}`])) }),
  });
  assert.equal(await m.handle(call('f', { a: 1 }, { secretArguments: { '/token': '$SECRETS.T' } })), 1);
  assert.deepEqual(slept, [30_000]);
  assert.deepEqual(m.calls[0].arguments, { a: 1, token: 'resolved-/token' });
});

test('functionTaskQueues and mockProblems', () => {
  const def = {
    functions: [
      { name: 'a', type: 'rest', operation: 'x', metadata: {} },
      { name: 'b', type: 'custom', operation: 'y', metadata: { worker: 'w1' } },
      { name: 'c', type: 'expression', operation: '.x', metadata: {} },
    ],
  } as unknown as WorkflowDef;
  assert.deepEqual(functionTaskQueues([def]).sort(), ['swflow-adapters', 'w1']);
  const p = mockProblems({ a: [], c: [], nope: [] }, [def]);
  assert.equal(p.length, 2);
  assert.match(p[0], /functions\.c: expression functions/);
  assert.match(p[1], /functions\.nope: no function named "nope"/);
});
