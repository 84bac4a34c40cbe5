/**
 * 1.0 durations written as runtime expressions (feature v1-duration-expressions), without a
 * server: what the pure helpers of v1/durations.ts and v1/retry.ts evaluate, check and refuse.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initExpressions } from '../../../../src/expr';
import { evalExprSync, SwExpressionError } from '../../../../src/workflow/expressions';
import { FEATURE_V1_DURATION_EXPRESSIONS } from '../../../../src/common/features';
import { durationAt, durationMs, durationValueProblem, evaluatedDuration, isDurationExpression, resolveDuration, timeoutAfter, type DurationScope } from '../../../../src/workflow/v1/durations';
import { mayRetry, resolvePolicyDurations, retryDelayMs } from '../../../../src/workflow/v1/retry';
import type { Json } from '../../../../src/common/model';
import type { RetryPolicy, V1Definition } from '../../../../src/common/model-v1';

const def = (use: Record<string, unknown> = {}) => ({ workflow: { document: { dsl: '1.0.3', namespace: 't', name: 'd', version: '1' }, do: [], use } }) as unknown as V1Definition;

/** A run's duration scope: the real jq engine, and the expressions it was asked to evaluate. */
function scope(features: string[], d: V1Definition = def()): DurationScope & { evaluated: string[] } {
  const evaluated: string[] = [];
  return {
    def: d,
    features: new Set(features),
    evaluated,
    expressionSync: (expr, data, args, what) => {
      evaluated.push(expr);
      return evalExprSync(expr, data, { variables: args }, { what });
    },
  };
}
const ON = [FEATURE_V1_DURATION_EXPRESSIONS];

test('a duration expression is the schema runtimeExpression: the whole string one ${ }', () => {
  assert.equal(isDurationExpression('${ .t }'), true);
  assert.equal(isDurationExpression('  ${ "PT" + (.n|tostring) + "S" }  '), true);
  assert.equal(isDurationExpression('${\n  .t\n}'), true);
  assert.equal(isDurationExpression('PT5S'), false);
  assert.equal(isDurationExpression('PT${ .n }S'), false);
  assert.equal(isDurationExpression({ seconds: 3 }), false);
  assert.equal(isDurationExpression(undefined), false);
});

test('what an expression may yield: an ISO 8601 string swflow can time, or an inline duration', () => {
  assert.equal(durationValueProblem('PT1M30S'), undefined);
  assert.equal(durationValueProblem({ minutes: 1, milliseconds: 500 }), undefined);
  assert.match(durationValueProblem('soon')!, /"soon" is not an ISO 8601 duration/);
  assert.match(durationValueProblem('P1M')!, /years or months/);
  assert.match(durationValueProblem(5)!, /an ISO 8601 string .* or an object of days, hours/);
  assert.match(durationValueProblem(null)!, /an ISO 8601 string/);
  assert.match(durationValueProblem(['PT1S'])!, /an ISO 8601 string/);
  assert.match(durationValueProblem({})!, /at least one of days/);
  assert.match(durationValueProblem({ secs: 3 })!, /no property 'secs'/);
  assert.match(durationValueProblem({ seconds: '3' })!, /'seconds' must be a non-negative number, got "3" \(a string\)/);
  assert.match(durationValueProblem({ seconds: -1 })!, /non-negative/);
});

test('resolveDuration evaluates only expressions, and says which property got what', async () => {
  await initExpressions();
  const calls: string[] = [];
  const evaluate = (v: Json) => (expr: string) => {
    calls.push(expr);
    return v;
  };
  assert.equal(resolveDuration('PT5S', 'retry.delay', evaluate('PT9S')), 'PT5S');
  assert.deepEqual(resolveDuration({ seconds: 5 }, 'retry.delay', evaluate('PT9S')), { seconds: 5 });
  assert.deepEqual(calls, []);
  assert.equal(resolveDuration('${ .d }', 'retry.delay', evaluate('PT9S')), 'PT9S');
  assert.deepEqual(resolveDuration('${ .d }', 'retry.delay', evaluate({ seconds: 2 })), { seconds: 2 });
  assert.throws(
    () => resolveDuration('${ .d }', 'timeout.after', evaluate(30)),
    (err: Error) => err instanceof SwExpressionError && /^timeout\.after: the expression "\$\{ \.d \}" yielded 30 \(a number\), which is not a duration/.test(err.message),
  );
  assert.throws(() => evaluatedDuration('an hour', '${ .h }', 'wait'), /wait: the expression "\$\{ \.h \}" yielded "an hour" \(a string\), which is not a duration: "an hour" is not an ISO 8601 duration/);
});

