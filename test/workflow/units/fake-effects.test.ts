/**
 * The fake effects themselves (./fake-effects.ts): its cancellation scopes behave as Temporal's,
 * since every unit test's cancellations rest on them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CancelledFailure } from '@temporalio/workflow';
import type { Json } from '../../../src/common/model';
import { definition, FakeRun } from './fake-context';

test('the fake cancels as Temporal does: a cancelled scope rejects its pending work, a non-cancellable one is shielded', async () => {
  const run = new FakeRun(await definition({ states: [{ name: 'X', type: 'inject', data: {}, end: true }] }));
  const fx = run.effects;
  const outcome = await fx.drive(async () => {
    const outer = fx.scope();
    let shielded: Json = null;
    const p = outer.run(async () => {
      const inner = fx.nonCancellable(() => fx.sleep(100).then(() => (shielded = 'done')));
      await fx.sleep(1000);
      return inner;
    });
    await fx.sleep(10);
    outer.cancel();
    const err = await p.catch((e: unknown) => e);
    await fx.sleep(200);
    return { cancelled: err instanceof CancelledFailure, shielded };
  });
  assert.deepEqual(outcome, { cancelled: true, shielded: 'done' });
});
