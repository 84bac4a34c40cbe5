/**
 * The `state` query with a `since` argument (StateQueryArg, `swflow run` following a run): the
 * entries of the run's path from that point on, a page at most, and what the run awaits; not its
 * data nor its steps. Pure, and a query's only: it reads the run and changes nothing, so history
 * and commands are the same whatever is asked.
 *
 * Positions count per run: the path of a run continued as new starts with the last entries of the
 * run before it (the carry's `entered`, at most ENTERED_KEPT), which the answer reports as
 * `carried`, so a client that followed the previous run to its end skips them.
 */
import type { InstanceState, StateProgress, StateSince } from '../../common/contracts';

/** Entries of the path in one answer at most (the client asks again for the rest at once). */
export const PROGRESS_PAGE = 5_000;

/** The `since` of a `state` query's argument, or undefined when there is none (or it is not one): then the whole InstanceState answers. */
export function stateSince(arg: unknown): StateSince | undefined {
  if (!arg || typeof arg !== 'object' || Array.isArray(arg)) return undefined;
  const since = (arg as { since?: unknown }).since;
  if (!since || typeof since !== 'object' || Array.isArray(since)) return undefined;
  const { runId, entered } = since as { runId?: unknown; entered?: unknown };
  return {
    ...(typeof runId === 'string' ? { runId } : {}),
    entered: typeof entered === 'number' && Number.isFinite(entered) && entered > 0 ? Math.floor(entered) : 0,
  };
}

/** What the answer is made of: the run's ids, its path and how much of it was carried, and the rest of what the run shows. */
export interface ProgressSource {
  runId: string;
  continuedFrom?: string;
  entered: readonly string[];
  carried: number;
  definitionId: string;
  definitionVersion?: string;
  currentStates: string[];
  awaitedEvents: string[];
  status: InstanceState['status'];
}

/** The progress of the run since `since`. */
export function stateProgress(since: StateSince, run: ProgressSource, page: number = PROGRESS_PAGE): StateProgress {
  const total = run.entered.length;
  const from = since.runId === undefined || since.runId === run.runId ? Math.min(since.entered, total) : 0;
  return {
    progress: true,
    definitionId: run.definitionId,
    ...(run.definitionVersion ? { definitionVersion: run.definitionVersion } : {}),
    runId: run.runId,
    ...(run.continuedFrom ? { continuedFrom: run.continuedFrom } : {}),
    from,
    entered: run.entered.slice(from, from + Math.max(1, page)),
    total,
    carried: Math.min(run.carried, total),
    currentStates: run.currentStates,
    awaitedEvents: run.awaitedEvents,
    status: run.status,
  };
}
