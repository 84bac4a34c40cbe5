/**
 * Suspending and resuming a run: the run host's signals (SUSPEND_SIGNAL, RESUME_SIGNAL), then
 * the run's `state` query for what it says now. `swflow suspend`/`resume` and the MCP server's
 * `suspend_run`/`resume_run` send them so.
 */
import type { Client } from '@temporalio/client';
import { RESUME_SIGNAL, STATE_QUERY, SUSPEND_SIGNAL, type InstanceState } from '../common/contracts';

export type PauseAction = 'suspend' | 'resume';

export interface PauseResult {
  workflowId: string;
  action: PauseAction;
  /** The run's status after the signal (its `state` query), when a worker answered. */
  status?: InstanceState['status'];
  /** Why the status is unknown (no worker polling, say): the signal is recorded all the same. */
  queryError?: string;
}

/** Sends the suspend or resume signal to the run (the latest of `workflowId` unless `runId`). */
export async function pauseRun(client: Client, action: PauseAction, workflowId: string, runId?: string): Promise<PauseResult> {
  const handle = client.workflow.getHandle(workflowId, runId);
  await handle.signal(action === 'suspend' ? SUSPEND_SIGNAL : RESUME_SIGNAL);
  try {
    return { workflowId, action, status: (await handle.query<InstanceState>(STATE_QUERY)).status };
  } catch (err) {
    const first = (e: unknown) => String((e as Error)?.message ?? e).split('\n')[0];
    const cause = (err as Error).cause;
    return { workflowId, action, queryError: `${first(err)}${cause ? `: ${first(cause)}` : ''}` };
  }
}
