/**
 * Which Serverless Workflow 1.0 instances a CloudEvent is for. Pure: documents and an event in,
 * deliveries out (the same shapes as 0.8's routing.ts, so dispatch.ts delivers both alike).
 *
 * - A document listens for the event when a `listen` filter anywhere in its task tree (nested
 *   `do`, `for`, `fork` branches, `try`/`catch`, a listen's `foreach.do`, `use.functions`, an
 *   `until` strategy) may match it: each `with` attribute that is a literal or a regular
 *   expression must match (anchored, as in the run); one that is a runtime expression may match.
 *   The event goes to the running instances whose SwAwaitedEvents holds the filter's type entry,
 *   or, for a filter with `correlate`, the entry qualified by the event's correlation values
 *   (`from` evaluated on the event with swflow's jq engine): instances waiting for another key
 *   are not signalled (../common/awaited-events.ts says what a run publishes).
 * - A document with `schedule.on` starts a run when a filter of that strategy may match: named
 *   by the correlation values (`<namespace>/<name>/<key>=<value>/…`) when the filters correlate,
 *   so every event of one key reaches the same run (`all` collects its events there); else named
 *   after the event (`<namespace>/<name>/<source>/<id>`, started at most once). An uncorrelated
 *   `all`/`until` strategy first looks for a running instance that waits for the event (one that
 *   an earlier event started), and starts a new one only when none does.
 * Only the latest version of each document (id `<namespace>/<name>`) is read.
 */
import type { Json } from '../common/model';
import { entryOf, type ConsumptionStrategy, type EventFilter, type Task, type TaskList, type V1Definition } from '../common/model-v1';
import type { CloudEventJson } from '../common/contracts';
import { attributeMatches, correlationEntry, readsEventOnly, strategyFilters, typeEntry } from '../common/awaited-events';
import { evaluateExpression } from '../expr';
import { latestVersions } from '../definitions/registry';
import type { AwaitingDelivery, Delivery, InstanceDelivery } from './routing';

