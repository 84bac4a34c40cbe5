/**
 * Suspend and resume a run (both DSLs): the run host's signals (SUSPEND_SIGNAL, RESUME_SIGNAL),
 * then the run's `state` query for what it says now. One place for `swflow suspend|resume`, the
 * run page's buttons and the MCP server's tools.
 */
import type { Client } from '@temporalio/client';
import { RESUME_SIGNAL, STATE_QUERY, SUSPEND_SIGNAL, type InstanceState } from '../common/contracts';

export interface SuspendOptions {
  workflowId: string;
  /** A run of that workflow id other than the latest. */
  runId?: string;
}

export interface SuspendResult {
  workflowId: string;
  /** What the run's `state` query says after the signal (`suspended`, `running`...). */
  status?: InstanceState['status'];
  /** Why the state could not be queried (e.g. no worker polling now): the signal is recorded all the same. */
  queryError?: string;
}

export const suspendRun = (client: Client, opts: SuspendOptions) => signalRun(client, SUSPEND_SIGNAL, opts);
export const resumeRun = (client: Client, opts: SuspendOptions) => signalRun(client, RESUME_SIGNAL, opts);

async function signalRun(client: Client, signal: string, opts: SuspendOptions): Promise<SuspendResult> {
  const handle = client.workflow.getHandle(opts.workflowId, opts.runId);
  await handle.signal(signal);
  try {
    return { workflowId: opts.workflowId, status: (await handle.query<InstanceState>(STATE_QUERY)).status };
  } catch (err) {
    const cause = (err as Error).cause as Error | undefined;
    return { workflowId: opts.workflowId, queryError: `${firstLine((err as Error).message ?? err)}${cause ? `: ${firstLine(cause.message)}` : ''}` };
  }
}

const firstLine = (s: unknown) => String(s).split('\n')[0];
