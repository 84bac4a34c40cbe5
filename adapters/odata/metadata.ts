/**
 * What the odata adapter needs from a service's metadata document (`<root>/$metadata`, CSDL
 * XML, which every OData v4 service serves): the key properties of an entity set and their
 * types, so that a `key` is written as the right literal (`People('russellwhyte')`,
 * `Products(42)`). Parsed with fast-xml-parser; read only for key lookups, with the function's
 * resource auth (else its invocation auth), and cached per worker by service root and auth.
 */
import { XMLParser } from 'fast-xml-parser';
import { AdapterError, DefinitionError, ErrorCodes, type ActivityContext } from '../../src/adapter-sdk';

export interface KeyProperty {
  name: string;
  /** The property's type: `Edm.String`, `Edm.Int32`, ... or an enumeration's qualified name. */
  type: string;
}

type Node = Record<string, any>;

const LISTS = new Set(['Schema', 'EntityType', 'Property', 'PropertyRef', 'EntityContainer', 'EntitySet']);
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true, isArray: (name, _path, _leaf, isAttribute) => !isAttribute && LISTS.has(name) });

/** The entity sets of a metadata document → their key properties. */
export type KeysBySet = Map<string, KeyProperty[]>;

/** Reads the key properties of every entity set of a CSDL XML document. */
export function parseKeys(xml: string): KeysBySet {
  const root = parser.parse(xml) as Node;
  const schemas: Node[] = root?.Edmx?.DataServices?.Schema ?? [];
  if (!schemas.length) throw new Error('no Edmx/DataServices/Schema element');
  const types = new Map<string, Node>();
  for (const s of schemas) {
    for (const t of s.EntityType ?? []) {
      types.set(`${s.Namespace}.${t.Name}`, t);
      if (s.Alias) types.set(`${s.Alias}.${t.Name}`, t);
    }
  }
  const keysOf = (typeName: string, seen = new Set<string>()): KeyProperty[] => {
    const t = types.get(typeName);
    if (!t || seen.has(typeName)) return [];
    seen.add(typeName);
    const refs: Node[] = t.Key?.PropertyRef ?? [];
    if (!refs.length) return t.BaseType ? keysOf(t.BaseType, seen) : [];
    const propertyType = (name: string, at: string): string | undefined => {
      const p = (types.get(at)?.Property ?? []).find((x: Node) => x.Name === name);
      return p ? p.Type : types.get(at)?.BaseType ? propertyType(name, types.get(at)!.BaseType) : undefined;
    };
    return refs.map((r) => ({ name: r.Alias ?? r.Name, type: propertyType(r.Name, typeName) ?? 'Edm.String' }));
  };
  const out: KeysBySet = new Map();
  for (const s of schemas) for (const c of s.EntityContainer ?? []) for (const set of c.EntitySet ?? []) out.set(set.Name, keysOf(set.EntityType));
  return out;
}

const cache = new Map<string, Promise<KeysBySet>>();

async function load(root: string, ctx: ActivityContext): Promise<KeysBySet> {
  const url = `${root}/$metadata`;
  const { body } = await ctx.http({ method: 'GET', url, headers: { accept: 'application/xml' } }, { auth: ctx.resourceAuth ?? ctx.auth });
  try {
    return parseKeys(typeof body === 'string' ? body : '');
  } catch (err) {
    throw new AdapterError(ErrorCodes.InvalidResponse, `GET ${url} answered something that is not a CSDL XML metadata document (${(err as Error).message})`, { request: `GET ${url}` });
  }
}

/** The key properties of an entity set (from the service's `$metadata`, cached). */
export async function keyPropertiesOf(root: string, entitySet: string, ctx: ActivityContext): Promise<KeyProperty[]> {
  const cacheKey = `${root}\n${JSON.stringify(ctx.function.authRef ?? null)}`;
  let p = cache.get(cacheKey);
  if (!p) {
    p = load(root, ctx);
    cache.set(cacheKey, p);
    p.catch(() => cache.get(cacheKey) === p && cache.delete(cacheKey));
  }
  const keys = (await p).get(entitySet);
  if (!keys) throw new DefinitionError(`${root}/$metadata has no entity set "${entitySet}"; its entity sets: ${[...(await p).keys()].join(', ')}`);
  if (!keys.length) throw new DefinitionError(`${root}/$metadata declares no key for the entity set "${entitySet}"`);
  return keys;
}
