/**
 * jq's own test suites (vendor/jq/tests/*.test, the files `make check` runs through
 * `jq --run-tests`) run through swflow's jq engine (src/expr/engine.ts: `runJq`, the same
 * compile-once path workflow expressions take), with the rules of jq's harness (src/jq_test.c):
 *
 * - a test is a program line, an input line, then the expected outputs up to a blank or
 *   comment line; outputs are compared with jq's own equality (`==`, i.e. jv_equal), each
 *   expected value must survive a dump and re-parse, and one output more than expected fails;
 *   outputs before a runtime error count, the error itself does not;
 * - `%%FAIL` tests must not compile, and the last "jq: error" message must read as the lines
 *   that follow; `%%FAIL IGNORE MSG` only checks that compiling fails.
 *
 * Skipped, each with its reason (and counted): tests that need jq modules from a filesystem
 * (`-L tests/modules` in jq's harness) or `$PAGER`: the engine has neither, on purpose.
 *
 * Native stack: wasm code runs on V8's own stack, which is ~1 MB on Node's main thread (4 MB
 * in Temporal's workflow threads), while jq's limits (10,000 levels of nesting) assume a
 * native 8 MB one. The few tests that nest that deep stop with a stack-overflow JqEngineError
 * here; they are run again in a worker thread with a 16 MB stack, where they must pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { checkJqTest, parseJqTests, skipReason, type JqTest } from './jq-suite';

const DIR = join(__dirname, '..', '..', 'vendor', 'jq', 'tests');
const FILES = ['jq.test', 'man.test', 'manonig.test', 'onig.test', 'base64.test', 'uri.test', 'optional.test'];
const BIG_STACK_MB = 16;

const totals = { tests: 0, passed: 0, bigStack: 0, skipped: new Map<string, number>() };

/** Runs tests in a worker thread with a `stackMb` native stack; the failure of each, or null. */
async function checkWithStack(tests: JqTest[], stackMb: number): Promise<(string | null)[]> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     require(workerData.tsx).register();
     const { checkJqTest } = require(workerData.helper);
     parentPort.postMessage(workerData.tests.map((t) => {
       try { return checkJqTest(t) ?? null; } catch (e) { return 'engine failed: ' + String(e); }
     }));`,
    {
      eval: true,
      resourceLimits: { stackSizeMb: stackMb },
      workerData: { tests, tsx: require.resolve('tsx/cjs/api'), helper: require.resolve('./jq-suite') },
    },
  );
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

for (const file of FILES) {
  test(`jq's ${file} through the engine`, async (t) => {
    const failures: string[] = [];
    const deep: JqTest[] = [];
    let passed = 0;
    let skipped = 0;
    const tests = parseJqTests(readFileSync(join(DIR, file), 'utf8'));
    for (const jqTest of tests) {
      const reason = skipReason(jqTest);
      if (reason) {
        skipped++;
        totals.skipped.set(reason, (totals.skipped.get(reason) ?? 0) + 1);
        continue;
      }
      let why: string | undefined;
      try {
        why = checkJqTest(jqTest);
      } catch (err) {
        if (/ran out of stack/.test(String(err))) {
          deep.push(jqTest);
          continue;
        }
        why = `engine failed: ${String(err)}`;
      }
      if (why) failures.push(`${file}:${jqTest.line}: ${jqTest.program}\n    ${why}`);
      else passed++;
    }
    if (deep.length) {
      const results = await checkWithStack(deep, BIG_STACK_MB);
      results.forEach((why, i) => {
        if (why) failures.push(`${file}:${deep[i].line} (${BIG_STACK_MB} MB stack): ${deep[i].program}\n    ${why}`);
        else passed++;
      });
    }
    totals.tests += tests.length;
    totals.passed += passed;
    totals.bigStack += deep.length;
    t.diagnostic(`${passed} of ${tests.length} passed (${deep.length} of them with a ${BIG_STACK_MB} MB stack), ${skipped} skipped, ${failures.length} failed`);
    assert.deepEqual(failures, [], `${failures.length} failing tests:\n${failures.join('\n')}`);
  });
}

test('jq suites: totals', (t) => {
  const skipped = [...totals.skipped.values()].reduce((a, b) => a + b, 0);
  t.diagnostic(
    `${totals.passed} of ${totals.tests} passed (${totals.bigStack} with a ${BIG_STACK_MB} MB stack); ` +
      `skipped ${skipped}: ${[...totals.skipped].map(([r, n]) => `${n} ${r}`).join('; ')}`,
  );
  // The suites are real: a broken engine or parser cannot pass by running nothing.
  assert.ok(totals.tests > 800, `only ${totals.tests} tests found`);
  assert.equal(totals.passed + skipped, totals.tests);
});
