/**
 * The 0.8 executor table (v08/states/executors.ts): one executor per state type, each tested in
 * its own file here (<type>.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXECUTORS } from '../../../../src/workflow/v08/states/executors';

test('the executor table has one executor per state type', () => {
  assert.deepEqual(Object.keys(EXECUTORS).sort(), ['callback', 'event', 'foreach', 'inject', 'operation', 'parallel', 'sleep', 'switch']);
});
