/**
 * Adapters → Temporal activities. Each activity of an adapter is wrapped so that, per call:
 * the {@link FunctionCall} (put together by callInterceptor) has its secret arguments and auth
 * resolved in the worker; the adapter's function runs with an {@link ActivityContext}; and
 * whatever leaves the worker — the result, or the failure with its message, details, stack and
 * causes — has every secret value redacted. A failure is an ApplicationFailure whose type and
 * `details[0].code` are the error's code and whose message names the state, action, function,
 * the request and the service's answer.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { FunctionCall, ServiceErrorDetails } from '../common/contracts';
import type { Json } from '../common/model';
import { resolveAuth, TokenCache, type Auth } from './auth';
import { isFunctionCall } from './call';
import type { ActivityContext, Adapter } from './define';
import { ErrorCodes } from './errors';
import { callHttp, sendHttp, sendHttpWhole, wholeAnswerSenders, type HttpOptions } from './http';
import { Redactor } from './redact';
import { resolveArguments, type SecretValues } from './secrets';

/** What the activities of one worker share. */
export interface AdapterServices {
  /** `$SECRETS` values (default: the worker's environment). */
  secrets: SecretValues;
  /** OAuth2 tokens, cached for the worker's lifetime. */
  tokens: TokenCache;
}

export function adapterServices(secrets?: SecretValues): AdapterServices {
  return { secrets: secrets ?? (process.env as SecretValues), tokens: new TokenCache() };
}

/** A Temporal activity serving function calls. */
export type CallActivity = (call: FunctionCall) => Promise<Json>;

/** The activities of some adapters, by activity type. Two adapters may not serve the same type. */
export function adapterActivities(adapters: Adapter[], services: AdapterServices): Record<string, CallActivity> {
  const out: Record<string, CallActivity> = {};
  const owner = new Map<string, string>();
  for (const adapter of adapters) {
    for (const [type, fn] of Object.entries(adapter.activityTypes)) {
      if (owner.has(type)) throw new Error(`activity type "${type}" is served by two adapters (${owner.get(type)} and ${adapter.name})`);
      owner.set(type, adapter.name);
      out[type] = (call) => serveCall(fn, call, services);
    }
  }
  return out;
}

/** Serves one call with an adapter's activity function (see the module comment). */
export async function serveCall(fn: Adapter['activityTypes'][string], call: FunctionCall, services: AdapterServices): Promise<Json> {
  if (!isFunctionCall(call)) {
    throw ApplicationFailure.create({
      type: ErrorCodes.OperationError,
      message: 'this activity was given no swflow function call: register callInterceptor on the worker (createAdapterWorker does)',
      nonRetryable: true,
    });
  }
  const redactor = new Redactor();
  try {
    // Awaited only when there is something to resolve: each await is a promise and a turn on every call's path.
    const args = call.secretArguments ? await resolveArguments(call, services.secrets, redactor) : call.arguments;
    const ctx = call.auth ? await authenticatedContext(call, services, redactor) : activityContext(call, services, redactor);
    const result = (await fn(args, ctx)) as Json;
    return redactor.value(result === undefined ? null : result);
  } catch (err) {
    throw failureOf(err, call, redactor);
  }
}

/** The context of a call that names authentication: its invocation and resource auth resolved first. */
async function authenticatedContext(call: FunctionCall, services: AdapterServices, redactor: Redactor): Promise<ActivityContext> {
  const auth = call.auth?.invocation ? await resolveAuth(call.auth.invocation, call, services.secrets, redactor, services.tokens) : undefined;
  const resourceAuth = call.auth?.resource ? await resolveAuth(call.auth.resource, call, services.secrets, redactor, services.tokens) : undefined;
  return activityContext(call, services, redactor, auth, resourceAuth);
}

