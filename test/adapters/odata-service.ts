/**
 * A small OData v4 service for the odata adapter's tests: node:http, JSON format, in-memory
 * entity sets, a CSDL `$metadata` document. No maintained npm OData v4 server runs here
 * (simple-odata-server is unmaintained and has no $expand/$search, SAP's @sap/cds needs Node 22
 * and is not open source), so the protocol is parsed by a real OData v4 parser: the resource
 * path and every system query option go through `odata-v4-parser` (a syntax error is a 400, as
 * from any OData service), `$filter` is compiled by `odata-v4-inmemory`, and `$select`,
 * `$expand` (with nested `$select`), `$orderby`, `$top`, `$skip`, `$count`, `$search` and key
 * predicates are applied from the parsed trees. Only the data is a stand-in.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { odataUri, query as parseQuery } from 'odata-v4-parser';
import { createFilter } from 'odata-v4-inmemory';

type Entity = Record<string, unknown>;
type Node = { type: string; value: any; raw?: string };

export interface EntitySetDef {
  type: string;
  /** Key properties and their Edm types. */
  key: Record<string, string>;
  /** Other properties and their Edm types. */
  properties: Record<string, string>;
  /** Navigation properties: name → target entity set and a function finding the related entities. */
  navigation?: Record<string, { target: string; related: (e: Entity, sets: Record<string, Entity[]>) => Entity[] }>;
  rows: Entity[];
}

export interface ODataService {
  server: Server;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Request paths and queries (decoded) as received, with their Authorization header. */
  received: { path: string; query: Record<string, string>; authorization?: string }[];
  close(): Promise<void>;
}

class ODataError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function metadataXml(namespace: string, sets: Record<string, EntitySetDef>): string {
  const types = Object.values(sets).map((s) => {
    const props = { ...s.key, ...s.properties };
    const nav = Object.entries(s.navigation ?? {}).map(([n, v]) => `<NavigationProperty Name="${n}" Type="Collection(${namespace}.${sets[v.target].type})"/>`);
    return `<EntityType Name="${s.type}"><Key>${Object.keys(s.key).map((k) => `<PropertyRef Name="${k}"/>`).join('')}</Key>${Object.entries(props).map(([n, t]) => `<Property Name="${n}" Type="${t}"${n in s.key ? ' Nullable="false"' : ''}/>`).join('')}${nav.join('')}</EntityType>`;
  });
  const container = Object.entries(sets).map(([name, s]) => `<EntitySet Name="${name}" EntityType="${namespace}.${s.type}"/>`);
  return `<?xml version="1.0" encoding="utf-8"?><edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices><Schema Namespace="${namespace}" xmlns="http://docs.oasis-open.org/odata/ns/edm">${types.join('')}<EntityContainer Name="Container">${container.join('')}</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`;
}

/** A key literal's value: `'it''s'` → `it's`, `42` → 42. */
function literalValue(raw: string): unknown {
  return raw.startsWith("'") ? raw.slice(1, -1).replace(/''/g, "'") : Number(raw);
}

function keyOf(predicate: Node, def: EntitySetDef): Record<string, unknown> {
  if (predicate.type === 'SimpleKey') return { [Object.keys(def.key)[0]]: literalValue(predicate.value.value.raw) };
  return Object.fromEntries((predicate.value as Node[]).map((pair) => [pair.value.key.value.name, literalValue(pair.value.value.raw)]));
}

/** Parses one system query option with the OData parser; a syntax error is a 400. */
function option(name: string, value: string): Node {
  try {
    const parsed = parseQuery(`${name}=${value}`) as Node | undefined;
    const node = parsed?.value?.options?.[0] as Node | undefined;
    if (!node) throw new Error('not understood');
    return node;
  } catch (err) {
    throw new ODataError(400, 'BadRequest', `Invalid ${name} "${value}": ${(err as Error).message}`);
  }
}

/** The property a parsed $select item or $orderby expression names (plain property paths only). */
const propertyName = (expr: Node): string => {
  let n: Node | undefined = expr;
  while (n && typeof n.value?.name !== 'string') n = typeof n.value === 'object' ? n.value : undefined;
  if (!n) throw new ODataError(501, 'NotImplemented', 'only plain property paths are supported in $select and $orderby');
  return n.value.name;
};

function searchMatches(node: Node, text: string): boolean {
  switch (node.type) {
    case 'SearchWord':
    case 'SearchPhrase':
      return text.includes(String(node.value).toLowerCase());
    case 'SearchAndExpression':
      return searchMatches(node.value.left, text) && searchMatches(node.value.right, text);
    case 'SearchOrExpression':
      return searchMatches(node.value.left, text) || searchMatches(node.value.right, text);
    case 'SearchNotExpression':
      return !searchMatches(node.value, text);
    case 'SearchParenExpression':
      return searchMatches(node.value, text);
    default:
      throw new ODataError(501, 'NotImplemented', `$search ${node.type} is not supported`);
  }
}

const selectNames = (node: Node): string[] => (node.value.items as Node[]).map((i) => propertyName(i.value));

