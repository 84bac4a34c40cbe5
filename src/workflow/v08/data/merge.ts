/**
 * The spec's data-merging rules (0.8, "Data Merging"), pure and sandbox-safe:
 * - objects merge key by key, recursively; the new value wins on conflicts;
 * - arrays concatenate, keeping unique elements (deep equality), existing ones first;
 * - anything else (scalars, or values of different kinds) is overwritten by the new value.
 */
import type { Json } from '../../../common/model';

export function isObject(v: unknown): v is { [key: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as any)[k], (b as any)[k]));
}

/** Merges `source` into `target` (neither is mutated). */
export function merge(target: Json | undefined, source: Json | undefined): Json {
  if (source === undefined) return target === undefined ? null : target;
  if (target === undefined || target === null) return source;
  if (isObject(target) && isObject(source)) {
    const out: { [key: string]: Json } = { ...target };
    for (const [k, v] of Object.entries(source)) {
      out[k] = k in target ? merge(target[k], v) : v;
    }
    return out;
  }
  if (Array.isArray(target) && Array.isArray(source)) {
    const out: Json[] = [...target];
    for (const v of source) if (!out.some((x) => deepEqual(x, v))) out.push(v);
    return out;
  }
  return source;
}

export type PathSeg = string | number;

export function getAtPath(data: Json | undefined, path: PathSeg[]): Json | undefined {
  let cur: Json | undefined = data;
  for (const seg of path) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined;
    cur = (cur as any)[seg as any];
  }
  return cur;
}

/** Returns a copy of `data` with `value` at `path`, creating missing objects/arrays. */
export function setAtPath(data: Json | undefined, path: PathSeg[], value: Json): Json {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const arr: Json[] = Array.isArray(data) ? [...data] : [];
    while (arr.length < head) arr.push(null);
    arr[head] = setAtPath(arr[head], rest, value);
    return arr;
  }
  const obj: { [key: string]: Json } = isObject(data) ? { ...data } : {};
  obj[head] = setAtPath(obj[head], rest, value);
  return obj;
}

/**
 * Returns a copy of `data` without what is at `path` (an object's key removed, an array's element
 * set to null; `null` for the empty path). Only the objects and arrays along the path are copied.
 */
export function withoutPath(data: Json, path: PathSeg[]): Json {
  if (path.length === 0) return null;
  const [head, ...rest] = path;
  if (Array.isArray(data) && typeof head === 'number' && head < data.length) {
    const arr = [...data];
    arr[head] = rest.length ? withoutPath(arr[head], rest) : null;
    return arr;
  }
  if (!isObject(data) || typeof head !== 'string' || !(head in data)) return data;
  if (!rest.length) {
    const { [head]: _removed, ...others } = data;
    return others;
  }
  return { ...data, [head]: withoutPath(data[head], rest) };
}

/** Merges `value` into whatever is at `path` in `data` (creating the path when missing). */
export function mergeAtPath(data: Json, path: PathSeg[], value: Json): Json {
  if (path.length === 0) return merge(data, value);
  return setAtPath(data, path, merge(getAtPath(data, path), value));
}
