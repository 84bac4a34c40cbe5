/**
 * Sending a CloudEvent straight to Temporal, routed by the gateway's own code (the Dispatcher):
 * what `swflow event send --temporal` and the MCP server's `send_event` do. An event naming a
 * workflow id (TARGET_ATTRIBUTE) goes to that run alone; whoever holds the Temporal connection may
 * address any run, so the delivery counts as authenticated.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE, type CloudEventJson } from '../common/contracts';
import type { Definition, Json } from '../common/model';
import { checkEvent } from '../gateway/cloudevents';
import { Dispatcher, TARGET_ATTRIBUTE, type EventResult } from '../gateway/dispatch';

export interface RunEvent {
  type: string;
  /** Default `swflow.operator`. */
  source?: string;
  data?: Json;
  id?: string;
  subject?: string;
  /** More attributes (correlation keys, say), lower-cased as CloudEvents requires. */
  extensions?: Record<string, string>;
}

/** The CloudEvent addressed to one run (its `swflowworkflowid` extension), checked as the gateway checks it. */
export function eventForRun(workflowId: string, e: RunEvent): CloudEventJson {
  const raw: Record<string, unknown> = { specversion: '1.0', id: e.id ?? randomUUID(), source: e.source ?? 'swflow.operator', type: e.type };
  if (e.subject) raw.subject = e.subject;
  if (e.data !== undefined) {
    raw.data = e.data;
    if (typeof e.data !== 'string') raw.datacontenttype = 'application/json';
  }
  for (const [k, v] of Object.entries(e.extensions ?? {})) raw[k.toLowerCase()] = v;
  raw[TARGET_ATTRIBUTE] = workflowId;
  return checkEvent(raw);
}

/** Delivers `event` through Temporal: to the run it names, else where the definitions route it. */
export function deliverEvent(client: Client, event: CloudEventJson, definitions: () => Promise<Definition[]>, taskQueue = INTERPRETER_TASK_QUEUE): Promise<EventResult> {
  return new Dispatcher({ client, definitions, taskQueue }).dispatch(event, true);
}
