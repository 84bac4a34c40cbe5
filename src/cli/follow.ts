/**
 * Following a run's path for `swflow run`: each poll asks the `state` query for the steps entered
 * since the last one (StateQueryArg) and prints only those, so following a run of n steps
 * transfers and prints each entry once: linear in n, not the whole path at every poll.
 *
 * Where the follower is: `entered` entries of the path of run `runId` (positions count per run,
 * contracts.ts StateSince). When the workflow continues as new, the next poll is answered by
 * another run of the chain; the follower finds the runs between (each answer names the run it
 * continued from), asks the run it followed for the rest of its path (a closed run answers a query
 * by replay), then prints each newer run's path after its `carried` entries (the last ones of the
 * run before, printed already). So no entry is printed twice or skipped within a run, nor across
 * continue-as-new as long as the runs of the chain answer.
 *
 * A worker that predates the argument answers the whole InstanceState: then the entries past
 * `entered` of its `statesEntered` are printed, as `swflow run` did before.
 */
import type { InstanceState, StateProgress, StateQueryArg } from '../common/contracts';

/** Asks the `state` query of run `runId` (undefined: the latest run of the workflow id). */
export type AskState = (runId: string | undefined, arg: StateQueryArg) => Promise<InstanceState | StateProgress>;

/** Runs of the chain the follower looks back through between two polls, at most. */
export const CHAIN_LOOKBACK = 100;
/** Polls that fail to catch up with a new run of the chain before the follower moves to it anyway. */
export const CATCH_UP_TRIES = 3;

export function isProgress(a: InstanceState | StateProgress | undefined): a is StateProgress {
  return !!a && (a as StateProgress).progress === true && Array.isArray((a as StateProgress).entered);
}

export class RunFollower {
  private runId: string;
  private entered = 0;
  private failedCatchUps = 0;

  /**
   * `firstRunId`: the run started (the chain's first). `out`: one line per step (`→ <name>`) or
   * note. `observe`: told of every answer (tests count what was transferred).
   */
  constructor(
    firstRunId: string,
    private readonly ask: AskState,
    private readonly out: (line: string) => void,
    private readonly observe?: (answer: InstanceState | StateProgress) => void,
  ) {
    this.runId = firstRunId;
  }

  /** One poll: prints the steps entered since the last poll; what the run awaits now (for `--event`). */
  async poll(): Promise<string[]> {
    const latest = await this.query(undefined);
    if (!isProgress(latest)) {
      // An older worker: the whole path of the run answering.
      this.print(latest.statesEntered, this.entered);
      this.entered = Math.max(this.entered, latest.statesEntered.length);
      return latest.awaitedEvents;
    }
    if (latest.runId === this.runId) await this.take(latest, undefined);
    else await this.catchUp(latest);
    return latest.awaitedEvents;
  }

  private async query(runId: string | undefined, since: StateQueryArg['since'] = { runId: this.runId, entered: this.entered }) {
    const answer = await this.ask(runId, { since });
    this.observe?.(answer);
    return answer;
  }

  private print(names: readonly string[], skip: number): void {
    for (let i = Math.max(0, skip); i < names.length; i++) this.out(`→ ${names[i]}`);
  }

  /** Prints what `a` (an answer of the run followed) holds past `entered`, then asks `runId` (the run again) for the pages left. */
  private async take(a: StateProgress, runId: string | undefined): Promise<void> {
    for (;;) {
      this.print(a.entered, this.entered - a.from);
      this.entered = Math.max(this.entered, a.from + a.entered.length);
      if (this.entered >= a.total) return;
      const next = await this.query(runId);
      if (!isProgress(next) || next.runId !== this.runId) return; // the next poll sorts it out
      a = next;
    }
  }

  /** `latest` is another run than the one followed: finish the run followed, then print each newer run of the chain. */
  private async catchUp(latest: StateProgress): Promise<void> {
    let chain: StateProgress[];
    let linked: boolean;
    try {
      chain = [latest];
      linked = false;
      while (chain.length <= CHAIN_LOOKBACK) {
        const before = chain[0].continuedFrom;
        if (!before) break;
        if (before === this.runId) {
          linked = true;
          break;
        }
        const a = await this.query(before, { runId: before, entered: 0 });
        if (!isProgress(a) || a.runId !== before) break;
        chain.unshift(a);
      }
      if (linked) {
        // The rest of the run followed (closed now: it answers by replay).
        const rest = await this.query(this.runId);
        if (!isProgress(rest)) {
          this.print(rest.statesEntered, this.entered);
        } else if (rest.runId === this.runId) await this.take(rest, this.runId);
      }
    } catch (err) {
      if (++this.failedCatchUps < CATCH_UP_TRIES) throw err; // where it was: the next poll tries again
      chain = [latest];
      linked = false;
    }
    this.failedCatchUps = 0;
    if (!linked) this.out(`  (now following run ${chain[0].runId}: steps between it and the run followed so far may be missing)`);
    for (const a of chain) {
      // The run's first `carried` entries are the last of the run before it, printed already.
      this.runId = a.runId;
      this.entered = a.carried;
      await this.take(a, a === latest ? undefined : a.runId);
    }
  }
}
