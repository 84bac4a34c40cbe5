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
import { jqEngineStats, PROGRAM_CACHE_SIZE, runJq, setProgramCacheSize, type JqResult } from '../../src/expr/engine';
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
  assert.deepEqual(fine, { kind: 'ok', outputs: '[{"big":100000000000000000000000001,"s":"é\\u0000😀"}]', stderr: '' });
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
  assert.deepEqual(out.after, { kind: 'ok', outputs: '[2]', stderr: '' });
  assert.equal(out.instances, 2);
  assert.deepEqual(out.exprError, { name: 'ExpressionError', kind: 'runtime', jqMessage: (out.exprError as { jqMessage: string }).jqMessage });
  assert.match((out.exprError as { jqMessage: string }).jqMessage, /^jq ran out of stack/);
  assert.deepEqual(out.finally, [2, 4]);
});
