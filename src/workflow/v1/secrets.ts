/**
 * `$secrets` in call arguments (pure). The workflow never holds secret values, so they cannot
 * reach Temporal history: strings that reference `$secrets` are taken out of the arguments
 * (left null) and travel unevaluated as `FunctionCall.secretArguments` (JSON pointer →
 * expression); the adapter evaluates them with the secret store bound as `$secrets`
 * (src/expr/secrets.ts `resolveSecretArguments`, the variable passed in the scope).
 */
import type { Json } from '../../common/model';

const SECRETS_RE = /\$secrets(?![A-Za-z0-9_])/;

export function splitSecrets(value: Json): { value: Json; secrets: Record<string, string> } {
  const secrets: Record<string, string> = {};
  const walk = (v: Json, p: string): Json => {
    if (typeof v === 'string') {
      if (!SECRETS_RE.test(v)) return v;
      secrets[p] = v;
      return null;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${p}/${i}`));
    if (v && typeof v === 'object') {
      const o: Record<string, Json> = {};
      for (const k of Object.keys(v)) Object.defineProperty(o, k, { value: walk(v[k], `${p}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`), enumerable: true, writable: true, configurable: true });
      return o;
    }
    return v;
  };
  return { value: walk(value, ''), secrets };
}
