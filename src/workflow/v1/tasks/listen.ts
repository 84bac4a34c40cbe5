/**
 * `listen`: takes events from the run's mailbox (the `swflow.event` signal, as for 0.8), the
 * oldest matching first; events that came early are kept.
 * - `one`: one event matching the filter; `all`: one event per filter, in any order;
 * - `any`: one event matching any filter (`any: []`: any event) — with `until`, events keep
 *   being consumed until the expression (over the events read so far) holds, or until the
 *   `until` strategy's events arrive (those are not part of the output); `until: { any: [] }`
 *   is met by the next event, whatever it is (feature v1-listen-until-any-event).
 * The output is the array of the events consumed, read as `read` says (`data` by default,
 * `envelope`: the whole CloudEvent, `raw`: the data as received); with `foreach`, each event
 * runs `foreach.do` (with `$<item>`, `$<at>`; then `foreach.output.as` and `foreach.export.as`) as
 * it comes, and the output is their outputs.
 */
import type { ConsumptionStrategy, EventFilter, SubscriptionIterator, Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import type { CloudEventJson } from '../../../common/contracts';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import type { ExprScope } from '../../expressions';
import { filterMatches, fixCorrelation } from '../events';
import { transform } from '../data';
import { ANY_TYPE, awaitedEntry } from '../../../common/awaited-events';
import { FEATURE_V1_LISTEN_UNTIL_ANY_EVENT } from '../../../common/features';

function labels(filters: EventFilter[]): string[] {
  const types = filters.map((f) => f.with?.type).filter((t): t is string => typeof t === 'string' && !t.includes('${'));
  return types.length === filters.length && types.length ? types : ['*'];
}

export async function runListen(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const to = task.listen!.to;
  const read = task.listen!.read ?? 'data';
  const args = ctx.args(at, { input });
  const scope: ExprScope = { variables: args };
  // `expect` values are constants or expressions over the task's input.
  const expected: Record<string, Json> = {};
  for (const f of [...(to.all ?? []), ...(to.any ?? []), ...(to.one ? [to.one] : [])]) {
    for (const [k, c] of Object.entries(f.correlate ?? {})) {
      if (c.expect !== undefined) expected[k] = c.expect.includes('${') ? await ctx.value(c.expect, input, args, `correlate.${k}.expect`) : c.expect;
    }
  }
  const outputs: Json[] = [];
  const consume = async (e: CloudEventJson, filter: EventFilter | undefined): Promise<void> => {
    if (filter) fixCorrelation(filter, e, scope, ctx.correlation);
    const item = read === 'envelope' ? (e as unknown as Json) : (e.data ?? null);
    outputs.push(await iterate(task, at, item, outputs.length, ctx));
  };
  const take = async (filters: EventFilter[], anyEvent: boolean): Promise<{ e: CloudEventJson; filter?: EventFilter }> => {
    let hit: EventFilter | undefined;
    const match = (e: CloudEventJson) => {
      if (anyEvent) return true;
      hit = filters.find((f) => filterMatches(f, e, scope, ctx.correlation, expected));
      return hit !== undefined;
    };
    // SwAwaitedEvents entries: correlation values known now qualify a filter's type (common/awaited-events.ts).
    const known = (key: string) => (key in expected ? expected[key] : ctx.correlation[key]);
    const entries = anyEvent ? [ANY_TYPE] : [...new Set(filters.map((f) => awaitedEntry(f, known)))];
    const e = (await ctx.mailbox.takeWhere(match, anyEvent ? ['*'] : labels(filters), undefined, undefined, entries))!;
    return { e, filter: hit };
  };

  // Lifecycle: the run correlates events while a listen with `correlate` waits (workflow.correlation-*).
  const correlated = [...(to.all ?? []), ...(to.any ?? []), ...(to.one ? [to.one] : [])].some((f) => f.correlate && Object.keys(f.correlate).length);
  if (correlated) ctx.mailbox.correlating('started');
  if (to.one) {
    const { e, filter } = await take([to.one], false);
    await consume(e, filter);
  } else if (to.all) {
    const left = [...to.all];
    while (left.length) {
      const { e, filter } = await take(left, false);
      left.splice(left.indexOf(filter!), 1);
      await consume(e, filter);
    }
  } else {
    const any = to.any ?? [];
    const until = to.until;
    if (until === undefined) {
      const { e, filter } = await take(any, any.length === 0);
      await consume(e, filter);
    } else if (typeof until === 'string') {
      for (;;) {
        const { e, filter } = await take(any, any.length === 0);
        await consume(e, filter);
        if (await ctx.condition(until, outputs, ctx.args(at, { input }), 'listen.to.until')) break;
      }
    } else {
      await listenUntil(any, until, take, consume, ctx.features.has(FEATURE_V1_LISTEN_UNTIL_ANY_EVENT));
    }
  }
  if (correlated) ctx.mailbox.correlating('completed', { ...ctx.correlation, ...expected });
  return { output: outputs };
}

/** `any` until the `until` strategy's events have come (they are consumed, not output). */
async function listenUntil(
  any: EventFilter[],
  until: ConsumptionStrategy,
  take: (filters: EventFilter[], anyEvent: boolean) => Promise<{ e: CloudEventJson; filter?: EventFilter }>,
  consume: (e: CloudEventJson, filter: EventFilter | undefined) => Promise<void>,
  untilAnyEvent: boolean,
): Promise<void> {
  // `until: { any: [] }`: every incoming event meets it (was: never met, so the listen never ended).
  if (untilAnyEvent && !until.all && !until.one && Array.isArray(until.any) && until.any.length === 0) {
    await take([], true);
    return;
  }
  const stop = until.all ? [...until.all] : until.one ? [until.one] : [...(until.any ?? [])];
  const needAll = until.all !== undefined;
  for (;;) {
    const { e, filter } = await take([...stop, ...any], any.length === 0 && stop.length === 0);
    if (filter && stop.includes(filter)) {
      if (!needAll) return;
      stop.splice(stop.indexOf(filter), 1);
      if (!stop.length) return;
      continue;
    }
    await consume(e, filter);
  }
}

/** One consumed item through `foreach` (do, output.as, export.as), or the item itself. */
async function iterate(task: Task, at: TaskAt, item: Json, index: number, ctx: TaskContext): Promise<Json> {
  return task.foreach ? iterateItem(task.foreach, `${at.reference}/foreach/do`, at, item, index, ctx) : item;
}

/** One item a subscription consumed (a listen's event, an asyncapi call's message) through its iterator: `do` at `base`, then output.as and export.as. */
export async function iterateItem(it: SubscriptionIterator, base: string, at: TaskAt, item: Json, index: number, ctx: TaskContext): Promise<Json> {
  const locals = { ...at.locals, [it.item ?? 'item']: item, [it.at ?? 'index']: index };
  let out = item;
  if (it.do) out = (await ctx.runList(it.do, base, item, locals)).output;
  const args = ctx.args({ ...at, locals }, { input: item });
  out = await transform(ctx, it.output?.as, out, args, 'foreach.output.as');
  await ctx.exportContext(it.export?.as, out, args);
  return out;
}
