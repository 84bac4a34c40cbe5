/**
 * swflow's adapter SDK (`swflow/adapter`): write the activities that serve a workflow's
 * function calls, and run them on a task queue.
 *
 * - {@link defineAdapter}: a name and its activities (`<name>.<activity>` activity types).
 * - Each activity gets the call's evaluated arguments (`$SECRETS` resolved in the worker) and an
 *   {@link ActivityContext}: the function definition, workflow/state/action, resolved auth, an
 *   HTTP helper with auth and error codes, heartbeat and cancellation.
 * - Throw an {@link AdapterError} (or any error with a string `code`) to fail the call with a
 *   code `errors[].code` matches; {@link ErrorCodes} lists swflow's.
 * - Whatever a call returns or throws leaves the worker with every secret value redacted.
 * - {@link runAdapterWorker} / {@link createAdapterWorker} serve adapters on a queue
 *   (`swflow worker --adapter <module…> --task-queue <queue>` from the command line).
 *
 * The guide: adapters/README.md.
 */
export { defineAdapter, isAdapter, type Adapter, type AdapterActivity, type AdapterDefinition, type ActivityContext } from './define';
export { AdapterError, DefinitionError, ErrorCodes, isAdapterError, networkFailure, operationError, type AdapterErrorOptions } from './errors';
/** The root of swflow's errors (an adapter's own error classes descend from it) and what marks a class for a cross-realm `instanceof`. */
export { SwflowError, errorClass } from '../common/errors';
export { createAdapterWorker, runAdapterWorker, loadAdapters, type AdapterWorkerOptions } from './worker';
export { callInterceptor, functionCallOf } from './call';
export { adapterActivities, adapterServices, serveCall, callSite, type AdapterServices, type CallActivity } from './activities';
export { fetchDocument, isHttpUrl, loadOnce, locateDocument } from './documents';
export { callHttp, describeRequest, readAnswer, sendHttp, type HttpAnswer, type HttpOptions, type HttpRequest } from './http';
/** The HTTP client under sendHttp (node:http, keep-alive; fetch's behaviour, a standard Response), also as a `fetch` for a library that takes one. */
export { fetchArguments, httpFetch, httpFetchAsFetch, type HttpFetchInit } from './http-client';
/** The active trace context as headers (`traceparent`, `tracestate`) for a request an adapter sends by other means than sendHttp; none when the process does not trace. */
export { traceHeaders } from '../tracing/context';
export { type Auth, TokenCache } from './auth';
export { authenticationHeader, authenticationHeaders, secretObject, tokenAuthentication, type SecretSource, type TokenSource } from './authentication';
export { ConfigurationError, ErrorTypes, configurationFailure, problemFailure, type Problem } from './problems';
/** The `Idempotency-Key` of a call's unsafe requests (stable across its attempts), as the built-in HTTP adapters send it. */
export { addIdempotencyKey, idempotencyKey, idempotencyKeyEnabled, IDEMPOTENCY_KEY_HEADER } from './idempotency';
export { decodeContent, sendCall, shapeOutput, statusProblem, type ReceivedResponse } from './http-output';
export { Redactor, REDACTED, MIN_SECRET_LENGTH } from './redact';
export type { SecretValues } from './secrets';
export { ADAPTER_TASK_QUEUE, type FunctionCall, type CallContext, type ServiceErrorDetails } from '../common/contracts';
export { CALL_HEADER, activityTypeOf, taskQueueOf, adapterActivityType } from '../common/calls';
/** The activity types of swflow's built-in adapters (`sw.http`, ...), declared once for the interpreter and the adapters. */
export * from '../common/call-kinds';
export type { Json, AuthDef, FunctionDef } from '../common/model';

// Runtime expressions (jq) and 1.0 durations, for adapters that evaluate what a call carries
// (e.g. an AsyncAPI subscription's filter / while / until, its `for`).
export { evaluateCondition, ExpressionError, type ExprScope } from '../expr';
export { durationMs } from '../common/duration';
export type { Duration } from '../common/model-v1';
