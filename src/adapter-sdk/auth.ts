/**
 * Auth definitions (spec 0.8 "Auth Definition"), resolved inside the activity: `basic`,
 * `bearer` and `oauth2` (grants `clientCredentials`, `password`, `tokenExchange`, `refreshToken`:
 * the `refreshToken` property). Property
 * values may be `$SECRETS` expressions; they are evaluated here with the call's secret scope and
 * every credential (and every token obtained) is registered for redaction. The definition
 * itself, with its expressions, is all that travels through history.
 *
 * OAuth2: the token endpoint is `metadata.tokenEndpoint` (absolute, or relative to
 * `authority`), by default `<authority>/oauth2/token` (as Serverless Workflow 1.0 has it). The
 * client authenticates with `client_secret_post` unless `metadata.clientAuthentication` says
 * `client_secret_basic`, `client_secret_jwt` (an HS256 assertion signed with the client secret),
 * `private_key_jwt` (the `clientAssertion` property as is, else an RS256/ES256 assertion signed
 * with `clientSecret` holding the private key in PEM) or `none` (the client id only);
 * `metadata.requestEncoding: application/json` sends the token request as JSON. Tokens are cached per worker, keyed by the resolved request, until
 * `expires_in` (less a minute) runs out; {@link Auth.refresh} drops the cached one (the HTTP
 * helper does that once on a 401).
 */
import { createHash, createHmac, createPrivateKey, randomUUID, sign } from 'node:crypto';
import type { FunctionCall } from '../common/contracts';
import type { AuthDef, Json } from '../common/model';
import { BoundedMap } from '../common/bounded-map';
import { AdapterError, ErrorCodes, networkFailure } from './errors';
import { httpFetch } from './http-client';
import type { ClientCertificate } from './certificate';
import type { Redactor } from './redact';
import { evaluateSecret, type SecretValues } from './secrets';

/** Credentials for one call, ready to put on a request. */
export interface Auth {
  /** The auth definition's name and scheme. */
  readonly name: string;
  readonly scheme: AuthDef['scheme'];
  /**
   * The request headers that carry the credentials (`Authorization: Basic …` / `Bearer …`); a
   * digest answer needs the request it goes with.
   */
  headers(request?: { method: string; url: string }): Promise<Record<string, string>>;
  /** The credential alone, for a protocol that carries it elsewhere (an API key parameter, gRPC metadata): the bearer or OAuth2 access token; for basic, the base64 `user:password`. */
  token(): Promise<string>;
  /** Forgets a cached OAuth2 token so the next {@link headers} fetches a new one; false when there is nothing to refresh (basic, bearer). */
  refresh(): Promise<boolean>;
  /** Digest: takes the challenge of a 401 answer; true when the request should be sent again (with {@link headers}). */
  challenged?(res: Response): boolean;
  /** A client certificate: the request goes over TLS with it (see ./certificate.ts). */
  tls?(): Promise<ClientCertificate>;
}

interface CachedToken {
  accessToken: string;
  /** Epoch ms; undefined: until a 401 says otherwise. */
  expiresAt?: number;
}

/** OAuth2 tokens a worker keeps (one per distinct token request): least recently used go first. */
export const TOKEN_CACHE_ENTRIES = 1024;

/** A worker's OAuth2 tokens (shared by its calls; concurrent calls share one token request). */
export class TokenCache {
  private readonly tokens = new BoundedMap<string, Promise<CachedToken>>(TOKEN_CACHE_ENTRIES);
  /** Token requests made (for tests and logs). */
  requests = 0;

  async get(key: string, fetchToken: () => Promise<CachedToken>): Promise<CachedToken> {
    const cached = this.tokens.get(key);
    if (cached) {
      const token = await cached.catch(() => undefined);
      if (token && (token.expiresAt === undefined || token.expiresAt > Date.now())) return token;
      if (this.tokens.get(key) === cached) this.tokens.delete(key);
    }
    let pending = this.tokens.get(key);
    if (!pending) {
      this.requests++;
      pending = fetchToken();
      this.tokens.set(key, pending);
      pending.catch(() => this.tokens.delete(key));
    }
    return pending;
  }

