/**
 * Scheduled starts (spec 0.8, "Schedule Definition", "Cron Definition"), read into plain
 * values: the recurring `interval` as start / period / end instants, the `cron` expression as
 * seven fields in one dialect, `timezone` checked. Used by validation (the problems) and by the
 * schedules module that turns a definition into a Temporal Schedule (src/client/schedules.ts).
 *
 * - `interval`: the spec's derivative of ISO 8601 recurring intervals: `R/<start>/<duration>`,
 *   `R/<duration>/<end>`, `R/<duration>`; the spec's own example leaves out `R/`
 *   (`2020-03-20T09:00:00Z/PT2H`), so that is read the same way. A count (`R5/`) is not allowed
 *   by the spec. Durations have a fixed length (no years or months: duration.ts).
 * - Date-times without an offset are local time in `timezone` (UTC when none), as the spec says.
 * - `cron`: 5 fields (minute hour day-of-month month day-of-week, Unix) or the spec's examples'
 *   Quartz form, 6 or 7 fields starting with seconds (`0 0/15 * * * ?`), where `?` means "any"
 *   and day-of-week counts 1 = Sunday. Both become `second minute hour dom month dow year` with
 *   day-of-week 0 = Sunday. Quartz's `L`, `W` and `#` have no equivalent and are refused.
 *
 * Node-side only (Intl for time zones); not imported by the workflow sandbox.
 */
import { durationProblem, parseDuration } from '../../common/duration';

/** A recurring interval: runs at `start + n × everyMs` (before `end`, when given). */
export interface RecurringInterval {
  everyMs: number;
  /** ISO text of the period, as written. */
  every: string;
  /** Epoch ms of the first interval's start, when given. */
  start?: number;
  /** Epoch ms after which no interval starts, when given. */
  end?: number;
}

/** Seven cron fields in one dialect: second minute hour day-of-month month day-of-week (0 = Sunday) year. */
export interface CronFields {
  second: string;
  minute: string;
  hour: string;
  dayOfMonth: string;
  month: string;
  dayOfWeek: string;
  year: string;
}

type Result<T> = { value: T; problem?: undefined } | { value?: undefined; problem: string };

/** Why `tz` is not an IANA time zone name, or undefined. */
export function timezoneProblem(tz: unknown): string | undefined {
  if (typeof tz !== 'string' || !tz) return 'a time zone must be an IANA name such as "Europe/Paris" or "UTC"';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return undefined;
  } catch {
    return `"${tz}" is not a known IANA time zone name (e.g. "Europe/Paris", "America/New_York", "UTC")`;
  }
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Epoch ms of an ISO 8601 date-time; one without an offset is local time in `timezone`. */
export function parseDateTime(text: string, timezone = 'UTC'): Result<number> {
  const m = DATE_TIME.exec(text.trim());
  if (!m) return { problem: `"${text}" is not an ISO 8601 date-time (e.g. "2020-03-20T09:00:00Z")` };
  const [, y, mo, d, h, mi, s = '0', frac = '0', zone] = m;
  const ms = Number(`0.${frac}`) * 1000;
  const wall = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, ms);
  const check = new Date(wall);
  if (check.getUTCMonth() !== +mo - 1 || check.getUTCDate() !== +d || +h > 23 || +mi > 59 || +s > 59) return { problem: `"${text}" is not a valid date-time` };
  if (zone) {
    if (zone.toUpperCase() === 'Z') return { value: wall };
    const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    const offset = (z[1] === '-' ? -1 : 1) * (+z[2] * 60 + +z[3]) * 60_000;
    return { value: wall - offset };
  }
  const tzProblem = timezoneProblem(timezone);
  if (tzProblem) return { problem: tzProblem };
  // The instant whose wall-clock time in `timezone` is `wall` (refined once across DST changes).
  let t = wall - zoneOffset(wall, timezone);
  t = wall - zoneOffset(t, timezone);
  return { value: t };
}

/** How far `timezone`'s wall clock is ahead of UTC at instant `t`, in ms. */
function zoneOffset(t: number, timezone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(t))
      .map((p) => [p.type, p.value]),
  );
  const asUtc = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  return asUtc - Math.floor(t / 1000) * 1000;
}

