/**
 * Replay safety: every recorded history in test/fixtures/histories/ (interpreter-*.json from
 * the other test/workflow tests, <case>.json from the conformance runner) replays without
 * nondeterminism against the current bundle.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { FIXTURES_DIR, replayFixtures, sharedBundle } from './helpers';

test('recorded histories replay deterministically', async () => {
  assert.ok(existsSync(FIXTURES_DIR), 'fixtures exist (run the other test/workflow tests once)');
  const { files, replayed, failures } = await replayFixtures({ workflowBundle: await sharedBundle() });
  assert.ok(files.length >= 5, `expected recorded histories, found ${files.length}`);
  assert.equal(replayed, files.length);
  assert.deepEqual(failures, []);
});
