/**
 * 1.0 durations: `{ days, hours, minutes, seconds, milliseconds }`, an ISO 8601 string, or a
 * runtime expression that yields one (evaluated by the caller). Pure.
 */
import { parseDuration } from '../../common/duration';
import type { Duration } from '../../common/model-v1';

/** Milliseconds of an inline or ISO duration. */
export function durationMs(d: Duration): number {
  if (typeof d === 'string') return parseDuration(d);
  return (((d.days ?? 0) * 24 + (d.hours ?? 0)) * 60 + (d.minutes ?? 0)) * 60_000 + (d.seconds ?? 0) * 1000 + (d.milliseconds ?? 0);
}

/** ISO 8601 text of a duration (for timers' summaries and the shared timeout helper). */
export function durationIso(d: Duration): string {
  if (typeof d === 'string') return d;
  const ms = durationMs(d);
  return `PT${Number((ms / 1000).toFixed(3))}S`;
}
