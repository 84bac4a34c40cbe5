/**
 * What a 1.0 run publishes in the `SwAwaitedEvents` search attribute while a `listen` (or a
 * `schedule.on` start) waits, and what the gateway looks up there for an event: one shared,
 * pure definition of the entries, so both sides compute the same strings. Sandbox-safe (no Node
 * imports).
 *
 * - A filter whose `with.type` is a string (a literal type, or a regular expression as written)
 *   is published as that string; one without a usable type (an expression, none, `any: []`) as `*`.
 * - A filter with `correlate` whose every value is known while the run waits (an `expect`, or a
 *   value fixed by an earlier event of the run) is published as `<type>#<key>=<value>` (keys
 *   sorted, `#`-separated; a string as it is, any other value as canonical JSON; `%`, `"`, `#`
 *   and `♡` percent-escaped: the dev server's SQLite visibility reads a KeywordList value inside
 *   an FTS5 string, where `"` is a syntax error, and `♡` separates the list's values): the
 *   gateway computes the same entry from the event, so an event reaches only the instances
 *   waiting for its correlation values. When a value is not known yet, or a `from` reads more
 *   than the event (`$context`, …), the plain type is published. An entry only narrows whom the
 *   gateway signals; the run's own filter still decides what it consumes.
 */
import type { Json } from './model';
import type { ConsumptionStrategy, EventFilter } from './model-v1';

/** Any event type (a filter without a literal type, `any: []`). */
export const ANY_TYPE = '*';

/** The entry of a filter's event type: the string it gives for `type`, else `*`. */
export function typeEntry(filter: EventFilter | undefined): string {
  const t = filter?.with?.type;
  return typeof t === 'string' && !t.includes('${') ? t : ANY_TYPE;
}

/** JSON with object keys sorted (the same value gives the same text on both sides). */
export function canonicalJson(v: Json | undefined): string {
  if (v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, Json>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, Json>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** A correlation value in an entry: a string as it is, else canonical JSON; characters visibility or the entry syntax would misread are percent-escaped. */
export function entryValue(v: Json): string {
  const text = typeof v === 'string' ? v : canonicalJson(v);
  return text.replace(/[%"#\u2661]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** `<type>#<key>=<value>#…` with the keys sorted. */
export function correlationEntry(type: string, values: Record<string, Json>): string {
  return [type, ...Object.keys(values).sort().map((k) => `${k}=${entryValue(values[k])}`)].join('#');
}

/** Whether a `correlate.from` reads the event alone (no `$` variable), so the gateway can evaluate it too. */
export function readsEventOnly(from: string): boolean {
  return !/\$[A-Za-z_]/.test(from.replace(/"(?:[^"\\]|\\.)*"/g, '""'));
}

/** Longer qualified entries are not published (the plain type is): visibility stores keep keywords short. */
export const MAX_ENTRY_LENGTH = 255;

/**
 * The entry a run publishes for a filter it waits on: the correlation-qualified entry when every
 * correlation value is known (`known(key)` returns it, or undefined) and the entry is at most
 * MAX_ENTRY_LENGTH characters long, else the plain type (which the gateway always looks up too).
 */
export function awaitedEntry(filter: EventFilter | undefined, known: (key: string) => Json | undefined): string {
  const type = typeEntry(filter);
  const correlate = Object.entries(filter?.correlate ?? {});
  if (!correlate.length) return type;
  const values: Record<string, Json> = {};
  for (const [key, c] of correlate) {
    const v = known(key);
    if (v === undefined || !readsEventOnly(c.from)) return type;
    values[key] = v;
  }
  const entry = correlationEntry(type, values);
  return entry.length <= MAX_ENTRY_LENGTH ? entry : type;
}

/** Whether a string is one runtime expression (`${ … }`, surrounding whitespace allowed). */
export function isFilterExpression(s: string): boolean {
  return /^\s*\$\{[\s\S]*\}\s*$/.test(s);
}

/**
 * Whether a filter's `with` value matches an event attribute: a string is equal or matches as an
 * anchored regular expression, an object matches key by key, other values are equal; a runtime
 * expression is left to `expression` (the run evaluates it; the gateway says it may match).
 */
export function attributeMatches(want: Json, have: Json | undefined, expression: (expr: string, have: Json | undefined) => boolean): boolean {
  if (typeof want === 'string') {
    if (isFilterExpression(want)) return expression(want, have);
    if (have === want) return true;
    if (typeof have !== 'string') return false;
    try {
      return new RegExp(`^(?:${want})$`).test(have);
    } catch {
      return false;
    }
  }
  if (want && typeof want === 'object' && !Array.isArray(want)) {
    if (!have || typeof have !== 'object' || Array.isArray(have)) return false;
    return Object.entries(want).every(([k, v]) => attributeMatches(v, (have as Record<string, Json>)[k], expression));
  }
  return JSON.stringify(want) === JSON.stringify(have);
}

/** Every filter of a consumption strategy, its `until` strategy's included; `any: []` is one filter that matches every event. */
export function strategyFilters(s: ConsumptionStrategy | undefined): EventFilter[] {
  if (!s || typeof s !== 'object') return [];
  const out: EventFilter[] = [];
  if (s.one) out.push(s.one);
  if (s.all) out.push(...s.all);
  if (s.any) out.push(...(s.any.length ? s.any : [{}]));
  if (s.until && typeof s.until === 'object') out.push(...strategyFilters(s.until));
  return out;
}