test('durationAt: expressions evaluated over the data with the arguments on runs with the feature; older runs take them as written', async () => {
  await initExpressions();
  const on = scope(ON);
  assert.equal(durationAt(on, '${ "PT" + (.n | tostring) + "S" }', 'wait', { n: 7 }, () => ({})), 'PT7S');
  assert.deepEqual(durationAt(on, '${ { seconds: $input.n } }', 'wait', null, () => ({ input: { n: 4 } })), { seconds: 4 });
  assert.equal(durationMs(durationAt(on, '${ .t }', 'timeout.after', { t: { minutes: 2 } }, () => ({}))), 120_000);
  // A literal is not evaluated, and its arguments are not even built.
  let built = 0;
  assert.equal(durationAt(on, 'PT1S', 'wait', null, () => (built++, {})), 'PT1S');
  assert.equal(built, 0);
  // An expression that fails is an expression error naming the property.
  assert.throws(() => durationAt(on, '${ .a.b.c | error("no") }', 'timeout.after', { a: null }, () => ({})), (err: Error) => err instanceof SwExpressionError && /timeout\.after/.test(err.message));
  const off = scope([]);
  assert.equal(durationAt(off, '${ .t }', 'timeout.after', { t: 'PT1S' }, () => ({})), '${ .t }');
  assert.deepEqual(off.evaluated, []);
  // ... so an older run still fails where it failed before.
  assert.throws(() => durationMs(durationAt(off, '${ .t }', 'timeout.after', { t: 'PT1S' }, () => ({}))), /is not an ISO 8601 duration/);
});

test('timeoutAfter: inline timeouts and use.timeouts entries, expressions named by where they are', async () => {
  await initExpressions();
  const s = scope(ON, def({ timeouts: { quick: { after: '${ $input.limit }' }, fixed: { after: { seconds: 3 } } } }));
  assert.equal(timeoutAfter(s, undefined, null, () => ({})), undefined);
  assert.equal(timeoutAfter(s, 'missing', null, () => ({})), undefined);
  assert.deepEqual(timeoutAfter(s, 'fixed', null, () => ({})), { seconds: 3 });
  assert.equal(timeoutAfter(s, 'quick', null, () => ({ input: { limit: 'PT2S' } })), 'PT2S');
  assert.equal(timeoutAfter(s, { after: '${ .limit }' }, { limit: 'PT4S' }, () => ({})), 'PT4S');
  assert.throws(() => timeoutAfter(s, 'quick', null, () => ({ input: { limit: true } })), /^SwExpressionError: timeout\.after \(use\.timeouts\.quick\): the expression "\$\{ \$input\.limit \}" yielded true \(a boolean\)/);
});

test('retry policies: limits resolved at the try start, delay and jitter when a retry is scheduled', async () => {
  await initExpressions();
  const s = scope(ON);
  const policy: RetryPolicy = {
    delay: '${ $error.retryAfter }',
    backoff: { linear: {} },
    limit: { attempt: { count: 9, duration: '${ .attempt }' }, duration: '${ .total }' },
    jitter: { from: { seconds: 0 }, to: '${ .jitter }' },
  };
  const data = { attempt: 'PT30S', total: { minutes: 1 }, jitter: 'PT2S' };
  const at = (extra: Record<string, Json>) => (d: Parameters<typeof durationAt>[1], property: string) => durationAt(s, d, `retry.${property}`, data, () => extra);
  const limits = resolvePolicyDurations(policy, 'limits', at({}));
  assert.deepEqual(limits.limit, { attempt: { count: 9, duration: 'PT30S' }, duration: { minutes: 1 } });
  assert.equal(limits.delay, policy.delay, 'the delay waits for the retry ($error)');
  assert.equal(mayRetry(limits, 2, 59_999), true);
  assert.equal(mayRetry(limits, 2, 60_000), false);
  const delays = resolvePolicyDurations(limits, 'delays', at({ error: { status: 503, retryAfter: 'PT5S' } }));
  assert.equal(delays.delay, 'PT5S');
  assert.deepEqual(delays.jitter, { from: { seconds: 0 }, to: 'PT2S' });
  // linear: 5 s × 3, plus half the 0–2 s jitter
  assert.equal(retryDelayMs(delays, 3, () => 0.5), 16_000);
  // Nothing to evaluate: the same policy object (no work per retry for literal policies).
  const literal: RetryPolicy = { delay: 'PT1S', limit: { duration: 'PT1M' } };
  assert.equal(resolvePolicyDurations(literal, 'limits', at({})), literal);
  assert.equal(resolvePolicyDurations(literal, 'delays', at({})), literal);
  // A delay expression that yields no duration: an expression error naming it.
  assert.throws(() => resolvePolicyDurations(policy, 'delays', at({ error: { retryAfter: 5 } })), /^SwExpressionError: retry\.delay: the expression "\$\{ \$error\.retryAfter \}" yielded 5 \(a number\), which is not a duration/);
});
