/**
 * `run.shell`, `run.script` and `run.container` processes (pure parts): the command line to start, and the
 * task's output per `return` (`stdout` by default, `stderr`, `code`, `all`: { code, stdout,
 * stderr }, `none`). A non-zero exit is a failure unless the output is the code (`code`, `all`).
 */
import { errorClass, SwflowError, type Json } from '../../src/adapter-sdk';

export interface ProcessSpec {
  kind: 'shell' | 'script' | 'container';
  /** shell: the command; script: the code. */
  code: string;
  language?: string;
  arguments?: string[];
  environment?: Record<string, string>;
  stdin?: string;
  return?: 'stdout' | 'stderr' | 'code' | 'all' | 'none';
  /** container: the image and how to run it (the command, if any, is `code`). */
  image?: string;
  name?: string;
  ports?: Record<string, string | number>;
  volumes?: Record<string, string>;
  pullPolicy?: 'ifNotPresent' | 'always' | 'never';
  /** `never` (the specification's default) keeps the container, `always` removes it when it exits, `eventually` after `afterMs`. */
  cleanup?: 'always' | 'never' | 'eventually';
  afterMs?: number;
}

/** The container engine a process worker runs `run.container` with: a podman- or docker-compatible CLI. */
export interface ContainerRuntime {
  /** The executable (default `podman`). */
  command: string;
  /** Extra `run` options the host needs (e.g. `--runtime runc`, `--ulimit …`). */
  runArgs: string[];
}

export interface ProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A spec swflow cannot run (an unknown script language): retrying cannot help. */
export class ProcessSpecError extends SwflowError {
  static {
    errorClass(this, 'ProcessSpecError');
  }
}

/** Whether the script is JavaScript (run from a file, so that `process.argv[2]` is the first argument, as the spec's example reads it). */
export function isJavaScript(spec: ProcessSpec): boolean {
  const lang = (spec.language ?? '').toLowerCase();
  return spec.kind === 'script' && (lang === 'js' || lang === 'javascript');
}

/**
 * The executable and argv: `sh -c <command> sh <args…>` (the arguments are `$1`, `$2`…);
 * `node <scriptFile.mjs> <args…>` for js/javascript (`process.argv[2…]`; `scriptFile` holds the
 * code); `python3 -c <code> <args…>` for python (`sys.argv[1…]`).
 */
export function commandLine(spec: ProcessSpec, scriptFile?: string): { file: string; args: string[] } {
  const args = spec.arguments ?? [];
  if (spec.kind === 'shell') return { file: 'sh', args: ['-c', spec.code, 'sh', ...args] };
  const lang = (spec.language ?? '').toLowerCase();
  if (isJavaScript(spec)) return { file: process.execPath, args: [scriptFile ?? '', ...args] };
  if (lang === 'python') return { file: 'python3', args: ['-c', spec.code, ...args] };
  throw new ProcessSpecError(`script language '${spec.language}' is not supported (js, javascript, python are)`);
}

const PULL: Record<string, string> = { ifNotPresent: 'missing', always: 'always', never: 'never' };

/**
 * `<engine> run -i [--rm] [--name n] [--pull p] [-p host:container…] [-v host:container…]
 * [-e K=V…] <runArgs…> <image> [sh -c <command> sh] <arguments…>`: the command is a shell script
 * (as in the reference's example, `$1`, `$2` are the arguments); without one the image's own
 * CMD gets the arguments. `ports` and `volumes` map host → container.
 */
export function containerCommandLine(spec: ProcessSpec, runtime: ContainerRuntime): { file: string; args: string[] } {
  if (!spec.image) throw new ProcessSpecError('run.container needs an image');
  const args = ['run', '-i'];
  if (spec.cleanup === 'always') args.push('--rm');
  if (spec.name) args.push('--name', spec.name);
  if (spec.pullPolicy) args.push(`--pull=${PULL[spec.pullPolicy] ?? 'missing'}`);
  for (const [host, container] of Object.entries(spec.ports ?? {})) args.push('-p', `${host}:${container}`);
  for (const [host, container] of Object.entries(spec.volumes ?? {})) args.push('-v', `${host}:${container}`);
  for (const [k, v] of Object.entries(spec.environment ?? {})) args.push('-e', `${k}=${v}`);
  args.push(...runtime.runArgs, spec.image);
  if (spec.code) args.push('sh', '-c', spec.code, 'sh');
  args.push(...(spec.arguments ?? []));
  return { file: runtime.command, args };
}

/** The task's output, or undefined when the exit code makes the run a failure. */
export function processOutput(spec: ProcessSpec, r: ProcessResult): { output: Json } | undefined {
  const mode = spec.return ?? 'stdout';
  if (mode === 'code') return { output: r.code };
  if (mode === 'all') return { output: { code: r.code, stdout: r.stdout, stderr: r.stderr } };
  if (r.code !== 0) return undefined;
  if (mode === 'none') return { output: null };
  return { output: mode === 'stderr' ? r.stderr : r.stdout };
}
