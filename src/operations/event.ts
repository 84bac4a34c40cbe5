/**
 * Sending one CloudEvent through Temporal, as `swflow event send --temporal` does: the event is
 * built from its attributes (checked as the gateway checks it) and routed by the gateway's own
 * Dispatcher, with `swflowworkflowid` (TARGET_ATTRIBUTE) when it goes to one run. One place for
 * the CLI, the run page's "Send event" and the MCP server's tool.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { CloudEventJson } from '../common/contracts';
import type { Definition } from '../common/model';
import { checkEvent } from '../gateway/cloudevents';
import { Dispatcher, TARGET_ATTRIBUTE, type EventResult } from '../gateway/dispatch';

/** An event's attributes, as a sender gives them; what is missing gets the CLI's defaults. */
export interface EventFields {
  type?: string;
  /** Default `swflow.cli`. */
  source?: string;
  /** Default: a new UUID. */
  id?: string;
  subject?: string;
  /** The data, already parsed (JSON value or text); undefined: none. */
  data?: unknown;
  /** Default application/json for data that is not text. */
  dataContentType?: string;
  /** Extension attributes (names are lowercased, as CloudEvents wants them). */
  extensions?: Record<string, string>;
  /** Deliver to this workflow id only (the TARGET_ATTRIBUTE extension). */
  workflowId?: string;
}

/** The event: `base` (e.g. a structured event read from a file), the fields on top, checked like the gateway checks it. */
export function cloudEvent(fields: EventFields, base: Record<string, unknown> = {}): CloudEventJson {
  const e: Record<string, unknown> = { specversion: '1.0', ...base };
  if (fields.type) e.type = fields.type;
  e.source = fields.source ?? e.source ?? 'swflow.cli';
  e.id = fields.id ?? e.id ?? randomUUID();
  if (fields.subject) e.subject = fields.subject;
  if (fields.data !== undefined) {
    e.data = fields.data;
    if (fields.dataContentType) e.datacontenttype = fields.dataContentType;
    else if (typeof fields.data !== 'string') e.datacontenttype = 'application/json';
  }
  for (const [k, v] of Object.entries(fields.extensions ?? {})) e[k.toLowerCase()] = v;
  if (fields.workflowId) e[TARGET_ATTRIBUTE] = fields.workflowId;
  if (!e.type) throw new Error('the event needs a type');
  return checkEvent(e);
}

export interface SendEventOptions {
  /** The definitions to route by (an event without TARGET_ATTRIBUTE). */
  definitions: () => Promise<Definition[]>;
  /** The task queue new instances start on. */
  taskQueue?: string;
}

/**
 * Delivers the event through Temporal. The caller holds the Temporal connection (or the operator
 * token), so addressing an instance directly is allowed.
 */
export function sendEvent(client: Client, e: CloudEventJson, opts: SendEventOptions): Promise<EventResult> {
  return new Dispatcher({ client, definitions: opts.definitions, taskQueue: opts.taskQueue }).dispatch(e, true);
}
