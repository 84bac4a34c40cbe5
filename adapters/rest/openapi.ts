/**
 * OpenAPI documents for `rest` functions: an operation is `<document URI>#<operationId>`
 * (spec 0.8, "Using Functions for RESTful Service Invocations"). Loads OpenAPI 3.x and
 * Swagger 2.0 documents (JSON or YAML) over http(s) or from files, and resolves an operation
 * to its method, URL template and parameters.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

type Doc = Record<string, any>;

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie' | 'body' | 'formData';

export interface Parameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
}

export interface Operation {
  operationId: string;
  method: string;
  /** Server URL + path template, e.g. `http://pets.example/v1/pets/{petId}`. */
  urlTemplate: string;
  parameters: Parameter[];
  /** OpenAPI 3 `requestBody` (Swagger 2 uses a `body` / `formData` parameter). */
  requestBody: boolean;
  /** Where the document came from (for messages). */
  document: string;
}

/** A definition problem (missing document, unknown operation): retrying cannot help. */
export class OperationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OperationError';
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const cache = new Map<string, Promise<{ doc: Doc; location: string }>>();

/** Splits `doc#operationId`. */
export function splitOperation(operation: string): { document: string; operationId: string } {
  const hash = operation.lastIndexOf('#');
  if (hash <= 0 || hash === operation.length - 1) {
    throw new OperationError(`operation "${operation}" is not "<OpenAPI document URI>#<operationId>"`);
  }
  return { document: operation.slice(0, hash), operationId: operation.slice(hash + 1) };
}

/**
 * Where a document reference points: http(s) URLs as they are; files relative to `baseDirs`
 * (the definition folders). `file://myapis/x.json`, as the spec's examples write it, is read as
 * the relative path `myapis/x.json`.
 */
export function locate(document: string, baseDirs: string[]): string {
  if (/^https?:\/\//i.test(document)) return document;
  let path = document;
  if (/^file:/i.test(document)) {
    const url = new URL(document);
    path = url.host && url.host !== 'localhost' ? `${url.host}${decodeURIComponent(url.pathname)}` : fileURLToPath(url);
  }
  if (isAbsolute(path)) return path;
  const candidates = baseDirs.map((dir) => resolve(dir, path));
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new OperationError(`OpenAPI document "${document}" not found (looked for ${candidates.join(', ') || path})`);
  return found;
}

async function load(location: string): Promise<{ doc: Doc; location: string }> {
  let text: string;
  if (/^https?:\/\//i.test(location)) {
    let res: Response;
    try {
      res = await fetch(location, { headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' } });
    } catch (err) {
      throw new Error(`could not fetch the OpenAPI document ${location}: ${(err as Error).message}`);
    }
    if (!res.ok) throw new Error(`could not fetch the OpenAPI document ${location}: HTTP ${res.status}`);
    text = await res.text();
  } else {
    if (!existsSync(location)) throw new OperationError(`OpenAPI document ${location} not found`);
    text = readFileSync(location, 'utf8');
  }
  let doc: unknown;
  try {
    doc = parseYaml(text); // YAML is a superset of JSON
  } catch (err) {
    throw new OperationError(`OpenAPI document ${location} is neither JSON nor YAML: ${(err as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || !(('openapi' in doc) || ('swagger' in doc))) {
    throw new OperationError(`${location} is not an OpenAPI document (no "openapi" or "swagger" field)`);
  }
  return { doc: doc as Doc, location };
}

/** Loads (once per location; a failed load is tried again next time) and parses a document. */
export function loadDocument(location: string): Promise<{ doc: Doc; location: string }> {
  let p = cache.get(location);
  if (!p) {
    p = load(location);
    cache.set(location, p);
    p.catch(() => cache.delete(location));
  }
  return p;
}

/** Follows a local `$ref` (`#/components/parameters/x`). */
function deref(doc: Doc, value: any, location: string): any {
  let seen = 0;
  while (value && typeof value === 'object' && typeof value.$ref === 'string') {
    const ref: string = value.$ref;
    if (!ref.startsWith('#/') || ++seen > 20) throw new OperationError(`${location}: unsupported $ref "${ref}" (only local references)`);
    value = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node: any, key) => (node == null ? undefined : node[key]), doc);
    if (value === undefined) throw new OperationError(`${location}: $ref "${ref}" points to nothing`);
  }
  return value;
}

function serverUrl(doc: Doc, pathItem: Doc, op: Doc, location: string): string {
  const isHttpDoc = /^https?:\/\//i.test(location);
  if (doc.swagger) {
    const base = isHttpDoc ? new URL(location) : undefined;
    const host = doc.host ?? base?.host;
    if (!host) throw new OperationError(`${location}: Swagger document without "host"; cannot tell where to send requests`);
    const scheme = (doc.schemes?.[0] as string | undefined) ?? base?.protocol.replace(':', '') ?? 'https';
    return `${scheme}://${host}${doc.basePath ?? ''}`.replace(/\/$/, '');
  }
  const server = (op.servers ?? pathItem.servers ?? doc.servers ?? [{ url: '/' }])[0] ?? { url: '/' };
  let url: string = String(server.url ?? '/');
  for (const [name, v] of Object.entries<any>(server.variables ?? {})) url = url.split(`{${name}}`).join(String(v?.default ?? ''));
  if (!/^https?:\/\//i.test(url)) {
    if (!isHttpDoc) throw new OperationError(`${location}: server URL "${url}" is relative and the document is a file; give an absolute server URL`);
    url = new URL(url, location).toString();
  }
  return url.replace(/\/$/, '');
}

/** Resolves `operationId` in a loaded document. */
export function findOperation(doc: Doc, operationId: string, location: string): Operation {
  for (const [path, rawItem] of Object.entries<any>(doc.paths ?? {})) {
    const pathItem = deref(doc, rawItem, location) ?? {};
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!op || op.operationId !== operationId) continue;
      // Operation-level parameters override path-level ones with the same name and location.
      const byKey = new Map<string, Parameter>();
      for (const raw of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = deref(doc, raw, location);
        byKey.set(`${p.in}:${p.name}`, { name: String(p.name), in: p.in, required: Boolean(p.required) || p.in === 'path' });
      }
      return {
        operationId,
        method: method.toUpperCase(),
        urlTemplate: serverUrl(doc, pathItem, op, location) + path,
        parameters: [...byKey.values()],
        requestBody: Boolean(op.requestBody),
        document: location,
      };
    }
  }
  throw new OperationError(`${location} has no operation "${operationId}"`);
}

/** `operation` of a rest function → the operation it names. */
export async function resolveOperation(operation: string, baseDirs: string[]): Promise<Operation> {
  const { document, operationId } = splitOperation(operation);
  const { doc, location } = await loadDocument(locate(document, baseDirs));
  return findOperation(doc, operationId, location);
}
