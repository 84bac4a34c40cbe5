/**
 * A walk of states or tasks that issues no command (expression functions, switches, `set`
 * tasks looping) runs inside one workflow task, and the SDK fails a task that computes for more
 * than 5 s: then the task is retried, fails again, and the run never finishes. With the
 * `yield-long-walks` feature, the 0.8 interpreter and the 1.0 executor end the task every
 * TRANSITIONS_PER_TASK steps with a 1 ms timer.
 *
 * Steps alone do not bound the time: 500 steps over a growing array were 5 s. With
 * `expression-work` the budget also counts the work the run's expressions did (EvalPolicy.work:
 * bytes through jq, jq steps, shape evaluations) and yields once an activation did WORK_PER_TASK,
 * with a no-op local activity (a new activation, not a new workflow task: no timer to wait for). Time
 * itself cannot be the measure: a replay must yield at the same steps, so the units are
 * deterministic, chosen so that a budget's worth takes well under a second (bench/README.md,
 * "1.0 at the cost of what it reads").
 */
import { jsonBytes } from '../../common/payload-limit';
import type { EvalPolicy } from '../../expr';
import { YIELD_ACTIVITY } from '../../common/pinning';
import { boundEffects, type Effects } from '../effects';

/** Steps (0.8 transitions, 1.0 tasks entered) one workflow task makes before a walk yields. */
export const TRANSITIONS_PER_TASK = 500;

/**
 * Bytes of local-call results (as JSON) one workflow task takes before the run yields (feature
 * `yield-local-results`): their markers go in the task's completion, which Temporal refuses over
 * 4 MB. Stored payloads count at their full size (their markers are small): a yield too many.
 */
export const LOCAL_RESULT_BYTES_PER_TASK = 1024 * 1024;

/** Work units (EvalPolicy.work) one activation does before the walk yields (expression-work): ~4 MB through jq. */
export const WORK_PER_TASK = 4_000_000;
/** Steps one activation makes before the walk yields with expression-work (a step costs tens of µs). */
export const STEPS_PER_TASK = 1000;
/**
 * jq steps one evaluation may take with expression-work before it fails: 0.1–1 s here (jq runs 4–30
 * million steps a second, by what they allocate), well inside the SDK's 5 s per activation.
 */
export const EVAL_FUEL = 4_000_000;

export class WalkBudget {
  private historyLength = -1;
  private steps = 0;
  private localBytes = 0;
  /** Local activities scheduled in this workflow task (expression-work): a marker each in the history it completes with. */
  private markers = 0;
  /** The run's evaluation policy once its work is counted (expression-work), and its work when this activation started. */
  private policy?: EvalPolicy;
  private workAtStart = 0;

  constructor(private readonly effects: Effects) {}

  /** Counts the work of the run's expressions from now on (feature expression-work): the policy its evaluations take. */
  countWork(): EvalPolicy {
    this.policy ??= { fuel: EVAL_FUEL, work: 0 };
    return this.policy;
  }

  /**
   * Counts a step; after TRANSITIONS_PER_TASK in one workflow task, returns the 1 ms timer to
   * await (with expression-work: past STEPS_PER_TASK or WORK_PER_TASK in one activation, the no-op
   * local activity YIELD_ACTIVITY). Otherwise nothing: an `await` of its own would add a microtask
   * turn to every step and change the order in which concurrent branches issue their commands.
   */
  step(): Promise<void> | undefined {
    this.newTask();
    const policy = this.policy;
    if (policy) {
      // Every step after the budget yields (concurrent branches too), until a yield comes back.
      if (++this.steps > STEPS_PER_TASK) return this.yield(`${STEPS_PER_TASK} steps in one activation: yield`);
      if (policy.work - this.workAtStart > WORK_PER_TASK) return this.yield('the work of one activation done: yield');
      return undefined;
    }
    if (++this.steps % TRANSITIONS_PER_TASK === 0) return this.effects.sleep(1, `${TRANSITIONS_PER_TASK} steps in one workflow task: yield`);
    return undefined;
  }

  /** Ends the activation (expression-work): a no-op local activity, whose result is the next activation. */
  private yield(summary: string): Promise<void> {
    this.markers++;
    return this.effects.localActivity<null>(YIELD_ACTIVITY, [], { startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 3 }, summary }).then(() => {
      // The same workflow task goes on (its history length too): the new activation starts the count afresh.
      this.steps = 0;
      this.workAtStart = this.policy?.work ?? 0;
    });
  }

  /**
   * `effects` whose local activities are counted (expression-work): a walk can now run a whole
   * loop of local calls in one workflow task, whose history length stays as of its start, so the
   * check for continue-as-new adds the markers this task will record (pendingEvents).
   */
  countingMarkers(effects: Effects): Effects {
    const count = (): void => {
      this.newTask();
      this.markers++;
    };
    return {
      ...boundEffects(effects),
      localCall: <R>(type: string, args: unknown[], options: Parameters<Effects['localCall']>[2]) => (count(), effects.localCall<R>(type, args, options)),
      localActivity: <R>(type: string, args: unknown[], options: Parameters<Effects['localActivity']>[2]) => (count(), effects.localActivity<R>(type, args, options)),
    };
  }

  /** Events this workflow task adds past the history length of its start, as far as the walk counted them (countingMarkers). */
  pendingEvents(): number {
    this.newTask();
    return this.markers;
  }

  /** `effects` whose local calls yield after a result that brings the task's local results over the budget. */
  yieldingLocalResults(effects: Effects): Effects {
    return {
      ...boundEffects(effects),
      localCall: <R>(type: string, args: unknown[], options: Parameters<Effects["localCall"]>[2]) => effects.localCall<R>(type, args, options).then((result) => this.afterLocalResult(result)),
    };
  }

  private afterLocalResult<R>(result: R): R | Promise<R> {
    this.newTask();
    this.localBytes += jsonBytes(result);
    if (this.localBytes < LOCAL_RESULT_BYTES_PER_TASK) return result;
    this.localBytes = 0;
    return this.effects.sleep(1, 'local results of this workflow task over 1 MiB: yield').then(() => result);
  }

  // historyLength tells workflow tasks apart, and is the same on replay.
  private newTask(): void {
    const at = this.effects.info().historyLength;
    if (at !== this.historyLength) {
      this.historyLength = at;
      this.steps = 0;
      this.localBytes = 0;
      this.markers = 0;
      this.workAtStart = this.policy?.work ?? 0;
    }
  }
}
