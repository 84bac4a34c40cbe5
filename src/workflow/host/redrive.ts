/**
 * Redrive, in the run (src/common/redrive.ts says what a redrive is). Two parts:
 *
 * - **Seeing the reset.** Temporal gives the workflow task a reset re-does a new randomness seed
 *   (the SDK applies it before the activation's jobs, and again at the same point on every replay),
 *   so a seed that changes between activations marks, deterministically, where the kept history
 *   ends. The interceptors (../interceptors.ts) call {@link noteActivation} first thing in each
 *   activation. Before any reset nothing here changes a command.
 * - **The ledger.** Past a reset, in runs pinned with the `redrive-ledger` feature, the first call
 *   loads the ledger (one local activity, recorded like any other) and each call, local call and
 *   child run whose step, type and arguments match a call the old run made successfully after the
 *   reset point takes that result instead of being made again. Matching is in order, per key.
 */
import type { coresdk } from '@temporalio/proto';
import { REDRIVE_LEDGER_ACTIVITY, digestOf, ledgerKey, type LedgerKind, type RedriveLedger } from '../../common/redrive';
import { boundEffects, type Effects } from '../effects';

/** The seed as last seen, and how many resets this run went through (module state is the run's own). */
let seed: string | undefined;
let resets = 0;

interface SeededActivator {
  randomnessSeed?: number[];
}

/** Called at the start of every activation: counts a reset when the randomness seed changed. */
export function noteActivation(activation: coresdk.workflow_activation.IWorkflowActivation): void {
  const activator = (globalThis as { __TEMPORAL_ACTIVATOR__?: SeededActivator }).__TEMPORAL_ACTIVATOR__;
  const now = activator?.randomnessSeed ? activator.randomnessSeed.join(',') : undefined;
  if (now === undefined) return;
  if (seed === undefined) {
    // The first activation: the seed the run started with is its initialization's (a reset to the
    // first workflow task replaced it already).
    const init = activation.jobs?.find((j) => j.initializeWorkflow)?.initializeWorkflow?.randomnessSeed as { toBytes?: () => number[] } | undefined;
    seed = init?.toBytes ? init.toBytes().join(',') : now;
  }
  if (now !== seed) {
    resets++;
    seed = now;
  }
}

/** How many resets this run has been through so far (at this point of its history). */
export function resetsSeen(): number {
  return resets;
}

/** Effects that answer calls from the ledger of the run's last redrive, once it was reset. */
export function redriveEffects(effects: Effects): Effects {
  let loadedFor = 0;
  let ledger: Promise<Map<string, unknown[]>> | undefined;
  const load = (): Promise<Map<string, unknown[]>> =>
    effects
      .localActivity<RedriveLedger>(REDRIVE_LEDGER_ACTIVITY, [{}], { startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 5 }, summary: 'redrive ledger' })
      .then(
        (l) => {
          const byKey = new Map<string, unknown[]>();
          for (const e of l.entries ?? []) {
            const k = ledgerKey(e.kind, e.type, e.summary, e.digest);
            const q = byKey.get(k);
            if (q) q.push(e.result);
            else byKey.set(k, [e.result]);
          }
          return byKey;
        },
        (err: unknown) => {
          // Without its ledger the run makes its calls again: at least once, as after a lost worker.
          effects.warn?.('redrive: the ledger could not be read; calls after the reset point are made again', { error: String(err) });
          return new Map<string, unknown[]>();
        },
      );
  const answer = <R>(kind: LedgerKind, type: string, summary: string | undefined, args: unknown, make: () => Promise<R>): Promise<R> => {
    if (resets === 0) return make();
    if (loadedFor !== resets) {
      loadedFor = resets;
      ledger = load();
    }
    return ledger!.then((byKey) => {
      const q = byKey.get(ledgerKey(kind, type, summary, kind === 'local' ? undefined : digestOf(args)));
      return q?.length ? (q.shift() as R) : make();
    });
  };
  const base = boundEffects(effects);
  return {
    ...base,
    activity: <R>(type: string, args: unknown[], options: Parameters<Effects['activity']>[2]) => answer<R>('activity', type, options.summary, args, () => base.activity<R>(type, args, options)),
    localCall: <R>(type: string, args: unknown[], options: Parameters<Effects['localCall']>[2]) => answer<R>('local', type, options.summary, args, () => base.localCall<R>(type, args, options)),
    executeChild: <R>(type: string, options: Parameters<Effects['executeChild']>[1]) =>
      answer<R>('child', type, options.staticSummary, options.args ?? [], () => base.executeChild<R>(type, options)),
  };
}
