/**
 * Serverless Workflow 1.0 authentication policies (`authentication` of an endpoint or an
 * OpenAPI call), resolved inside the activity into the SDK's {@link Auth} — the same
 * credentials 0.8's `auth` definitions give (./auth.ts), so the HTTP helper sends them, OAuth2
 * tokens are cached per worker and refreshed once on a 401, and every credential is redacted
 * from what leaves the worker.
 *
 * - `basic`, `bearer`: literal values, or `use: <secret>` (a secret holding `{ username,
 *   password }` / `{ token }`, as an object or its JSON text).
 * - `oauth2`: grants `client_credentials`, `password` and token exchange; token endpoint
 *   `endpoints.token` relative to `authority` (default `/oauth2/token`); client authentication
 *   `client_secret_post` (default) or `client_secret_basic`.
 * - `oidc`: the same, the token endpoint read from the authority's
 *   `/.well-known/openid-configuration`.
 * - `digest`, `certificate`, other grants and client authentications: a non-retryable AuthError
 *   that says so.
 */
import type { AuthDef, Json } from '../dsl/model';
import type { Auth } from './auth';
import type { ActivityContext } from './define';
import { AdapterError, ErrorCodes } from './errors';

type Obj = Record<string, Json>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** What resolving a policy needs from the call's context. */
export type AuthenticationContext = Pick<ActivityContext, 'secret' | 'redact' | 'authorize' | 'fetch'>;

const GRANTS: Record<string, string> = {
  client_credentials: 'clientCredentials',
  password: 'password',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'tokenExchange',
};

function configurationError(message: string): AdapterError {
  return new AdapterError(ErrorCodes.AuthError, message, { nonRetryable: true });
}

/** The secret named by a secret-based policy, as an object (a JSON object, or its JSON text as in the environment). */
function secretObject(ctx: AuthenticationContext, name: string): Obj {
  const v = ctx.secret(name);
  if (v === undefined || v === null) throw configurationError(`secret '${name}' is not available to this worker`);
  if (isObj(v)) return v;
  try {
    const parsed = JSON.parse(String(v)) as Json;
    if (isObj(parsed)) {
      ctx.redact(parsed);
      return parsed;
    }
  } catch {
    /* fall through */
  }
  throw configurationError(`secret '${name}' must be a JSON object (e.g. {"username": "...", "password": "..."})`);
}

/**
 * The credentials of an evaluated 1.0 authentication policy, or undefined when there is none.
 * Throws a non-retryable {@link AdapterError} (code AuthError) for an unknown secret, an
 * incomplete policy or a scheme not supported.
 *
 * @example
 * ```ts
 * const auth = await authentication(args.endpoint.authentication, ctx);
 * const res = await ctx.fetch(request, { auth });
 * ```
 */
export async function authentication(policy: unknown, ctx: AuthenticationContext): Promise<Auth | undefined> {
  if (!isObj(policy)) return undefined;
  const values = (body: Json): Obj => (isObj(body) && typeof body.use === 'string' ? secretObject(ctx, body.use) : isObj(body) ? body : {});
  if (policy.basic !== undefined) {
    const { username, password } = values(policy.basic);
    return ctx.authorize({ name: 'basic', scheme: 'basic', properties: { username: username ?? null, password: password ?? null } });
  }
  if (policy.bearer !== undefined) return ctx.authorize({ name: 'bearer', scheme: 'bearer', properties: { token: values(policy.bearer).token ?? null } });
  for (const scheme of ['oauth2', 'oidc'] as const) {
    if (policy[scheme] !== undefined) return ctx.authorize(await oauth2Def(scheme, values(policy[scheme]), ctx));
  }
  const scheme = Object.keys(policy).find((k) => k !== 'use') ?? 'unknown';
  throw configurationError(`'${scheme}' authentication is not supported yet (basic, bearer, oauth2 and oidc are)`);
}

/** A 1.0 OAuth2 / OpenID Connect policy as the SDK's OAuth2 auth definition. */
async function oauth2Def(scheme: 'oauth2' | 'oidc', p: Obj, ctx: AuthenticationContext): Promise<AuthDef> {
  const grantType = GRANTS[String(p.grant ?? 'client_credentials')];
  if (!grantType) throw configurationError(`${scheme}: grant '${String(p.grant)}' is not supported (${Object.keys(GRANTS).join(', ')} are)`);
  const client = isObj(p.client) ? p.client : {};
  const clientAuthentication = String(client.authentication ?? 'client_secret_post');
  if (clientAuthentication !== 'client_secret_post' && clientAuthentication !== 'client_secret_basic') throw configurationError(`${scheme}: client authentication '${clientAuthentication}' is not supported (client_secret_post and client_secret_basic are)`);
  if (isObj(p.request) && p.request.encoding !== undefined && p.request.encoding !== 'application/x-www-form-urlencoded') throw configurationError(`${scheme}: token request encoding '${String(p.request.encoding)}' is not supported (application/x-www-form-urlencoded is)`);
  const endpoints = isObj(p.endpoints) ? p.endpoints : {};
  const tokenEndpoint = scheme === 'oidc' ? await discoveredTokenEndpoint(p.authority, ctx) : endpoints.token ?? null;
  const properties: Obj = {
    grantType,
    authority: p.authority ?? null,
    clientId: client.id ?? null,
    metadata: { ...(tokenEndpoint ? { tokenEndpoint } : {}), clientAuthentication },
  };
  for (const key of ['scopes', 'audiences', 'username', 'password'] as const) if (p[key] !== undefined) properties[key] = p[key];
  if (isObj(p.subject) && p.subject.token !== undefined) properties.subjectToken = p.subject.token;
  if (client.secret !== undefined) properties.clientSecret = client.secret;
  return { name: scheme, scheme: 'oauth2', properties };
}

/** OpenID Connect discovery: the authority's token endpoint. */
async function discoveredTokenEndpoint(authority: Json | undefined, ctx: AuthenticationContext): Promise<string> {
  if (typeof authority !== 'string' || !authority) throw configurationError('oidc: needs an authority');
  const url = `${authority.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const res = await ctx.fetch({ method: 'GET', url, headers: { accept: 'application/json' } }, { auth: undefined });
  const config = res.ok ? ((await res.json().catch(() => undefined)) as Obj | undefined) : undefined;
  if (typeof config?.token_endpoint !== 'string') throw new AdapterError(ErrorCodes.AuthError, `oidc: GET ${url} answered ${res.status} without a token_endpoint`, { request: `GET ${url}` });
  return config.token_endpoint;
}
