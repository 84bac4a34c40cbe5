/**
 * Serverless Workflow 1.0 `call: grpc` (activity `sw.grpc`): the method `with.method` of the
 * service `with.service.name` described by the proto file `with.proto`, at
 * `with.service.host`:`port`, called with `with.arguments` as the request message and
 * authenticated by `with.service.authentication` (the `authorization` metadata: basic, bearer, an
 * OAuth2/OIDC token; a refused token request is an authentication problem) — the same gRPC
 * code as 0.8's `rpc` functions (./call.ts, ./message.ts, ./proto.ts), 1.0's errors (RFC 7807
 * problems): a gRPC status is, as an HTTP status of `call: http`, a communication problem, whose
 * `status` is the HTTP status gRPC's HTTP gateway maps it to and `title` the status name.
 */
import type { ServiceError } from '@grpc/grpc-js';
import { authenticationHeaders, ConfigurationError, configurationFailure, ErrorCodes, ErrorTypes, fetchDocument, isAdapterError, problemFailure, type ActivityContext, type Json } from '../../src/adapter-sdk';
import { describeCall, GrpcStatus, invoke, metadataOf, statusName, type RpcTarget } from './call';
import { requestMessage } from './message';
import { resolveMethod } from './proto';

/** The HTTP status of a gRPC status (the mapping of gRPC's HTTP gateway). */
const HTTP_STATUS: Record<number, number> = {
  [GrpcStatus.CANCELLED]: 499,
  [GrpcStatus.INVALID_ARGUMENT]: 400,
  [GrpcStatus.DEADLINE_EXCEEDED]: 504,
  [GrpcStatus.NOT_FOUND]: 404,
  [GrpcStatus.ALREADY_EXISTS]: 409,
  [GrpcStatus.PERMISSION_DENIED]: 403,
  [GrpcStatus.RESOURCE_EXHAUSTED]: 429,
  [GrpcStatus.FAILED_PRECONDITION]: 400,
  [GrpcStatus.ABORTED]: 409,
  [GrpcStatus.OUT_OF_RANGE]: 400,
  [GrpcStatus.UNIMPLEMENTED]: 501,
  [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.UNAUTHENTICATED]: 401,
};

type GrpcWith = {
  proto?: { endpoint?: string | { uri?: string } };
  service?: { name?: string; host?: string; port?: number; authentication?: Json };
  method?: string;
  arguments?: Json;
};

/** The proto file URI, `<host>:<port>` and operation of an evaluated `with`; a ConfigurationError when one is missing. */
function targetOf(w: GrpcWith): { operation: string; target: RpcTarget } {
  const endpoint = typeof w.proto?.endpoint === 'string' ? w.proto.endpoint : w.proto?.endpoint?.uri;
  if (!endpoint) throw new ConfigurationError('call: grpc has no proto endpoint');
  const { name, host, port } = w.service ?? {};
  if (!name || !host) throw new ConfigurationError('call: grpc needs service.name and service.host');
  if (!w.method) throw new ConfigurationError('call: grpc has no method');
  return { operation: `${endpoint}#${name}#${w.method}`, target: { address: port !== undefined ? `${host}:${port}` : host, tls: false } };
}

export async function invokeGrpc(args: Json, ctx: ActivityContext, baseDirs: string[]): Promise<Json> {
  const w = (args ?? {}) as GrpcWith;
  let call: () => Promise<Json>;
  let request = '';
  try {
    const { operation, target } = targetOf(w);
    const method = await resolveMethod(operation, baseDirs, (url) => fetchDocument(ctx, url, 'proto file'));
    const message = requestMessage(method.requestType, (w.arguments ?? {}) as Json);
    const headers = await authenticationHeaders(w.service?.authentication, ctx);
    request = describeCall(method, target);
    call = () => invoke(method, target, message, metadataOf(headers), ctx.signal);
  } catch (err) {
    if (err instanceof ConfigurationError || (isAdapterError(err) && err.code === ErrorCodes.OperationError)) throw configurationFailure(`${ctx.state}: ${(err as Error).message}`);
    if (isAdapterError(err) && err.code === ErrorCodes.AuthError) throw problemFailure({ type: ErrorTypes.authentication, status: 401, title: 'Unauthorized', detail: `${ctx.state}: ${err.message}` }, err.nonRetryable);
    // A proto file that cannot be fetched now may be there on the next attempt.
    if (isAdapterError(err)) throw problemFailure({ type: ErrorTypes.communication, status: 503, title: 'Service Unavailable', detail: `${ctx.state}: ${err.message}` });
    throw err;
  }
  try {
    return await call();
  } catch (err) {
    const code = (err as ServiceError).code;
    if (typeof code !== 'number') throw err;
    const status = HTTP_STATUS[code] ?? 500;
    const detail = `${request} answered ${statusName(code)} (${code}): ${(err as ServiceError).details || (err as Error).message}`;
    throw problemFailure({ type: ErrorTypes.communication, status, title: statusName(code), detail });
  }
}
