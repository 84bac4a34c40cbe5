/**
 * `swflow run <file> --input <json|@file>`: runs one definition and follows it: prints each
 * state as it is entered and the output (or the error) at the end.
 *
 * Server: `--address` or TEMPORAL_ADDRESS, else a throw-away dev server started for this run.
 * Worker: an in-process interpreter worker serves the run (and, when the project has one,
 * the built-in adapter worker serves its functions); `--no-worker` relies on running workers
 * (e.g. `swflow start`) instead.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  EVENT_SIGNAL,
  INTERPRETER_TASK_QUEUE,
  STATE_QUERY,
  type CloudEventJson,
  type InstanceState,
  type StartOptions,
  type StateProgress,
  type StateQueryArg,
} from '../common/contracts';
import type { Json } from '../common/model';
import { withRunPageLink } from '../ui/link';
import { RunFollower } from './follow';
import { connectionOptions, targetFromEnv, type ServerTarget } from '../client/connection';
import { stopWorkers } from '../worker/stop';
import { dataConverterOptions } from '../codec';
import { clientInterceptors } from '../tracing';

interface RunCliOptions {
  input?: string;
  address?: string;
  namespace?: string;
  worker: boolean;
  event?: string[];
  workflowId?: string;
  quiet?: boolean;
}

export function register(program: Command): void {
  program
    .command('run')
    .description('Run one workflow definition, printing each state as it is entered and the output at the end')
    .argument('<file>', 'the definition (JSON or YAML)')
    .option('-i, --input <json|@file>', 'the workflow data input (JSON text, or @path to a JSON/YAML file)', '{}')
    .option('--address <host:port>', 'Temporal server (default: TEMPORAL_ADDRESS, else a throw-away dev server)')
    .option('--namespace <ns>', 'namespace (default: TEMPORAL_NAMESPACE or "default")')
    .option('--no-worker', 'do not run an in-process worker (use the workers already running)')
    .option('-e, --event <json|@file...>', 'CloudEvents to deliver, each as soon as the instance waits for its type')
    .option('--workflow-id <id>', 'the workflow id (default: <definition id>-<random>)')
    .action(async (file: string, opts: RunCliOptions) => {
      const code = await runCommand(file, opts);
      process.exitCode = code;
      setImmediate(() => process.exit(code));
    });
}

function readJsonArg(what: string, value: string): Json {
  let text = value;
  let from = what;
  if (value.startsWith('@')) {
    from = value.slice(1);
    try {
      text = readFileSync(from, 'utf8');
    } catch (err) {
      throw new Error(`${what}: cannot read ${from}: ${(err as Error).message}`);
    }
    if (!/\.json$/i.test(from)) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require('yaml').parse(text) as Json;
    }
  }
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    throw new Error(`${from}: not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * `swflow run`: exit code 0 when the run completed. `out`: the lines printed (stdout). `observe`:
 * told of every answer of the `state` query while following the run (tests count what it transferred).
 */
