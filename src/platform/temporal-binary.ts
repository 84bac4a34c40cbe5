/**
 * Finds the Temporal CLI (dev server + Web UI), building it when needed; never downloads a
 * prebuilt binary at run time unless Go is missing.
 *
 * Order: $TEMPORAL_CLI → `temporal` on PATH → the project's cache → `go install` into that
 * cache → undefined, meaning "let @temporalio/testing download its own" (needs internet).
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir } from './paths';

/** The last tag that can be `go install`ed: later ones carry replace directives. */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export interface ResolvedBinary {
  path: string;
  /** Where it came from, for banners and notes. */
  source: 'env' | 'path' | 'cache' | 'built';
  /** Milliseconds spent building it, when it was built now. */
  buildMs?: number;
}

export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

export function hasGo(): boolean {
  return spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
}

export function cachedTemporalCliPath(): string {
  return join(cacheDir(), 'bin', 'temporal');
}

/** Resolves the Temporal CLI; `undefined` only when it cannot be found or built here. */
export async function resolveTemporalCli(log: (msg: string) => void = () => {}): Promise<ResolvedBinary | undefined> {
  const fromEnv = process.env.TEMPORAL_CLI;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`TEMPORAL_CLI points to ${fromEnv}, which does not exist`);
    return { path: fromEnv, source: 'env' };
  }
  const onPath = findOnPath('temporal');
  if (onPath) return { path: onPath, source: 'path' };
  const cached = cachedTemporalCliPath();
  if (existsSync(cached)) return { path: cached, source: 'cache' };
  if (!hasGo()) return undefined;

  const gobin = join(cacheDir(), 'bin');
  mkdirSync(gobin, { recursive: true });
  log(`Building the Temporal CLI once (go install ${TEMPORAL_CLI_MODULE}); this takes a few minutes...`);
  const started = Date.now();
  try {
    await promisify(execFile)('go', ['install', TEMPORAL_CLI_MODULE], {
      env: { ...process.env, GOBIN: gobin },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`go install ${TEMPORAL_CLI_MODULE} failed: ${e.stderr?.trim() || e.message}`);
  }
  return { path: cached, source: 'built', buildMs: Date.now() - started };
}
