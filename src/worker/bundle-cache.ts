/**
 * The interpreter's workflow bundle kept on disk by what it was built from, so that a worker
 * starts without webpack when nothing changed: a restarted `swflow worker` was 8–9 s from start
 * to ready on 2 cores, most of it bundling (bench/worker-restart.ts measures it).
 *
 * An entry is the bundle's code and a manifest of what webpack read to make it: every file with
 * its content hash, and every path it looked for and did not find (a file added there could change
 * how an import resolves). A lookup re-hashes those files (a few MB, tens of ms) and checks the
 * missing paths are still missing; any difference is a miss, and the next bundle replaces the
 * entry. The entry's name holds the rest of what decides the output: the bundle's options, the
 * bundler's versions, the code that post-processes its output (./interpreter-worker.ts) and
 * where this copy of swflow is.
 *
 * The cache lives under cacheDir()/bundles (SWFLOW_CACHE; an installed package's is the user's
 * cache). SWFLOW_BUNDLE_CACHE=off bundles every time. A cache that cannot be written is skipped.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, PROJECT_ROOT } from '../platform/paths';

/** What a bundle is made with, beside its sources. */
export interface BundleVariant {
  tracing: boolean;
  stackTraces: boolean;
}

/** What webpack read for a bundle (its compilation's file and missing dependencies). */
export interface BundleInputs {
  files: Iterable<string>;
  missing: Iterable<string>;
}

interface Manifest {
  /** The code's file in the cache folder (named by the code's hash: never rewritten). */
  code: string;
  files: Record<string, string>;
  missing: string[];
}

/** Code files kept per variant: older ones go. */
const KEEP = 4;

/** `SWFLOW_WORKFLOW_STACK_TRACES=1`: the sandbox keeps Node's stack traces (debugging the interpreter; costs CPU per promise). */
export function workflowStackTraces(env: NodeJS.ProcessEnv = process.env): boolean {
  return /^(1|true|yes|on)$/i.test(env.SWFLOW_WORKFLOW_STACK_TRACES ?? '');
}

export function bundleCacheEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !/^(0|off|false|no)$/i.test(env.SWFLOW_BUNDLE_CACHE ?? '');
}

/** Where entries are written: the cache folder's `bundles`. */
export function bundleCacheFolder(): string {
  return join(cacheDir(), 'bundles');
}

/** Where entries are looked for: the cache, then the project's own (an image's, made by `swflow bundle` at build time, when SWFLOW_CACHE points elsewhere). */
function lookupFolders(): string[] {
  return [...new Set([bundleCacheFolder(), join(PROJECT_ROOT, '.cache', 'bundles')])];
}

const sha = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** A package's version as installed here, or '-' (the key changes when the bundler does). */
function versionOf(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    return '-';
  }
}

/** The entry's name for `variant`: its options, the bundler's versions and the post-processing code. */
const label = (variant: BundleVariant): string => `interpreter-${variant.tracing ? 'traced' : 'plain'}${variant.stackTraces ? '-stacks' : ''}`;

/** The entry's name (`home`: where this copy of swflow's src/worker is). */
export function entryName(variant: BundleVariant, home = __dirname): string {
  const bundler = ['@temporalio/worker', '@temporalio/workflow', 'webpack', '@swc/core', 'swc-loader'].map((p) => `${p}@${versionOf(p)}`).join(',');
  const own = ['interpreter-worker', 'bundle-cache'].map((m) => {
    const file = join(home, `${m}.ts`);
    return existsSync(file) ? readFileSync(file) : readFileSync(require.resolve(`./${m}`));
  });
  // This copy of swflow's folder too: two checkouts (or installs) sharing a cache each keep their
  // own entry, whose manifest names their own files.
  return `${label(variant)}-${sha(Buffer.concat([Buffer.from(`${bundler}\0${home}\0`), ...own])).slice(0, 16)}`;
}

function fileHash(path: string): string | undefined {
  try {
    return sha(readFileSync(path));
  } catch {
    return undefined;
  }
}

/** The cached bundle's code file for `variant` when it was built from the files as they are now; else undefined. */
export function cachedBundlePath(variant: BundleVariant): string | undefined {
  if (!bundleCacheEnabled()) return undefined;
  const name = entryName(variant);
  for (const dir of lookupFolders()) {
    const code = validEntry(dir, name);
    if (code) return code;
  }
  return undefined;
}

function validEntry(dir: string, name: string): string | undefined {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
  const code = join(dir, manifest.code);
  if (!existsSync(code)) return undefined;
  for (const [file, hash] of Object.entries(manifest.files)) if (fileHash(file) !== hash) return undefined;
  for (const path of manifest.missing) if (existsSync(path)) return undefined;
  return code;
}

/** Keeps `code`, built for `variant` from `inputs`; false when the cache cannot be written (the caller has its bundle anyway). */
export function storeBundle(variant: BundleVariant, code: string, inputs: BundleInputs): boolean {
  if (!bundleCacheEnabled()) return false;
  const dir = bundleCacheFolder();
  try {
    mkdirSync(dir, { recursive: true });
    const name = entryName(variant);
    const codeFile = `${name}.${sha(code).slice(0, 16)}.js`;
    const files: Record<string, string> = {};
    for (const file of [...inputs.files].sort()) {
      // Folders (resolution's lookups) and the SDK's generated entry point, which lives in memory
      // (what it holds follows from the variant and the SDK's version, both in the entry's name).
      if (!existsSync(file) || statSync(file).isDirectory()) continue;
      const hash = fileHash(file);
      if (hash === undefined) return false;
      files[file] = hash;
    }
    const manifest: Manifest = { code: codeFile, files, missing: [...inputs.missing].filter((p) => !existsSync(p)).sort() };
    // Written aside and renamed: a concurrent reader sees the old entry or the new one, whole.
    const tmp = `.${process.pid}.${Date.now()}`;
    writeFileSync(join(dir, codeFile + tmp), code);
    renameSync(join(dir, codeFile + tmp), join(dir, codeFile));
    writeFileSync(join(dir, `${name}.json${tmp}`), JSON.stringify(manifest));
    renameSync(join(dir, `${name}.json${tmp}`), join(dir, `${name}.json`));
    prune(dir, label(variant), codeFile);
    return true;
  } catch {
    return false;
  }
}

/** Drops the oldest code files of a variant past KEEP (a worker starting from one has read it already, or finds it missing and bundles). */
function prune(dir: string, variantLabel: string, keep: string): void {
  const ofVariant = new RegExp(`^${variantLabel}-[0-9a-f]{16}\\.[0-9a-f]{16}\\.js$`);
  const mine = readdirSync(dir)
    .filter((f) => ofVariant.test(f) && f !== keep)
    .map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { f } of mine.slice(KEEP - 1)) rmSync(join(dir, f), { force: true });
}
