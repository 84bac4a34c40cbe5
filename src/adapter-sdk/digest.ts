/**
 * HTTP Digest access authentication (RFC 7616), for 1.0 `digest` policies: the first request
 * goes without credentials; a 401 with a `WWW-Authenticate: Digest …` challenge is answered with
 * `Authorization: Digest …` computed from the username, password, the challenge and the request
 * (method and request-target). Algorithms MD5, SHA-256 (and their `-sess` variants), qop `auth`
 * (or none, RFC 2069); the strongest offered is used. Later requests reuse the challenge with a
 * growing nonce count; a new challenge (a stale nonce) is answered once per request.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Auth } from './auth';
import { AdapterError, ErrorCodes } from './errors';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm: string;
  qop?: string;
  stale?: boolean;
}

const HASHES: Record<string, string> = { 'SHA-256': 'sha256', 'SHA-256-SESS': 'sha256', MD5: 'md5', 'MD5-SESS': 'md5' };
const STRENGTH = ['SHA-256', 'SHA-256-SESS', 'MD5', 'MD5-SESS'];

/** The Digest challenges of a WWW-Authenticate value (several may be combined with commas), strongest first. */
export function parseDigestChallenges(header: string): DigestChallenge[] {
  const out: DigestChallenge[] = [];
  // Split where a new challenge (a scheme token followed by a space) starts.
  for (const part of header.split(/,?\s*(?=\b(?:Digest|Basic|Bearer|Negotiate|HOBA|Mutual)\s)/i)) {
    const m = /^Digest\s+(.*)$/is.exec(part.trim());
    if (!m) continue;
    const params: Record<string, string> = {};
    for (const p of m[1].matchAll(/([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) params[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
    if (!params.nonce) continue;
    const algorithm = (params.algorithm ?? 'MD5').toUpperCase();
    if (!HASHES[algorithm]) continue;
    const qops = (params.qop ?? '').split(',').map((q) => q.trim());
    if (params.qop !== undefined && !qops.includes('auth')) continue; // auth-int only: not offered here
    out.push({ realm: params.realm ?? '', nonce: params.nonce, opaque: params.opaque, algorithm, qop: params.qop !== undefined ? 'auth' : undefined, stale: /^true$/i.test(params.stale ?? '') });
  }
  return out.sort((a, b) => STRENGTH.indexOf(a.algorithm) - STRENGTH.indexOf(b.algorithm));
}

const quote = (s: string) => `"${s.replace(/(["\\])/g, '\\$1')}"`;

/** The Authorization header answering a challenge for one request. */
export function digestAuthorization(c: DigestChallenge, username: string, password: string, method: string, uri: string, nc: number, cnonce: string): string {
  const h = (s: string) => createHash(HASHES[c.algorithm]).update(s).digest('hex');
  let ha1 = h(`${username}:${c.realm}:${password}`);
  if (c.algorithm.endsWith('-SESS')) ha1 = h(`${ha1}:${c.nonce}:${cnonce}`);
  const ha2 = h(`${method.toUpperCase()}:${uri}`);
  const ncHex = nc.toString(16).padStart(8, '0');
  const response = c.qop ? h(`${ha1}:${c.nonce}:${ncHex}:${cnonce}:${c.qop}:${ha2}`) : h(`${ha1}:${c.nonce}:${ha2}`);
  const fields = [`username=${quote(username)}`, `realm=${quote(c.realm)}`, `nonce=${quote(c.nonce)}`, `uri=${quote(uri)}`, `algorithm=${c.algorithm}`, `response=${quote(response)}`];
  if (c.qop) fields.push(`qop=${c.qop}`, `nc=${ncHex}`, `cnonce=${quote(cnonce)}`);
  if (c.opaque !== undefined) fields.push(`opaque=${quote(c.opaque)}`);
  return `Digest ${fields.join(', ')}`;
}

/** An {@link Auth} for a digest policy: no credentials until challenged. */
export function digestAuth(name: string, username: string, password: string): Auth {
  let challenge: DigestChallenge | undefined;
  let nc = 0;
  return {
    name,
    scheme: 'basic',
    async headers(request): Promise<Record<string, string>> {
      if (!challenge || !request) return {};
      const url = new URL(request.url);
      return { authorization: digestAuthorization(challenge, username, password, request.method, `${url.pathname}${url.search}`, ++nc, randomBytes(12).toString('hex')) };
    },
    async token() {
      throw new AdapterError(ErrorCodes.AuthError, `auth "${name}": digest authentication answers a server's challenge: it has no token to give`, { nonRetryable: true });
    },
    async refresh() {
      return false;
    },
    challenged(res) {
      const offered = parseDigestChallenges(res.headers.get('www-authenticate') ?? '');
      // sendHttp answers one challenge per request: a wrong password gets its 401 back.
      if (!offered.length) return false;
      challenge = offered[0];
      nc = 0;
      return true;
    },
  };
}
