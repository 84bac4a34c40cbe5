/**
 * Shell commands, scripts and containers of 1.0 `run` tasks (activities `sw.run.shell`,
 * `sw.run.script`, `sw.run.container`: a podman- or docker-compatible engine's `run`),
 * served ONLY by a worker started for them on the opt-in `swflow-processes` queue
 * (`swflow start --allow-processes`, or `swflow processes`): they execute arbitrary code with
 * the worker's rights, so no worker serves them unless its operator says so. The process gets
 * the worker's PATH plus the task's `environment`, and `stdin`; it is killed when the activity
 * is cancelled (a task timeout).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { PROCESS_ACTIVITY_OF_KIND, type FunctionCall, type Json } from '../../src/adapter-sdk';
import { commandLine, containerCommandLine, isJavaScript, processOutput, ProcessSpecError, type ContainerRuntime, type ProcessResult, type ProcessSpec } from './process';

/** The container engine: `SWFLOW_CONTAINER_ENGINE` (default podman) with `SWFLOW_CONTAINER_RUN_ARGS` (space-separated run options). */
export function containerRuntimeFromEnv(env: NodeJS.ProcessEnv = process.env): ContainerRuntime {
  return { command: env.SWFLOW_CONTAINER_ENGINE || 'podman', runArgs: (env.SWFLOW_CONTAINER_RUN_ARGS ?? '').split(/\s+/).filter(Boolean) };
}

const RUNTIME_ERROR = 'https://serverlessworkflow.io/spec/1.0.0/errors/runtime';

function problem(status: number, title: string, detail: string, nonRetryable: boolean): never {
  throw ApplicationFailure.create({ type: RUNTIME_ERROR, message: `${title}: ${detail}`, nonRetryable, details: [{ type: RUNTIME_ERROR, status, title, detail, code: String(status), message: detail }] });
}

function execute(file: string, args: string[], spec: ProcessSpec): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    // A container's environment goes in with `-e`; the engine itself runs in the worker's.
    const env = spec.kind === 'container' ? process.env : { PATH: process.env.PATH ?? '', ...(spec.environment ?? {}) };
    const child = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
    const signalCancel = Context.current().cancellationSignal;
    signalCancel.addEventListener('abort', () => child.kill('SIGTERM'));
    child.stdin.on('error', () => undefined); // EPIPE: the process exited without reading its stdin
    child.stdin.end(spec.stdin ?? '');
  });
}

export async function runProcess(call: FunctionCall, runtime: ContainerRuntime = containerRuntimeFromEnv()): Promise<Json> {
  const spec = call.arguments as unknown as ProcessSpec;
  const dir = isJavaScript(spec) ? await mkdtemp(join(tmpdir(), 'swflow-script-')) : undefined;
  let result: ProcessResult;
  try {
    let line: { file: string; args: string[] };
    try {
      if (dir) await writeFile(join(dir, 'script.mjs'), spec.code);
      line = spec.kind === 'container' ? containerCommandLine(spec, runtime) : commandLine(spec, dir && join(dir, 'script.mjs'));
    } catch (err) {
      if (err instanceof ProcessSpecError) problem(400, 'Configuration Error', `${call.state}: ${err.message}`, true);
      throw err;
    }
    try {
      result = await execute(line.file, line.args, spec);
    } catch (err) {
      problem(500, 'Process could not start', `${call.state}: ${(err as Error).message}`, true);
    }
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
  // lifetime.cleanup: eventually: the container is removed that long after it exits (by this worker).
  if (spec.kind === 'container' && spec.cleanup === 'eventually' && spec.name) {
    const name = spec.name;
    setTimeout(() => spawn(runtime.command, ['rm', '-f', name], { stdio: 'ignore' }).on('error', () => undefined), Math.max(0, spec.afterMs ?? 0)).unref();
  }
  const out = processOutput(spec, result);
  if (!out) problem(500, 'Process failed', `${call.state}: exit code ${result.code}${result.stderr ? `: ${result.stderr.trim().slice(0, 1000)}` : ''}`, true);
  return out.output;
}

/** The process activities, for a worker on the opt-in process queue only (containers with `runtime`, default from the environment). */
export function createProcessActivities(runtime: ContainerRuntime = containerRuntimeFromEnv()): Record<string, (call: FunctionCall) => Promise<Json>> {
  const run = (call: FunctionCall) => runProcess(call, runtime);
  return Object.fromEntries(Object.values(PROCESS_ACTIVITY_OF_KIND).map((type) => [type, run]));
}
