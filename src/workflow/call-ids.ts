/**
 * Call ids (feature `call-ids`): a name for one logical function call of a run that stays the
 * same however often the call is made — Temporal's retries of its activity, a call made again
 * after a platform failure (platform-failures.ts), a definition retry (0.8 `retryRef` by timer,
 * 1.0 `try`/`catch.retry`), a local call handed over as an activity (host/calls-in-flight.ts), a
 * redrive re-doing the run after a reset (host/redrive.ts) — and differs between two calls (a
 * loop's next iteration, another step). It travels in the `swflow-call` header; the built-in
 * adapters derive the `Idempotency-Key` from it (src/adapter-sdk/idempotency.ts), so a service
 * that honours the key performs the write once across all of these. An activity id cannot: each
 * of those repeats is a new activity (or local activity) with an id of its own.
 *
 * The id is `<chain>/<step>#<n>`: `chain` names this run of the execution chain as a reset keeps
 * it (the run it continued from, else the first run: both are in the started event, which a
 * reset copies); `step` is the 0.8 state and action or the 1.0 task's reference; `n` counts the
 * logical calls made at that step in this run. Counting is deterministic (workflow code, in the
 * order the run issues its calls), so a replay or a redrive numbers every call as the run did.
 */
import type { Effects } from './effects';
import { runSlot } from './host/run-local';

interface Counters {
  chain: string;
  counts: Map<string, number>;
}

const slot = runSlot<Counters>('callIds');

function counters(effects: Pick<Effects, 'info'>): Counters {
  let c = slot.get();
  if (!c) {
    const info = effects.info();
    c = { chain: info.continuedFromExecutionRunId ?? info.firstExecutionRunId ?? info.runId, counts: new Map() };
    slot.set(c);
  }
  return c;
}

/** The id of a new logical call at `step` (each call of it made again reuses the id it got). */
export function nextCallId(step: string, effects: Pick<Effects, 'info'>): string {
  const c = counters(effects);
  const n = (c.counts.get(step) ?? 0) + 1;
  c.counts.set(step, n);
  return `${c.chain}/${step}#${n}`;
}

/** Where the counts of the steps under `prefix` stand now (a 1.0 `try`, before its first attempt). */
export type CallMark = ReadonlyMap<string, number>;

export function markCalls(prefix: string, effects: Pick<Effects, 'info'>): CallMark {
  const mark = new Map<string, number>();
  for (const [step, n] of counters(effects).counts) if (step.startsWith(prefix)) mark.set(step, n);
  return mark;
}

/**
 * Puts the counts under `prefix` back where `mark` found them: a retry of a 1.0 `try` makes the
 * same calls again, with the ids of its first attempt.
 */
export function rewindCalls(prefix: string, mark: CallMark, effects: Pick<Effects, 'info'>): void {
  const { counts } = counters(effects);
  for (const step of [...counts.keys()]) if (step.startsWith(prefix) && !mark.has(step)) counts.delete(step);
  for (const [step, n] of mark) counts.set(step, n);
}
