/**
 * Serverless Workflow 1.0 authentication policies → an `Authorization` header, for adapters of
 * 1.0 calls. The workflow evaluated the policy; a secret-based one (`basic: { use: <secret> }`)
 * is read here from the worker's secrets; the secret, its fields and the header made of them are
 * marked for redaction (pass the ActivityContext: it is both).
 */
import type { Json } from '../dsl/model';
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

/** The Authorization header of an (evaluated) 1.0 authentication policy, or undefined when there is none. */
export function authenticationHeader(policy: unknown, source: SecretSource): string | undefined {
  if (!isObj(policy)) return undefined;
  const from = (body: Json): Obj => (isObj(body) && typeof body.use === 'string' ? secretObject(source, body.use) : isObj(body) ? body : {});
  const header = (value: string) => (source.redact(value, value.slice(value.indexOf(' ') + 1)), value);
  if (policy.basic !== undefined) {
    const b = from(policy.basic);
    return header(`Basic ${Buffer.from(`${text(b.username ?? '')}:${text(b.password ?? '')}`).toString('base64')}`);
  }
  if (policy.bearer !== undefined) return header(`Bearer ${text(from(policy.bearer).token ?? '')}`);
  for (const scheme of ['digest', 'oauth2', 'oidc', 'certificate']) {
    if (policy[scheme] !== undefined) throw new ConfigurationError(`'${scheme}' authentication is not supported yet (basic and bearer are)`);
  }
  return undefined;
}