  drop(key: string): void {
    this.tokens.delete(key);
  }
}

/** How long before its expiry a cached token is no longer used (at most a tenth of its lifetime). */
const EXPIRY_MARGIN_MS = 60_000;

const str = (v: Json | undefined): string | undefined => (v === undefined || v === null ? undefined : typeof v === 'string' ? v : JSON.stringify(v));

/** Resolves an auth definition for one call. */
export async function resolveAuth(def: AuthDef, call: FunctionCall, secrets: SecretValues, redactor: Redactor, tokens: TokenCache): Promise<Auth> {
  let props: Record<string, Json> = def.properties;
  // `properties` as one expression (normalized to `{ ref }`): a secret holding all of them.
  if (typeof props.ref === 'string' && Object.keys(props).length === 1) {
    const all = await evaluateSecret(props.ref, call, secrets, redactor);
    if (!all || typeof all !== 'object' || Array.isArray(all)) throw authError(def, `properties ${JSON.stringify(props.ref)} did not evaluate to an object`);
    props = all as Record<string, Json>;
  }
  const value = async (key: string): Promise<string | undefined> => str(await evaluateSecret(props[key] ?? null, call, secrets, redactor));
  const values = async (key: string): Promise<string[]> => {
    const v = props[key];
    const list = Array.isArray(v) ? v : v === undefined || v === null ? [] : [v];
    return (await Promise.all(list.map((x) => evaluateSecret(x, call, secrets, redactor)))).map((x) => str(x) ?? '');
  };
  const need = (key: string, v: string | undefined): string => {
    if (v === undefined || v === '') throw authError(def, `needs "${key}"`);
    return v;
  };
  const fixed = (token: string, authorization: string): Auth => ({
    name: def.name,
    scheme: def.scheme,
    headers: async () => ({ authorization }),
    token: async () => token,
    refresh: async () => false,
  });

  switch (def.scheme) {
    case 'basic': {
      const username = need('username', await value('username'));
      const password = need('password', await value('password'));
      redactor.add(password, `${username}:${password}`);
      const basic = Buffer.from(`${username}:${password}`).toString('base64');
      return fixed(basic, `Basic ${basic}`);
    }
    case 'bearer': {
      const token = need('token', await value('token'));
      redactor.add(token);
      return fixed(token, `Bearer ${token}`);
    }
    case 'oauth2': {
      const request = await oauth2Request(def, props, value, values, need);
      redactor.add(request.secrets);
      const key = createHash('sha256').update(JSON.stringify([request.url, request.form, request.basic, request.assertion, request.json])).digest('hex');
      const token = async () => {
        const t = await tokens.get(key, () => requestToken(def, request, redactor));
        redactor.add(t.accessToken);
        return t.accessToken;
      };
      return {
        name: def.name,
        scheme: def.scheme,
        headers: async () => ({ authorization: `Bearer ${await token()}` }),
        token,
        async refresh() {
          tokens.drop(key);
          return true;
        },
      };
    }
    default:
      throw authError(def, `unknown scheme "${String(def.scheme)}"`);
  }
}

interface TokenRequest {
  url: string;
  form: Record<string, string | string[]>;
  /** client_secret_basic credentials. */
  basic?: string;
  /** client_secret_jwt / private_key_jwt: the assertion to sign per request (a new `jti` each time). */
  assertion?: { clientId: string; key: string; alg: 'HS256' | 'RS256' | 'ES256' };
  /** `application/json` (1.0 `request.encoding`) or form-encoded. */
  json: boolean;
  secrets: string[];
}

const GRANTS: Record<string, string> = {
  clientCredentials: 'client_credentials',
  password: 'password',
  tokenExchange: 'urn:ietf:params:oauth:grant-type:token-exchange',
  refreshToken: 'refresh_token',
};

/** How the client authenticates to the token endpoint (OpenID Connect Core 9, RFC 7523). */
const CLIENT_AUTHENTICATIONS = ['client_secret_post', 'client_secret_basic', 'client_secret_jwt', 'private_key_jwt', 'none'];
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

