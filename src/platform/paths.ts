/** Where swflow keeps what it builds (binaries) and what it persists (the dev server's SQLite). */
import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';

/** The project root: two levels above this file (src/platform; compiled, bin/compiled.js keeps `__dirname` the source's folder). */
export const PROJECT_ROOT = resolve(__dirname, '..', '..');

/**
 * swflow installed as a package (`npm install swflow`: PROJECT_ROOT is node_modules/swflow), not
 * a checkout. npm replaces that folder on every install or upgrade, and it may be read-only, so
 * what must outlive it goes to the user's folders instead (XDG base directories).
 */
export const INSTALLED_AS_PACKAGE = PROJECT_ROOT.split(sep).includes('node_modules');

/** $XDG_<kind>_HOME/swflow, else ~/<fallback>/swflow. */
function userDir(variable: 'XDG_CACHE_HOME' | 'XDG_DATA_HOME', fallback: string): string {
  return join(process.env[variable] || join(homedir(), fallback), 'swflow');
}

/**
 * Built binaries and class paths; safe to delete (they are rebuilt). `SWFLOW_CACHE` overrides; an
 * installed package's default is ~/.cache/swflow. (The swflow command's compiled JavaScript is in
 * <project>/.cache/js when it can be written: bin/compiled.js.)
 */
export function cacheDir(): string {
  return process.env.SWFLOW_CACHE ?? (INSTALLED_AS_PACKAGE ? userDir('XDG_CACHE_HOME', '.cache') : join(PROJECT_ROOT, '.cache'));
}

/** Data that must survive restarts (the dev server's database). `SWFLOW_DATA` overrides; an installed package's default is ~/.local/share/swflow. */
export function dataDir(): string {
  return process.env.SWFLOW_DATA ?? (INSTALLED_AS_PACKAGE ? userDir('XDG_DATA_HOME', join('.local', 'share')) : join(PROJECT_ROOT, '.data'));
}