function project(e: Entity, def: EntitySetDef, select: string[] | undefined): Entity {
  if (!select || select.includes('*')) return Object.fromEntries(Object.entries(e).filter(([k]) => k in def.key || k in def.properties));
  for (const s of select) if (!(s in def.key) && !(s in def.properties)) throw new ODataError(400, 'BadRequest', `Property "${s}" is not defined on ${def.type}`);
  return Object.fromEntries([...new Set([...Object.keys(def.key), ...select])].map((k) => [k, e[k]]));
}

/** Starts the service; `requireAuth(req)` returns an error message to answer 401 with, or undefined. */
export async function startODataService(sets: Record<string, EntitySetDef>, requireAuth: (req: IncomingMessage) => string | undefined = () => undefined): Promise<ODataService> {
  const received: ODataService['received'] = [];
  const data = Object.fromEntries(Object.entries(sets).map(([n, s]) => [n, s.rows]));
  let base = '';
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, base);
    const query = Object.fromEntries(url.searchParams);
    received.push({ path: decodeURIComponent(url.pathname), query, authorization: req.headers.authorization });
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'odata-version': '4.0' });
      res.end(body);
    };
    const json = (status: number, v: unknown) => send(status, 'application/json;odata.metadata=minimal', JSON.stringify(v));
    try {
      const m = /^(\/secure)?\/odata(\/.*)?$/.exec(url.pathname);
      if (!m) throw new ODataError(404, 'NotFound', 'no service here');
      const root = `${base}${m[1] ?? ''}/odata`;
      if (m[1]) {
        const denied = requireAuth(req);
        if (denied) throw new ODataError(401, 'Unauthorized', denied);
      }
      const path = decodeURIComponent(m[2] ?? '/');
      if (path === '/$metadata') return send(200, 'application/xml', metadataXml('Test.Service', sets));
      if (path === '/') return json(200, { '@odata.context': `${root}/$metadata`, value: Object.keys(sets).map((name) => ({ name, kind: 'EntitySet', url: name })) });
      let resource: { resource: Node; navigation?: Node };
      try {
        resource = (odataUri(path) as Node).value.resource.value;
      } catch (err) {
        throw new ODataError(400, 'BadRequest', `Invalid resource path ${path}: ${(err as Error).message}`);
      }
      const setName: string = resource.resource.value.name;
      const def = sets[setName];
      if (!def) throw new ODataError(404, 'NotFound', `Resource not found for the segment '${setName}'`);
      const options = Object.fromEntries(Object.entries(query).filter(([k]) => k.startsWith('$')).map(([k, v]) => [k, option(k, v)]));
      const unknown = Object.keys(options).filter((k) => !['$filter', '$select', '$expand', '$orderby', '$top', '$skip', '$count', '$search'].includes(k));
      if (unknown.length) throw new ODataError(501, 'NotImplemented', `${unknown.join(', ')} not supported`);
      const select = options.$select ? selectNames(options.$select) : undefined;
      const expand = ((options.$expand?.value.items ?? []) as Node[]).map((item) => {
        const nav: string = item.value.path.value[0].value.name;
        const target = def.navigation?.[nav];
        if (!target) throw new ODataError(400, 'BadRequest', `Navigation property "${nav}" is not defined on ${def.type}`);
        const nested = ((item.value.options ?? []) as Node[]).find((o) => o.type === 'Select');
        return { nav, target, select: nested ? selectNames(nested) : undefined };
      });
      const shape = (e: Entity): Entity => {
        const out = project(e, def, select);
        for (const x of expand) out[x.nav] = x.target.related(e, data).map((r) => project(r, sets[x.target.target], x.select));
        return out;
      };
      const predicate = resource.navigation?.value.path.value.predicate as Node | undefined;
      if (predicate) {
        const key = keyOf(predicate, def);
        const found = def.rows.find((r) => Object.entries(key).every(([k, v]) => r[k] === v));
        if (!found) throw new ODataError(404, 'NotFound', `No ${setName} with key ${predicate.raw}`);
        return json(200, { '@odata.context': `${root}/$metadata#${setName}/$entity`, ...shape(found) });
      }
      let rows = def.rows;
      if (query.$filter) rows = rows.filter(createFilter(query.$filter));
      if (options.$search) {
        const text = (e: Entity) => Object.values(e).filter((v) => typeof v === 'string').join(' ').toLowerCase();
        rows = rows.filter((e) => searchMatches(options.$search.value, text(e)));
      }
      const count = rows.length;
      for (const item of [...((options.$orderby?.value.items ?? []) as Node[])].reverse()) {
        const name = propertyName(item.value.expr);
        const dir: number = item.value.direction;
        rows = [...rows].sort((a, b) => (a[name] === b[name] ? 0 : (a[name] as never) < (b[name] as never) ? -dir : dir));
      }
      const skip = query.$skip ? Number(query.$skip) : 0;
      const top = query.$top ? Number(query.$top) : rows.length;
      rows = rows.slice(skip, skip + top);
      return json(200, { '@odata.context': `${root}/$metadata#${setName}`, ...(query.$count === 'true' ? { '@odata.count': count } : {}), value: rows.map(shape) });
    } catch (err) {
      if (err instanceof ODataError) return json(err.status, { error: { code: err.code, message: err.message } });
      json(500, { error: { code: 'InternalError', message: (err as Error).message } });
    }
  };
  const server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, base, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
