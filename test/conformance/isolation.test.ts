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
import { runCases, type RunCasesOptions } from '../../src/testing/runner';
import { startTestServer } from '../../src/testing/env';

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
