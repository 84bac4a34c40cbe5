/**
 * Builds a Go program of the repository (e.g. examples/adapters/go-stock) with the Go toolchain,
 * once per version of its sources: the binary is cached under the project's cache
 * (`$SWFLOW_CACHE/bin/<name>-<hash>`), as src/platform caches the Temporal CLI.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir } from '../../src/platform/paths';
import { hasGo } from '../../src/platform/temporal-binary';

export async function buildGoProgram(dir: string, log: (m: string) => void = () => {}): Promise<string> {
  if (!hasGo()) throw new Error('the Go toolchain (go) is needed to build the Go adapter');
  const hash = createHash('sha256');
  for (const f of readdirSync(dir).filter((f) => /\.go$|^go\.(mod|sum)$/.test(f)).sort()) hash.update(f).update(readFileSync(join(dir, f)));
  const binary = join(cacheDir(), 'bin', `${basename(dir)}-${hash.digest('hex').slice(0, 12)}`);
  if (existsSync(binary)) return binary;
  mkdirSync(join(cacheDir(), 'bin'), { recursive: true });
  const started = Date.now();
  log(`building ${dir} with go build (cached as ${binary})...`);
  await promisify(execFile)('go', ['build', '-o', binary, '.'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 }).catch((err: { stderr?: string; message: string }) => {
    throw new Error(`go build in ${dir} failed: ${err.stderr?.trim() || err.message}`);
  });
  log(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return binary;
}
