/**
 * The 0.8 parallel state (v08/states/parallel.ts): completion types, a failing branch,
 * branchExecTimeout.
 * Without a server: a definition through the real loader, the real state pipeline over the
 * fake effects of ../fake-context.ts (Temporal on a virtual clock), the real jq engine; data in,
 * and out the data, the commands (types, inputs, summaries, times) and the transition chosen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionError, SwTimeoutError } from '../../../../src/workflow/v08/errors';
import type { WorkflowDef } from '../../../../src/common/model';
import { definition, FakeRun } from '../fake-context';
import { functions, serviceError } from './support';

const branchDef = (completion: Record<string, unknown>, branchTimeout?: string) =>
  definition({
    functions,
    errors: [{ name: 'Boom', code: '500' }],
    states: [
      {
        name: 'Par',
        type: 'parallel',
        ...completion,
        branches: [
          { name: 'fast', actions: [{ name: 'q', functionRef: { refName: 'quote', arguments: { b: 'fast' } }, actionDataFilter: { results: '${ {log: [.]} }' } }] },
          { name: 'slow', actions: [{ name: 's', functionRef: { refName: 'stock', arguments: { b: 'slow' } }, actionDataFilter: { results: '${ {log: [.]} }' } }], ...(branchTimeout ? { timeouts: { branchExecTimeout: branchTimeout } } : {}) },
        ],
        end: true,
      },
    ],
  });

/** A run of `def` where fast answers after 1 s (`fastMs`), slow after 10 s (or fails after 3 s, when `slowFails`). */
const answeringBranches = (def: WorkflowDef, slowFails = false, fastMs = 1000) => {
  const run = new FakeRun(def);
  run.effects.activities['*'] = (args) =>
    (args[0] as { b: string }).b === 'fast' ? run.effects.after(fastMs, 'F') : slowFails ? run.effects.after(3000, serviceError('500', 'slow broke')) : run.effects.after(10_000, 'S');
  return run;
};

test('parallel, allOf: every branch runs on the state data, their data merged in branch order', async () => {
  const run = answeringBranches(await branchDef({ completionType: 'allOf' }));
  const out = await run.exec('Par', { base: true, log: ['start'] });
  assert.deepEqual(out.data, { base: true, log: ['start', 'F', 'S'] });
  // Both branches' calls at once, then the state waits for its branches (a bare condition).
  assert.deepEqual(
    run.effects.commands.map((c) => (c.kind === 'activity' ? [c.kind, c.args, c.options.summary, c.at] : [c.kind, c.at])),
    [
      ['activity', [{ b: 'fast' }], 'Par › fast › q → quote', 0],
      ['activity', [{ b: 'slow' }], 'Par › slow › s → stock', 0],
      ['condition', 0],
    ],
  );
  assert.equal(run.effects.elapsed, 10_000);
  // Branch order, not the order they end in.
  const reversed = answeringBranches(await branchDef({ completionType: 'allOf' }), false, 20_000);
  assert.deepEqual((await reversed.exec('Par', { log: [] })).data, { log: ['F', 'S'] });
  assert.equal(reversed.effects.elapsed, 20_000);
});

test('parallel, atLeast: numCompleted branches suffice, the others are cancelled and their data dropped', async () => {
  const run = answeringBranches(await branchDef({ completionType: 'atLeast', numCompleted: 1 }));
  const out = await run.exec('Par', { base: true });
  assert.deepEqual(out.data, { base: true, log: ['F'] });
  assert.equal(run.effects.elapsed, 1000);
  assert.equal(run.effects.outstanding, 0); // the slow branch's call was cancelled
});

test('parallel: a failing branch fails the state (the error of its action), whatever the completion type', async () => {
  for (const completion of [{ completionType: 'allOf' }, { completionType: 'atLeast', numCompleted: 2 }]) {
    const run = answeringBranches(await branchDef(completion), true, 20_000);
    const err = await run.exec('Par', {}).catch((e: unknown) => e);
    assert.ok(err instanceof ActionError, String(err));
    assert.equal(err.message, 'state "Par", action "slow › s", function "stock" failed: slow broke (code 500)');
    assert.equal(run.effects.elapsed, 3000);
    assert.equal(run.effects.outstanding, 0); // the fast branch, still running, was cancelled
  }
});

test('parallel: branchExecTimeout cancels the branch and fails the state with a timeout', async () => {
  const run = answeringBranches(await branchDef({ completionType: 'allOf' }, 'PT5S'));
  const err = await run.exec('Par', {}).catch((e: unknown) => e);
  assert.ok(err instanceof SwTimeoutError);
  assert.equal(err.message, 'branch "slow" of state "Par" did not finish within PT5S (branchExecTimeout)');
  assert.deepEqual(run.effects.issued('timer'), [{ kind: 'timer', ms: 5000, summary: 'Par › slow → branchExecTimeout PT5S' }]);
  assert.equal(run.effects.elapsed, 5000);
  assert.equal(run.effects.outstanding, 0);
});
