/**
 * Action retries (0.8 "Workflow Error Handling"): done by the interpreter with durable timers
 * between attempts (each attempt is one activity execution), so that:
 * - autoRetries false (default): only errors listed in the action's `retryableErrors` are
 *   retried, with the strategy named by `retryRef`;
 * - autoRetries true: every error is retried except the action's `nonRetryableErrors`, with
 *   `retryRef` or the default strategy below.
 */
import { sleep } from '@temporalio/workflow';
import type { ActionDef, RetryDef, WorkflowDef } from '../dsl/model';
import { parseDuration } from '../dsl/duration';
import { classify, isCancellation, matchingErrorNames, type SwError } from './errors';

/** The strategy used when autoRetries is true and the action names none. */
export const DEFAULT_RETRY: RetryDef = { name: '(default)', delay: 'PT1S', multiplier: 2, maxDelay: 'PT1M', maxAttempts: 10 };

export function retryStrategy(def: WorkflowDef, action: ActionDef): RetryDef | undefined {
  const named = action.retryRef ? def.retries.find((r) => r.name === action.retryRef) : undefined;
  if (def.autoRetries) return named ?? DEFAULT_RETRY;
  if (!named) return undefined;
  return named;
}

export function isRetryable(def: WorkflowDef, action: ActionDef, e: SwError): boolean {
  if (e.kind === 'expression') return false;
  const names = matchingErrorNames(def, e);
  const listed = (list: string[] | undefined) => (list ?? []).some((n) => n === '*' || names.includes(n));
  if (def.autoRetries) return !listed(action.nonRetryableErrors);
  return listed(action.retryableErrors);
}

/** Delay before retry number `retry` (1 = the first retry). */
export function retryDelayMs(r: RetryDef, retry: number): number {
  const base = r.delay ? parseDuration(r.delay) : 1000;
  const mult = r.multiplier ?? 1;
  const inc = r.increment ? parseDuration(r.increment) : 0;
  let d = base * Math.pow(mult, retry - 1) + inc * (retry - 1);
  if (r.maxDelay) d = Math.min(d, parseDuration(r.maxDelay));
  if (r.jitter !== undefined) {
    const span = typeof r.jitter === 'number' ? d * r.jitter : parseDuration(r.jitter);
    d += Math.random() * span; // Math.random is deterministic in the workflow sandbox
  }
  return Math.max(0, Math.round(d));
}

/** Runs `attempt` until it succeeds, the error is not retryable, or attempts run out. */
export async function withRetries<T>(def: WorkflowDef, action: ActionDef, summary: string, attempt: (n: number) => Promise<T>): Promise<T> {
  const strategy = retryStrategy(def, action);
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (isCancellation(err) || !strategy) throw err;
      const e = classify(err);
      if (!isRetryable(def, action, e)) throw err;
      if (strategy.maxAttempts !== undefined && n >= strategy.maxAttempts) throw err;
      await sleep(retryDelayMs(strategy, n), { summary: `${summary} (retry ${n} after: ${e.message})`.slice(0, 200) });
    }
  }
}
