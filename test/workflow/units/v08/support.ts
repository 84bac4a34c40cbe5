/**
 * What the 0.8 unit tests share: the functions of their definitions, a call's activity options,
 * an activity's arguments, the failures an adapter reports, a CloudEvent as a broker delivers it.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { CloudEventJson } from '../../../../src/common/contracts';
import { UNLIMITED_CALL_MS } from '../../../../src/workflow/timeouts';
import type { Json } from '../../../../src/common/model';
import type { ActivityCommand, Command } from '../fake-effects';

/** The options of a function call's activity on a new run (no actionExecTimeout: "unlimited", heartbeat 30 s). */
export const callOptions = (summary: string, extra: Record<string, unknown> = {}) => ({
  taskQueue: 'swflow-adapters',
  startToCloseTimeout: UNLIMITED_CALL_MS,
  heartbeatTimeout: 30_000,
  retry: { maximumAttempts: 1 },
  summary,
  ...extra,
});

export const functions = [
  { name: 'quote', type: 'custom', operation: 'pricing.quote' },
  { name: 'stock', type: 'custom', operation: 'pricing.stock' },
  { name: 'double', type: 'expression', operation: '.n * 2' },
];

/** The evaluated arguments an activity was called with (call-context-headers: the input is the arguments alone). */
export const argsOf = (c: Command) => (c as ActivityCommand).args[0];

/** A service error as the workflow sees an adapter's: an ActivityFailure caused by an ApplicationFailure with details `{code, message}`. */
export function serviceError(code: string, message: string, activityType = 'sw.rest'): ActivityFailure {
  return activityFailure(ApplicationFailure.create({ type: code, message, nonRetryable: true, details: [{ code, message }] }), activityType);
}

/** An activity's failure with its cause, as the SDK raises it in the workflow. */
export function activityFailure(cause: Error, activityType = 'sw.rest'): ActivityFailure {
  return new ActivityFailure('Activity task failed', activityType, '1', 'NON_RETRYABLE_FAILURE' as never, 'worker', cause);
}

let eventIds = 0;

/** A CloudEvent as a broker delivers it. */
export function cloudEvent(type: string, data: Json, extra: Record<string, Json> = {}): CloudEventJson {
  return { specversion: '1.0', id: `ev-${++eventIds}`, source: 'test', type, datacontenttype: 'application/json', data, ...extra } as CloudEventJson;
}
