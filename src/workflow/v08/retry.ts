/**
 * Action retries (0.8 "Workflow Error Handling", "Retry Definition"):
 * - autoRetries false (default): only errors listed in the action's `retryableErrors` are
 *   retried, with the strategy named by `retryRef` (no retryRef: no retries);
 * - autoRetries true: every error is retried except the action's `nonRetryableErrors`, with
 *   `retryRef` or {@link DEFAULT_RETRY}.
 *
 * How: with the activity's own Temporal RetryPolicy where it expresses the strategy exactly
 * (the Web UI then shows the attempt count), otherwise by the interpreter with durable timers
 * between attempts (each attempt is one activity execution; the timer summary names the retry).
 * A Temporal policy is exact when: autoRetries is true (Temporal can only list NON-retryable
 * types, not an allow-list), the strategy has no `increment` and no `jitter`, multiplier ≥ 1,
 * the delays are bounded like Temporal's (maxDelay given, or multiplier 1), and every listed
 * non-retryable error is matched by its failure type alone (an error definition with a code —
 * or with only a name, matched as the type — and no description, and not the interpreter's
 * `timeout`). Subflows always use timers (a child workflow's retry policy reruns the whole child).
 *
 * On runs with the `platform-failures` feature only strategies with unlimited attempts go to
 * Temporal: Temporal counts a call cut short by the platform (a lost worker, platform-failures.ts) as an
 * attempt, which must not use up a finite `maxAttempts` of the user's; with unlimited attempts
 * that count does not matter.
 *
 * `maxAttempts` counts all attempts (the first one included), as Temporal's maximumAttempts;
 * absent = unlimited (CWM's `maxAttempts: 0` is normalized to absent by src/dsl).
 */
import type { RetryPolicy } from '@temporalio/workflow';
import type { ActionDef, RetryDef, WorkflowDef } from '../../common/model';
import { parseDuration } from '../../common/duration';
import { classify, isCancellation, matchingErrorNames, TIMEOUT_CODE, type SwError } from './errors';
import { temporalEffects, type Effects } from '../effects';
import { countRetry } from '../host/metrics';
import { FEATURE_NATIVE_RETRY_POLICY, FEATURE_PLATFORM_FAILURES, FEATURE_UNLIMITED_AUTO_RETRIES } from '../../common/features';

/** Which strategies a run hands to Temporal as the activity's RetryPolicy, by its features (src/common/features.ts). */
export interface NativeRetry {
  /** Only strategies with unlimited attempts (feature `platform-failures`). */
  unlimitedOnly: boolean;
  /** Unlimited attempts = no maximumAttempts, as the SDK wants (feature `unlimited-auto-retries`); older runs wrote 0, which it rejects. */
  omitUnlimited: boolean;
}

/** The run's native-retry behaviour; undefined on runs that always retry with timers. */
export function nativeRetryOf(features: ReadonlySet<string>): NativeRetry | undefined {
  if (!features.has(FEATURE_NATIVE_RETRY_POLICY)) return undefined;
  return { unlimitedOnly: features.has(FEATURE_PLATFORM_FAILURES), omitUnlimited: features.has(FEATURE_UNLIMITED_AUTO_RETRIES) };
}

const CURRENT: NativeRetry = { unlimitedOnly: true, omitUnlimited: true };

/**
 * The strategy used when autoRetries is true and the action names none: unlimited attempts,
 * first retry after 1 s, each delay ×2, capped at 1 minute.
 */
export const DEFAULT_RETRY: RetryDef = { name: '(default)', delay: 'PT1S', multiplier: 2, maxDelay: 'PT1M' };

/** Delay of the first retry when a strategy gives no `delay`. */
export const DEFAULT_RETRY_DELAY_MS = 1000;

export function retryStrategy(def: WorkflowDef, action: ActionDef): RetryDef | undefined {
  const named = action.retryRef ? def.retries.find((r) => r.name === action.retryRef) : undefined;
  if (def.autoRetries) return named ?? DEFAULT_RETRY;
  return named;
}

export function isRetryable(def: WorkflowDef, action: ActionDef, e: SwError): boolean {
  if (e.kind === 'expression') return false;
  const names = matchingErrorNames(def, e);
  const listed = (list: string[] | undefined) => (list ?? []).some((n) => n === '*' || names.includes(n));
  if (def.autoRetries) return !listed(action.nonRetryableErrors);
  return listed(action.retryableErrors);
}

