/**
 * Redrive, in the run (src/common/redrive.ts says what a redrive is). Two parts:
 *
 * - **Seeing the reset**: ./resets.ts. Before any reset nothing here changes a command.
 * - **The ledger.** Past a reset, in runs pinned with the `redrive-ledger` feature, the first call
 *   loads the ledger (one local activity, recorded like any other) and each call, local call and
 *   child run whose step, type and arguments match a call the old run made successfully after the
 *   reset point takes that result instead of being made again. Matching is in order, per key.
 */
import { REDRIVE_LEDGER_ACTIVITY, digestOf, ledgerKey, type LedgerKind, type LedgerRequest, type RedriveLedger } from '../../common/redrive';
import { boundEffects, type ChildOptions, type Effects } from '../effects';
import { resetsSeen } from './resets';

/** Effects that answer calls from the ledger of the run's last redrive, once it was reset (or, a child run started again, from its failed run's). */
export function redriveEffects(effects: Effects, redriveOf?: { workflowId: string; runId: string }): Effects {
  let loadedFor = -1;
  let ledger: Promise<Ledger> | undefined;
  const load = (request: LedgerRequest): Promise<Ledger> =>
    effects
      .localActivity<RedriveLedger>(REDRIVE_LEDGER_ACTIVITY, [request], { startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 5 }, summary: 'redrive ledger' })
      .then(
        (l) => {
          const ledger: Ledger = { results: new Map(), failed: new Map() };
          for (const e of l.entries ?? []) {
            const k = ledgerKey(e.kind, e.type, e.summary, e.digest);
            const into: Map<string, unknown[]> = e.failedRun ? ledger.failed : ledger.results;
            const q = into.get(k);
            if (q) q.push(e.failedRun ?? e.result);
            else into.set(k, [e.failedRun ?? e.result]);
          }
          return ledger;
        },
        (err: unknown) => {
          // Without its ledger the run makes its calls again: at least once, as after a lost worker.
          effects.warn?.('redrive: the ledger could not be read; calls after the reset point are made again', { error: String(err) });
          return { results: new Map(), failed: new Map() };
        },
      );
  /** The ledger in force now, or undefined (no reset, not a child started again): nothing changes. */
  const current = (): Promise<Ledger> | undefined => {
    const resets = resetsSeen();
    if (resets === 0 && !redriveOf) return undefined;
    if (loadedFor !== resets) {
      loadedFor = resets;
      ledger = load(resets === 0 ? { base: redriveOf } : {});
    }
    return ledger;
  };
  const answer = <R>(kind: LedgerKind, type: string, summary: string | undefined, args: unknown, make: (failedRun?: { workflowId: string; runId: string }) => Promise<R>): Promise<R> => {
    const l = current();
    if (!l) return make();
    return l.then((byKey) => {
      const key = ledgerKey(kind, type, summary, kind === 'local' ? undefined : digestOf(args));
      const q = byKey.results.get(key);
      if (q?.length) return q.shift() as R;
      return make(byKey.failed.get(key)?.shift() as { workflowId: string; runId: string } | undefined);
    });
  };
  const base = boundEffects(effects);
  return {
    ...base,
    activity: <R>(type: string, args: unknown[], options: Parameters<Effects['activity']>[2]) => answer<R>('activity', type, options.summary, args, () => base.activity<R>(type, args, options)),
    localCall: <R>(type: string, args: unknown[], options: Parameters<Effects['localCall']>[2]) => answer<R>('local', type, options.summary, args, () => base.localCall<R>(type, args, options)),
    executeChild: <R>(type: string, options: Parameters<Effects['executeChild']>[1]) =>
      answer<R>('child', type, options.staticSummary, options.args ?? [], (failedRun) => base.executeChild<R>(type, failedRun ? againOf(options, failedRun) : options)),
  };
}

interface Ledger {
  results: Map<string, unknown[]>;
  /** Child runs that failed, by key: started again with `redriveOf`. */
  failed: Map<string, unknown[]>;
}

/** A child's options with its start options saying which failed run it takes the place of. */
function againOf(options: ChildOptions, failedRun: { workflowId: string; runId: string }): ChildOptions {
  const [input, start, ...rest] = options.args ?? [];
  return { ...options, args: [input, { ...((start as object | undefined) ?? {}), redriveOf: failedRun }, ...rest] };
}
