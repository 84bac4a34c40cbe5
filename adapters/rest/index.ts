/**
 * The REST adapter: serves `rest` functions (activity type `sw.rest`) by calling the OpenAPI
 * operation their `operation` names. Secret arguments are resolved here, after Temporal has
 * recorded the call's input, so their values reach the service and never the history.
 *
 *   const activities = createRestActivities({ baseDirs: ['./workflows'] });
 *   await Worker.create({ taskQueue: 'swflow-adapters', activities, ... });
 *
 * Failures: an HTTP status ≥ 400 fails the call with the status as the error code (what
 * `errors[].code` matches); the message names the request and carries the service's answer.
 * Definition problems (document or operation not found, arguments that fit no parameter) are
 * non-retryable; network errors and statuses are left to the definition's retry strategy.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { FunctionCall, ServiceErrorDetails } from '../../src/common/contracts';
import type { Json } from '../../src/dsl/model';
import { resolveSecretArguments } from '../../src/expr/secrets';
import { OperationError, resolveOperation } from './openapi';
import { buildRequest } from './request';

export interface RestAdapterOptions {
  /** Where relative OpenAPI document references are looked up (the definition folders). Default: cwd. */
  baseDirs?: string[];
  /** Values of `$SECRETS` (default: this process's environment). */
  secrets?: Record<string, string>;
}

export const REST_ACTIVITY = 'sw.rest';

const MAX_MESSAGE = 2000;

function fail(code: string, message: string, nonRetryable: boolean, serviceMessage = message): never {
  const details: ServiceErrorDetails = { code, message: serviceMessage };
  throw ApplicationFailure.create({ type: code, message, details: [details], nonRetryable });
}

async function readBody(res: Response): Promise<Json> {
  const body = await res.text();
  if (!body) return null;
  if (/json/i.test(res.headers.get('content-type') ?? '') || /^\s*[[{"]/.test(body)) {
    try {
      return JSON.parse(body) as Json;
    } catch {
      /* not JSON after all: the text */
    }
  }
  return body;
}

export async function invokeRest(call: FunctionCall, opts: RestAdapterOptions = {}): Promise<Json> {
  const where = `function "${call.function.name}" (${call.function.operation})`;
  let request;
  try {
    const args = await resolveSecretArguments(
      call.arguments,
      call.secretArguments,
      call.secretContext?.data ?? null,
      call.secretContext?.scope,
      (opts.secrets ?? process.env) as Record<string, Json>,
    );
    const op = await resolveOperation(call.function.operation, opts.baseDirs ?? [process.cwd()]);
    request = buildRequest(op, args);
  } catch (err) {
    if (err instanceof OperationError) fail('OperationError', `${where}: ${err.message}`, true);
    // A document that could not be fetched may be there next time.
    fail('OperationUnavailable', `${where}: ${(err as Error).message}`, false);
  }
  let res: Response;
  try {
    res = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: Context.current().cancellationSignal,
    });
  } catch (err) {
    // Cancelled (the workflow cancelled the call, or this worker is shutting down): not the service's error.
    const signal = Context.current().cancellationSignal;
    if (signal.aborted) throw signal.reason;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    fail('ConnectionError', `${where}: ${request.method} ${request.url} failed: ${cause?.message ?? (err as Error).message}`, false);
  }
  const body = await readBody(res);
  if (res.status >= 400) {
    const answer = typeof body === 'string' ? body : JSON.stringify(body);
    const serviceMessage = (body && typeof body === 'object' && !Array.isArray(body) && typeof body.message === 'string' ? body.message : answer) || res.statusText;
    fail(String(res.status), `${request.method} ${request.url} answered ${res.status} ${res.statusText}${answer ? `: ${answer.slice(0, MAX_MESSAGE)}` : ''}`, false, serviceMessage);
  }
  return body;
}

/** The adapter's activities, to register on an adapter worker's task queue. */
export function createRestActivities(opts: RestAdapterOptions = {}): Record<string, (call: FunctionCall) => Promise<Json>> {
  return { [REST_ACTIVITY]: (call) => invokeRest(call, opts) };
}
