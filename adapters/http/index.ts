/**
 * The built-in adapter of Serverless Workflow 1.0 calls: `call: http` (activity `sw.http`) and
 * `call: openapi` (activity `sw.openapi`, whose operation is resolved by the REST adapter's
 * OpenAPI code, adapters/rest). Pure request building (./request.ts) and response shaping
 * (./response.ts); this file only does I/O. `$secrets` in arguments and secret-based
 * authentication are resolved here, after Temporal recorded the call's input.
 *
 * Failures: a status the call does not accept, or a connection failure, is an
 * ApplicationFailure whose `details[0]` is the RFC 7807 problem (type communication, the HTTP
 * status) — what `try`/`catch` filters; a definition problem (no URI, unknown operation or
 * secret) is non-retryable.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { FunctionCall } from '../../src/common/contracts';
import type { Json } from '../../src/dsl/model';
import { resolveSecretArguments } from '../../src/expr/secrets';
import { OperationError, resolveOperation } from '../rest/openapi';
import { buildRequest } from '../rest/request';
import { authorizationHeader, CallError, httpRequest, type HttpRequest } from './request';
import { COMMUNICATION, shapeOutput, statusProblem, type Problem, type ReceivedResponse } from './response';

export interface HttpAdapterOptions {
  /** Where relative OpenAPI documents are looked up (the definition folders). Default: cwd. */
  baseDirs?: string[];
  /** The secret store (`$secrets`, secret-based authentication). Default: this process's environment. */
  secrets?: Record<string, string>;
}

export const HTTP_ACTIVITY = 'sw.http';
export const OPENAPI_ACTIVITY = 'sw.openapi';

function fail(problem: Problem, nonRetryable: boolean): never {
  throw ApplicationFailure.create({ type: problem.type, message: `${problem.title}: ${problem.detail ?? ''}`, details: [{ ...problem, code: String(problem.status), message: problem.detail ?? problem.title }], nonRetryable });
}

function configuration(message: string): never {
  fail({ type: 'https://serverlessworkflow.io/spec/1.0.0/errors/configuration', status: 400, title: 'Configuration Error', detail: message }, true);
}

async function args(call: FunctionCall, secrets: Record<string, string>): Promise<Json> {
  const scope = call.secretContext?.scope ?? {};
  return resolveSecretArguments(call.arguments, call.secretArguments, call.secretContext?.data ?? null, { ...scope, variables: { ...(scope.variables ?? {}), secrets: secrets as unknown as Json } }, {});
}

async function send(req: HttpRequest, redirect: boolean, mode: unknown): Promise<Json> {
  let res: Response;
  try {
    res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, redirect: redirect ? 'follow' : 'manual', signal: Context.current().cancellationSignal });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause;
    fail({ type: COMMUNICATION, status: 503, title: 'Service Unavailable', detail: `${req.method} ${req.url} failed: ${cause?.message ?? (err as Error).message}` }, false);
  }
  const received: ReceivedResponse = { status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers.entries()), body: new Uint8Array(await res.arrayBuffer()) };
  const problem = statusProblem(received, req, redirect);
  if (problem) fail(problem, false);
  return shapeOutput(mode, req, received);
}

/**
 * One call: arguments with secrets resolved, the request `build` makes of them, sent. A
 * definition problem (CallError, OperationError) is a non-retryable configuration error; any
 * other failure to build the request (an OpenAPI document that could not be fetched) may pass.
 */
async function invoke(call: FunctionCall, opts: HttpAdapterOptions, build: (w: Record<string, Json>, secrets: Record<string, string>) => Promise<HttpRequest> | HttpRequest): Promise<Json> {
  const secrets = opts.secrets ?? (process.env as Record<string, string>);
  let req: HttpRequest;
  let w: Record<string, Json>;
  try {
    w = (await args(call, secrets)) as Record<string, Json>;
    req = await build(w, secrets);
  } catch (err) {
    if (err instanceof OperationError || err instanceof CallError) configuration(`${call.state}: ${err.message}`);
    fail({ type: COMMUNICATION, status: 503, title: 'Service Unavailable', detail: `${call.state}: ${(err as Error).message}` }, false);
  }
  return send(req, w.redirect === true, w.output);
}

export function invokeHttp(call: FunctionCall, opts: HttpAdapterOptions = {}): Promise<Json> {
  return invoke(call, opts, (w, secrets) => {
    try {
      return httpRequest(w, secrets);
    } catch (err) {
      throw err instanceof CallError ? err : new CallError((err as Error).message); // e.g. an invalid URL
    }
  });
}

export function invokeOpenApi(call: FunctionCall, opts: HttpAdapterOptions = {}): Promise<Json> {
  return invoke(call, opts, async (w, secrets) => {
    const doc = w.document as { endpoint?: Json } | undefined;
    const endpoint = typeof doc?.endpoint === 'string' ? doc.endpoint : (doc?.endpoint as { uri?: string } | undefined)?.uri;
    if (!endpoint) throw new CallError('call: openapi has no document endpoint');
    const op = await resolveOperation(`${endpoint}#${String(w.operationId)}`, opts.baseDirs ?? [process.cwd()]);
    const built = buildRequest(op, (w.parameters ?? null) as Json);
    const auth = authorizationHeader(w.authentication, secrets);
    return { ...built, headers: { ...built.headers, ...(auth ? { authorization: auth } : {}) } };
  });
}

/** The adapter's activities, to register on the built-in adapter worker's queue. */
export function createHttpActivities(opts: HttpAdapterOptions = {}): Record<string, (call: FunctionCall) => Promise<Json>> {
  return { [HTTP_ACTIVITY]: (call) => invokeHttp(call, opts), [OPENAPI_ACTIVITY]: (call) => invokeOpenApi(call, opts) };
}
