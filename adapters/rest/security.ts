/**
 * OpenAPI `security` with the function's auth definition (`authRef`): the document says how
 * credentials travel, the auth definition (resolved by the SDK) supplies them.
 *
 * - `http` basic ← a `basic` auth; `http` bearer, `oauth2`, `openIdConnect` ← a `bearer` or
 *   `oauth2` auth: sent as `Authorization` (with the SDK's refresh-once-on-401 for OAuth2);
 * - `apiKey` (header, query or cookie) ← an argument of that name, else the auth's token.
 *
 * The first alternative of the requirement that can be met is used (an empty one means
 * "no credentials needed"). Without a `security` declaration, an auth definition is sent as
 * `Authorization`.
 */
import type { Auth } from '../../src/adapter-sdk';
import type { Operation, SecurityScheme } from './openapi';
import type { RestRequest } from './request';

function canMeet(s: SecurityScheme, req: RestRequest, auth: Auth | undefined): boolean {
  if (s.type === 'apiKey') return req.givenApiKeys.has(`${s.in}:${s.name}`) || auth !== undefined;
  if (!auth) return false;
  if (s.type === 'http' && s.scheme === 'basic') return auth.scheme === 'basic';
  return auth.scheme === 'bearer' || auth.scheme === 'oauth2';
}

/**
 * Puts the credentials the operation's security asks for on the request; returns the auth the
 * HTTP call should send as `Authorization` (undefined: none).
 */
export async function applySecurity(op: Operation, req: RestRequest, auth: Auth | undefined): Promise<Auth | undefined> {
  if (op.security.length === 0) return auth;
  const usable = op.security.filter((alt) => alt.every((s) => canMeet(s, req, auth)));
  // Prefer an alternative that uses the credentials the definition gave over an anonymous one.
  const chosen = usable.find((alt) => alt.length > 0) ?? usable[0];
  if (!chosen) return auth;
  let authorization: Auth | undefined;
  for (const s of chosen) {
    if (s.type !== 'apiKey') {
      authorization = auth;
      continue;
    }
    if (req.givenApiKeys.has(`${s.in}:${s.name}`) || !auth) continue;
    const key = await auth.token();
    if (s.in === 'header') req.headers[s.name.toLowerCase()] = key;
    else if (s.in === 'cookie') req.headers.cookie = [req.headers.cookie, `${s.name}=${encodeURIComponent(key)}`].filter(Boolean).join('; ');
    else {
      const url = new URL(req.url);
      url.searchParams.append(s.name, key);
      req.url = url.toString();
    }
  }
  return authorization;
}
