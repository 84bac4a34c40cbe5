/**
 * `try`/`catch`: runs `try`; an error it raises is caught when it matches `catch.errors.with`,
 * `catch.when` holds and `catch.exceptWhen` does not (both see the error as `.` and as `$<as>`,
 * default `$error`). A caught error is retried per `catch.retry` (the whole `try` list again,
 * after a durable timer; `limit.attempt.duration` bounds each attempt) while the policy allows;
 * then `catch.do` runs with `$<as>` bound, its output the task's ("retrying failed tasks before
 * proceeding with alternate ones"). Without `catch.do` a caught error gives the output null (as
 * the conformance kit's runtime does), unless retries were used up: then the error stands. `catch.then` (after 1.0.3) overrides the task's `then`.
 */
import { isCancellation } from '@temporalio/workflow';
import type { Duration, RetryPolicy, Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { Args, TaskAt, TaskContext, TaskOutcome } from '../context';
import { matchesFilter, problemJson, toWorkflowError, type WorkflowError } from '../errors';
import { durationAt, durationIso } from '../durations';
import { mayRetry, resolvePolicyDurations, retryDelayMs } from '../retry';
import { withTimeout } from '../../timeouts';
import { countRetry } from '../../host/metrics';
import { markCalls, rewindCalls } from '../../call-ids';
import { FEATURE_CALL_IDS } from '../../../common/features';

async function holds(ctx: TaskContext, at: TaskAt, expr: string | undefined, e: Json, name: string, what: string): Promise<boolean | undefined> {
  if (expr === undefined) return undefined;
  return ctx.condition(expr, e, ctx.args(at, { [name]: e }), what);
}

export async function runTry(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const c = task.catch ?? {};
  const name = c.as ?? 'error';
  const written: RetryPolicy | undefined = typeof c.retry === 'string' ? ctx.def.workflow.use?.retries?.[c.retry] : c.retry;
  // Durations written as expressions: over the try's input, `retry.<property> (use.retries.<name>)` in errors.
  const durations = (args: () => Args) => (d: Duration, property: string) =>
    durationAt(ctx, d, `retry.${property}${typeof c.retry === 'string' ? ` (use.retries.${c.retry})` : ''}`, input, args);
  const policy = written && resolvePolicyDurations(written, 'limits', durations(() => ctx.args(at, { input })));
  const started = ctx.effects.now();
  // call-ids: a retry makes the try's calls again, with the ids of its first attempt (../../call-ids.ts).
  const tried = `${at.reference}/try`;
  const calls = ctx.features.has(FEATURE_CALL_IDS) ? markCalls(`${tried}/`, ctx.effects) : undefined;
  for (let retry = 1; ; retry++) {
    if (calls && retry > 1) rewindCalls(`${tried}/`, calls, ctx.effects);
    let caught: WorkflowError;
    try {
      const attempt = () => ctx.runList(task.try!, tried, input, at.locals);
      const perAttempt = policy?.limit?.attempt?.duration;
      const r = perAttempt
        ? await withTimeout(durationIso(perAttempt), ctx.summary(at.reference, `attempt timeout ${durationIso(perAttempt)}`), `an attempt of ${at.reference} did not finish within ${durationIso(perAttempt)} (retry limit.attempt.duration)`, attempt, ctx.effects)
        : await attempt();
      return { output: r.output, ...(r.end ? { then: 'end' } : {}) };
    } catch (err) {
      if (isCancellation(err)) throw err;
      caught = toWorkflowError(err, at.reference);
    }
    const e = problemJson(caught.problem);
    if (!matchesFilter(caught.problem, c.errors?.with as Record<string, Json> | undefined)) throw caught;
    if ((await holds(ctx, at, c.when, e, name, 'catch.when')) === false) throw caught;
    if ((await holds(ctx, at, c.exceptWhen, e, name, 'catch.exceptWhen')) === true) throw caught;
    if (policy) {
      const retryHolds = (await holds(ctx, at, policy.when, e, name, 'retry.when')) !== false && (await holds(ctx, at, policy.exceptWhen, e, name, 'retry.exceptWhen')) !== true;
      if (retryHolds && mayRetry(policy, retry, ctx.effects.now() - started)) {
        const delays = resolvePolicyDurations(policy, 'delays', durations(() => ctx.args(at, { input, [name]: e })));
        countRetry(at.reference);
        await ctx.effects.sleep(retryDelayMs(delays, retry), ctx.summary(at.reference, `retry ${retry} after: ${caught.message}`).slice(0, 200));
        ctx.lifecycle('task.retried', at.reference);
        continue;
      }
      // Retries used up: the alternate path (catch.do) if there is one, else the error stands.
      if (retryHolds && !c.do) throw caught;
    }
    if (!c.do) return { output: null, ...(c.then !== undefined ? { then: c.then } : {}) };
    const r = await ctx.runList(c.do, `${at.reference}/catch/do`, input, { ...at.locals, [name]: e });
    const then = c.then ?? (r.end ? 'end' : undefined);
    return { output: r.output, ...(then !== undefined ? { then } : {}) };
  }
}
