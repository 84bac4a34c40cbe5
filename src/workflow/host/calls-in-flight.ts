/**
 * The function calls a run has in flight, so that a run stuck in a call is visible as stuck
 * (docs/stuck-calls.md): a local activity (reads run locally by default) shows neither as a
 * pending activity nor anywhere else while it runs. Every call (local or not) is listed with its
 * step, function, target, start (workflow time) and attempt in the current details (the Web UI,
 * `temporal workflow describe`) and in the `state` query (the run page). Query and details output
 * only: nothing here issues a command, except the hand-over below.
 *
 * The hand-over (feature `local-call-hand-over`): a local call without a timeout of its own gets
 * its bound (`swflow.localBound`, default PT30S) as start- and schedule-to-close; when it runs out, the same
 * call is made as a regular activity on the run's queue, which Temporal shows as pending, with
 * heartbeats. Local activities are meant to be short: one that runs on keeps the workflow task
 * alive by completing it every few seconds (three history events each, so a call stuck for a day
 * fills a history), and no one sees what it waits on.
 */
import { ActivityFailure, TimeoutFailure, type ActivityOptions } from '@temporalio/workflow';
import type { CallContext, CallInFlight } from '../../common/contracts';
import { localBoundMs } from '../../common/metadata';
import { boundEffects, type Effects } from '../effects';
import { callContextOf, withCallContext } from '../interceptors';
import { UNLIMITED_CALL_MS } from '../timeouts';

export class CallsInFlight {
  readonly calls: CallInFlight[] = [];
  /** Calls of a step made since its last call that succeeded (the definition's retries, calls made again). */
  private readonly made = new Map<string, number>();
  /** Told when the list changes (the tracker renders the current details again). */
  onChange?: () => void;

  constructor(
    private readonly now: () => number,
    /** Hand over unlimited local calls past their bound (feature local-call-hand-over). */
    private readonly handOver: boolean,
    /** The queue of a handed-over call: the run's own (undefined, the built-in adapters are served there: eager-calls), else the call's. */
    private readonly onRunQueue: boolean,
  ) {}

  /** `effects` whose function calls are listed while in flight (and local ones handed over). */
  wrap(effects: Effects): Effects {
    return {
      ...boundEffects(effects),
      activity: (type, args, options) => this.track(effects.activity(type, args, options), args, options, 'activity'),
      localCall: <R>(type: string, args: unknown[], options: ActivityOptions): Promise<R> => {
        const bound = this.handOver && options.startToCloseTimeout === UNLIMITED_CALL_MS ? localBoundMs(contextOf(args)?.function?.metadata) : undefined;
        if (bound === undefined) return this.track(effects.localCall<R>(type, args, options), args, options, 'local');
        const local = this.track(effects.localCall<R>(type, args, { ...options, startToCloseTimeout: bound, scheduleToCloseTimeout: bound }), args, options, 'local');
        return local.catch((err) => {
          if (!outlived(err) || effects.cancelled()) throw err;
          const context = callContextOf(args);
          // A new args array (the interceptor finds the call's header by its identity).
          const again = context ? withCallContext([...args], context) : [...args];
          const { taskQueue, ...rest } = options;
          const summary = `${options.summary ?? type} (local call handed over after ${bound / 1000} s)`.slice(0, 200);
          const opts: ActivityOptions = { ...rest, ...(this.onRunQueue ? {} : { taskQueue }), summary };
          return this.track(effects.activity<R>(type, again, opts), again, opts, 'activity', true);
        });
      },
    };
  }

  /** Lists the call until `made` settles; returns `made` itself (no added microtask turn for the caller). */
  private track<R>(made: Promise<R>, args: unknown[], options: ActivityOptions, kind: CallInFlight['kind'], handedOver = false): Promise<R> {
    const context = contextOf(args);
    if (!context?.state) return made;
    const key = `${context.state}\u0000${context.action ?? ''}\u0000${context.function?.name ?? ''}`;
    const attempt = handedOver ? (this.made.get(key) ?? 1) : (this.made.get(key) ?? 0) + 1;
    this.made.set(key, attempt);
    const call: CallInFlight = {
      step: context.state,
      ...(context.action ? { action: context.action } : {}),
      function: context.function?.name ?? '',
      target: targetOf(options.summary),
      kind,
      startedAt: this.now(),
      attempt,
      ...(handedOver ? { handedOver: true } : {}),
    };
    this.calls.push(call);
    this.onChange?.();
    const settled = (ok: boolean) => {
      const i = this.calls.indexOf(call);
      if (i >= 0) this.calls.splice(i, 1);
      if (ok) this.made.delete(key);
      this.onChange?.();
    };
    // A reaction of its own, registered before the caller's: it runs first, and the caller's
    // reactions keep their order (what settled is not awaited by anyone).
    made.then(
      () => settled(true),
      () => settled(false),
    );
    return made;
  }

  /** The current details' section: a table of the calls in flight (empty when none). */
  markdown(): string {
    if (!this.calls.length) return '';
    const esc = (s: string) => s.replace(/\|/g, '\\|');
    const rows = this.calls.map((c) => `| ${esc(c.step)} | ${esc(c.function)} | ${esc(c.target)} | ${c.kind}${c.handedOver ? ' (handed over)' : ''} | ${new Date(c.startedAt).toISOString()} | ${c.attempt} |`);
    return `\n\n#### Calls in flight\n\n| Step | Function | Target | Kind | Started | Attempt |\n|---|---|---|---|---|---|\n${rows.join('\n')}`;
  }
}

/** The call's context: its `swflow-call` header's, or (runs before call-context-headers) its whole input's. */
function contextOf(args: unknown[]): Partial<CallContext> | undefined {
  const header = callContextOf(args);
  if (header) return header;
  const whole = args[0] as Partial<CallContext> | undefined;
  return whole && typeof whole === 'object' && typeof whole.state === 'string' && whole.workflow ? whole : undefined;
}

/** What a call's summary says it calls (`<step> › <action> → <target>`), without a note of a call made again. */
function targetOf(summary: string | undefined): string {
  const s = (summary ?? '').replace(/ \((again|local call handed over)[^)]*\)$/, '');
  const i = s.lastIndexOf(' → ');
  return i >= 0 ? s.slice(i + 3) : s;
}

/**
 * The local call ran out of its bound (either of its timeouts: which one Core reports varies). Live,
 * the failure is an ActivityFailure caused by the timeout; replayed from its marker, the timeout
 * itself: both are taken, so the replay takes the path the run took.
 */
function outlived(err: unknown): boolean {
  const timeout = err instanceof ActivityFailure ? err.cause : err;
  return timeout instanceof TimeoutFailure && (timeout.timeoutType === 'SCHEDULE_TO_CLOSE' || timeout.timeoutType === 'START_TO_CLOSE');
}
