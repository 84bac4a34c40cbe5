/**
 * CloudEvents attribute names, and the near misses of them that validation warns about (a
 * listen's filter or an emitted event in 1.0, a correlation's contextAttributeName in 0.8):
 * extension attributes are allowed, so only a name very close to a core attribute counts.
 */

/** The CloudEvents 1.0 core context attributes, and `data`. */
export const CORE_ATTRIBUTES = ['id', 'source', 'specversion', 'type', 'datacontenttype', 'dataschema', 'subject', 'time', 'data'];
/** Extension attributes documented by CloudEvents (never a typo). */
export const KNOWN_EXTENSIONS = new Set(['traceparent', 'tracestate', 'partitionkey', 'dataref', 'sequence', 'sequencetype', 'sampledrate', 'authtype', 'authid', 'recordedtime', 'expirytime', 'deprecated', 'deprecationfrom', 'deprecationsunset', 'sunset', 'severitytext', 'severitynumber', 'comexampleextension1', 'comexampleextension2']);

/**
 * The core attribute `key` is a near miss of, unless `keys` already give it. Case alone counts in a
 * filter (events carry lower-case names: `dataContentType` never matches), not in an emitted event
 * (swflow lower-cases its attribute names: src/workflow/v1/tasks/emit.ts).
 */
export function nearAttribute(key: string, keys: string[], filter: boolean): string | undefined {
  if (CORE_ATTRIBUTES.includes(key) || KNOWN_EXTENSIONS.has(key)) return undefined;
  const lower = key.toLowerCase();
  for (const a of CORE_ATTRIBUTES) {
    if (keys.includes(a)) continue;
    if (lower === a) {
      if (filter) return a;
      continue;
    }
    if (key.length < 3 || a === 'id') continue;
    if (a.length > 4 ? distance(lower, a) <= 2 : nearShort(lower, a)) return a;
  }
  return undefined;
}

/**
 * A near miss of a short name (type, time, data): one letter missing or extra, or two swapped. A
 * changed letter is not (`date`, `tame` are words of their own, likely extensions).
 */
function nearShort(key: string, a: string): boolean {
  if (distance(key, a) !== 1) return false;
  return key.length !== a.length || [...key].sort().join('') === [...a].sort().join('');
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions: `tpye` is 1 from `type`). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