const isDurationText = (s: string) => /^P/i.test(s.trim());

/** The spec's recurring interval (see the module comment). */
export function parseInterval(text: unknown, timezone?: string): Result<RecurringInterval> {
  if (typeof text !== 'string' || !text.trim()) return { problem: 'interval must be an ISO 8601 recurring interval such as "R/PT2H"' };
  const parts = text.trim().split('/');
  if (/^R\d+$/i.test(parts[0])) return { problem: `"${text}" gives a number of recurrences, which the spec's interval format does not allow (write "R/${parts.slice(1).join('/')}")` };
  if (/^R$/i.test(parts[0])) parts.shift();
  if (parts.length < 1 || parts.length > 2) return { problem: `"${text}" is not one of R/<start>/<duration>, R/<duration>/<end>, R/<duration>` };
  const durationAt = parts.findIndex(isDurationText);
  if (durationAt < 0) return { problem: `"${text}" has no duration (e.g. "R/PT2H"); start/end pairs of date-times are not allowed by the spec's interval format` };
  if (parts.length === 2 && parts.every(isDurationText)) return { problem: `"${text}" has two durations` };
  const every = parts[durationAt];
  const dp = durationProblem(every);
  if (dp) return { problem: dp };
  const everyMs = parseDuration(every);
  if (everyMs < 1000) return { problem: `"${every}" is shorter than one second` };
  const value: RecurringInterval = { every, everyMs };
  if (parts.length === 2) {
    const other = parseDateTime(parts[1 - durationAt], timezone);
    if (other.problem !== undefined) return { problem: other.problem };
    if (durationAt === 1) value.start = other.value;
    else value.end = other.value;
  }
  return { value };
}

const QUARTZ_ONLY = /[LW#]/i;

/** A cron expression as seven fields (see the module comment). */
export function parseCron(expression: unknown): Result<CronFields> {
  if (typeof expression !== 'string' || !expression.trim()) return { problem: 'a cron expression must be a non-empty string such as "0 * * * *"' };
  const f = expression.trim().split(/\s+/);
  const any = (s: string) => (s === '?' ? '*' : s);
  if (f.length === 5) {
    if (f.some((x) => x.includes('?'))) return { problem: `"${expression}": '?' belongs to the 6/7-field (seconds first) form` };
    const [minute, hour, dayOfMonth, month, dayOfWeek] = f;
    return { value: { second: '0', minute, hour, dayOfMonth, month, dayOfWeek, year: '*' } };
  }
  if (f.length === 6 || f.length === 7) {
    const bad = f.find((x) => QUARTZ_ONLY.test(x.replace(/[A-Z]{3}/gi, (w) => (QUARTZ_NAMES.has(w.toUpperCase()) ? 'N' : w))));
    if (bad) return { problem: `"${expression}": '${bad}' uses L, W or # (last, weekday, nth), which cannot be scheduled here` };
    const [second, minute, hour, dayOfMonth, month, dow, year = '*'] = f;
    const dayOfWeek = quartzDayOfWeek(any(dow));
    if (dayOfWeek === undefined) return { problem: `"${expression}": day-of-week '${dow}' is not 1-7 (Sunday = 1) or SUN-SAT` };
    return { value: { second, minute, hour, dayOfMonth: any(dayOfMonth), month, dayOfWeek, year } };
  }
  return { problem: `"${expression}" has ${f.length} fields; expected 5 (minute hour day month weekday) or 6/7 starting with seconds` };
}

const QUARTZ_NAMES = new Set(['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC', 'SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']);

/** Quartz day-of-week numbers (1 = Sunday … 7 = Saturday) as Unix ones (0 = Sunday); names unchanged. */
function quartzDayOfWeek(field: string): string | undefined {
  let ok = true;
  const out = field.replace(/\d+/g, (n, offset: number, whole: string) => {
    // A step (`/2`) is a count, not a day.
    if (whole[offset - 1] === '/') return n;
    const v = Number(n);
    if (v < 1 || v > 7) ok = false;
    return String(v - 1);
  });
  return ok ? out : undefined;
}
