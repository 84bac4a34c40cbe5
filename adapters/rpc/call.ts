/**
 * One gRPC call with @grpc/grpc-js: a unary method answers one message, a server-streaming one
 * the messages it streams, collected into an array. Channels are kept per address for the
 * worker's lifetime. A status other than OK fails with the status name as the code
 * (`NOT_FOUND`, `UNAVAILABLE`, ...); the call is cancelled when the activity is.
 */
import { credentials, Client, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { AdapterError, traceHeaders, type Json } from '../../src/adapter-sdk';
import type { RpcMethod } from './proto';

/** Where the service listens: `host:port` (plaintext), `grpc://host:port`, or `grpcs://host:port` (TLS with the system's roots). */
export interface RpcTarget {
  address: string;
  tls: boolean;
}

const clients = new Map<string, Client>();

function clientFor(target: RpcTarget): Client {
  const key = `${target.tls ? 'tls' : 'plain'}:${target.address}`;
  let client = clients.get(key);
  if (!client) {
    client = new Client(target.address, target.tls ? credentials.createSsl() : credentials.createInsecure());
    clients.set(key, client);
  }
  return client;
}

/** Closes the channels this worker opened (tests; a worker process simply exits). */
export function closeRpcChannels(): void {
  for (const client of clients.values()) client.close();
  clients.clear();
}

/** The status name of a gRPC status code (`5` → `NOT_FOUND`). */
export function statusName(code: number): string {
  return (status as unknown as Record<number, string>)[code] ?? String(code);
}

/** Names the request in messages: `greeting.Greeter/SayHello at localhost:50051`. */
export function describeCall(method: RpcMethod, target: RpcTarget): string {
  return `gRPC ${method.service}/${method.method} at ${target.tls ? 'grpcs://' : ''}${target.address}`;
}

/** A failed call: the status name is the code; the status details are the service's message. */
export function rpcFailure(err: ServiceError, request: string): AdapterError {
  const name = statusName(err.code);
  const details = err.details || err.message;
  return new AdapterError(name, `${request} answered ${name} (${err.code}): ${details}`, {
    request,
    answer: { code: err.code, status: name, details },
    serviceMessage: details,
    cause: err,
  });
}

/** Calls the method once; rejects with the grpc-js ServiceError. Cancelled when `signal` aborts. */
export function invoke(method: RpcMethod, target: RpcTarget, request: object, metadata: Metadata, signal: AbortSignal): Promise<Json> {
  const { path, requestSerialize, responseDeserialize, responseStream } = method.definition;
  const client = clientFor(target);
  let call: { cancel(): void } | undefined;
  const cancel = () => call?.cancel();
  signal.addEventListener('abort', cancel, { once: true });
  return new Promise<Json>((resolve, reject) => {
    if (!responseStream) {
      call = client.makeUnaryRequest(path, requestSerialize, responseDeserialize, request, metadata, {}, (err, reply) => (err ? reject(err) : resolve((reply ?? null) as Json)));
      return;
    }
    const messages: Json[] = [];
    const stream = client.makeServerStreamRequest(path, requestSerialize, responseDeserialize, request, metadata, {});
    call = stream;
    stream.on('data', (m: Json) => messages.push(m));
    stream.on('error', reject);
    // 'status' comes after the last message; a status other than OK has come as 'error' already.
    stream.on('status', (s: { code: number }) => s.code === status.OK && resolve(messages));
  }).finally(() => signal.removeEventListener('abort', cancel));
}

/** The auth headers as gRPC metadata (`authorization: Bearer …`), after the active trace context (`traceparent`) when the process traces. */
export function metadataOf(headers: Record<string, string>): Metadata {
  const metadata = new Metadata();
  for (const [k, v] of Object.entries({ ...traceHeaders(), ...headers })) metadata.set(k.toLowerCase(), v);
  return metadata;
}

export { status as GrpcStatus };
