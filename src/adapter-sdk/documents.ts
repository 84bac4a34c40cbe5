/**
 * Where a function's document is — the OpenAPI document of a `rest` function, the proto file of
 * an `rpc` one, the AsyncAPI document of an `asyncapi` one: an http(s) URL as it is, a file in
 * the definition folders. Every adapter that reads such a document finds it the same way.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ActivityContext } from './define';
import { BoundedMap } from '../common/bounded-map';
import { AdapterError, ErrorCodes, operationError } from './errors';

/** Whether a document reference is an http(s) URL. */
export function isHttpUrl(document: string): boolean {
  return /^https?:\/\//i.test(document);
}

/**
 * Where a document reference points: http(s) URLs as they are; absolute paths as they are; other
 * files relative to `baseDirs` (the definition folders), the first that has it.
 * `file://myapis/x.json`, as the spec's examples write it, is read as the relative path
 * `myapis/x.json`. A file in none of them is a non-retryable `OperationError`.
 *
 * @param kind what the document is, for the message (`OpenAPI document`, `proto file`, ...)
 */
export function locateDocument(document: string, baseDirs: string[], kind = 'document'): string {
  if (isHttpUrl(document)) return document;
  let path = document;
  if (/^file:/i.test(document)) {
    const url = new URL(document);
    path = url.host && url.host !== 'localhost' ? `${url.host}${decodeURIComponent(url.pathname)}` : fileURLToPath(url);
  }
  if (isAbsolute(path)) return path;
  const candidates = baseDirs.map((dir) => resolve(dir, path));
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw operationError(`${kind} "${document}" not found (looked for ${candidates.join(', ') || path})`);
  return found;
}

/** Documents one adapter keeps loaded (least recently used go first; a dropped one is loaded again when called). */
export const DOCUMENT_CACHE_ENTRIES = 256;

/**
 * `load`, once per key while the key is among the `max` most recently used (concurrent calls share one load); a load that
 * fails is tried again by the next call. For the documents an adapter reads (a proto file, an
 * AsyncAPI document): they are read on a function's first call, not at every call.
 */
export function loadOnce<A extends unknown[], T>(load: (key: string, ...rest: A) => Promise<T>, max = DOCUMENT_CACHE_ENTRIES): (key: string, ...rest: A) => Promise<T> {
  const cache = new BoundedMap<string, Promise<T>>(max);
  return (key, ...rest) => {
    let p = cache.get(key);
    if (!p) {
      p = load(key, ...rest);
      cache.set(key, p);
      p.catch(() => cache.delete(key));
    }
    return p;
  };
}

/**
 * A document's text over http(s), fetched with the function's resource auth (else its
 * invocation auth). A 4xx answer is a non-retryable `OperationError` (the document is not there
 * for these credentials); anything else that fails, `OperationUnavailable` (it may be there next time).
 */
export async function fetchDocument(ctx: ActivityContext, url: string, kind = 'document'): Promise<string> {
  try {
    const { body } = await ctx.http({ method: 'GET', url }, { auth: ctx.resourceAuth ?? ctx.auth });
    return typeof body === 'string' ? body : JSON.stringify(body);
  } catch (err) {
    const status = Number((err as { code?: unknown }).code);
    const message = `${kind} ${url}: ${(err as Error).message}`;
    throw status >= 400 && status < 500 ? operationError(message, err) : new AdapterError(ErrorCodes.OperationUnavailable, message, { cause: err });
  }
}
