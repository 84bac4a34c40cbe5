/**
 * `swflow worker`: runs the interpreter worker against a Temporal server (TEMPORAL_ADDRESS,
 * default localhost:7233), serving the definitions of `--definitions` (default examples/), and
 * keeps the Temporal Schedules of its definitions with `start.schedule` in sync while it runs
 * (`--no-schedules` to leave that to `swflow schedules sync`).
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { NativeConnection } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { keepSchedulesInSync } from '../client/schedules';
import { DefinitionRegistry } from '../activities/definitions';
import { INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { PROJECT_ROOT } from '../platform/paths';
import { createInterpreterWorker } from '../worker/interpreter-worker';

interface WorkerCliOptions {
  definitions: string[];
  taskQueue: string;
  schedules: boolean;
}

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run the interpreter worker (the generic workflow) against a Temporal server')
    .option('-d, --definitions <paths...>', 'definition folders or files', [join(PROJECT_ROOT, 'examples')])
    .option('-q, --task-queue <queue>', 'task queue', INTERPRETER_TASK_QUEUE)
    .option('--no-schedules', 'do not create/update/delete the Temporal Schedules of scheduled definitions')
    .action((opts: WorkerCliOptions) => runWorker(opts));
}

export async function runWorker(opts: WorkerCliOptions): Promise<void> {
  const target = targetFromEnv() ?? { address: 'localhost:7233', namespace: 'default' };
  const connection = await NativeConnection.connect(connectionOptions(target));
  const worker = await createInterpreterWorker({
    connection,
    namespace: target.namespace,
    taskQueue: opts.taskQueue,
    definitions: opts.definitions,
    log: (m) => console.log(`[swflow worker] ${m}`),
  });
  const log = (m: string) => console.log(`[swflow worker] ${m}`);
  const clientConnection = opts.schedules ? await Connection.connect(connectionOptions(target)) : undefined;
  const registry = new DefinitionRegistry(opts.definitions);
  const schedules = clientConnection
    ? keepSchedulesInSync(new Client({ connection: clientConnection, namespace: target.namespace }), () => registry.definitions(), { taskQueue: opts.taskQueue, intervalMs: scheduleSyncMs(), log })
    : undefined;
  log(`serving task queue ${opts.taskQueue} on ${target.address} (namespace ${target.namespace}); definitions: ${opts.definitions.join(', ')}`);
  await worker.run();
  await schedules?.stop();
  await clientConnection?.close();
  await connection.close();
}

/** How often a serving worker re-syncs the Schedules (SWFLOW_SCHEDULE_SYNC_MS, default 30 s). */
export function scheduleSyncMs(): number {
  const v = Number(process.env.SWFLOW_SCHEDULE_SYNC_MS);
  return Number.isFinite(v) && v > 0 ? v : 30_000;
}
