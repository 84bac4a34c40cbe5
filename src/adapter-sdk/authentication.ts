/**
 * Serverless Workflow 1.0 authentication policies, for adapters of 1.0 calls. The workflow
 * evaluated the policy; a secret-based one (`basic: { use: <secret> }`) is read here from the
 * worker's secrets; the secret, its fields and the credentials made of them are marked for
 * redaction (pass the ActivityContext: it is both).
 *
 * - `basic`, `bearer` → an `Authorization` header ({@link authenticationHeader}).
 * - `digest` → an {@link Auth} answering the server's 401 challenge (RFC 7616, ./digest.ts);
 *   `certificate` → an {@link Auth} whose requests carry a client TLS certificate
 *   (./certificate.ts: `{ certificate, key, ca?, passphrase? }`, PEM texts or files).
 * - `oauth2`, `oidc` → an {@link Auth} whose token the worker requests ({@link tokenAuthentication}):
 *   grants `client_credentials` (default), `password`, token exchange and `refresh_token` (the
 *   refresh token is `subject.token`); `authorization_code` is refused (it needs a user agent);
 *   the client authenticates per `client.authentication`: `client_secret_post` (default),
 *   `client_secret_basic`, `client_secret_jwt`, `private_key_jwt` (`client.assertion`, or an
 *   assertion signed with `client.secret` holding the private key in PEM), `none`; the token
 *   request is form-encoded unless `request.encoding` is `application/json`; the token endpoint is
 *   `endpoints.token` relative to `authority` (default `/oauth2/token`), for `oidc` the
 *   `token_endpoint` of `<authority>/.well-known/openid-configuration`. Tokens come from the
 *   worker's cache (the SDK's TokenCache, as for 0.8 `oauth2` auth) and are refreshed once on a 401.
 */
import type { AuthDef, Json } from '../common/model';
import { AUTHORIZATION_CODE_REFUSAL, type Auth } from './auth';
import { certificateAuth, pemOf, type ClientCertificate } from './certificate';
import { digestAuth } from './digest';
import type { ActivityContext } from './define';
import { AdapterError, ErrorCodes } from './errors';
import { ConfigurationError } from './problems';

type Obj = Record<string, Json>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: Json): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** Where a policy's secrets come from: an ActivityContext. */
export interface SecretSource {
  secret(name: string): Json | undefined;
  redact(...values: unknown[]): void;
}

/** A secret named by a secret-based policy, as an object (JSON text, e.g. from the environment); its fields are redacted. */
export function secretObject(source: SecretSource, name: string): Obj {
  const v = source.secret(name);
  if (v === undefined) throw new ConfigurationError(`secret '${name}' is not available to this worker`);
  let obj: Obj | undefined = isObj(v) ? v : undefined;
  if (!obj) {
    try {
      const parsed = JSON.parse(String(v));
      if (isObj(parsed)) obj = parsed;
    } catch {
      /* not JSON */
    }
  }
  if (obj) {
    source.redact(...Object.values(obj).map((x) => text(x)));
    return obj;
  }
  throw new ConfigurationError(`secret '${name}' must be a JSON object (e.g. {"username": "...", "password": "..."})`);
}

/**
 * The Authorization header of an (evaluated) 1.0 `basic` or `bearer` policy; undefined when there
 * is none, and for `oauth2`/`oidc`, whose token {@link tokenAuthentication} obtains.
 */
export function authenticationHeader(policy: unknown, source: SecretSource): string | undefined {
  if (!isObj(policy)) return undefined;
  const from = (body: Json): Obj => (isObj(body) && typeof body.use === 'string' ? secretObject(source, body.use) : isObj(body) ? body : {});
  const header = (value: string) => (source.redact(value, value.slice(value.indexOf(' ') + 1)), value);
  if (policy.basic !== undefined) {
    const b = from(policy.basic);
    return header(`Basic ${Buffer.from(`${text(b.username ?? '')}:${text(b.password ?? '')}`).toString('base64')}`);
  }
  if (policy.bearer !== undefined) return header(`Bearer ${text(from(policy.bearer).token ?? '')}`);
  return undefined; // digest, certificate, oauth2, oidc: tokenAuthentication
}

