/**
 * A walk of states or tasks that issues no command (expression functions, switches, `set`
 * tasks looping) runs inside one workflow task, and the SDK fails a task that computes for more
 * than 5 s: then the task is retried, fails again, and the run never finishes. With the
 * `yield-long-walks` feature, the 0.8 interpreter and the 1.0 executor end the task every
 * TRANSITIONS_PER_TASK steps with a 1 ms timer.
 */
import { jsonBytes } from '../../common/payload-limit';
import { boundEffects, type Effects } from '../effects';

/** Steps (0.8 transitions, 1.0 tasks entered) one workflow task makes before a walk yields. */
export const TRANSITIONS_PER_TASK = 500;

/**
 * Bytes of local-call results (as JSON) one workflow task takes before the run yields (feature
 * `yield-local-results`): their markers go in the task's completion, which Temporal refuses over
 * 4 MB. Stored payloads count at their full size (their markers are small): a yield too many.
 */
export const LOCAL_RESULT_BYTES_PER_TASK = 1024 * 1024;

export class WalkBudget {
  private historyLength = -1;
  private steps = 0;
  private localBytes = 0;

  constructor(private readonly effects: Effects) {}

  /**
   * Counts a step; after TRANSITIONS_PER_TASK in one workflow task, returns the 1 ms timer to
   * await. Otherwise nothing: an `await` of its own would add a microtask turn to every step and
   * change the order in which concurrent branches issue their commands.
   */
  step(): Promise<void> | undefined {
    this.newTask();
    if (++this.steps % TRANSITIONS_PER_TASK === 0) return this.effects.sleep(1, `${TRANSITIONS_PER_TASK} steps in one workflow task: yield`);
    return undefined;
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
    }
  }
}
