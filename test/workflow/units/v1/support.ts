/**
 * What the 1.0 unit tests share: the call an adapter gets back from an activity's arguments, an
 * activity handler over it, the failures an adapter worker or the platform reports, a CloudEvent,
 * a GET call task, and the WorkflowError a task fails with.
 */
import assert from 'node:assert/strict';
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import type { Json } from '../../../../src/common/model';
import type { CloudEventJson, FunctionCall } from '../../../../src/common/contracts';
import { WorkflowError } from '../../../../src/workflow/v1/errors';
import { callContextOf } from '../../../../src/workflow/interceptors';
import type { Command } from '../fake-effects';

export const COMM = 'https://serverlessworkflow.io/spec/1.0.0/errors/communication';

/** The call as an adapter gets it back: the arguments (the input) with the context of its `swflow-call` header. */
export const callOf = (args: unknown[]): FunctionCall => {
  const context = callContextOf(args);
  return context ? ({ ...context, arguments: args[0] } as FunctionCall) : (args[0] as FunctionCall);
};

export const http = (handler: (fc: FunctionCall, attempt: number) => unknown) => (args: unknown[], _c: Command, attempt: number) => handler(callOf(args), attempt);

/** A failed call as the adapter worker reports it: an ActivityFailure caused by the service's error. */
export function serviceFailure(code: string, message: string): ActivityFailure {
  return new ActivityFailure('activity failed', 'sw.http', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'adapter', ApplicationFailure.create({ message, type: code, details: [{ code, message }] }));
}

/** A call cut short by the platform: its worker stopped heartbeating. */
export function heartbeatLost(): ActivityFailure {
  return new ActivityFailure('activity timed out', 'sw.http', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, new TimeoutFailure('heartbeat', undefined, 'HEARTBEAT'));
}

export const ev = (type: string, data: Json, extra: Record<string, Json> = {}): CloudEventJson => ({ specversion: '1.0', id: `${type}-${JSON.stringify(data)}`, source: 'test', type, data, ...extra });

export async function rejects(p: Promise<unknown>): Promise<WorkflowError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof WorkflowError, `expected a WorkflowError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the task to fail');
}

export const get = (path: string) => ({ call: 'http', with: { method: 'get', endpoint: `https://svc.example/${path}` } });
