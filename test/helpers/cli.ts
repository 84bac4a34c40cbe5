/** The real `swflow` CLI (bin/swflow.js) as a child process, against a test's Temporal server. */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** Runs `swflow <args>` to its end with TEMPORAL_ADDRESS = `address`; its exit code and output. */
export function runSwflow(address: string, args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((done) => child.once('exit', (code) => done({ code, out, err })));
}
