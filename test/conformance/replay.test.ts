/**
 * Replays the recorded histories of test/fixtures/histories (saved by the conformance run
 * with SWFLOW_RECORD_HISTORIES=1 or `swflow test --record-histories`) against the current
 * interpreter bundle: a change that makes old runs nondeterministic fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from '@temporalio/worker';
import { installQuietRuntime } from '../../src/testing/env';
import { historyFromFixture } from '../../src/testing/history';

const DIR = resolve(__dirname, '..', 'fixtures', 'histories');
const files = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith('.json')).sort() : [];

test('replay recorded histories against the current interpreter', { skip: files.length === 0 ? 'no fixtures in test/fixtures/histories (record them with SWFLOW_RECORD_HISTORIES=1)' : false }, async () => {
  installQuietRuntime();
  const { bundleInterpreter } = await import('../../src/worker/interpreter-worker');
  const bundle = await bundleInterpreter();
  const histories = files.map((f) => ({
    workflowId: f.replace(/\.json$/, ''),
    history: historyFromFixture(readFileSync(join(DIR, f), 'utf8')),
  }));
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) {
    replayed++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.name}: ${r.error.message}`);
  }
  assert.equal(replayed, files.length);
  assert.deepEqual(failures, [], `nondeterminism on replay:\n${failures.join('\n')}`);
});
