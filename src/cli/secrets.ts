/**
 * `--secrets <file>` of the adapter commands: the values `$SECRETS` has in the worker, from a
 * JSON or YAML object (values may be objects, e.g. per-tenant keys), over the environment.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { SecretValues } from '../adapter-sdk';

export function loadSecrets(file: string | undefined): SecretValues | undefined {
  if (!file) return undefined;
  let values: unknown;
  try {
    values = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`--secrets ${file}: ${(err as Error).message}`);
  }
  if (!values || typeof values !== 'object' || Array.isArray(values)) throw new Error(`--secrets ${file}: expected an object of secret values`);
  return { ...(process.env as SecretValues), ...(values as SecretValues) };
}
