/**
 * A `catch.retry` policy's arithmetic (pure). Delay of retry n (1 = the first retry):
 * `constant` → delay; `linear` → delay × n; `exponential` → delay × 2^(n-1); then a random
 * jitter in [from, to] is added. `limit.attempt.count` is the number of RETRIES allowed (the
 * first attempt not counted, as the conformance kit's runtime counts them); `limit.duration`
 * bounds the time from the first attempt after which no retry starts. No delay given: 1 s.
 */
import type { RetryPolicy } from '../../common/model-v1';
import { durationMs } from './durations';

export const DEFAULT_RETRY_DELAY_MS = 1000;

export function retryDelayMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const base = policy.delay !== undefined ? durationMs(policy.delay) : DEFAULT_RETRY_DELAY_MS;
  const b = policy.backoff ?? {};
  let d = base;
  if (b.linear !== undefined) d = base * retry;
  else if (b.exponential !== undefined) d = base * 2 ** Math.min(retry - 1, 32);
  if (policy.jitter) {
    const from = durationMs(policy.jitter.from);
    const to = durationMs(policy.jitter.to);
    d += from + random() * Math.max(0, to - from);
  }
  return Math.round(d);
}

/** Whether retry number `retry` may start, `elapsedMs` after the first attempt started. */
export function mayRetry(policy: RetryPolicy, retry: number, elapsedMs: number): boolean {
  const count = policy.limit?.attempt?.count;
  if (count !== undefined && retry > count) return false;
  const total = policy.limit?.duration;
  if (total !== undefined && elapsedMs >= durationMs(total)) return false;
  return true;
}
