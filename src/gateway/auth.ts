/**
 * Who may post to the gateway. Two credentials, either or both configured:
 *
 * - a bearer token: `Authorization: Bearer <token>` (`--token`, SWFLOW_GATEWAY_TOKEN);
 * - an HMAC secret: `X-Swflow-Signature: sha256=<hex HMAC-SHA256 of the raw body>`
 *   (`--hmac-secret`, SWFLOW_GATEWAY_HMAC_SECRET), the webhook style of GitHub and others, for
 *   senders that must not hold a reusable token.
 *
 * Comparisons are constant-time. Credentials are never logged nor passed to workflows.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-swflow-signature';

export interface AuthOptions {
  token?: string;
  hmacSecret?: string;
}

/** How a request authenticated: `none` = it carried no credentials; `invalid` = wrong ones. */
export type AuthOutcome = 'bearer' | 'hmac' | 'none' | 'invalid';

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** `sha256=<hex>`: the signature a sender puts in X-Swflow-Signature. */
export function signBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** True when credentials are configured at all. */
export function authConfigured(opts: AuthOptions): boolean {
  return Boolean(opts.token || opts.hmacSecret);
}

/** The bearer token check, possible before the body is read. */
export function bearerOutcome(opts: AuthOptions, authorization: string | undefined): AuthOutcome {
  if (!authorization) return 'none';
  const m = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  if (!m || !opts.token) return 'invalid';
  return same(m[1], opts.token) ? 'bearer' : 'invalid';
}

/** The HMAC check over the raw body. */
export function signatureOutcome(opts: AuthOptions, signature: string | undefined, body: Buffer): AuthOutcome {
  if (!signature) return 'none';
  if (!opts.hmacSecret) return 'invalid';
  return same(signature.trim().toLowerCase(), signBody(opts.hmacSecret, body)) ? 'hmac' : 'invalid';
}
