/**
 * An odata call's arguments → the request URL. The arguments follow the spec's OData schema
 * (src/dsl/v08/schema/odata.json): `key` addresses one entity, `queryOptions` become the
 * system query options `$filter`, `$select`, `$expand`, `$orderby`, `$top`, `$skip`, `$count`,
 * `$search` (and `$format`, `$compute`, `$index`, `$schemaversion`). Option names are matched
 * case-insensitively: the schema spells `orderBy`, the spec's example `orderby`. Values are
 * percent-encoded as they are (they are OData expressions the definition writes), except that
 * `select`'s items lose the spaces the spec's example puts after its commas.
 */
import { DefinitionError, type Json } from '../../src/adapter-sdk';
import type { KeyProperty } from './metadata';

/** Splits `<service root>#<entity set>`. */
export function splitOperation(operation: string): { root: string; entitySet: string } {
  const hash = operation.lastIndexOf('#');
  const root = operation.slice(0, hash).replace(/\/+$/, '');
  const entitySet = operation.slice(hash + 1);
  if (hash <= 0 || !/^https?:\/\//i.test(root) || !/^[^/?#()]+$/.test(entitySet)) {
    throw new DefinitionError(`operation "${operation}" is not "<http(s) URI of the OData service root>#<entity set name>"`);
  }
  return { root, entitySet };
}

type Kind = 'text' | 'integer' | 'boolean';
/** The system query options of the spec's OData schema (lower case), each sent as `$<name>`. */
const OPTIONS = ['filter', 'select', 'expand', 'orderby', 'top', 'skip', 'count', 'search', 'format', 'compute', 'index', 'schemaversion'];
const KINDS: Record<string, Kind> = { top: 'integer', skip: 'integer', count: 'boolean' };

export interface ODataArguments {
  key?: Json;
  queryOptions: Record<string, Json>;
}

/** Checks the arguments' shape: `{ key?, queryOptions? }`. */
export function odataArguments(args: Json): ODataArguments {
  if (args === null) return { queryOptions: {} };
  if (typeof args !== 'object' || Array.isArray(args)) throw new DefinitionError(`arguments must be { key?, queryOptions? }, got ${JSON.stringify(args)}`);
  const { key, queryOptions, ...rest } = args;
  const extra = Object.keys(rest);
  if (extra.length) throw new DefinitionError(`an odata function takes the arguments "key" and "queryOptions" (the spec's OData schema), not ${extra.map((k) => `"${k}"`).join(', ')}`);
  if (queryOptions !== undefined && queryOptions !== null && (typeof queryOptions !== 'object' || Array.isArray(queryOptions))) {
    throw new DefinitionError(`queryOptions must be an object such as { filter, select, top }, got ${JSON.stringify(queryOptions)}`);
  }
  return { ...(key !== undefined && key !== null ? { key } : {}), queryOptions: (queryOptions ?? {}) as Record<string, Json> };
}

function optionValue(option: string, kind: Kind, value: Json): string {
  if (kind === 'integer') {
    if ((typeof value === 'number' && Number.isInteger(value) && value >= 0) || (typeof value === 'string' && /^\d+$/.test(value))) return String(value);
    throw new DefinitionError(`queryOptions.${option} must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
  if (kind === 'boolean') {
    if (typeof value === 'boolean' || value === 'true' || value === 'false') return String(value);
    throw new DefinitionError(`queryOptions.${option} must be true or false, got ${JSON.stringify(value)}`);
  }
  if (typeof value === 'string' && value.trim()) return value;
  throw new DefinitionError(`queryOptions.${option} must be a non-empty string, got ${JSON.stringify(value)}`);
}

/** The system query options, percent-encoded: `$filter=Age%20gt%2030&$top=5`. */
export function queryString(queryOptions: Record<string, Json>): string {
  const parts: string[] = [];
  for (const [option, value] of Object.entries(queryOptions)) {
    const name = option.toLowerCase();
    if (!OPTIONS.includes(name)) throw new DefinitionError(`unknown queryOptions.${option}; the OData query options are ${OPTIONS.join(', ')}`);
    if (value === null || value === undefined) continue;
    let text = optionValue(option, KINDS[name] ?? 'text', value);
    // The spec's example writes "Id, PersonDetail/Person/Name"; OData's grammar has no space there.
    if (name === 'select') text = text.split(',').map((s) => s.trim()).join(',');
    parts.push(`$${name}=${encodeURIComponent(text)}`);
  }
  return parts.join('&');
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^(INF|-INF|NaN)$/;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CHECKS: Record<string, RegExp> = {
  'Edm.Byte': INTEGER,
  'Edm.SByte': INTEGER,
  'Edm.Int16': INTEGER,
  'Edm.Int32': INTEGER,
  'Edm.Int64': INTEGER,
  'Edm.Decimal': NUMBER,
  'Edm.Double': NUMBER,
  'Edm.Single': NUMBER,
  'Edm.Boolean': /^(true|false)$/,
  'Edm.Guid': GUID,
};

/** A key value as an OData literal of its property's type (OData URL conventions, 5.1.1.6.1). */
function keyLiteral(value: Json, prop: KeyProperty): string {
  if (value === null || typeof value === 'object') throw new DefinitionError(`key "${prop.name}" must be a string or number, got ${JSON.stringify(value)}`);
  const text = String(value);
  const check = CHECKS[prop.type];
  if (check && !check.test(text)) throw new DefinitionError(`key "${prop.name}" is ${prop.type} but ${JSON.stringify(value)} is not one`);
  if (prop.type === 'Edm.String') return `'${text.replace(/'/g, "''")}'`;
  if (prop.type === 'Edm.Duration') return `duration'${text}'`;
  if (prop.type === 'Edm.Binary') return `binary'${text}'`;
  // An enumeration type: Namespace.Color'Red'.
  if (!prop.type.startsWith('Edm.')) return `${prop.type}'${text.replace(/'/g, "''")}'`;
  return text;
}

/**
 * The key predicate of `key` (without its parentheses): one value for a single key property
 * (`'russellwhyte'`, `42`), an object of values for a composite key (`OrderID=1,ItemNo=2`);
 * each literal written as its property's type (read from `$metadata`).
 */
export function keyPredicate(key: Json, properties: KeyProperty[], entitySet: string): string {
  const enc = (prop: KeyProperty, v: Json) => encodeURIComponent(keyLiteral(v, prop));
  if (key !== null && typeof key === 'object' && !Array.isArray(key)) {
    const missing = properties.filter((p) => !(p.name in key)).map((p) => p.name);
    const unknown = Object.keys(key).filter((k) => !properties.some((p) => p.name === k));
    if (missing.length || unknown.length) throw new DefinitionError(`the key of ${entitySet} is ${properties.map((p) => p.name).join(', ')}; the key given ${missing.length ? `lacks ${missing.join(', ')}` : `has ${unknown.join(', ')} besides`}`);
    if (properties.length === 1) return enc(properties[0], key[properties[0].name]);
    return properties.map((p) => `${p.name}=${enc(p, key[p.name])}`).join(',');
  }
  if (properties.length !== 1) throw new DefinitionError(`the key of ${entitySet} has the properties ${properties.map((p) => p.name).join(', ')}: give key as an object of them`);
  return enc(properties[0], key);
}
