/**
 * Client TLS certificates (1.0 `certificate` policies, mutual TLS): the request goes out over
 * node:https with the client's certificate and key (and, when given, the CA that signed the
 * server's certificate) instead of `fetch`, whose TLS options Node does not expose. The answer is
 * a standard `Response`, so the rest of the SDK reads it as any other.
 *
 * The policy (the 1.0.3 specification leaves `certificate` undefined; swflow's shape):
 * `certificate: { certificate, key, ca?, passphrase? }` inline, each a PEM text or the path of a
 * PEM file on the worker, or `certificate: { use: <secret> }` with a secret holding those fields
 * as JSON. The key and passphrase are redacted.
 */
import { readFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
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

const MAX_REDIRECTS = 10;

/** `fetch` over node:https with a client certificate (redirects followed unless `manual`). */
export async function fetchWithCertificate(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string | URLSearchParams | Uint8Array; signal?: AbortSignal; redirect?: 'follow' | 'manual' },
  tls: ClientCertificate,
  hops = 0,
): Promise<Response> {
  const target = new URL(url);
  if (target.protocol !== 'https:') throw new AdapterError(ErrorCodes.AuthError, `certificate authentication needs an https endpoint, not ${target.protocol}//${target.host}`, { nonRetryable: true });
  const body = init.body === undefined ? undefined : init.body instanceof URLSearchParams ? init.body.toString() : init.body;
  const answer = await new Promise<{ status: number; statusText: string; headers: Headers; body: Buffer }>((resolve, reject) => {
    const req = httpsRequest(target, { method: init.method, headers: init.headers, cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}), ...(tls.passphrase ? { passphrase: tls.passphrase } : {}), signal: init.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) headers.append(k, x);
        resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', (err) => reject(Object.assign(new TypeError('fetch failed'), { cause: err })));
    req.end(body);
  }).catch((err) => {
    if (init.signal?.aborted) throw err;
    throw err instanceof TypeError ? err : Object.assign(new TypeError('fetch failed'), { cause: err });
  });
  const location = answer.headers.get('location');
  if (init.redirect !== 'manual' && location && answer.status >= 300 && answer.status < 400 && hops < MAX_REDIRECTS) {
    const get = answer.status === 303 || ((answer.status === 301 || answer.status === 302) && init.method !== 'GET' && init.method !== 'HEAD');
    return fetchWithCertificate(new URL(location, target).toString(), get ? { ...init, method: 'GET', body: undefined } : init, tls, hops + 1);
  }
  const nullBody = answer.status === 204 || answer.status === 304 || init.method === 'HEAD';
  return new Response(nullBody ? null : answer.body, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
}
