/**
 * Serverless Workflow 1.0 authentication policies (`authentication` of an endpoint or an
 * OpenAPI call), resolved inside the activity: `basic` and `bearer`, with literal values or
 * `use: <secret>` (a secret holding `{ username, password }` or `{ token }`, read through
 * {@link ActivityContext.secret}). Every credential is registered with the call's redaction, so
 * a service that echoes it, or a failure that quotes the request, leaves the worker redacted.
 * The 0.8 `auth` definitions are ./auth.ts.
 */
import type { Json } from '../dsl/model';
import type { ActivityContext } from './define';
import { AdapterError, ErrorCodes } from './errors';

type Obj = Record<string, Json>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: Json | undefined): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** The schemes 1.0 defines that are not supported yet (a clear configuration error). */
const UNSUPPORTED = ['digest', 'oauth2', 'oidc', 'certificate'];

function configurationError(message: string): AdapterError {
  return new AdapterError(ErrorCodes.AuthError, message, { nonRetryable: true });
}

/** The secret named by a secret-based policy, as an object (a JSON object, or its JSON text as in the environment). */
function secretObject(ctx: Pick<ActivityContext, 'secret' | 'redact'>, name: string): Obj {
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
 * The `Authorization` header of an evaluated 1.0 authentication policy, or undefined when there
 * is none. Throws a non-retryable {@link AdapterError} (code AuthError) for an unknown secret or
 * a scheme not supported yet.
 *
 * @example
 * ```ts
 * const authorization = authenticationHeader(args.endpoint.authentication, ctx);
 * ```
 */
export function authenticationHeader(policy: unknown, ctx: Pick<ActivityContext, 'secret' | 'redact'>): string | undefined {
  if (!isObj(policy)) return undefined;
  const values = (body: Json): Obj => (isObj(body) && typeof body.use === 'string' ? secretObject(ctx, body.use) : isObj(body) ? body : {});
  if (policy.basic !== undefined) {
    const b = values(policy.basic);
    const pair = `${text(b.username)}:${text(b.password)}`;
    ctx.redact(text(b.password), pair);
    return `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  if (policy.bearer !== undefined) {
    const token = text(values(policy.bearer).token);
    ctx.redact(token);
    return `Bearer ${token}`;
  }
  for (const scheme of UNSUPPORTED) {
    if (policy[scheme] !== undefined) throw configurationError(`'${scheme}' authentication is not supported yet (basic and bearer are)`);
  }
  return undefined;
}
