/**
 * The operator token: what the run page's actions and the MCP server's destructive tools
 * (start, send an event, cancel, suspend, resume, redrive) need. Without one configured those
 * actions are off; with one, every such request must carry it (`Authorization: Bearer <token>`).
 * One token for every surface, so an operator has one secret to hand out and to rotate.
 */
import { timingSafeEqual, createHash } from 'node:crypto';

/** The environment variable the token is read from when no flag gives it. */
export const OPERATOR_TOKEN_ENV = 'SWFLOW_OPERATOR_TOKEN';

/** The configured token: the flag's value, else $SWFLOW_OPERATOR_TOKEN; undefined (or empty): actions off. */
export function operatorToken(flag?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const t = flag ?? env[OPERATOR_TOKEN_ENV];
  return t ? t : undefined;
}

/** True when `given` is the token (compared in constant time: digests of equal length). */
export function tokenMatches(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

/** The token an HTTP request carries: `Authorization: Bearer <token>`. */
export function bearerOf(authorization: string | string[] | undefined): string | undefined {
  const h = Array.isArray(authorization) ? authorization[0] : authorization;
  const m = h?.match(/^Bearer\s+(.+)$/i);
  return m ? m[1].trim() : undefined;
}
