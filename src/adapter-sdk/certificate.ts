/**
 * Client TLS certificates (1.0 `certificate` policies, mutual TLS): the request goes out over
 * node:https with the client's certificate and key (and, when given, the CA that signed the
 * server's certificate), sent by ./http-client.ts as every other request.
 *
 * The policy (the 1.0.3 specification leaves `certificate` undefined; swflow's shape):
 * `certificate: { certificate, key, ca?, passphrase? }` inline, each a PEM text or the path of a
 * PEM file on the worker, or `certificate: { use: <secret> }` with a secret holding those fields
 * as JSON. The key and passphrase are redacted.
 */
import { readFile } from 'node:fs/promises';
import type { Auth } from './auth';
import { AdapterError, ErrorCodes } from './errors';

export interface ClientCertificate {
  /** PEM texts. */
  cert: string;
  key: string;
  ca?: string;
  passphrase?: string;
}

/** A PEM text as given, or the content of the file it names. */
export async function pemOf(value: string, what: string): Promise<string> {
  if (/-----BEGIN /.test(value)) return value;
  try {
    return await readFile(value.replace(/^file:\/\//, ''), 'utf8');
  } catch (err) {
    throw new AdapterError(ErrorCodes.AuthError, `certificate: the ${what} is neither a PEM text nor a readable file (${(err as Error).message})`, { nonRetryable: true });
  }
}

/** An {@link Auth} that adds no header but sends its requests with a client certificate. */
export function certificateAuth(name: string, material: () => Promise<ClientCertificate>): Auth {
  let loaded: Promise<ClientCertificate> | undefined;
  return {
    name,
    scheme: 'basic',
    headers: async () => ({}),
    async token() {
      throw new AdapterError(ErrorCodes.AuthError, `auth "${name}": a client certificate is not a token`, { nonRetryable: true });
    },
    refresh: async () => false,
    tls: () => (loaded ??= material()),
  };
}