async function oauth2Request(
  def: AuthDef,
  props: Record<string, Json>,
  value: (key: string) => Promise<string | undefined>,
  values: (key: string) => Promise<string[]>,
  need: (key: string, v: string | undefined) => string,
): Promise<TokenRequest> {
  if (props.grantType === 'authorizationCode' || props.grantType === 'authorization_code') {
    throw authError(def, AUTHORIZATION_CODE_REFUSAL);
  }
  const grant = GRANTS[String(props.grantType)];
  if (!grant) throw authError(def, `grantType must be one of ${Object.keys(GRANTS).join(', ')}, got ${JSON.stringify(props.grantType)}`);
  const metadata = (props.metadata ?? {}) as Record<string, Json>;
  const authority = await value('authority');
  const endpoint = str(metadata.tokenEndpoint) ?? '/oauth2/token';
  let url: string;
  try {
    url = new URL(endpoint, authority ? authority.replace(/\/?$/, '/') : undefined).toString();
  } catch {
    throw authError(def, `no token endpoint: give "authority" (a URL) or metadata.tokenEndpoint (absolute)`);
  }
  if (!/^https?:/.test(url)) throw authError(def, `token endpoint ${url} is not http(s)`);
  const how = str(metadata.clientAuthentication) ?? 'client_secret_post';
  if (!CLIENT_AUTHENTICATIONS.includes(how)) throw authError(def, `client authentication must be one of ${CLIENT_AUTHENTICATIONS.join(', ')}, got ${JSON.stringify(how)}`);
  const encoding = str(metadata.requestEncoding) ?? 'application/x-www-form-urlencoded';
  if (encoding !== 'application/x-www-form-urlencoded' && encoding !== 'application/json') throw authError(def, `token request encoding must be application/x-www-form-urlencoded or application/json, got ${JSON.stringify(encoding)}`);
  const clientId = how === 'none' ? await value('clientId') : need('clientId', await value('clientId'));
  const clientSecret = await value('clientSecret');
  const form: Record<string, string | string[]> = { grant_type: grant };
  const secrets: string[] = [];
  if (clientSecret) secrets.push(clientSecret);
  const scopes = await values('scopes');
  if (scopes.length) form.scope = scopes.join(' ');
  const audiences = await values('audiences');
  if (audiences.length) form.audience = audiences;
  if (grant === 'password') {
    form.username = need('username', await value('username'));
    form.password = need('password', await value('password'));
    secrets.push(form.password);
  } else if (props.grantType === 'tokenExchange') {
    form.subject_token = need('subjectToken', await value('subjectToken'));
    form.subject_token_type = str(metadata.subjectTokenType) ?? 'urn:ietf:params:oauth:token-type:access_token';
    secrets.push(form.subject_token);
    const subject = await value('requestedSubject');
    const issuer = await value('requestedIssuer');
    if (subject) form.requested_subject = subject;
    if (issuer) form.requested_issuer = issuer;
  } else if (props.grantType === 'refreshToken') {
    form.refresh_token = need('refreshToken', await value('refreshToken'));
    secrets.push(form.refresh_token);
  }
  let basic: string | undefined;
  let assertion: TokenRequest['assertion'];
  if (how === 'client_secret_basic') {
    basic = Buffer.from(`${encodeURIComponent(clientId!)}:${encodeURIComponent(clientSecret ?? '')}`).toString('base64');
    secrets.push(basic);
  } else if (how === 'client_secret_jwt' || how === 'private_key_jwt') {
    form.client_id = clientId!;
    form.client_assertion_type = JWT_BEARER;
    const given = await value('clientAssertion');
    if (given) {
      // A signed assertion given as is (1.0 `client.assertion`).
      form.client_assertion = given;
      secrets.push(given);
    } else if (how === 'client_secret_jwt') {
      assertion = { clientId: clientId!, key: need('clientSecret', clientSecret), alg: 'HS256' };
    } else {
      // private_key_jwt without an assertion: `client.secret` is the client's private key (PEM).
      const key = need('clientSecret (the private key, PEM)', clientSecret);
      let type: string | undefined;
      try {
        type = createPrivateKey(key).asymmetricKeyType;
      } catch (err) {
        throw authError(def, `private_key_jwt: the client secret is not a PEM private key (${(err as Error).message})`);
      }
      if (type !== 'rsa' && type !== 'ec') throw authError(def, `private_key_jwt: the private key is ${type}, not RSA (RS256) or EC P-256 (ES256)`);
      assertion = { clientId: clientId!, key, alg: type === 'rsa' ? 'RS256' : 'ES256' };
    }
  } else {
    if (clientId) form.client_id = clientId;
    if (how === 'client_secret_post' && clientSecret) form.client_secret = clientSecret;
  }
  return { url, form, basic, assertion, json: encoding === 'application/json', secrets };
}

