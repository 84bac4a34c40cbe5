/**
 * `swflow suspend <workflowId>` / `swflow resume <workflowId>`: pause a run (no new state or task
 * starts; calls and timers already started go on) and let it go on again, for both DSLs. They
 * send the run host's signals (SUSPEND_SIGNAL, RESUME_SIGNAL: src/operations/suspend.ts); the run's `state` query, the Web UI
 * details and the lifecycle events (`workflow.suspended` / `workflow.resumed`) show the change.
 * The server is TEMPORAL_ADDRESS (default 127.0.0.1:7233, as `npm start` runs it).
 */
import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { pauseRun, type PauseAction } from '../operations/suspend';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { dataConverterOptions } from '../codec';

async function send(action: PauseAction, workflowId: string, runId: string | undefined): Promise<void> {
  const target = targetFromEnv() ?? { address: '127.0.0.1:7233', namespace: process.env.TEMPORAL_NAMESPACE || 'default' };
  const connection = await Connection.connect(connectionOptions(target));
  try {
    const r = await pauseRun(new Client({ connection, namespace: target.namespace, ...dataConverterOptions() }), action, workflowId, runId);
    // e.g. no worker polling now: the signal is recorded all the same.
    if (r.queryError) console.error(`(the run's state could not be queried: ${r.queryError})`);
    console.log(`${action} sent to ${workflowId}${r.status ? `: the run is ${r.status}` : ''}`);
  } finally {
    await connection.close();
  }
}

export function register(program: Command): void {
  for (const [name, what] of [
    ['suspend', 'Suspend a run: no new state or task starts until it is resumed (calls and timers already started go on)'],
    ['resume', 'Resume a suspended run'],
  ] as const) {
    program
      .command(`${name} <workflowId>`)
      .description(what)
      .option('--run-id <runId>', 'a run of that workflow id other than the latest')
      .action(async (workflowId: string, opts: { runId?: string }) => send(name, workflowId, opts.runId));
  }
}
