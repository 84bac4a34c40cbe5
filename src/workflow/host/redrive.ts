/**
 * Redrive, in the run (src/common/redrive.ts says what a redrive is). Two parts:
 *
 * - **Seeing the reset**: ./resets.ts. Before any reset nothing here changes a command.
 * - **The ledger.** Past a reset, in runs pinned with the `redrive-ledger` feature, the first call
 *   loads the ledger (one local activity, recorded like any other) and each call, local call and
 *   child run whose step, type and arguments match a call the old run made successfully after the
 *   reset point takes that result instead of being made again. Matching is in order, per key.
 */
import { REDRIVE_LEDGER_ACTIVITY, digestOf, ledgerKey, type LedgerKind, type RedriveLedger } from '../../common/redrive';
import { boundEffects, type Effects } from '../effects';
import { resetsSeen } from './resets';

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
    const resets = resetsSeen();
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
