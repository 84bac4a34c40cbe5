/**
 * The project's acceptance tests: every case of shared/conformance/cases (and this folder's
 * own cases, which exercise runner features) must pass on the real interpreter, on a real
 * Temporal server with time skipping. One node test per case.
 *
 * Also checks that the runner CAN fail: the cases under ./failing must each FAIL with a
 * useful message.
 *
 * SWFLOW_RECORD_HISTORIES=1 saves each passing case's history to test/fixtures/histories
 * (replayed by replay.test.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { collectCaseFiles, runCases, type CaseResult } from '../../src/testing/runner';
import { caseNameOf } from '../../src/testing/case';
import { startTestServer } from '../../src/testing/env';

const ROOT = resolve(__dirname, '..', '..');
const SHARED = resolve(ROOT, '..', 'shared', 'conformance', 'cases');
const OWN = join(__dirname, 'cases');
const FAILING = join(__dirname, 'failing');
const RECORD = process.env.SWFLOW_RECORD_HISTORIES === '1' ? join(ROOT, 'test', 'fixtures', 'histories') : undefined;

const passingFiles = collectCaseFiles([SHARED, OWN]);
const failingFiles = collectCaseFiles([FAILING]);

let env: TestWorkflowEnvironment;
let timeSkipping = false;
let bundle: { code: string };
const results = new Map<string, CaseResult>();
const failingResults = new Map<string, CaseResult>();

before(async () => {
  const server = await startTestServer((m) => console.error(m));
  env = server.env;
  timeSkipping = server.timeSkipping;
  if (server.note) console.error(`note: ${server.note}`);
  const { bundleInterpreter } = await import('../../src/worker/interpreter-worker');
  bundle = (await bundleInterpreter()) as { code: string };
  const run = await runCases(passingFiles, { env, timeSkipping, workflowBundle: bundle, recordHistoriesDir: RECORD });
  for (const r of run.results) results.set(r.file, r);
  const bad = await runCases(failingFiles, { env, timeSkipping, workflowBundle: bundle, timeoutMs: 8_000 });
  for (const r of bad.results) failingResults.set(r.file, r);
});

after(async () => {
  await env?.teardown();
});

for (const file of passingFiles) {
  const label = `${file.startsWith(SHARED) ? 'shared' : 'own'}: ${caseNameOf(file)}`;
  test(label, () => {
    const r = results.get(file);
    assert.ok(r, 'the case did not run');
    assert.ok(r.passed, `FAIL ${r.name}: ${r.problems.join('\n  ')}`);
  });
}

/** What each should-fail case must report (a regexp over its problems). */
const EXPECTED_FAILURES: Record<string, RegExp> = {
  'wrong-output': /output differs[\s\S]*-\s+"result": "Goodbye World!"[\s\S]*\+\s+"result": "Hello World!"/,
  'unmocked-call': /no rule of functions\.lookup answers the call with arguments \{"id":7\}/,
  // Time skipping runs the clock to the workflow timeout; without it, the 8 s real-time limit hits.
  'event-never-sent': /(timed-out|timed out after 8 s of real time)[\s\S]*state Waiting[\s\S]*awaiting events never-type/,
  'wrong-calls': /call #1 to f: arguments differ[\s\S]*expected call #2 to f was not made/,
  'secret-in-history': /history contains "hunter2-leaked"/,
  'bad-case-file': /bad-case-file\.case\.yaml: functions\.f\[0\]\.answer: unknown field/,
};

for (const file of failingFiles) {
  const name = caseNameOf(file);
  test(`runner fails: ${name}`, () => {
    const r = failingResults.get(file);
    assert.ok(r, 'the case did not run');
    assert.equal(r.passed, false, `${name} should FAIL but passed`);
    const why = r.problems.join('\n');
    const re = EXPECTED_FAILURES[name];
    assert.ok(re, `no expected failure message for ${name}`);
    assert.match(why, re);
  });
}
