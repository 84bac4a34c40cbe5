/**
 * What an event definition accepts (spec 0.8, "Event Definition", "Correlation Definition"),
 * shared by the workflow's mailbox and the event gateway's routing.
 *
 * Pure and dependency-free: safe to import from the Temporal workflow sandbox.
 */
import type { EventDef, WorkflowDef } from './model';

/** A CloudEvent in structured JSON form, as far as matching needs it. */
type EventLike = { type?: unknown; source?: unknown; [attribute: string]: unknown };

/**
 * True when `e` has the definition's type, its source (when it names one), and every
 * correlation context attribute with the required value: the definition's fixed value, else
 * `fixed[attribute]` (the instance's correlation keys), else any value.
 */
export function eventMatches(def: EventDef, e: EventLike, fixed: Record<string, string> = {}): boolean {
  if (e.type !== def.type) return false;
  if (def.source !== undefined && def.source !== '' && e.source !== def.source) return false;
  for (const c of def.correlation ?? []) {
    const actual = e[c.contextAttributeName];
    if (actual === undefined || actual === null) return false;
    const want = c.contextAttributeValue ?? fixed[c.contextAttributeName];
    if (want !== undefined && String(actual) !== String(want)) return false;
  }
  return true;
}

/** The events the start state consumes (event start states), by definition name. */
export function startEventRefs(def: WorkflowDef): string[] {
  const start = def.states.find((s) => s.name === def.start.stateName);
  return start?.type === 'event' ? [...new Set(start.onEvents.flatMap((o) => o.eventRefs))] : [];
}

/**
 * The key a run remembers a consumed event by (its mailbox's dedupe), `source` and `id`, which
 * CloudEvents makes unique; the gateway compares a closed run's keys (the swflow.consumed query) with it.
 */
export function consumedKey(e: { source: string; id: string }): string {
  return `${e.source}\u0000${e.id}`;
}
