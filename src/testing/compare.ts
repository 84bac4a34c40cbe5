/** JSON comparison for test expectations: exact equality, recursive subsets, readable diffs. */
import type { Json } from '../common/model';

/** Exact JSON equality (object key order does not matter; array order does). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (Array.isArray(b)) return false;
  if (typeof a === 'object') {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
    const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
    if (ak.length !== bk.length) return false;
    return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && jsonEqual(ao[k], bo[k]));
  }
  return false;
}

/**
 * Whether `actual` contains `expected`: objects recursively (every expected key present
 * with a contained value), everything else (arrays, scalars) exactly.
 * Returns the JSON path of the first mismatch, or undefined when contained.
 */
export function subsetMismatch(expected: unknown, actual: unknown, path = '$'): string | undefined {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return path;
    for (const [k, v] of Object.entries(expected as Record<string, unknown>)) {
      const sub = /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
      if (!Object.prototype.hasOwnProperty.call(actual, k)) return sub;
      const m = subsetMismatch(v, (actual as Record<string, unknown>)[k], sub);
      if (m) return m;
    }
    return undefined;
  }
  return jsonEqual(expected, actual) ? undefined : path;
}

/** Stable pretty JSON (keys sorted) so diffs show real differences only. */
export function prettyJson(v: unknown): string {
  return JSON.stringify(sortKeys(v), null, 2) ?? 'undefined';
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** A unified-style line diff ("- expected", "+ actual") of two JSON values. */
export function jsonDiff(expected: unknown, actual: unknown): string {
  const a = prettyJson(expected).split('\n');
  const b = prettyJson(actual).split('\n');
  return lineDiff(a, b).join('\n');
}

/** Line diff via LCS; unchanged lines are prefixed with two spaces. */
export function lineDiff(a: string[], b: string[]): string[] {
  const n = a.length;
  const m = b.length;
  if (n * m > 4_000_000) return [...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)];
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push(`- ${a[i++]}`);
    else out.push(`+ ${b[j++]}`);
  }
  while (i < n) out.push(`- ${a[i++]}`);
  while (j < m) out.push(`+ ${b[j++]}`);
  return out;
}

export function compact(v: unknown, max = 200): string {
  const s = JSON.stringify(v) ?? 'undefined';
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

export type { Json };