/** The id segment for a correlation value or an event attribute; `/` and `=` are escaped so keys cannot collide. */
const part = (s: string) => s.replace(/%/g, '%25').replace(/\//g, '%2F').replace(/=/g, '%3D');

/** Every `listen` filter of a task list, wherever the listen sits, with its JSON pointer. */
export function listenFilters(list: TaskList | undefined, base: string, out: { filter: EventFilter; at: string }[] = []): { filter: EventFilter; at: string }[] {
  if (!Array.isArray(list)) return out;
  list.forEach((item, i) => {
    if (!item || typeof item !== 'object') return;
    const [name, task] = entryOf(item);
    taskFilters(task, `${base}/${i}/${name}`, out);
  });
  return out;
}

function taskFilters(task: Task | undefined, at: string, out: { filter: EventFilter; at: string }[]): void {
  if (!task || typeof task !== 'object') return;
  if (task.listen?.to) for (const filter of strategyFilters(task.listen.to)) out.push({ filter, at });
  listenFilters(task.do, `${at}/do`, out);
  listenFilters(task.try, `${at}/try`, out);
  listenFilters(task.catch?.do, `${at}/catch/do`, out);
  listenFilters(task.fork?.branches, `${at}/fork/branches`, out);
  listenFilters(task.foreach?.do, `${at}/foreach/do`, out);
}

/** Every listen filter of a document, its `use.functions` included. */
function documentFilters(def: V1Definition): EventFilter[] {
  const out = listenFilters(def.workflow.do, '/do');
  for (const [name, fn] of Object.entries(def.workflow.use?.functions ?? {})) taskFilters(fn, `/use/functions/${name}`, out);
  return out.map((f) => f.filter);
}

/** What routing reads of a document: its `schedule.on` strategy and filters, and its listen filters. */
export interface DocumentRouting {
  on?: ConsumptionStrategy;
  onFilters: EventFilter[];
  listens: EventFilter[];
}

/**
 * The routing of each document, computed once: the registry hands out the same object while its
 * file is unchanged (a changed file is a new object), so an event does not walk every task tree.
 */
const routings = new WeakMap<V1Definition, DocumentRouting>();

export function routingOf(def: V1Definition): DocumentRouting {
  let r = routings.get(def);
  if (!r) {
    const on = def.workflow.schedule?.on as ConsumptionStrategy | undefined;
    const scheduled = on && typeof on === 'object' ? on : undefined;
    r = { on: scheduled, onFilters: scheduled ? strategyFilters(scheduled) : [], listens: documentFilters(def) };
    routings.set(def, r);
  }
  return r;
}

/** Whether a `with` value may match the event's attribute (an expression may: the run decides). */
const mayMatch = (want: Json, have: Json | undefined) => attributeMatches(want, have, () => true);

/**
 * The event's correlation values for a filter: undefined when a `from` cannot be evaluated on the
 * event alone (then only the plain type is looked up); `false` when a literal `expect` rules it out.
 */
function correlationValues(filter: EventFilter, e: CloudEventJson): Record<string, Json> | undefined | false {
  const values: Record<string, Json> = {};
  let known = true;
  for (const [key, c] of Object.entries(filter.correlate ?? {})) {
    if (!c || typeof c.from !== 'string' || !readsEventOnly(c.from)) {
      known = false;
      continue;
    }
    let v: Json;
    try {
      v = evaluateExpression(c.from, e as unknown as Json);
    } catch {
      known = false;
      continue;
    }
    if (typeof c.expect === 'string' && !c.expect.includes('${') && JSON.stringify(c.expect) !== JSON.stringify(v)) return false;
    values[key] = v;
  }
  return known ? values : undefined;
}

interface FilterHit {
  filter: EventFilter;
  /** Defined when every correlation value of the filter was computed from the event. */
  values?: Record<string, Json>;
}

/** The filters that may match `e`, with their correlation values. */
function hits(filters: EventFilter[], e: CloudEventJson): FilterHit[] {
  const out: FilterHit[] = [];
  for (const filter of filters) {
    if (!Object.entries(filter.with ?? {}).every(([k, v]) => mayMatch(v, (e as Record<string, Json | undefined>)[k]))) continue;
    const values = filter.correlate && Object.keys(filter.correlate).length ? correlationValues(filter, e) : undefined;
    if (values === false) continue;
    out.push({ filter, ...(values ? { values } : {}) });
  }
  return out;
}

/** The SwAwaitedEvents entries an instance waiting for one of `hits` holds. */
function entriesOf(found: FilterHit[]): string[] {
  const entries = new Set<string>();
  for (const h of found) {
    entries.add(typeEntry(h.filter));
    if (h.values) entries.add(correlationEntry(typeEntry(h.filter), h.values));
  }
  return [...entries].sort();
}

const labelOf = (found: FilterHit[]) => [...new Set(found.map((h) => typeEntry(h.filter)))];

/** The instance a `schedule.on` event starts (or reaches). */
function startDelivery(def: V1Definition, on: ConsumptionStrategy, found: FilterHit[], e: CloudEventJson): Delivery {
  const events = labelOf(found).map((t) => `schedule.on ${t}`);
  const correlated = found.filter((h) => h.filter.correlate && Object.keys(h.filter.correlate).length);
  const values = correlated.length && correlated.every((h) => h.values) ? Object.assign({}, ...correlated.map((h) => h.values)) as Record<string, Json> : undefined;
  if (values) {
    const id = [def.id, ...Object.keys(values).sort().map((k) => `${part(k)}=${part(typeof values[k] === 'string' ? (values[k] as string) : JSON.stringify(values[k]))}`)].join('/');
    return { via: 'id', workflowType: def.id, workflowId: id, start: true, keyedBy: 'correlation', events } satisfies InstanceDelivery;
  }
  const byEvent: InstanceDelivery = { via: 'id', workflowType: def.id, workflowId: `${def.id}/${part(e.source)}/${part(e.id)}`, start: true, keyedBy: 'event', events };
  // Several events make one start (`all`, `until`): a running instance an earlier event started takes this one.
  const several = on.all !== undefined || on.until !== undefined;
  if (several) byEvent.unlessAwaited = { via: 'visibility', workflowType: def.id, eventType: e.type, entries: entriesOf(found), events };
  return byEvent;
}

export function routeV1(definitions: V1Definition[], e: CloudEventJson): Delivery[] {
  const out: Delivery[] = [];
  for (const def of latestVersions(definitions)) {
    const { on, onFilters, listens } = routingOf(def);
    if (on) {
      const found = hits(onFilters, e);
      if (found.length) out.push(startDelivery(def, on, found, e));
    }
    const found = hits(listens, e);
    if (found.length) {
      out.push({ via: 'visibility', workflowType: def.id, eventType: e.type, entries: entriesOf(found), events: labelOf(found).map((t) => `listen ${t}`) } satisfies AwaitingDelivery);
    }
  }
  return out;
}
