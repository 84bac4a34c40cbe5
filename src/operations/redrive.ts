/**
 * Redrive: a failed run restarts at the state (0.8) or task (1.0) that failed, keeping what
 * succeeded before it. CONTRACT ONLY for now (the lead implements it); the run page and the MCP
 * server call `redrive` with these types.
 */
import type { Client } from '@temporalio/client';

export interface RedriveOptions {
  workflowId: string;
  /** The run to redrive; default: the latest run of the workflow id (the last of a continue-as-new chain). */
  runId?: string;
  /** Signals (events) received after the reset point are applied again to the new run (default true). */
  reapplySignals?: boolean;
  /** Carry the run over to this version of its definition (the registry's), from the failed step on. */
  definitionVersion?: string;
  /** Carry the run over to this definition (a document, parsed), from the failed step on. */
  definition?: unknown;
  /** Say what would be done, do nothing. */
  dryRun?: boolean;
  /** Who asks (recorded as the reset's identity). */
  identity?: string;
}

export interface RedrivePlan {
  workflowId: string;
  runId: string;
  /** The step that failed: a 0.8 state name or a 1.0 task's JSON pointer. */
  step: string;
  /** The failure, as the run reported it. */
  failure: string;
  /** The workflow task the run is reset to (its event id). */
  resetEventId: number;
  /** Calls that succeeded after the reset point and will be answered from the old run, not made again. */
  reused: number;
  /** The definition version the new run continues with (when carried over). */
  definitionVersion?: string;
}

export interface RedriveResult extends RedrivePlan {
  /** The new run (same workflow id); absent on a dry run. */
  newRunId?: string;
}

export async function redrive(_client: Client, _options: RedriveOptions): Promise<RedriveResult> {
  throw new Error('redrive: not implemented yet');
}
