/** Retry schedules (pure): the spec's order increment → multiplier → jitter → maxDelay; the default strategy; when a Temporal RetryPolicy is used. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadDefinition } from '../../../../src/dsl';
import { DEFAULT_RETRY, nativeRetryOf, retrySchedule, temporalRetryPolicy, type NativeRetry } from '../../../../src/workflow/v08/retry';
import { FEATURE_NATIVE_RETRY_POLICY, INTERPRETER_FEATURES } from '../../../../src/common/features';
import type { WorkflowDef } from '../../../../src/common/model';

// (not ./helpers: that installs the Temporal runtime, which would keep this server-less test alive)
async function def(doc: Record<string, unknown>): Promise<WorkflowDef> {
  const { definition, problems } = await loadDefinition({ specVersion: '0.8', ...doc });
  assert.ok(definition, JSON.stringify(problems));
  return definition;
}

const s = (ms: number[]) => ms.map((x) => x / 1000);
/** How runs recorded before the platform-failures and unlimited-auto-retries features hand strategies to Temporal. */
const LEGACY: NativeRetry = { unlimitedOnly: false, omitUnlimited: false };

test('retry schedule: the spec examples (increment; multiplier; increment then multiplier)', () => {
  assert.deepEqual(s(retrySchedule({ name: 'i', delay: 'PT10S', increment: 'PT2S', maxAttempts: 4 }, 4)), [10, 12, 14, 16]);
  assert.deepEqual(s(retrySchedule({ name: 'm', delay: 'PT10S', multiplier: 2, maxAttempts: 4 }, 4)), [10, 20, 40, 80]);
  // increment first, then the multiplier: (10 + 2) × 2 = 24, (24 + 2) × 2 = 52
  assert.deepEqual(s(retrySchedule({ name: 'im', delay: 'PT10S', increment: 'PT2S', multiplier: 2 }, 3)), [10, 24, 52]);
});

test('retry schedule: jitter (ISO duration) is applied before maxDelay — the spec example 11, 43, 100, 100', () => {
  // random() = 1 → +jitter, 0 → −jitter, 0.5 → 0: the spec's series 11 (+1), 43 (−1), 100 (+0), 100 (−1)
  const rnd = [1, 0, 0.5, 0];
  let i = 0;
  const r = { name: 'spec', delay: 'PT10S', maxDelay: 'PT100S', multiplier: 4, jitter: 'PT1S', maxAttempts: 4 };
  assert.deepEqual(s(retrySchedule(r, 4, () => rnd[i++])), [11, 43, 100, 100]);
  // maxDelay caps AFTER jitter: with a cap of 10 s, +1 s of jitter never exceeds it
  assert.deepEqual(s(retrySchedule({ name: 'cap', delay: 'PT10S', maxDelay: 'PT10S', jitter: 'PT1S' }, 2, () => 1)), [10, 10]);
});

test('retry schedule: jitter as a fraction of the computed delay (added or subtracted)', () => {
  assert.deepEqual(s(retrySchedule({ name: 'f', delay: 'PT6S', jitter: 0.3 }, 1, () => 1)), [7.8]);
  assert.deepEqual(s(retrySchedule({ name: 'f', delay: 'PT6S', jitter: 0.3 }, 1, () => 0)), [4.2]);
  for (let k = 0; k < 50; k++) {
    const [d] = retrySchedule({ name: 'f', delay: 'PT6S', jitter: 0.3 }, 1);
    assert.ok(d >= 4200 && d <= 7800, String(d));
  }
});

test('default strategy (autoRetries, no retryRef): unlimited attempts, 1 s, ×2, capped at 1 minute', async () => {
  assert.equal(DEFAULT_RETRY.maxAttempts, undefined);
  assert.deepEqual(s(retrySchedule(DEFAULT_RETRY, 9)), [1, 2, 4, 8, 16, 32, 60, 60, 60]);
  const d = await def({ id: 'x', start: 'S', autoRetries: true, states: [{ name: 'S', type: 'inject', data: {}, end: true }] });
  // unlimited = no maximumAttempts (the SDK rejects 0: "RetryPolicy.maximumAttempts must be a positive integer")
  assert.deepEqual(temporalRetryPolicy(d, {} as any), { initialInterval: 1000, backoffCoefficient: 2, maximumInterval: 60_000 });
  // runs recorded before the unlimited-auto-retries feature replay with the 0 they scheduled
  assert.deepEqual(temporalRetryPolicy(d, {} as any, LEGACY), { initialInterval: 1000, backoffCoefficient: 2, maximumInterval: 60_000, maximumAttempts: 0 });
});