/** Why the `authorization_code` grant is refused (the matrix quotes it). */
export const AUTHORIZATION_CODE_REFUSAL =
  "the 'authorization_code' grant needs a user agent: a person signs in at the authority in a browser, which brings the code back to a redirect URI; a workflow runs unattended and has neither. Obtain a refresh token once and use the 'refresh_token' grant, or use 'client_credentials'";

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** A client assertion (RFC 7523 section 3): iss = sub = the client, aud = the token endpoint, valid 5 minutes. */
export function signClientAssertion(a: NonNullable<TokenRequest['assertion']>, audience: string): string {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url(JSON.stringify({ alg: a.alg, typ: 'JWT' }));
  const claims = b64url(JSON.stringify({ iss: a.clientId, sub: a.clientId, aud: audience, jti: randomUUID(), iat: now, exp: now + 300 }));
  const input = `${head}.${claims}`;
  const signature =
    a.alg === 'HS256' ? createHmac('sha256', a.key).update(input).digest() : sign('sha256', Buffer.from(input), a.alg === 'ES256' ? { key: a.key, dsaEncoding: 'ieee-p1363' } : a.key);
  return `${input}.${b64url(signature)}`;
}

async function requestToken(def: AuthDef, req: TokenRequest, redactor: Redactor): Promise<CachedToken> {
  const form = { ...req.form };
  if (req.assertion) {
    form.client_assertion = signClientAssertion(req.assertion, req.url);
    redactor.add(form.client_assertion);
  }
  let body: string | URLSearchParams;
  if (req.json) body = JSON.stringify(form);
  else {
    body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  }
  const headers: Record<string, string> = { 'content-type': req.json ? 'application/json' : 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (req.basic) headers.authorization = `Basic ${req.basic}`;
  const request = `POST ${req.url}`;
  let res: Response;
  try {
    res = await httpFetch(req.url, { method: 'POST', headers, body });
  } catch (err) {
    const failure = networkFailure(err);
    throw new AdapterError(failure.code, `auth "${def.name}": token request ${request} failed: ${failure.message}`, { request });
  }
  const text = await res.text();
  let answer: Json = text;
  try {
    answer = JSON.parse(text) as Json;
  } catch {
    /* not JSON: keep the text */
  }
  const token = answer && typeof answer === 'object' && !Array.isArray(answer) ? (answer as Record<string, Json>) : {};
  if (!res.ok || typeof token.access_token !== 'string') {
    const why = res.ok ? 'no access_token in the answer' : `${res.status} ${res.statusText}`;
    throw new AdapterError(ErrorCodes.AuthError, `auth "${def.name}": token request ${request} answered ${why}: ${text.slice(0, 500)}`, { request, answer, serviceMessage: `auth "${def.name}": the token endpoint answered ${why}` });
  }
  const expiresIn = Number(token.expires_in);
  return { accessToken: token.access_token, expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? Date.now() + expiresIn * 1000 - Math.min(EXPIRY_MARGIN_MS, expiresIn * 100) : undefined };
}

function authError(def: AuthDef, why: string): AdapterError {
  return new AdapterError(ErrorCodes.AuthError, `auth "${def.name}" (${def.scheme}): ${why}`, { nonRetryable: true });
}