function activityContext(call: FunctionCall, services: AdapterServices, redactor: Redactor, auth?: Auth, resourceAuth?: Auth): ActivityContext {
  const temporal = Context.current();
  const withDefaults = (o: HttpOptions = {}) => ({ ...o, auth: 'auth' in o ? o.auth : auth, signal: o.signal ?? temporal.cancellationSignal });
  const ctx: ActivityContext = {
    function: call.function,
    workflow: call.workflow,
    state: call.state,
    ...(call.action !== undefined ? { action: call.action } : {}),
    ...(call.selectionSet !== undefined ? { selectionSet: call.selectionSet } : {}),
    ...(auth ? { auth } : {}),
    ...(resourceAuth ? { resourceAuth } : {}),
    ...(call.callId !== undefined ? { callId: call.callId } : {}),
    // A call made again after its worker was lost carries that attempt's last heartbeat details.
    info: call.heartbeatDetails !== undefined && temporal.info.heartbeatDetails === undefined ? { ...temporal.info, heartbeatDetails: call.heartbeatDetails } : temporal.info,
    signal: temporal.cancellationSignal,
    heartbeat: (details) => temporal.heartbeat(redactor.value(details)),
    secret(name) {
      const value = services.secrets[name];
      redactor.add(value);
      return value;
    },
    redact: (...values) => redactor.add(...values),
    authorize: (def) => resolveAuth(def, call, services.secrets, redactor, services.tokens),
    fetch: (request, options) => sendHttp(request, withDefaults(options)),
    http: (request, options) => callHttp(request, withDefaults(options)),
  };
  wholeAnswerSenders.set(ctx, (request, options) => sendHttpWhole(request, withDefaults(options)));
  return ctx;
}

/** How many characters of an answer a failure's details keep. */
const MAX_ANSWER = 4000;

/** Where the call was made, for messages: `state "S", action "A", function "f"`. */
export function callSite(call: Pick<FunctionCall, 'state' | 'action' | 'function'>): string {
  return [`state "${call.state}"`, call.action !== undefined ? `action "${call.action}"` : undefined, `function "${call.function.name}"`].filter(Boolean).join(', ');
}

/** The redacted Temporal failure of an error thrown while serving a call. */
function failureOf(err: unknown, call: FunctionCall, redactor: Redactor): unknown {
  if (err instanceof CancelledFailure) return err;
  // Cancelled mid-call (an AbortError from fetch...): report the cancellation, not the error.
  if (Context.current().cancellationSignal.aborted) return new CancelledFailure(redactor.text(`${callSite(call)}: cancelled (${(err as Error)?.message ?? String(err)})`));
  const e = (err ?? {}) as { code?: unknown; message?: string; nonRetryable?: boolean; request?: string; answer?: Json; serviceMessage?: string; stack?: string; cause?: unknown };
  // An ApplicationFailure thrown by the adapter keeps its type and its details' fields (a 1.0
  // problem's type, status, title: what the 1.0 executor reads).
  const ownDetails = err instanceof ApplicationFailure && isRecord(err.details?.[0]) ? (err.details[0] as Record<string, Json>) : {};
  const own = err instanceof ApplicationFailure ? { code: err.type, message: (ownDetails as Partial<ServiceErrorDetails>).message } : {};
  const raw = e.code ?? own.code;
  const code = typeof raw === 'string' && raw ? raw : typeof raw === 'number' ? String(raw) : ErrorCodes.AdapterError;
  const message = e.message ?? String(err);
  const details: ServiceErrorDetails = { ...ownDetails, code: typeof ownDetails.code === 'string' ? ownDetails.code : code, message: e.serviceMessage ?? own.message ?? message };
  if (e.request !== undefined) details.request = e.request;
  if (e.answer !== undefined && e.answer !== null) details.answer = bounded(e.answer);
  const failure = ApplicationFailure.create({
    type: code,
    message: redactor.text(`${callSite(call)}: ${message}`),
    details: [redactor.value(details)],
    nonRetryable: Boolean(e.nonRetryable),
    cause: causeOf(e.cause, redactor),
  });
  failure.stack = redactor.text(e.stack ?? failure.stack ?? '');
  return failure;
}

/** The cause chain, redacted, as plain failures (an Error's own fields could hold secrets). */
function causeOf(cause: unknown, redactor: Redactor, depth = 0): ApplicationFailure | undefined {
  if (!cause || depth > 4) return undefined;
  const c = cause as { name?: string; message?: string; code?: unknown; stack?: string; cause?: unknown };
  const f = ApplicationFailure.create({
    type: typeof c.code === 'string' ? c.code : c.name ?? 'Error',
    message: redactor.text(c.message ?? String(cause)),
    cause: causeOf(c.cause, redactor, depth + 1),
  });
  f.stack = redactor.text(c.stack ?? '');
  return f;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function bounded(answer: Json): Json {
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  if (text.length <= MAX_ANSWER) return answer;
  return `${text.slice(0, MAX_ANSWER)}…`;
}
