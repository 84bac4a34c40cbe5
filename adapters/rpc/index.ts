/**
 * The RPC adapter: serves `rpc` functions (activity type `sw.rpc`) over gRPC, spec 0.8 "Using
 * Functions for RPC Service Invocations". `operation` is `<proto file URI>#<service>#<method>`;
 * the service's address is the function's `metadata.address` (`host:port`, `grpcs://host:port`
 * for TLS): a proto file does not say where its service runs. The action's `arguments` are the
 * request message; the result is the response message, both in proto3's JSON mapping (message.ts,
 * proto.ts); a server-streaming method's result is the array of the messages it sent. Written with the public adapter SDK only (`swflow/adapter`).
 *
 *   const worker = await createAdapterWorker({ adapters: [rpcAdapter({ baseDirs: ['./workflows'] })] });
 *
 * Auth: the invocation auth's headers travel as metadata (`authorization: Bearer …` / `Basic …`;
 * an OAuth2 token is fetched once more on UNAUTHENTICATED). Failures: a gRPC status fails the
 * call with its name as the code (`NOT_FOUND`, `UNAVAILABLE` when nothing listens, ...);
 * a definition that cannot work (no such file, service, method, field; no address) is a
 * non-retryable `OperationError`; a proto file that cannot be fetched now, `OperationUnavailable`.
 * 1.0 `call: grpc` is the activity `sw.grpc` (./grpc-call.ts).
 */
import type { ServiceError } from '@grpc/grpc-js';
import { BUILTIN_ADAPTER, builtinActivityName, RPC_FUNCTION_ACTIVITY, GRPC_CALL_ACTIVITY, defineAdapter, fetchDocument, operationError, type ActivityContext, type Adapter, type Json } from '../../src/adapter-sdk';
import { describeCall, GrpcStatus, invoke, metadataOf, rpcFailure, type RpcTarget } from './call';
import { invokeGrpc } from './grpc-call';
import { requestMessage } from './message';
import { resolveMethod } from './proto';

export { closeRpcChannels, statusName } from './call';

export interface RpcAdapterOptions {
  /** Where relative proto file references are looked up (the definition folders). Default: cwd. */
  baseDirs?: string[];
}

/** The function's `metadata.address`. */
export function targetOf(fn: ActivityContext['function']): RpcTarget {
  const raw = fn.metadata?.address;
  if (typeof raw !== 'string' || !raw.trim()) {
    throw operationError(`function "${fn.name}" has no metadata.address: give the gRPC service's "host:port" (or "grpcs://host:port" for TLS)`);
  }
  const m = /^(grpcs?):\/\/(.+)$/i.exec(raw.trim());
  return m ? { address: m[2]!, tls: m[1]!.toLowerCase() === 'grpcs' } : { address: raw.trim(), tls: false };
}

/** Calls the gRPC method of an rpc function with the call's arguments as the request message. */
export async function invokeRpc(args: Json, ctx: ActivityContext, opts: RpcAdapterOptions = {}): Promise<Json> {
  const method = await resolveMethod(ctx.function.operation, opts.baseDirs ?? [process.cwd()], (url) => fetchDocument(ctx, url, 'proto file'));
  const target = targetOf(ctx.function);
  const request = requestMessage(method.requestType, args);
  const send = async () => invoke(method, target, request, metadataOf((await ctx.auth?.headers()) ?? {}), ctx.signal);
  try {
    return await send().catch(async (err: ServiceError) => {
      // An OAuth2 token the service no longer takes: once more with a new one.
      if (err.code === GrpcStatus.UNAUTHENTICATED && ctx.auth && (await ctx.auth.refresh())) return send();
      throw err;
    });
  } catch (err) {
    if (typeof (err as ServiceError).code === 'number') throw rpcFailure(err as ServiceError, describeCall(method, target));
    throw err;
  }
}

/** The RPC adapter: 0.8 `rpc` functions (`sw.rpc`) and 1.0 `call: grpc` (`sw.grpc`), reading proto files relative to `baseDirs`. */
export function rpcAdapter(opts: RpcAdapterOptions = {}): Adapter {
  return defineAdapter({
    name: BUILTIN_ADAPTER,
    description: 'gRPC unary and server-streaming calls (type: rpc; 1.0 call: grpc)',
    activities: {
      [builtinActivityName(RPC_FUNCTION_ACTIVITY)]: (args: Json, ctx: ActivityContext) => invokeRpc(args, ctx, opts),
      [builtinActivityName(GRPC_CALL_ACTIVITY)]: (args: Json, ctx: ActivityContext) => invokeGrpc(args, ctx, opts.baseDirs ?? [process.cwd()]),
    },
  });
}
