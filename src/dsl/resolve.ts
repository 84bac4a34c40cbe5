/**
 * Loading external resources a definition refers to by URI (`functions: "file://defs.json"`,
 * `dataInputSchema: "schema.json"`, `https://...`).
 *
 * Relative paths and `file://relative` are resolved against the definition's directory first,
 * then against `includeDirs` (given by the caller, e.g. `swflow validate -I dir`), never by
 * guessing. `file:///abs` is absolute. http(s) is fetched with a timeout. When the definition
 * itself came from an http(s) URL, relative references resolve against that URL.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { SourceDoc } from './source';

export interface ResolveOptions {
  /** Directory (or http(s) URL) the definition came from. */
  baseDir?: string;
  /** More directories to look in for relative references, after baseDir. */
  includeDirs?: string[];
  /** Timeout for http(s) fetches (ms). Default 10000. */
  fetchTimeoutMs?: number;
}

export type Loaded = { ok: true; doc: SourceDoc; location: string } | { ok: false; message: string; hint?: string };

const isHttp = (s: string) => /^https?:\/\//i.test(s);

export class Resolver {
  private cache = new Map<string, Promise<Loaded>>();
  constructor(private opts: ResolveOptions) {}

  load(uri: string): Promise<Loaded> {
    let p = this.cache.get(uri);
    if (!p) {
      p = this.doLoad(uri);
      this.cache.set(uri, p);
    }
    return p;
  }

  private async doLoad(uri: string): Promise<Loaded> {
    const base = this.opts.baseDir;
    if (isHttp(uri)) return this.fetchUri(uri);
    if (base && isHttp(base) && !/^[a-z][a-z0-9+.-]*:/i.test(uri)) return this.fetchUri(new URL(uri, base.endsWith('/') ? base : base + '/').toString());
    let rel: string;
    if (/^file:\/\//i.test(uri)) {
      rel = decodeURIComponent(uri.slice('file://'.length));
      if (rel.startsWith('/')) return this.readFile(rel, uri);
    } else if (/^[a-z][a-z0-9+.-]+:/i.test(uri) && !/^[a-z]:[\\/]/i.test(uri)) {
      return { ok: false, message: `cannot load "${uri}": unsupported URI scheme "${uri.split(':')[0]}:"`, hint: 'use a relative path, file:// or http(s)://' };
    } else {
      rel = uri;
      if (path.isAbsolute(rel)) return this.readFile(rel, uri);
    }
    const dirs = [base ?? process.cwd(), ...(this.opts.includeDirs ?? [])].filter((d) => !isHttp(d));
    for (const d of dirs) {
      const abs = path.resolve(d, rel);
      try {
        await fs.access(abs);
        return this.readFile(abs, uri);
      } catch {
        /* try the next directory */
      }
    }
    return {
      ok: false,
      message: `cannot read "${uri}": no such file (looked in ${dirs.map((d) => path.resolve(d, rel)).join(', ')})`,
      hint: 'relative references resolve against the definition\'s directory; add directories with --include',
    };
  }

  private async readFile(abs: string, uri: string): Promise<Loaded> {
    try {
      const text = await fs.readFile(abs, 'utf8');
      return { ok: true, doc: new SourceDoc(abs, text), location: abs };
    } catch (err) {
      return { ok: false, message: `cannot read "${uri}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
    }
  }

  private async fetchUri(url: string): Promise<Loaded> {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(this.opts.fetchTimeoutMs ?? 10000) });
      if (!res.ok) return { ok: false, message: `cannot fetch "${url}": HTTP ${res.status} ${res.statusText}` };
      const text = await res.text();
      return { ok: true, doc: new SourceDoc(url, text), location: url };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const why = e.name === 'TimeoutError' ? 'timed out' : e.cause?.code ?? e.cause?.message ?? e.message;
      return { ok: false, message: `cannot fetch "${url}": ${why}` };
    }
  }
}
