/**
 * The tools that check the Helm chart (deploy/helm/swflow): Helm itself and the offline manifest
 * validator (deploy/helm/validate, k8s.io/api types). Both are Go programs built once with the Go
 * toolchain from the module proxy and cached under the project's cache, as src/platform does for
 * the Temporal CLI: `$HELM` or `helm` on PATH win over building.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir } from '../../src/platform/paths';
import { findOnPath, hasGo } from '../../src/platform/temporal-binary';
import { buildGoProgram } from './go-build';

/** The Helm release `go install`ed when no helm is found (v3.22 builds with Go 1.26). */
export const HELM_MODULE = 'helm.sh/helm/v3/cmd/helm@v3.22.0';

export async function resolveHelm(log: (m: string) => void = () => {}): Promise<string> {
  if (process.env.HELM) {
    if (!existsSync(process.env.HELM)) throw new Error(`HELM points to ${process.env.HELM}, which does not exist`);
    return process.env.HELM;
  }
  const onPath = findOnPath('helm');
  if (onPath) return onPath;
  const gobin = join(cacheDir(), 'bin', 'helm-v3.22.0');
  const cached = join(gobin, 'helm');
  if (existsSync(cached)) return cached;
  if (!hasGo()) throw new Error('Helm is needed to check the chart: put helm on PATH (or set HELM), or install Go to build it');
  mkdirSync(gobin, { recursive: true });
  log(`building Helm once (go install ${HELM_MODULE}); this takes a few minutes...`);
  const started = Date.now();
  await promisify(execFile)('go', ['install', HELM_MODULE], { env: { ...process.env, GOBIN: gobin }, maxBuffer: 64 * 1024 * 1024 }).catch((err: { stderr?: string; message: string }) => {
    throw new Error(`go install ${HELM_MODULE} failed: ${err.stderr?.trim() || err.message}`);
  });
  log(`Helm built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return cached;
}

export const VALIDATOR_DIR = resolve(__dirname, '..', '..', 'deploy', 'helm', 'validate');

export function buildValidator(log: (m: string) => void = () => {}): Promise<string> {
  return buildGoProgram(VALIDATOR_DIR, log);
}
