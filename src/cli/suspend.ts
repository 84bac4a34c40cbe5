/**
 * `swflow suspend <workflowId>` / `swflow resume <workflowId>`: pause a run (no new state or task
 * starts; calls and timers already started go on) and let it go on again, for both DSLs. They
 * send the run host's signals (SUSPEND_SIGNAL, RESUME_SIGNAL); the run's `state` query, the Web UI
 * details and the lifecycle events (`workflow.suspended` / `workflow.resumed`) show the change.
 * The server is TEMPORAL_ADDRESS (default 127.0.0.1:7233, as `npm start` runs it).
 */
import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { RESUME_SIGNAL, SUSPEND_SIGNAL } from '../common/contracts';
import { resumeRun, suspendRun } from '../operations/suspend';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { dataConverterOptions } from '../codec';

async function send(signal: string, workflowId: string, runId: string | undefined): Promise<void> {
  const target = targetFromEnv() ?? { address: '127.0.0.1:7233', namespace: process.env.TEMPORAL_NAMESPACE || 'default' };
  const connection = await Connection.connect(connectionOptions(target));
  try {
    const client = new Client({ connection, namespace: target.namespace, ...dataConverterOptions() });
    const r = await (signal === SUSPEND_SIGNAL ? suspendRun : resumeRun)(client, { workflowId, runId });
    if (r.queryError) console.error(`(the run's state could not be queried: ${r.queryError})`);
    console.log(`${signal === SUSPEND_SIGNAL ? 'suspend' : 'resume'} sent to ${workflowId}${r.status ? `: the run is ${r.status}` : ''}`);
  } finally {
    await connection.close();
  }
}

export function register(program: Command): void {
  for (const [name, signal, what] of [
    ['suspend', SUSPEND_SIGNAL, 'Suspend a run: no new state or task starts until it is resumed (calls and timers already started go on)'],
    ['resume', RESUME_SIGNAL, 'Resume a suspended run'],
  ] as const) {
    program
      .command(`${name} <workflowId>`)
      .description(what)
      .option('--run-id <runId>', 'a run of that workflow id other than the latest')
      .action(async (workflowId: string, opts: { runId?: string }) => send(signal, workflowId, opts.runId));
  }
}
