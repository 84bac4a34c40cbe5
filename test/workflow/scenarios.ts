/**
 * Definitions used by more than one test file: the same scenario runs on the dev server (real
 * time, short delays) and on the time-skipping server (long delays), or at scale in
 * test/limits. Plain documents: each test loads them with its own helper.
 */
import assert from 'node:assert/strict';
import { def, serviceError, type Harness } from './helpers';

/** The subflow the parent tests call: version 2.0, one call to `work` with `.n`. */
export const workChild = {
  id: 'child',
  version: '2.0',
  specVersion: '0.8',
  start: 'Work',
  functions: [{ name: 'work', operation: 'x#work' }],
  states: [{ name: 'Work', type: 'operation', actions: [{ functionRef: { refName: 'work', arguments: { n: '${ .n }' } } }], end: true }],
};

/** One call to `charge` retried on code 503 by a `maxAttempts: 3` strategy with `delay`. */
export function retryingCharge(delay: string, id = 'retrying') {
  return {
    id,
    specVersion: '0.8',
    start: 'Charge',
    errors: [{ name: 'Service unavailable', code: '503' }],
    retries: [{ name: 'ThreeTimes', delay, maxAttempts: 3 }],
    functions: [{ name: 'charge', operation: 'x#charge' }],
    states: [
      {
        name: 'Charge',
        type: 'operation',
        actions: [
          {
            functionRef: { refName: 'charge', arguments: { amount: '${ .amount }' } },
            retryRef: 'ThreeTimes',
            retryableErrors: ['Service unavailable'],
            actionDataFilter: { results: '${ { receipt: .id } }' },
          },
        ],
        end: true,
      },
    ],
  };
}

/** A foreach calling `double` for each of `.numbers`; the output is `{ doubled }`, in order. */
export function doubleEach(opts: { id: string; mode?: 'parallel' | 'sequential'; metadata?: Record<string, string> }) {
  return {
    id: opts.id,
    specVersion: '0.8',
    ...(opts.metadata ? { metadata: opts.metadata } : {}),
    start: 'DoubleAll',
    functions: [{ name: 'double', operation: 'http://math.example/api.json#double' }],
    states: [
      {
        name: 'DoubleAll',
        type: 'foreach',
        ...(opts.mode ? { mode: opts.mode } : {}),
        inputCollection: '${ .numbers }',
        iterationParam: 'n',
        outputCollection: '${ .doubled }',
        actions: [{ functionRef: { refName: 'double', arguments: { n: '${ $n }' } } }],
        stateDataFilter: { output: '${ { doubled } }' },
        end: true,
      },
    ],
  };
}

/**
 * Runs {@link retryingCharge}: the service fails twice with 503, then answers; three calls,
 * the receipt merged, the history saved as fixture `fixture`.
 */
export async function retryUntilSuccess(h: Harness, delay: string, fixture: string): Promise<void> {
  h.reset();
  let n = 0;
  h.mocks.charge = () => {
    if (++n < 3) throw serviceError('503', 'Service Unavailable');
    return { id: 'r-1' };
  };
  assert.deepEqual(await h.run(def(retryingCharge(delay)), { amount: 42 }), { amount: 42, receipt: 'r-1' });
  assert.equal(h.calls.length, 3);
  await h.saveHistory(h.lastWorkflowId!, fixture);
}
