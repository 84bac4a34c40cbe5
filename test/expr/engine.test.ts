/**
 * The jq engine itself (src/expr/engine.ts, wasm/jq): the shipped binary, compile-once
 * caching and its bound, the deterministic host, isolation between runs, and recovery from
 * a trap. (The sandbox side is in sandbox.test.ts, jq's semantics in jq-suite.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { jqEngineStats, MAX_STEP_BUDGET, PROGRAM_CACHE_SIZE, runJq, runJqCli, setProgramCacheSize, type JqResult } from '../../src/expr/engine';
import * as expr from '../../src/expr';

const ROOT = join(__dirname, '..', '..');

function outputs(r: JqResult): unknown[] {
  assert.ok(r.kind === 'ok', JSON.stringify(r));
  return JSON.parse(r.outputs) as unknown[];
}

test('src/expr/jq-binary.ts carries exactly wasm/jq/jq.wasm', () => {
  const wasm = readFileSync(join(ROOT, 'wasm', 'jq', 'jq.wasm'));
  const js = readFileSync(join(ROOT, 'src', 'expr', 'jq-binary.ts'), 'utf8');
  const embedded = Buffer.from(/JQ_WASM_BASE64: string =\s*'([A-Za-z0-9+/=]+)'/.exec(js)![1], 'base64');
  assert.ok(embedded.equals(wasm), 'rebuild with wasm/jq/build.sh');
  assert.ok(js.includes(createHash('sha256').update(wasm).digest('hex')));
});

test('a program is compiled once, then only run', () => {
  const program = '[.items[] | select(.n > 1) | .n * 10]';
  const before = jqEngineStats().cachedPrograms;
  for (let i = 0; i < 50; i++) assert.deepEqual(outputs(runJq(program, JSON.stringify({ items: [{ n: i }, { n: 2 }] }))), [[...(i > 1 ? [i * 10] : []), 20]]);
  assert.equal(jqEngineStats().cachedPrograms, before + 1);
});

test('the program cache is bounded and frees what it evicts', () => {
  // Programs using many builtins hold ~100 kB of bytecode each: fill a small cache with them,
  // then compile four times as many: memory stays where it was only if evictions are freed.
  const heavy = (i: number) => `[., ${i}] | tojson | gsub("a"; "b") | [splits(",")] | map(ascii_downcase | ltrimstr("x")) | walk(.) | [paths] | length`;
  setProgramCacheSize(50);
  try {
    for (let i = 0; i < 50; i++) assert.deepEqual(outputs(runJq(heavy(i), '0')), [2]);
    const full = jqEngineStats();
    assert.equal(full.cachedPrograms, 50);
    for (let i = 50; i < 250; i++) runJq(heavy(i), '0');
    const after = jqEngineStats();
    assert.equal(after.cachedPrograms, 50);
    assert.equal(after.instances, full.instances);
    assert.ok(after.memoryBytes <= full.memoryBytes + 4 * 1024 * 1024, `memory grew from ${full.memoryBytes} to ${after.memoryBytes}`);
    // An evicted program still runs: it is compiled again.
    assert.deepEqual(outputs(runJq(heavy(0), '7')), [2]);
  } finally {
    setProgramCacheSize(PROGRAM_CACHE_SIZE);
  }
});

test('the host is deterministic: clock from Date.now, empty environment, UTC, no filesystem', () => {
  const realNow = Date.now;
  Date.now = () => 1_425_599_507_250; // what the workflow sandbox's Date gives: workflow time
  try {
    assert.deepEqual(outputs(runJq('now', 'null')), [1425599507.25]);
    assert.deepEqual(outputs(runJq('now | todate', 'null')), ['2015-03-05T23:51:47Z']);
  } finally {
    Date.now = realNow;
  }
  assert.deepEqual(outputs(runJq('[$ENV, env]', 'null')), [[{}, {}]]);
  assert.deepEqual(outputs(runJq('1425599507 | [localtime == gmtime, strflocaltime("%H:%M %Z"), (gmtime | mktime)]', 'null')), [[true, '23:51 UTC', 1425599507]]);
  assert.deepEqual(outputs(runJq('"2015-03-05T23:51:47+0100" | strptime("%Y-%m-%dT%H:%M:%S%z") | mktime', 'null')), [1425599507]);
  const mod = runJq('import "a" as a; a::x', 'null');
  assert.equal(mod.kind, 'compile-error');
  assert.match(mod.kind === 'compile-error' ? mod.message : '', /module not found: a/);
});

test('runs are independent: errors, halt and output limits leave nothing behind', () => {
  const err = runJq('1, error({a: 1})', 'null');
  assert.deepEqual(err.kind === 'error' && [err.outputs, err.message, err.notAString], ['[1]', '{"a":1}', true]);
  const halt = runJq('"bye" | debug | halt_error(3)', 'null');
  assert.deepEqual(halt.kind === 'halt' && [halt.exitCode, halt.message, halt.stderr], [3, 'bye', '["DEBUG:","bye"]\n']);
  assert.deepEqual(outputs(runJq('range(10)', 'null', 3)), [0, 1, 2]);
  assert.deepEqual(outputs(runJq('range(10)', 'null')), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const fine = runJq('.', '{"big": 100000000000000000000000001, "s": "é\\u0000😀"}');
  assert.deepEqual(fine, { kind: 'ok', outputs: '[{"big":100000000000000000000000001,"s":"é\\u0000😀"}]', stderr: '', steps: fine.steps });
  assert.equal(runJq('.', '{"a": ').kind, 'bad-input');
  // The parsed input is kept for the next run on the same text: a run that "changes" it
  // (jq values are immutable) leaves the next one the original.
  const doc = '{"a": 1, "b": [1, 2]}';
  assert.deepEqual(outputs(runJq('.a = 2 | .b += [3]', doc)), [{ a: 2, b: [1, 2, 3] }]);
  assert.deepEqual(outputs(runJq('[.a, .b]', doc)), [[1, [1, 2]]]);
  assert.deepEqual(outputs(runJq('[.a, .b]', '{"a": 5}')), [[5, null]]);
  assert.equal(runJq('.a', '[').kind, 'bad-input');
  assert.deepEqual(outputs(runJq('.a', doc)), [1]);
});

test('synchronous names of the evaluation API', () => {
  assert.equal(expr.evaluateExpressionSync, expr.evaluateExpression);
  assert.equal(expr.evaluateConditionSync, expr.evaluateCondition);
  assert.equal(expr.evaluateTemplateSync, expr.evaluateTemplate);
  assert.equal(expr.evaluateExpressionSync('${ .a + 1 }', { a: 1 }), 2);
});

/**
 * A stack overflow traps the instance: it is replaced, the call fails cleanly, later calls
 * work. Run in a worker with a 1 MB stack so that 9,999 levels of nesting overflow it for sure.
 */
