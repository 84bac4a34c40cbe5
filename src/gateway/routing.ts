/**
 * Which workflow instances a CloudEvent is for (spec 0.8, "Workflow Events" and "Correlation
 * Definition"). Pure: definitions and an event in, deliveries out.
 *
 * - A definition consumes the event when one of its consumed event definitions has the event's
 *   `type` (and `source`, when it names one) and the event carries every correlation context
 *   attribute (with the fixed value, where one is given).
 * - The instance is named by its correlation: `<definition id>/<attribute>=<value>/...`, so every
 *   event with the same correlation values reaches the same instance, whichever gateway
 *   replica receives it, with no lookup table.
 * - An event its start state consumes may start that instance ("start events create instances")
 *   or, while it runs, is delivered to it. Other events only reach a running instance.
 * - A start event of a definition without correlation starts its own instance, named after the
 *   event (`<definition id>/<source>/<id>`): delivering the same event again does not start a
 *   second one.
 * - Any other uncorrelated event goes to the running instances that wait for its type now,
 *   whatever their workflow ids (found through visibility by the gateway).
 */
import type { WorkflowDef } from '../common/model';
import { eventMatches, startEventRefs } from '../common/events';
import type { CloudEventJson } from '../common/contracts';
import { latestVersions } from '../definitions/registry';

/** A delivery to one instance, named by the event (its correlation values or its source and id). */
export interface InstanceDelivery {
  via: 'id';
  /** The workflow type: the definition id (the interpreter takes the latest version). */
  workflowType: string;
  workflowId: string;
  /** true: start the instance when it is not running (Temporal's signal-with-start). */
  start: boolean;
  /** Keyed by correlation (a closed instance of the same key may be followed by a new one) or by the event. */
  keyedBy: 'correlation' | 'event';
  /** The event definitions that matched, for messages. */
  events: string[];
  /**
   * A 1.0 `schedule.on` strategy of several events without correlation: the event goes to a
   * running instance that waits for it (an earlier event started it), if there is one, instead of
   * starting a new instance.
   */
  unlessAwaited?: AwaitingDelivery;
}

/**
 * A delivery to every running instance of a definition that waits for the event's type now,
 * found through visibility (the SwAwaitedEvents search attribute the interpreter keeps current):
 * an uncorrelated event that no start state consumes names no instance by itself.
 */
export interface AwaitingDelivery {
  via: 'visibility';
  /** The definition id (SwDefinitionId). */
  workflowType: string;
  /** The CloudEvent type (for messages; what is looked up in SwAwaitedEvents unless `entries` are given). */
  eventType: string;
  /** 1.0: the SwAwaitedEvents entries looked up (any of them): types and correlation-qualified types (routing-v1.ts). */
  entries?: string[];
  events: string[];
}

export type Delivery = InstanceDelivery | AwaitingDelivery;

/** The id segment for correlation values; `/` and `=` are escaped so keys cannot collide. */
const part = (s: string) => s.replace(/%/g, '%25').replace(/\//g, '%2F').replace(/=/g, '%3D');

export function route(definitions: WorkflowDef[], e: CloudEventJson): Delivery[] {
  const out: Delivery[] = [];
  // One definition per id: the latest version decides (it is what a new instance would run).
  for (const def of latestVersions(definitions)) {
    const matched = def.events.filter((ev) => (ev.kind ?? 'consumed') === 'consumed' && eventMatches(ev, e));
    if (!matched.length) continue;
    const starts = new Set(startEventRefs(def));
    const start = matched.some((m) => starts.has(m.name));
    const events = matched.map((m) => m.name);
    // Correlation keys without a fixed value identify the instance.
    const keys = [...new Set(matched.flatMap((m) => m.correlation.filter((c) => c.contextAttributeValue === undefined).map((c) => c.contextAttributeName)))].sort();
    if (keys.length) {
      const id = [def.id, ...keys.map((k) => `${part(k)}=${part(String(e[k]))}`)].join('/');
      out.push({ via: 'id', workflowType: def.id, workflowId: id, start, keyedBy: 'correlation', events });
    } else if (start) {
      out.push({ via: 'id', workflowType: def.id, workflowId: `${def.id}/${part(e.source)}/${part(e.id)}`, start: true, keyedBy: 'event', events });
    } else {
      out.push({ via: 'visibility', workflowType: def.id, eventType: e.type, events });
    }
  }
  return out;
}
