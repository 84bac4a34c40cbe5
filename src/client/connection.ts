/**
 * How swflow reaches a Temporal server. The same environment variables as the Temporal CLI,
 * so one shell setup serves both: a dev server, a self-hosted cluster or Temporal Cloud.
 *
 *   TEMPORAL_ADDRESS     host:port (unset: `swflow start` runs the embedded dev server)
 *   TEMPORAL_NAMESPACE   default "default"
 *   TEMPORAL_API_KEY     API key (Temporal Cloud); implies TLS
 *   TEMPORAL_TLS         "true" to use TLS with the system's roots
 *   TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY   client certificate and key files (mTLS); imply TLS
 *   TEMPORAL_TLS_CA      server CA file
 *   TEMPORAL_TLS_SERVER_NAME  override of the TLS server name
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from '@temporalio/client';
import type { NativeConnectionOptions } from '@temporalio/worker';

export interface ServerTarget {
  address: string;
  namespace: string;
  apiKey?: string;
  tls?: {
    serverNameOverride?: string;
    serverRootCACertificate?: Buffer;
    clientCertPair?: { crt: Buffer; key: Buffer };
  };
}

function readFile(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`${variable}=${path} cannot be read: ${(err as Error).message}`);
  }
}

/** The server named by the environment, or undefined when TEMPORAL_ADDRESS is not set. */
export function targetFromEnv(env: NodeJS.ProcessEnv = process.env): ServerTarget | undefined {
  if (!env.TEMPORAL_ADDRESS) return undefined;
  const target: ServerTarget = {
    address: env.TEMPORAL_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    apiKey: env.TEMPORAL_API_KEY || undefined,
  };
  const cert = env.TEMPORAL_TLS_CERT;
  const key = env.TEMPORAL_TLS_KEY;
  if (Boolean(cert) !== Boolean(key)) {
    throw new Error('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be given together');
  }
  if (target.apiKey || cert || env.TEMPORAL_TLS === 'true' || env.TEMPORAL_TLS_CA) {
    target.tls = {
      serverNameOverride: env.TEMPORAL_TLS_SERVER_NAME || undefined,
      serverRootCACertificate: env.TEMPORAL_TLS_CA ? readFile('TEMPORAL_TLS_CA', env.TEMPORAL_TLS_CA) : undefined,
      clientCertPair:
        cert && key
          ? { crt: readFile('TEMPORAL_TLS_CERT', cert), key: readFile('TEMPORAL_TLS_KEY', key) }
          : undefined,
    };
  }
  return target;
}

/**
 * The largest message a client takes (gRPC's default is 4 MB): a page of history can hold many
 * payloads just under the payload store's threshold (docs/large-data.md), and the run page,
 * `swflow payloads gc` and other readers of histories must still read it.
 */
export const MAX_RECEIVE_BYTES = 512 * 1024 * 1024;

/** Options for `Connection.connect` (client) and `NativeConnection.connect` (worker, which ignores `channelArgs`): same shape. */
export function connectionOptions(target: ServerTarget): ConnectionOptions & NativeConnectionOptions {
  return {
    address: target.address,
    tls: target.tls ?? false,
    apiKey: target.apiKey,
    channelArgs: { 'grpc.max_receive_message_length': MAX_RECEIVE_BYTES },
  } as ConnectionOptions & NativeConnectionOptions;
}

/** The server a worker process uses: TEMPORAL_ADDRESS's, else localhost:7233. */
export function workerTarget(env: NodeJS.ProcessEnv = process.env): ServerTarget {
  return targetFromEnv(env) ?? { address: 'localhost:7233', namespace: 'default' };
}

/**
 * Connects, or fails with a message naming the setting to fix: the SDK's own error is a transport
 * error that names neither TEMPORAL_ADDRESS nor the fact that its default was used.
 */
export async function connectTo<C>(target: ServerTarget, connect: (options: ConnectionOptions & NativeConnectionOptions) => Promise<C>, env: NodeJS.ProcessEnv = process.env): Promise<C> {
  try {
    return await connect(connectionOptions(target));
  } catch (err) {
    throw new Error(`${unreachable(target, env)}: ${firstLine(err)}`);
  }
}

/** "The Temporal server at TEMPORAL_ADDRESS=host:port does not answer" (or its default, when unset). */
export function unreachable(target: ServerTarget, env: NodeJS.ProcessEnv = process.env): string {
  const setting = env.TEMPORAL_ADDRESS ? `TEMPORAL_ADDRESS=${target.address}` : `${target.address} (TEMPORAL_ADDRESS is not set)`;
  return `The Temporal server at ${setting} does not answer (namespace ${target.namespace}); set TEMPORAL_ADDRESS to a running server's host:port`;
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0];
}