/** What resolving an OAuth2/OIDC policy uses of the call's context. */
export type TokenSource = SecretSource & Pick<ActivityContext, 'authorize' | 'fetch'>;

const GRANTS: Record<string, string> = {
  client_credentials: 'clientCredentials',
  password: 'password',
  'urn:ietf:params:oauth:grant-type:token-exchange': 'tokenExchange',
  refresh_token: 'refreshToken',
};

const CLIENT_AUTHENTICATIONS = ['client_secret_post', 'client_secret_basic', 'client_secret_jwt', 'private_key_jwt', 'none'];

/**
 * The credentials of an (evaluated) 1.0 `digest`, `certificate`, `oauth2` or `oidc` policy, for
 * a request sent with the context's fetch (sendHttp / sendCall), or undefined for any other
 * policy. A policy swflow cannot serve (`authorization_code`, missing fields) is a
 * ConfigurationError here; the token (and, for `oidc`, the discovery) is requested
 * when the request is sent, so a refused or unreachable token endpoint fails that request.
 */
export async function tokenAuthentication(policy: unknown, source: TokenSource): Promise<Auth | undefined> {
  if (!isObj(policy)) return undefined;
  if (policy.digest !== undefined) {
    const d = policyBody(policy.digest, source);
    if (typeof d.username !== 'string' || typeof d.password !== 'string') throw new ConfigurationError("digest: needs 'username' and 'password'");
    source.redact(d.password);
    return digestAuth('digest', d.username, d.password);
  }
  if (policy.certificate !== undefined) {
    const c = policyBody(policy.certificate, source);
    const field = (k: string) => (typeof c[k] === 'string' && c[k] ? (c[k] as string) : undefined);
    const cert = field('certificate');
    const key = field('key');
    if (!cert || !key) throw new ConfigurationError("certificate: needs 'certificate' and 'key' (PEM texts or files)");
    const passphrase = field('passphrase');
    if (passphrase) source.redact(passphrase);
    return certificateAuth('certificate', async () => {
      const material: ClientCertificate = { cert: await pemOf(cert, 'certificate'), key: await pemOf(key, 'key') };
      const ca = field('ca');
      if (ca) material.ca = await pemOf(ca, 'ca');
      if (passphrase) material.passphrase = passphrase;
      source.redact(material.key);
      return material;
    });
  }
  const scheme = policy.oauth2 !== undefined ? 'oauth2' : policy.oidc !== undefined ? 'oidc' : undefined;
  if (!scheme) return undefined;
  const p = policyBody(policy[scheme], source);
  const def = oauth2Def(scheme, p);
  let resolved: Promise<Auth> | undefined;
  const auth = () =>
    (resolved ??= (async () => {
      if (scheme === 'oauth2') return source.authorize(def);
      const tokenEndpoint = await discoveredTokenEndpoint(p.authority, source);
      return source.authorize({ ...def, properties: { ...def.properties, metadata: { ...(def.properties.metadata as Obj), tokenEndpoint } } });
    })());
  return {
    name: scheme,
    scheme: 'oauth2',
    headers: async () => (await auth()).headers(),
    token: async () => (await auth()).token(),
    refresh: async () => (await auth()).refresh(),
  };
}

/**
 * The request headers of an (evaluated) 1.0 policy of any supported scheme (`{ authorization }`,
 * empty without a policy), for protocols that carry them elsewhere than an HTTP request made with
 * sendCall (gRPC metadata, MQTT credentials): basic and bearer at once, an OAuth2/OIDC token
 * requested now (a refused token request: an AdapterError `AuthError`).
 */
export async function authenticationHeaders(policy: unknown, source: TokenSource): Promise<Record<string, string>> {
  const header = authenticationHeader(policy, source);
  if (header) return { authorization: header };
  for (const scheme of ['digest', 'certificate']) {
    if (isObj(policy) && policy[scheme] !== undefined) throw new ConfigurationError(`'${scheme}' authentication needs an HTTP exchange (call: http or openapi), not this protocol`);
  }
  const token = await tokenAuthentication(policy, source);
  return token ? token.headers() : {};
}