export async function runCommand(
  file: string,
  opts: RunCliOptions,
  out: (line: string) => void = (l) => console.log(l),
  observe?: (answer: InstanceState | StateProgress) => void,
): Promise<number> {
  const dsl = await import('../dsl');
  const loaded = await dsl.loadAnyDefinitionFile(file);
  for (const p of loaded.problems) if (p.severity !== 'error') console.error(dsl.formatFinding(p));
  const errors = loaded.problems.filter((p) => p.severity === 'error');
  if (errors.length || !loaded.definition) {
    for (const p of errors) console.error(dsl.formatFinding(p));
    console.error(`${file}: the definition does not validate; nothing was run.`);
    return 1;
  }
  const definition = loaded.definition;
  const input = readJsonArg('--input', opts.input ?? '{}');
  const { isV1Definition } = await import('../common/model-v1');
  const { dataInputProblem } = await import('../workflow/v08/data/input');
  const inputProblem = isV1Definition(definition) ? undefined : dataInputProblem(input); // 1.0 accepts any JSON input
  if (inputProblem) {
    console.error(`--input: ${inputProblem}; nothing was run.`);
    return 1;
  }
  const events = (opts.event ?? []).map((e) => readJsonArg('--event', e) as unknown as CloudEventJson);

  const { installQuietRuntime } = await import('../testing/env');
  installQuietRuntime();

  let target: ServerTarget | undefined;
  if (opts.address) target = { address: opts.address, namespace: opts.namespace ?? process.env.TEMPORAL_NAMESPACE ?? 'default' };
  else {
    target = targetFromEnv();
    if (target && opts.namespace) target.namespace = opts.namespace;
  }
  let env: TestWorkflowEnvironment | undefined;
  if (!target) {
    const { createLocalEnv } = await import('../platform/dev-server');
    console.error('Starting a throw-away Temporal dev server (set TEMPORAL_ADDRESS or --address to use yours)...');
    env = await createLocalEnv((m) => console.error(m));
    target = { address: env.address, namespace: 'default' };
  }

  let connection: Connection | undefined;
  let nativeConnection: NativeConnection | undefined;
  const workers: Worker[] = [];
  const runs: Promise<void>[] = [];
  try {
    connection = env ? env.connection : await Connection.connect(connectionOptions(target));
    const client = new Client({ connection, namespace: target.namespace, ...dataConverterOptions(), ...clientInterceptors() });
    if (opts.worker || env) {
      nativeConnection = env ? env.nativeConnection : await NativeConnection.connect(connectionOptions(target));
      const { createInterpreterWorker } = await import('../worker/interpreter-worker');
      workers.push(
        await createInterpreterWorker({
          connection: nativeConnection,
          namespace: target.namespace,
          taskQueue: INTERPRETER_TASK_QUEUE,
          definitions: [definition],
        }),
      );
      // The built-in adapters (REST, 1.0 http/openapi), finding OpenAPI documents next to the definition.
      const { createBuiltinAdapterWorker } = await import('../worker/adapter-worker');
      workers.push(await createBuiltinAdapterWorker({ connection: nativeConnection, namespace: target.namespace, baseDirs: [dirname(resolve(file))] }));
      for (const w of workers) runs.push(w.run());
    }

    const workflowId = opts.workflowId ?? `${definition.id}-${randomUUID().slice(0, 8)}`;
    const startOptions: StartOptions = { definition };
    const handle = await client.workflow.start(definition.id, {
      taskQueue: INTERPRETER_TASK_QUEUE,
      workflowId,
      args: [input, startOptions],
      staticDetails: withRunPageLink(workflowId),
    });
    out(`Started ${definition.id}${definition.version ? ` ${definition.version}` : ''} as ${workflowId} (run ${handle.firstExecutionRunId}) on ${target.address}`);

    let done = false;
    const resultP = handle.result().then(
      (value) => ({ ok: true as const, value }),
      (error) => ({ ok: false as const, error }),
    );
    void resultP.then(() => (done = true));
    // Each poll prints (and transfers) only the steps entered since the last one (./follow.ts).
    const follower = new RunFollower(
      handle.firstExecutionRunId,
      (runId, arg) => (runId ? client.workflow.getHandle(workflowId, runId) : handle).query<InstanceState | StateProgress, [StateQueryArg]>(STATE_QUERY, arg),
      out,
      observe,
    );
    const pending = [...events];
    const follow = async () => {
      try {
        const awaited = await follower.poll();
        while (pending.length && (awaited.includes(pending[0].type) || awaited.includes('*'))) {
          const e = pending.shift()!;
          await handle.signal(EVENT_SIGNAL, { specversion: '1.0', source: 'swflow-run', id: randomUUID(), ...(e as Record<string, unknown>) });
          out(`  (delivered event ${e.type})`);
        }
      } catch {
        // not answering yet (first task not run) or already closed
      }
    };
    while (!done) {
      await follow();
      await Promise.race([resultP, new Promise((r) => setTimeout(r, 200))]);
    }
    await follow();
    const result = await resultP;
    if (result.ok) {
      out('Output:');
      out(JSON.stringify(result.value, null, 2));
      return 0;
    }
    const err = result.error;
    const { failureMessages } = await import('../testing/runner');
    out(`Failed: ${err instanceof WorkflowFailedError ? failureMessages(err) : (err as Error).message}`);
    return 1;
  } finally {
    await stopWorkers(workers, runs);
    if (!env) {
      await nativeConnection?.close().catch(() => {});
      await connection?.close().catch(() => {});
    }
    await env?.teardown().catch(() => {});
  }
}
