/** Where swflow keeps what it builds (binaries) and what it persists (the dev server's SQLite). */
import { join, resolve } from 'node:path';

/** The project root: two levels above this file (src/platform; compiled, bin/compiled.js keeps `__dirname` the source's folder). */
export const PROJECT_ROOT = resolve(__dirname, '..', '..');

/** Built binaries and class paths; safe to delete (they are rebuilt). `SWFLOW_CACHE` overrides. (The swflow command's compiled JavaScript is in <project>/.cache/js: bin/compiled.js.) */
export function cacheDir(): string {
  return process.env.SWFLOW_CACHE ?? join(PROJECT_ROOT, '.cache');
}

/** Data that must survive restarts (the dev server's database). `SWFLOW_DATA` overrides. */
export function dataDir(): string {
  return process.env.SWFLOW_DATA ?? join(PROJECT_ROOT, '.data');
}
