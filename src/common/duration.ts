/**
 * ISO 8601 durations, as used by Serverless Workflow (`PT30S`, `P1DT2H`, `PT0.5S`, `P2W`).
 *
 * Pure and dependency-free: safe to import from the Temporal workflow sandbox.
 *
 * Supported: `P[nW][nD][T[nH][nM][nS]]`, each number may have a fraction (`.` or `,`), e.g.
 * `PT1.5H`, `P0.5D`. A day is exactly 24 hours and a week exactly 7 days (durations here are
 * timers, not calendar arithmetic).
 *
 * Rejected: years (`Y`) and months (`M` before `T`) — they have no fixed length, so a timer
 * built from them would be a guess; write days or weeks instead. Also rejected: negative
 * durations, an empty `P`/`PT`, designators out of order or repeated.
 */

const MS = {
  W: 7 * 24 * 3600 * 1000,
  D: 24 * 3600 * 1000,
  H: 3600 * 1000,
  M: 60 * 1000,
  S: 1000,
} as const;

const NUM = '(\\d+(?:[.,]\\d+)?)';
const ISO_RE = new RegExp(
  `^P(?:${NUM}Y)?(?:${NUM}M)?(?:${NUM}W)?(?:${NUM}D)?(?:T(?:${NUM}H)?(?:${NUM}M)?(?:${NUM}S)?)?$`,
);

/** Why `iso` is not a usable duration, or undefined when it is. */
export function durationProblem(iso: unknown): string | undefined {
  if (typeof iso !== 'string') return 'a duration must be an ISO 8601 string such as "PT30S"';
  const s = iso.trim().toUpperCase();
  const m = ISO_RE.exec(s);
  if (!m || s === 'P' || s.endsWith('T')) {
    if (/^PT[\d.,]+[DW]$/.test(s)) return `"${iso}" puts a day/week designator after T (write "P${s.slice(2)}")`;
    return `"${iso}" is not an ISO 8601 duration (expected e.g. "PT30S", "PT1H30M", "P1D")`;
  }
  if (m[1] !== undefined || m[2] !== undefined) {
    return `"${iso}" uses years or months, which have no fixed length; use days (D) or weeks (W)`;
  }
  return undefined;
}

/** True when `iso` parses (see parseDuration). */
export function isDuration(iso: unknown): iso is string {
  return durationProblem(iso) === undefined;
}

/** Milliseconds of an ISO 8601 duration; throws Error with a readable message when invalid. */
export function parseDuration(iso: string): number {
  const problem = durationProblem(iso);
  if (problem) throw new Error(problem);
  const m = ISO_RE.exec(iso.trim().toUpperCase())!;
  const part = (v: string | undefined) => (v === undefined ? 0 : Number(v.replace(',', '.')));
  const total =
    part(m[3]) * MS.W + part(m[4]) * MS.D + part(m[5]) * MS.H + part(m[6]) * MS.M + part(m[7]) * MS.S;
  return Math.round(total);
}

/** A 1.0 duration (`Duration` of model-v1): an ISO 8601 string or an inline object, in milliseconds. */
export function durationMs(d: string | { days?: number; hours?: number; minutes?: number; seconds?: number; milliseconds?: number }): number {
  if (typeof d === 'string') return parseDuration(d);
  return (((d.days ?? 0) * 24 + (d.hours ?? 0)) * 60 + (d.minutes ?? 0)) * 60_000 + (d.seconds ?? 0) * 1000 + (d.milliseconds ?? 0);
}

/** ISO 8601 text of a 1.0 duration (for timers' summaries and messages). */
export function durationIso(d: string | { days?: number; hours?: number; minutes?: number; seconds?: number; milliseconds?: number }): string {
  if (typeof d === 'string') return d;
  return `PT${Number((durationMs(d) / 1000).toFixed(3))}S`;
}
