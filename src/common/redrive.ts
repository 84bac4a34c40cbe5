/**
 * Redrive's contract between `swflow redrive` (src/operations/redrive.ts), the interpreter worker's
 * ledger activity (src/worker/activities/redrive-ledger.ts) and the run (src/workflow/host/redrive.ts).
 * Sandbox-safe.
 *
 * A redrive is a Temporal reset whose reason starts with REDRIVE_REASON (then JSON: what it asked).
 * The new run replays the kept history, then carries on from the reset point; the calls the old
 * run made after that point and that succeeded form its **ledger**: the new run takes their
 * results from it instead of making them again, so nothing that succeeded is repeated, and the
 * failed step (absent from the ledger: it failed) and what follows run for real.
 */

/** How a redrive's reset reason begins; the rest is the JSON of a {@link RedriveReason}. */
export const REDRIVE_REASON = 'swflow redrive';

/** The local activity that reads the ledger of the run this run was reset from. */
export const REDRIVE_LEDGER_ACTIVITY = 'swflow.redriveLedger';

export interface RedriveReason {
  /** The step that failed (0.8 state, 1.0 task pointer): what the operator redrives. */
  step?: string;
  /** The definition version the new run pins (a reset to the first workflow task re-pins). */
  definitionVersion?: string;
  /** A whole definition the new run pins instead. */
  definition?: unknown;
}

/** How a command of the old run is matched with one of the new run. */
export type LedgerKind = 'activity' | 'local' | 'child';

export interface LedgerEntry {
  kind: LedgerKind;
  /** The activity type or child workflow type. */
  type: string;
  /** The command's summary (its step, action and target), as the Web UI shows it. */
  summary?: string;
  /** {@link digestOf} the command's arguments (activities and children; a local activity's marker keeps no input). */
  digest?: string;
  /** What the command returned. */
  result?: unknown;
  /**
   * A child run that failed (no result): a redriven parent starts it again with `redriveOf`, so the
   * child answers its own successful calls from that run's ledger (a failure inside a subflow).
   */
  failedRun?: { workflowId: string; runId: string };
}

/** What the ledger activity is asked: the last reset's ledger, or (a child run started again) the whole of `base`. */
export interface LedgerRequest {
  base?: { workflowId: string; runId: string };
}

export interface RedriveLedger {
  /** The run this one was reset from. */
  baseRunId?: string;
  /** The reset's reason, parsed (absent: the reset was not a redrive, and the ledger is empty). */
  reason?: RedriveReason;
  entries: LedgerEntry[];
}

/** The key commands are matched by. */
export function ledgerKey(kind: LedgerKind, type: string, summary: string | undefined, digest: string | undefined): string {
  return `${kind}\u0000${type}\u0000${summary ?? ''}\u0000${digest ?? ''}`;
}

/**
 * A short digest of a command's arguments (FNV-1a, 2×32 bits, over their JSON): equal arguments
 * give equal digests in the workflow and in Node. Not a security measure: it tells apart the
 * calls of one step that differ by their input (a lifecycle event's type, an item of a loop).
 */
export function digestOf(value: unknown): string {
  const s = JSON.stringify(value) ?? 'undefined';
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0');
}

/** The reason string of a redrive's reset. */
export function redriveReason(reason: RedriveReason): string {
  return `${REDRIVE_REASON} ${JSON.stringify(reason)}`;
}

/** A reset reason parsed as a redrive's, or undefined when it is not one. */
export function parseRedriveReason(text: string | null | undefined): RedriveReason | undefined {
  if (!text?.startsWith(REDRIVE_REASON)) return undefined;
  const rest = text.slice(REDRIVE_REASON.length).trim();
  if (!rest) return {};
  try {
    const parsed = JSON.parse(rest) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as RedriveReason) : {};
  } catch {
    return {};
  }
}