/** A policy's body: inline, or the JSON object of the secret a secret-based one names. */
function policyBody(body: Json, source: SecretSource): Obj {
  return isObj(body) && typeof body.use === 'string' ? secretObject(source, body.use) : isObj(body) ? body : {};
}

/** A 1.0 OAuth2 / OpenID Connect policy as the SDK's `oauth2` auth definition (0.8's property names). */
function oauth2Def(scheme: 'oauth2' | 'oidc', p: Obj): AuthDef {
  const grant = String(p.grant ?? 'client_credentials');
  if (grant === 'authorization_code') throw new ConfigurationError(`${scheme}: ${AUTHORIZATION_CODE_REFUSAL}`);
  const grantType = GRANTS[grant];
  if (!grantType) throw new ConfigurationError(`${scheme}: grant '${grant}' is not supported (${Object.keys(GRANTS).join(', ')} are)`);
  const client = isObj(p.client) ? p.client : {};
  const clientAuthentication = String(client.authentication ?? 'client_secret_post');
  if (!CLIENT_AUTHENTICATIONS.includes(clientAuthentication)) throw new ConfigurationError(`${scheme}: client authentication '${clientAuthentication}' is not one of ${CLIENT_AUTHENTICATIONS.join(', ')}`);
  const requestEncoding = isObj(p.request) && p.request.encoding !== undefined ? String(p.request.encoding) : 'application/x-www-form-urlencoded';
  if (requestEncoding !== 'application/x-www-form-urlencoded' && requestEncoding !== 'application/json') {
    throw new ConfigurationError(`${scheme}: token request encoding '${requestEncoding}' is not application/x-www-form-urlencoded or application/json`);
  }
  const endpoints = isObj(p.endpoints) ? p.endpoints : {};
  const properties: Obj = {
    grantType,
    authority: p.authority ?? null,
    clientId: client.id ?? null,
    metadata: {
      ...(scheme === 'oauth2' && endpoints.token !== undefined ? { tokenEndpoint: endpoints.token } : {}),
      clientAuthentication,
      ...(requestEncoding === 'application/json' ? { requestEncoding } : {}),
      ...(isObj(p.subject) && typeof p.subject.type === 'string' && grant !== 'refresh_token' ? { subjectTokenType: p.subject.type } : {}),
    },
  };
  if (client.secret !== undefined) properties.clientSecret = client.secret;
  if (client.assertion !== undefined) properties.clientAssertion = client.assertion;
  for (const key of ['scopes', 'audiences', 'username', 'password'] as const) if (p[key] !== undefined) properties[key] = p[key];
  // refresh_token: the 1.0 policy has no refresh-token property; the token is the `subject`'s.
  if (isObj(p.subject) && p.subject.token !== undefined) properties[grant === 'refresh_token' ? 'refreshToken' : 'subjectToken'] = p.subject.token;
  if (grant === 'refresh_token' && properties.refreshToken === undefined) throw new ConfigurationError(`${scheme}: the refresh_token grant takes the refresh token from 'subject.token'`);
  return { name: scheme, scheme: 'oauth2', properties };
}

/** OpenID Connect discovery: the authority's token endpoint. */
async function discoveredTokenEndpoint(authority: Json | undefined, source: TokenSource): Promise<string> {
  if (typeof authority !== 'string' || !authority) throw new AdapterError(ErrorCodes.AuthError, 'oidc: needs an authority', { nonRetryable: true });
  const url = `${authority.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const res = await source.fetch({ method: 'GET', url, headers: { accept: 'application/json' } }, { auth: undefined });
  const config = res.ok ? ((await res.json().catch(() => undefined)) as Obj | undefined) : undefined;
  if (typeof config?.token_endpoint !== 'string') throw new AdapterError(ErrorCodes.AuthError, `oidc: GET ${url} answered ${res.status} without a token_endpoint`, { request: `GET ${url}` });
  return config.token_endpoint;
}