/**
 * The delay before retry number `retry` (1 = the first retry), given the previous delay, in the
 * spec's order: `increment` is added, then `multiplier` applied (to the previous delay — so
 * delay 10 s, increment 2 s gives 10, 12, 14 …; multiplier 2 gives 10, 20, 40 …), then `jitter`
 * (a fraction of that delay, or an ISO duration) added or subtracted at random, then `maxDelay`
 * caps it. `random` is Math.random in the workflow (deterministic in the sandbox).
 */
export function nextRetryDelayMs(r: RetryDef, retry: number, previousMs: number | undefined, random: () => number = Math.random): number {
  let d: number;
  if (retry <= 1 || previousMs === undefined) d = r.delay ? parseDuration(r.delay) : DEFAULT_RETRY_DELAY_MS;
  else d = (previousMs + (r.increment ? parseDuration(r.increment) : 0)) * (r.multiplier ?? 1);
  if (r.jitter !== undefined && r.jitter !== null) {
    const span = typeof r.jitter === 'number' ? d * r.jitter : parseDuration(r.jitter);
    d += (random() * 2 - 1) * span;
  }
  if (r.maxDelay) d = Math.min(d, parseDuration(r.maxDelay));
  return Math.max(0, Math.round(d));
}

/** The first `retries` delays of a strategy (ms). */
export function retrySchedule(r: RetryDef, retries: number, random: () => number = Math.random): number[] {
  const out: number[] = [];
  let prev: number | undefined;
  for (let n = 1; n <= retries; n++) out.push((prev = nextRetryDelayMs(r, n, prev, random)));
  return out;
}

/**
 * The Temporal RetryPolicy that performs exactly this action's retries, or undefined when
 * one cannot (then the interpreter retries with timers).
 */
export function temporalRetryPolicy(def: WorkflowDef, action: ActionDef, native: NativeRetry = CURRENT): RetryPolicy | undefined {
  const r = retryStrategy(def, action);
  if (!r || !def.autoRetries) return undefined;
  if (native.unlimitedOnly && r.maxAttempts !== undefined) return undefined;
  if (r.increment || (r.jitter !== undefined && r.jitter !== null)) return undefined;
  const mult = r.multiplier ?? 1;
  if (!(mult >= 1)) return undefined;
  if (!r.maxDelay && mult !== 1) return undefined; // Temporal would cap at 100× the first delay
  const types = new Set<string>();
  for (const name of action.nonRetryableErrors ?? []) {
    if (name === '*') return native.unlimitedOnly ? undefined : { maximumAttempts: 1 };
    const d = def.errors.find((e) => e.name === name);
    if (!d || d.description !== undefined) return undefined;
    const type = d.code !== undefined && d.code !== null ? String(d.code) : d.name;
    if (type === TIMEOUT_CODE || type === 'expression') return undefined;
    types.add(type);
  }
  const delay = r.delay ? parseDuration(r.delay) : DEFAULT_RETRY_DELAY_MS;
  if (delay <= 0) return undefined;
  const maxDelay = r.maxDelay ? parseDuration(r.maxDelay) : delay;
  return {
    initialInterval: delay,
    backoffCoefficient: mult,
    maximumInterval: Math.max(delay, maxDelay),
    ...(r.maxAttempts !== undefined ? { maximumAttempts: r.maxAttempts } : native.omitUnlimited ? {} : { maximumAttempts: 0 }),
    ...(types.size ? { nonRetryableErrorTypes: [...types] } : {}),
  };
}

/**
 * Runs `attempt` until it succeeds, the error is not retryable, or attempts run out.
 * With `native` (activities, on runs with the `native-retry-policy` feature — see src/common/features.ts; older
 * histories keep the timer path), an expressible strategy is handed to Temporal: `attempt` is
 * called once with the RetryPolicy to use for the activity.
 */
export async function withRetries<T>(
  def: WorkflowDef,
  action: ActionDef,
  summary: string,
  attempt: (n: number, retry?: RetryPolicy) => Promise<T>,
  native?: NativeRetry,
  effects: Effects = temporalEffects,
): Promise<T> {
  const strategy = retryStrategy(def, action);
  if (native && strategy) {
    const policy = temporalRetryPolicy(def, action, native);
    if (policy) return attempt(1, policy);
  }
  let previous: number | undefined;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (isCancellation(err) || !strategy) throw err;
      const e = classify(err);
      if (!isRetryable(def, action, e)) throw err;
      if (strategy.maxAttempts !== undefined && n >= strategy.maxAttempts) throw err;
      previous = nextRetryDelayMs(strategy, n, previous);
      countRetry(action.functionRef?.refName ?? action.subFlowRef?.workflowId ?? 'action');
      await effects.sleep(previous, `${summary} (retry ${n} after: ${e.message})`.slice(0, 200));
    }
  }
}
