/**
 * The container engines the deployment tests (test/deploy/e2e) run on, for real:
 * - docker: Debian's docker.io daemon, started here when none answers (as root), with
 *   docker-compose; it runs health checks itself, which compose's start order waits on
 *   (podman 4.3 leaves health checks to systemd timers, and this sandbox has no systemd);
 * - podman, for `podman kube play` of the Helm chart's manifests, with the limits this sandbox
 *   allows (containersConf).
 * Images: deploy/images/build.sh makes swflow's image on bases built from Debian's packages
 * (no registry is reachable here) and caches them in the engine's image store.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = resolve(__dirname, '..', '..');
const CACHE = process.env.SWFLOW_CACHE ?? join(ROOT, '.cache');
const exec = promisify(execFile);

export interface Exec {
  code: number;
  out: string;
  err: string;
}

/** Runs a command to its end; never throws for a non-zero exit (the caller asserts). */
export async function sh(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number } = {}): Promise<Exec> {
  return new Promise((done) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', (e) => {
      err += String(e);
    });
    child.once('close', (code) => {
      if (timer) clearTimeout(timer);
      done({ code: code ?? -1, out, err });
    });
    // A command that exits without reading its input (most do) must not fail the caller with EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input ?? '');
  });
}

/** Like sh, but throws with the command's stderr when it fails. */
export async function must(cmd: string, args: string[], opts: Parameters<typeof sh>[2] = {}): Promise<string> {
  const r = await sh(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}: ${(r.err || r.out).trim().slice(-2000)}`);
  return r.out;
}

function answers(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore', timeout: 20_000 }).status === 0;
}

/** Makes sure a docker daemon answers: starts Debian's dockerd when none does (root only). */
export async function ensureDocker(log: (m: string) => void = () => {}): Promise<void> {
  if (!answers('docker', ['version'])) {
    if (!existsSync('/usr/sbin/dockerd') && !answers('which', ['dockerd'])) {
      throw new Error('no docker daemon answers and dockerd is not installed (apt-get install docker.io docker-compose)');
    }
    if (process.getuid?.() !== 0) throw new Error('no docker daemon answers, and only root can start dockerd here');
    mkdirSync(CACHE, { recursive: true });
    const logFile = openSync(join(CACHE, 'dockerd.log'), 'a');
    log('starting dockerd (its log: .cache/dockerd.log)');
    const child = spawn('dockerd', [], { detached: true, stdio: ['ignore', logFile, logFile] });
    child.unref();
    closeSync(logFile);
    const deadline = Date.now() + 60_000;
    while (!answers('docker', ['version'])) {
      if (Date.now() > deadline) throw new Error('dockerd did not answer within 60 s (see .cache/dockerd.log)');
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  if (!answers('docker-compose', ['version'])) throw new Error('docker-compose is not installed (apt-get install docker-compose)');
}

/**
 * podman's settings for this sandbox: runc (crun refuses its hybrid cgroups) and open-file and
 * process limits within the hard limits the sandbox gives (podman asks for more by default and
 * runc fails to set them). Returned as the environment to run podman with (CONTAINERS_CONF).
 */
export function podmanEnv(): NodeJS.ProcessEnv {
  const conf = join(CACHE, 'containers.conf');
  const hard = (flag: string, fallback: number) => {
    const r = spawnSync('sh', ['-c', `ulimit -H ${flag}`], { encoding: 'utf8' });
    const n = Number(r.stdout.trim());
    return Number.isFinite(n) && n > 0 ? Math.min(n, 1 << 20) : fallback;
  };
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(
    conf,
    `[containers]\ndefault_ulimits = ["nofile=${hard('-n', 1024)}:${hard('-n', 1024)}", "nproc=${hard('-u', 4096)}:${hard('-u', 4096)}"]\n[engine]\nruntime = "runc"\n`,
  );
  return { ...process.env, CONTAINERS_CONF: conf };
}

/**
 * swflow's image, built by deploy/images/build.sh on Debian-made bases (docker). Docker's layer
 * cache makes a rebuild of unchanged sources take seconds.
 */
export async function buildSwflowImage(tag: string, log: (m: string) => void = () => {}): Promise<{ image: string; ms: number }> {
  await ensureDocker(log);
  const started = Date.now();
  log(`building ${tag} (deploy/images/build.sh)`);
  await must(join(ROOT, 'deploy', 'images', 'build.sh'), [tag], { timeoutMs: 30 * 60_000 });
  return { image: tag, ms: Date.now() - started };
}

/** The image's size as the engine reports it, in MB. */
export async function imageSizeMb(image: string, engine = 'docker'): Promise<number> {
  const { stdout } = await exec(engine, ['image', 'inspect', image, '--format', '{{.Size}}']);
  return Math.round(Number(stdout.trim()) / 1e6);
}

/** Copies an image from docker's store into podman's (for `podman kube play`). */
export async function dockerToPodman(image: string): Promise<void> {
  const r = spawnSync('sh', ['-c', `docker save ${image} | podman load`], { env: podmanEnv(), encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`docker save ${image} | podman load failed: ${r.stderr}`);
}

/** A container's state as docker-compose stacks report it: running / exited, health, exit code. */
export interface ServiceState {
  status: string;
  health?: string;
  exitCode: number;
}

/**
 * A docker-compose stack (its files, read from `cwd`, with `env()`'s variables, asked at each call):
 * `run` a command to its end, `must` (which fails with the command's output and the logs' last
 * `tail` lines), the logs, and a service's container state.
 */
export function composeStack(files: string[], cwd: string, env: () => NodeJS.ProcessEnv, tail: number) {
  const run = (args: string[], timeoutMs = 10 * 60_000) => sh('docker-compose', [...files.flatMap((f) => ['-f', f]), ...args], { cwd, env: env(), timeoutMs });
  const logs = async (): Promise<string> => (await run(['logs', '--no-color', '--tail', String(tail)])).out.slice(-6000);
  return {
    run,
    logs,
    async must(args: string[], timeoutMs?: number): Promise<string> {
      const r = await run(args, timeoutMs);
      if (r.code !== 0) throw new Error(`docker-compose ${args.join(' ')} exited ${r.code}:\n${(r.err + r.out).slice(-4000)}\n${await logs()}`);
      return r.out;
    },
    async state(service: string): Promise<ServiceState | undefined> {
      const id = (await run(['ps', '-a', '-q', service])).out.trim().split('\n')[0];
      if (!id) return undefined;
      const r = await sh('docker', ['inspect', id, '--format', '{{json .State}}']);
      if (r.code !== 0) return undefined;
      const s = JSON.parse(r.out);
      return { status: s.Status, health: s.Health?.Status, exitCode: s.ExitCode };
    },
  };
}