test("CWM's maxAttempts: 0 is normalized to unlimited (absent)", async () => {
  const { definition, problems } = await loadDefinition({
    id: 'cwm',
    specVersion: '0.8',
    start: 'S',
    retries: [{ name: 'forever', delay: 'PT1S', maxAttempts: 0 }],
    states: [{ name: 'S', type: 'inject', data: {}, end: true }],
  });
  assert.ok(definition, JSON.stringify(problems));
  assert.equal(definition.retries[0].maxAttempts, undefined);
});

test('Temporal RetryPolicy only where it expresses the strategy exactly', async () => {
  const base = {
    id: 'x',
    start: 'S',
    errors: [{ name: 'NotFound', code: '404' }, { name: 'Gone', description: 'it is gone' }, { name: 'Slow', code: 'timeout' }],
    retries: [
      { name: 'forever', delay: 'PT2S', multiplier: 3, maxDelay: 'PT30S', maxAttempts: 0 }, // 0: unlimited (CWM's meaning, accepted with a warning)
      { name: 'exp', delay: 'PT2S', multiplier: 3, maxDelay: 'PT30S', maxAttempts: 5 },
      { name: 'inc', delay: 'PT2S', increment: 'PT1S', maxAttempts: 5 },
      { name: 'jit', delay: 'PT2S', jitter: 0.1, maxAttempts: 5 },
      { name: 'fixed', delay: 'PT5S', maxAttempts: 3 },
    ],
    states: [{ name: 'S', type: 'inject', data: {}, end: true }],
  };
  const auto = await def({ ...base, autoRetries: true });
  assert.deepEqual(temporalRetryPolicy(auto, { retryRef: 'forever', nonRetryableErrors: ['NotFound'] } as any), {
    initialInterval: 2000,
    backoffCoefficient: 3,
    maximumInterval: 30_000,
    nonRetryableErrorTypes: ['404'],
  });
  // a finite maxAttempts: timers, so that a lost worker (counted by Temporal as an attempt) does not use one up
  assert.equal(temporalRetryPolicy(auto, { retryRef: 'exp', nonRetryableErrors: ['NotFound'] } as any), undefined);
  assert.equal(temporalRetryPolicy(auto, { retryRef: 'fixed' } as any), undefined);
  assert.equal(temporalRetryPolicy(auto, { retryRef: 'forever', nonRetryableErrors: ['*'] } as any), undefined);
  // increment, jitter, a description match, the interpreter's timeout code: timers
  assert.equal(temporalRetryPolicy(auto, { retryRef: 'inc' } as any), undefined);
  assert.equal(temporalRetryPolicy(auto, { retryRef: 'jit' } as any), undefined);
  assert.equal(temporalRetryPolicy(auto, { retryRef: 'forever', nonRetryableErrors: ['Gone'] } as any), undefined);
  assert.equal(temporalRetryPolicy(auto, { retryRef: 'forever', nonRetryableErrors: ['Slow'] } as any), undefined);
  // autoRetries false = an allow-list (retryableErrors), which Temporal cannot express: timers
  assert.equal(temporalRetryPolicy(await def(base), { retryRef: 'forever', retryableErrors: ['NotFound'] } as any), undefined);
});

test('runs recorded before platform-failures hand finite strategies to Temporal too (replayed as they ran)', async () => {
  const auto = await def({
    id: 'x',
    start: 'S',
    autoRetries: true,
    errors: [{ name: 'NotFound', code: '404' }],
    retries: [{ name: 'exp', delay: 'PT2S', multiplier: 3, maxDelay: 'PT30S', maxAttempts: 5 }, { name: 'fixed', delay: 'PT5S', maxAttempts: 3 }],
    states: [{ name: 'S', type: 'inject', data: {}, end: true }],
  });
  assert.deepEqual(temporalRetryPolicy(auto, { retryRef: 'exp', nonRetryableErrors: ['NotFound'] } as any, LEGACY), {
    initialInterval: 2000,
    backoffCoefficient: 3,
    maximumInterval: 30_000,
    maximumAttempts: 5,
    nonRetryableErrorTypes: ['404'],
  });
  assert.deepEqual(temporalRetryPolicy(auto, { retryRef: 'fixed' } as any, LEGACY), { initialInterval: 5000, backoffCoefficient: 1, maximumInterval: 5000, maximumAttempts: 3 });
  assert.deepEqual(temporalRetryPolicy(auto, { retryRef: 'exp', nonRetryableErrors: ['*'] } as any, LEGACY), { maximumAttempts: 1 });
});

test('the native-retry behaviour follows the run\'s recorded features', () => {
  assert.equal(nativeRetryOf(new Set()), undefined);
  assert.deepEqual(nativeRetryOf(new Set([FEATURE_NATIVE_RETRY_POLICY])), LEGACY);
  assert.deepEqual(nativeRetryOf(new Set(INTERPRETER_FEATURES)), { unlimitedOnly: true, omitUnlimited: true });
});