test('a trap (stack overflow) replaces the instance; the failing call reports it, the next one works', async () => {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     require(workerData.tsx).register();
     const engine = require(workerData.engine);
     const expr = require(workerData.expr);
     const deep = 'reduce range(9999) as $_ ([]; [.]) | tojson | fromjson | length';
     const out = { before: engine.jqEngineStats().instances };
     try { engine.runJq(deep, 'null'); } catch (e) { out.trap = e.name + ': ' + e.message; }
     out.after = engine.runJq('.a + 1', '{"a": 1}');
     out.instances = engine.jqEngineStats().instances;
     try { expr.evaluateExpression('\${ ' + deep + ' }', null); } catch (e) { out.exprError = { name: e.name, kind: e.kind, jqMessage: e.jqMessage }; }
     out.finally = expr.evaluateExpression('\${ [.[] * 2] }', [1, 2]);
     parentPort.postMessage(out);`,
    {
      eval: true,
      resourceLimits: { stackSizeMb: 1 },
      workerData: { tsx: require.resolve('tsx/cjs/api'), engine: require.resolve('../../src/expr/engine'), expr: require.resolve('../../src/expr') },
    },
  );
  const out = await new Promise<Record<string, unknown>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.equal(out.before, 0); // in Node the instance is made at first use, not at import
  assert.match(String(out.trap), /^JqEngineError: jq ran out of stack/);
  assert.deepEqual(out.after, { kind: 'ok', outputs: '[2]', stderr: '', steps: (out.after as { steps: number }).steps });
  assert.equal(out.instances, 2);
  assert.deepEqual(out.exprError, { name: 'ExpressionError', kind: 'runtime', jqMessage: (out.exprError as { jqMessage: string }).jqMessage });
  assert.match((out.exprError as { jqMessage: string }).jqMessage, /^jq ran out of stack/);
  assert.deepEqual(out.finally, [2, 4]);
});

/**
 * The step budget (fuel): jq counts its interpreter steps and a run given a budget stops when
 * it needs more, in a way nothing in the program can catch. Workflow code is replayed, so a
 * runaway expression cannot be stopped by the clock; the count is the same on every replay.
 */
const BUDGET = 200_000;
const runaways = [
  '[range(1e9)] | length',
  'last(range(1e10))',
  'def f: f; f',
  '[limit(1e9; repeat(1))] | length',
  'def f: [f]; f',
  'until(false; .)',
  'reduce range(1e9) as $i (0; . + $i)',
  // What a program does to catch or cut short an error, or to stop early, does not stop the budget.
  'try ([range(1e9)] | length) catch "caught"',
  '([range(1e9)] | length)?',
  '([range(1e9)] | length) // "alternative"',
  'label $out | ([range(1e9)] | length), break $out',
  'label $out | foreach range(1e9) as $i (0; . + 1; if . > 1e8 then ., break $out else empty end)',
  'first([range(1e9)] | length)',
  '[limit(1; [range(1e9)] | length)]',
  'try (try ([range(1e9)] | length) catch error("again")) catch "caught twice"',
  '[.[] | try ([range(1e9)] | length) catch "caught"]',
  '(([range(1e9)] | length) | error)? // "x"',
];

test('a step budget stops runaway expressions, and nothing in the program can catch it', () => {
  for (const program of runaways) {
    const r = runJq(program, '[1, 2]', 0, BUDGET);
    assert.deepEqual(r, { kind: 'budget', outputs: '[]', budget: BUDGET, stderr: '', steps: BUDGET + 1 }, program);
  }
  // Outputs before the stop are kept (as for errors); debug output too.
  const partial = runJq('1, ("x" | debug), ([range(1e9)] | length), 4', 'null', 0, BUDGET);
  assert.deepEqual(partial, { kind: 'budget', outputs: '[1,"x"]', budget: BUDGET, stderr: '["DEBUG:","x"]\n', steps: BUDGET + 1 });
  // An output limit reached first ends the run normally.
  assert.deepEqual(outputs(runJq('range(1e9)', 'null', 3, BUDGET)), [0, 1, 2]);
  // halt, halt_error and errors within the budget are what they were.
  assert.equal(runJq('[range(10)] | halt', 'null', 0, BUDGET).kind, 'halt');
  // (Under a budget a run's steps include what its allocations cost: 4 interpreter steps here.)
  const halted = runJq('"bye\\n" | halt_error(5)', 'null', 0, BUDGET);
  assert.deepEqual(halted, { kind: 'halt', outputs: '[]', exitCode: 5, message: 'bye\n', stderr: '', steps: halted.steps });
  assert.ok(halted.steps > 4);
  assert.equal(runJq('"bye\\n" | halt_error(5)', 'null').steps, 4);
  assert.equal(runJq('error("e")', 'null', 0, BUDGET).kind, 'error');
  // The engine is fine afterwards, the next run has its own budget.
  assert.deepEqual(outputs(runJq('[range(10)] | add', 'null', 0, BUDGET)), [45]);
});

test('the budget is exact: a run may use all of it, one step less stops it', () => {
  const programs = ['[range(1000)] | add', '[paths]', 'to_entries | map(.value * 2) | add', 'try error("x") catch ., 1'];
  // Runs whose last charge may be an allocation (a string built in one builtin, a text printed).
  programs.push('"x" * 100000 | length', '[range(300) | tostring] | join(",")', 'tojson * 1000 | length', '[range(5000)] | tojson');
  for (const program of programs) {
    const input = '{"a": 1, "b": 2, "c": 3}';
    // A budgeted run's count includes its allocations (the same whatever the budget): take it under the largest.
    const free = runJq(program, input, 0, MAX_STEP_BUDGET);
    assert.ok(free.kind === 'ok' && free.steps > 0, program);
    assert.ok(runJq(program, input).steps < free.steps, program);
    assert.deepEqual(runJq(program, input, 0, free.steps), free, program);
    const short = runJq(program, input, 0, free.steps - 1);
    assert.equal(short.kind, 'budget', program);
    assert.equal(short.steps, free.steps);
  }
});

test('under a generous budget a program gives exactly what it gives without one; budget 0 is no budget', () => {
  const doc = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['a', 'b'].slice(i % 3) })) });
  const programs = [
    '.items | map(select(.id % 7 == 0) | {id, n: .name}) | length',
    '[.items[] | .tags[]] | group_by(.) | map({(.[0]): length}) | add',
    '.items | sort_by(-.id) | .[0:3] | map(.name) | join(",")',
    '[paths(type == "number")] | length',
    '.items[0] | tojson | fromjson | @base64 | @base64d',
    '[.items[].name | test("n1")] | map(select(.)) | length',
    'reduce .items[] as $i ({}; .[$i.name] = $i.id) | keys | length',
    '[limit(5; .items[] | .id)], first(.items[] | select(.id > 150)).name',
    '.items[] | select(.id == 3) | error',
    'def f(n): if n == 0 then 0 else 1 + f(n - 1) end; f(500)',
  ];
  for (const program of programs) {
    const free = runJq(program, doc);
    assert.notEqual(free.kind, 'budget');
    assert.ok(free.steps > 0 && free.steps < 1e6, `${program}: ${free.steps}`);
    assert.deepEqual(runJq(program, doc, 0, 0), free, program);
    // Under a budget the same result; the steps also count allocations, the same under any budget that suffices.
    const budgeted = runJq(program, doc, 0, 1e7);
    assert.deepEqual({ ...budgeted, steps: free.steps }, free, program);
    assert.ok(budgeted.steps > free.steps && budgeted.steps < 2e6, `${program}: ${budgeted.steps}`);
    assert.equal(runJq(program, doc, 0, MAX_STEP_BUDGET).steps, budgeted.steps, program);
  }
  // Without a budget a long run completes (and counts).
  const long = runJq('[range(3e6)] | length', 'null');
  assert.deepEqual(long.kind === 'ok' && JSON.parse(long.outputs), [3e6]);
  assert.ok(long.steps > 3e6);
  // Not a budget: negative, fractional, above int32.
  for (const bad of [-1, 1.5, MAX_STEP_BUDGET + 1, Number.NaN]) assert.throws(() => runJq('.', 'null', 0, bad), /invalid jq step budget/);
});

test('runJqCli: a run the budget stopped fails with its own message; without one it is as before', () => {
  const stopped = runJqCli('1, ([range(1e9)] | length)', 'null', 1000);
  assert.deepEqual(stopped, {
    exitCode: 5,
    outputs: '[1]',
    stderr: 'jq: error: the expression used more than 1000 steps\n',
    steps: 1001,
    budgetExceeded: true,
  });
  const caught = runJqCli('try ([range(1e9)] | length) catch "caught"', 'null', 1000);
  assert.equal(caught.budgetExceeded, true);
  const fine = runJqCli('[.[] * 2]', '[1, 2]');
  assert.deepEqual(fine, { exitCode: 0, outputs: '[[2,4]]', stderr: '', steps: fine.steps });
  const budgeted = runJqCli('[.[] * 2]', '[1, 2]', 1000);
  assert.deepEqual({ ...budgeted, steps: fine.steps }, fine);
  const err = runJqCli('.a', '[1]', 1000);
  assert.deepEqual(err, { exitCode: 5, outputs: '[]', stderr: 'jq: error (at <stdin>:0): Cannot index array with string ("a")\n', steps: err.steps });
  assert.equal(runJqCli('.a', '[', 1000).steps, 0); // bad input: no run
  assert.equal(runJqCli('.a |', 'null', 1000).steps, 0); // compile error: no run
  // Stopped at an allocation: the same failure.
  assert.deepEqual(runJqCli('1, ("x" * 1e9 | length)', 'null', 1000), stopped);
});

/**
 * Under a budget, allocations are charged too (wasm/jq/README.md, "A step budget"): memory
 * blown up inside C builtins, each one step for the interpreter, stops as a budget stop,
 * before the memory is taken. The default budget of workflow evaluations is ~8 million steps.
 */
const DEFAULT_BUDGET = 8_000_000;
const allocationRunaways = [
  '"x" * 1000000000 | length', // one 1 GB string: never allocated
  '[range(1e9)] | length',
  '"x" * 100000000 | . + . | length', // 100 MB, then a 400 MB copy: not made
  '[range(60000) | tostring] | join(",") | length', // 4 million interpreter steps, gigabytes copied
  '[range(200000) | "x\\(.)" * 100] | length', // 120 MB of strings held
  '"x" * 10000000 as $s | [range(100) | $s + "y"] | length',
  '"x" * 20000000 | explode | sort | length', // a 20-million-item array built and sorted in two builtins
  '"x" * 1000000 | [range(1e6) | tojson] | length',
];

test('under a budget, memory blown up inside builtins stops as a budget stop, quickly and without the memory', () => {
  runJq('.', 'null');
  for (const program of allocationRunaways) {
    const rss = process.memoryUsage().rss;
    const started = process.hrtime.bigint();
    const r = runJq(program, 'null', 0, DEFAULT_BUDGET);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const grew = (process.memoryUsage().rss - rss) / 2 ** 20;
    assert.deepEqual(r, { kind: 'budget', outputs: '[]', budget: DEFAULT_BUDGET, stderr: '', steps: DEFAULT_BUDGET + 1 }, program);
    assert.ok(ms < 2000, `${program}: ${ms} ms`);
    // A 100 MB string is within the budget (the second program builds it); the gigabytes asked for after it are not.
    assert.ok(grew < 160, `${program}: the process grew by ${grew} MiB`);
  }
  // Neither the run's own error handling nor stopping early escapes it.
  for (const program of ['try ("x" * 1e9) catch "caught"', '("x" * 1e9)?', '("x" * 1e9) // 1', 'first("x" * 1e9, 1)', 'label $out | ("x" * 1e9 | break $out)', '[limit(1; "x" * 1e9)]']) {
    assert.deepEqual(runJq(program, 'null', 0, 1000), { kind: 'budget', outputs: '[]', budget: 1000, stderr: '', steps: 1001 }, program);
  }
  // jq stops at the allocation (a trap) and the instance is replaced; what the run printed and
  // output before it is kept, the next run works.
  runJq('.', 'null');
  const before = jqEngineStats().instances;
  const partial = runJq('1, ("x" | debug), ("x" * 1e9 | length), 4', 'null', 0, DEFAULT_BUDGET);
  assert.deepEqual(partial, { kind: 'budget', outputs: '[1,"x"]', budget: DEFAULT_BUDGET, stderr: '["DEBUG:","x"]\n', steps: DEFAULT_BUDGET + 1 });
  assert.deepEqual(outputs(runJq('[range(10)] | add', 'null', 0, DEFAULT_BUDGET)), [45]);
  assert.equal(jqEngineStats().instances, before + 1);
  // Without a budget nothing is charged: the same 100 MB string is made (and the 1 GB one would be).
  assert.deepEqual(outputs(runJq('"x" * 100000000 | length', 'null')), [1e8]);
});

test('under the default budget ordinary work completes, with the result it has without one', () => {
  const uuids = JSON.stringify(Array.from({ length: 10_000 }, (_, i) => `${i.toString(16).padStart(8, '0')}-1234-5678-9abc-def012345678`));
  const doc = JSON.stringify({ items: Array.from({ length: 1200 }, (_, i) => ({ id: i, name: `item ${i}`, note: 'n'.repeat(i % 40), tags: ['a', 'b', 'c'].slice(i % 3), price: i * 1.25 })) });
  assert.ok(doc.length > 90_000 && doc.length < 120_000);
  const work: [string, string][] = [
    ['[range(10000) | {id: ., name: "n\\(.)", ok: (. % 2 == 0)}] | length', 'null'], // a 10,000-item array of small objects
    ['[range(10000) | (. * 7919) % 10007] | sort | .[0:3]', 'null'], // sorting 10,000 numbers
    ['tojson | length', doc], // tojson of a 100 kB document
    ['tojson | fromjson | .items | group_by(.tags | length) | map(length)', doc],
    ['.items | map(select(.id % 3 == 0) | .price) | add', doc],
    ['.items | map({(.name): .id}) | add | keys | length', doc],
    ['join(",") | length', uuids], // joining 10,000 UUIDs (jq copies the text at each item)
    ['[.[] | split("-") | .[0]] | unique | length', uuids],
  ];
  for (const [program, input] of work) {
    const free = runJq(program, input);
    const r = runJq(program, input, 0, DEFAULT_BUDGET);
    assert.equal(r.kind, 'ok', `${program}: ${JSON.stringify(r).slice(0, 200)}`);
    assert.deepEqual({ ...r, steps: free.steps }, free, program);
    assert.ok(r.steps < DEFAULT_BUDGET * 0.75, `${program}: ${r.steps} steps`);
  }
});

test('budget 0 counts as before charging existed: interpreter steps only', () => {
  // Counts of the engine before allocations were charged (the same binary but for the charging).
  const before: [string, number][] = [
    ['[range(1000)] | add', 16043],
    ['[range(10000) | {a: ., b: "x\\(.)"}] | length', 200032],
    ['[range(10000)] | map(-.) | sort | length', 110041],
    ['"ab" * 1000 | length', 5], // a short repetition is still folded when compiling
  ];
  for (const [program, steps] of before) assert.equal(runJq(program, 'null').steps, steps, program);
  // A long one is now made when running (where a budget charges it): two steps more.
  assert.equal(runJq('"ab" * 40000 | length', 'null').steps, 7);
});

/** Programs and inputs whose steps must not depend on anything but themselves. */
const counted: [string, string][] = [
  ['[range(1000)] | add', 'null'],
  ['.items | map(.n * 2) | add', '{"items": [{"n": 1}, {"n": 2}, {"n": 3}]}'],
  ['[paths] | length', '{"a": {"b": [1, 2, {"c": null}]}, "d": "x"}'],
  ['[.[] | tostring | test("1")]', '[1, 12, 3, 41]'],
  ['try error({a: 1}) catch .a, ([range(10)] | sort_by(-.))', 'null'],
  ['[range(1e9)] | length', 'null'],
  ['def f: f; f', '[]'],
  // Allocations charged: strings, objects, copies, printed texts, numbers printed (dtoa keeps
  // blocks for later calls), a number literal's text (made once, then kept in the value).
  ['[range(2000) | tostring] | join(",") | length', 'null'],
  ['[range(3000) | {a: ., b: "x\\(.)", c: [.]}] | tojson | fromjson | length', 'null'],
  ['[.[] | tostring, tojson, . * 1.1]', '[100000000000000000000000001, 1.5, 3, 1e1000]'],
  ['[range(500) | . / 7 | tostring] | add | length', 'null'],
  ['"ab" * 50000 | . + . | length', 'null'],
  ['[range(1000)] | sort_by(-.) | group_by(. % 10) | map(add)', 'null'],
];
// Every run under a budget, so that allocations are charged; the runaways under a small one.
const budgetOf = (program: string) => (program.includes('1e9') || program.includes('f; f') ? 50_000 : DEFAULT_BUDGET);

test('steps are reproducible: twice, after other runs, whatever the cache state', () => {
  const first = counted.map(([p, input]) => runJq(p, input, 0, budgetOf(p)).steps);
  assert.ok(first.every((n) => n > 0));
  assert.deepEqual(counted.map(([p, input]) => runJq(p, input, 0, budgetOf(p)).steps), first);
  // Each run after unrelated runs (the input kept parsed changes, jq's label counter moves on).
  for (let i = 0; i < counted.length; i++) {
    runJq('label $x | 1, break $x', '{"other": true}');
    runJq('[limit(3; repeat(1))]', counted[i][1]);
    assert.equal(runJq(counted[i][0], counted[i][1], 0, budgetOf(counted[i][0])).steps, first[i], counted[i][0]);
  }
  // Programs evicted and compiled again.
  setProgramCacheSize(1);
  try {
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(counted.map(([p, input]) => runJq(p, input, 0, budgetOf(p)).steps), first);
    }
  } finally {
    setProgramCacheSize(PROGRAM_CACHE_SIZE);
  }
});

test('steps are the same in a fresh engine instance (another thread)', async () => {
  const here = counted.map(([p, input]) => runJq(p, input, 0, budgetOf(p)));
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     require(workerData.tsx).register();
     const engine = require(workerData.engine);
     const runs = workerData.counted.map(([p, input], i) => engine.runJq(p, input, 0, workerData.budgets[i]));
     parentPort.postMessage({ runs, instances: engine.jqEngineStats().instances });`,
    {
      eval: true,
      workerData: {
        tsx: require.resolve('tsx/cjs/api'),
        engine: require.resolve('../../src/expr/engine'),
        counted,
        budgets: counted.map(([p]) => budgetOf(p)),
      },
    },
  );
  const out = await new Promise<{ runs: JqResult[]; instances: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.equal(out.instances, 1);
  assert.deepEqual(out.runs, here);
});
