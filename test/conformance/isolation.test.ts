/**
 * `swflow test` runs each case in isolation: what a case leaves going (a mocked call still in
 * its delay when the task's timeout was caught, a child run its parent abandoned) ends with the
 * case (src/testing/isolation.ts), so the cases after it that wait on timers or events are not
 * held up, and a suite's results do not depend on the order of its cases. The cases are in
 * ./isolation (one of them fails by design).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { collectCaseFiles, runCases, type RunCasesOptions, type RunCasesResult } from '../../src/testing/runner';
import { caseNameOf } from '../../src/testing/case';
import { startTestServer } from '../../src/testing/env';
import { shuffled } from '../../src/testing/order';
import { mulberry32 } from '../helpers/prng';

const DIR = join(__dirname, 'isolation');
const file = (name: string) => join(DIR, `${name}.case.yaml`);

let env: TestWorkflowEnvironment;
let shared: RunCasesOptions;

before(async () => {
  const server = await startTestServer((m) => console.error(m));
  env = server.env;
  assert.ok(server.timeSkipping, `these tests need the time-skipping server: ${server.note}`);
  const { bundleInterpreter } = await import('../../src/worker/interpreter-worker');
  shared = { env, timeSkipping: true, workflowBundle: (await bundleInterpreter()) as { code: string } };
});

after(async () => {
  await env?.teardown();
});

test('a mocked call that outlives its caught timeout does not hold up the cases after it', async () => {
  const started = Date.now();
  // The default 60 s real-time limit per case: what each later case cost before the fix.
  const run = await runCases(['call-outlives-timeout', 'sleep-hour', 'listen-until-timeout', 'event-at-waiting'].map(file), shared);
  const tookMs = Date.now() - started;
  for (const r of run.results) assert.ok(r.passed, `FAIL ${r.name}: ${r.problems.join('\n  ')}`);
  assert.equal(run.passed, 4);
  assert.ok(tookMs < 30_000, `the suite took ${(tookMs / 1000).toFixed(1)} s of real time`);
});

/** Each case's result, by name: passed, and why not. */
function perCase(run: RunCasesResult): Record<string, { passed: boolean; problems: string[] }> {
  return Object.fromEntries(run.results.map((r) => [r.name, { passed: r.passed, problems: r.problems }]));
}

test('a suite gives each case the same result in any order (shuffleSeed)', async () => {
  const sorted = collectCaseFiles([DIR]);
  const inOrder = await runCases([DIR], shared);
  const expected = perCase(inOrder);
  assert.deepEqual(
    Object.entries(expected).map(([name, r]) => [name, r.passed]),
    sorted.map((f) => [caseNameOf(f), caseNameOf(f) !== 'fails-wrong-output']),
    JSON.stringify(expected, null, 1),
  );

  const random = mulberry32(20261128);
  const orders = new Set([sorted.join()]);
  for (let i = 0; i < 3; i++) {
    const seed = Math.floor(random() * 2 ** 32);
    const run = await runCases([DIR], { ...shared, shuffleSeed: seed });
    const order = run.results.map((r) => r.file);
    assert.deepEqual(order, shuffled(sorted, seed), `seed ${seed}: not the seed's order`);
    orders.add(order.join());
    assert.deepEqual(perCase(run), expected, `seed ${seed} (order ${order.map(caseNameOf).join(', ')})`);
  }
  assert.equal(orders.size, 4, 'the shuffles did not give 3 other orders');
});
