/**
 * Replay safety: every recorded history in test/fixtures/histories/ (interpreter-*.json from
 * the other test/workflow tests, <case>.json from the conformance runner) replays without
 * nondeterminism against the current bundle.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { historyFromFixture } from '../../src/testing/history';
import { FIXTURES_DIR, sharedBundle } from './helpers';

test('recorded histories replay deterministically', async () => {
  assert.ok(existsSync(FIXTURES_DIR), 'fixtures exist (run the other test/workflow tests once)');
  const files = readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.json')).sort();
  assert.ok(files.length >= 5, `expected recorded histories, found ${files.length}`);
  const bundle = await sharedBundle();
  async function* histories() {
    for (const f of files) {
      yield { workflowId: f.replace(/\.json$/, ''), history: historyFromFixture(readFileSync(join(FIXTURES_DIR, f), 'utf8')) };
    }
  }
  const failures: string[] = [];
  let n = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, histories())) {
    n++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message ?? r.error}`);
  }
  assert.equal(n, files.length);
  assert.deepEqual(failures, []);
});
