/**
 * `swflow schedules sync|list`: the Temporal Schedules of definitions with `start.schedule`
 * (src/client/schedules.ts), against TEMPORAL_ADDRESS (default localhost:7233). A running
 * `swflow worker` / `swflow start` keeps them in sync by itself; `sync` does it once (e.g. from a
 * deployment job), `list` shows what swflow has made.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { describeSync, listSchedules, syncSchedules } from '../client/schedules';
import { DefinitionRegistry } from '../definitions/registry';
import { PROJECT_ROOT } from '../platform/paths';
import { dataConverterOptions } from '../codec';

async function withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const target = targetFromEnv() ?? { address: 'localhost:7233', namespace: 'default' };
  const connection = await Connection.connect(connectionOptions(target));
  try {
    return await fn(new Client({ connection, namespace: target.namespace, ...dataConverterOptions() }));
  } finally {
    await connection.close();
  }
}

export function register(program: Command): void {
  const schedules = program.command('schedules').description('Temporal Schedules of definitions with start.schedule');
  schedules
    .command('sync')
    .description('Create, update and delete the Schedules so they match the definitions (once)')
    .option('-d, --definitions <paths...>', 'definition folders or files (those a worker of the task queue serves)', [join(PROJECT_ROOT, 'examples')])
    .option('-q, --task-queue <queue>', 'the interpreter task queue the runs start on', INTERPRETER_TASK_QUEUE)
    .action(async (opts: { definitions: string[]; taskQueue: string }) => {
      const registry = new DefinitionRegistry(opts.definitions);
      const report = await withClient(async (client) => syncSchedules(client, await registry.allDefinitions(), { taskQueue: opts.taskQueue }));
      const lines = describeSync(report);
      console.log(lines.length ? lines.join('\n') : `schedules in sync (${report.unchanged.length} unchanged)`);
      if (report.problems.length) process.exitCode = 1;
    });
  schedules
    .command('list')
    .description('The Schedules swflow made for a task queue, with their next start times')
    .option('-q, --task-queue <queue>', 'the interpreter task queue', INTERPRETER_TASK_QUEUE)
    .option('--json', 'print JSON')
    .action(async (opts: { taskQueue: string; json?: boolean }) => {
      const list = await withClient((client) => listSchedules(client, opts.taskQueue));
      if (opts.json) return console.log(JSON.stringify(list, null, 2));
      if (!list.length) return console.log(`no swflow schedules for task queue ${opts.taskQueue}`);
      for (const s of list) {
        const next = s.nextActionTimes[0]?.toISOString() ?? '—';
        console.log(`${s.scheduleId}  definition ${s.definitionId}  next ${next}${s.paused ? '  (paused)' : ''}  recent runs ${s.recentActions.length}`);
      }
    });
}
