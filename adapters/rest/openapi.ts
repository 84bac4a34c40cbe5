/**
 * OpenAPI documents for `rest` functions: an operation is `<document URI>#<operationId>`
 * (spec 0.8, "Using Functions for RESTful Service Invocations"). OpenAPI 3.x and Swagger 2.0,
 * JSON or YAML, over http(s) or from files, are read and dereferenced by
 * @apidevtools/swagger-parser — `$ref`s to other files and URLs included (over http with the
 * function's resource auth) — and an operation resolves to its method, URL template, parameters
 * and security requirements.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { errorClass, locateDocument, SwflowError } from '../../src/adapter-sdk';

type Doc = Record<string, any>;

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie' | 'body' | 'formData';

export interface Parameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
}

/** One OpenAPI security scheme an operation accepts (Swagger 2 `basic` reads as http basic). */
export type SecurityScheme =
  | { type: 'apiKey'; name: string; in: 'header' | 'query' | 'cookie' }
  | { type: 'http'; scheme: string }
  | { type: 'oauth2' | 'openIdConnect' };

export interface Operation {
  operationId: string;
  method: string;
  /** Server URL + path template, e.g. `http://pets.example/v1/pets/{petId}`. */
  urlTemplate: string;
  parameters: Parameter[];
  /** OpenAPI 3 `requestBody` (Swagger 2 uses a `body` / `formData` parameter). */
  requestBody: boolean;
  /**
   * The security requirements: alternatives, each a list of schemes used together. Empty: none
   * declared. An empty alternative means the operation may also be called without credentials.
   */
  security: SecurityScheme[][];
  /** Where the document came from (for messages). */
  document: string;
}

/** A definition problem (missing document, unknown operation): retrying cannot help. */
export class OperationError extends SwflowError {
  static {
    errorClass(this, 'OperationError');
  }
}

/** A document that could not be fetched now (network, 5xx): it may be there next time. */
export class DocumentUnavailable extends SwflowError {
  static {
    errorClass(this, 'DocumentUnavailable');
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

/** Where a document reference points (the SDK's locateDocument): an http(s) URL, or a file in `baseDirs`. */
export function locate(document: string, baseDirs: string[]): string {
  return locateDocument(document, baseDirs, 'OpenAPI document');
}

async function load(location: string, headers: Record<string, string>): Promise<{ doc: Doc; location: string }> {
  let doc: Doc;
  try {
    doc = (await SwaggerParser.dereference(location, {
      resolve: {
        // The documents are named by the definition's author, services on this host included.
        http: { headers, timeout: 30_000, safeUrlResolver: false },
      },
      dereference: { circular: 'ignore' },
    } as SwaggerParser.Options)) as Doc;
  } catch (err) {
    const e = err as { name?: string; message?: string; ioErrorCode?: string };
    const message = `OpenAPI document ${location}: ${(e.message ?? String(err)).trim()}`;
    // Fetching over http may work next time; a missing file, bad syntax or a broken $ref will not.
    const unavailable = e.name === 'ResolverError' && /^https?:/i.test(location) && e.ioErrorCode !== 'ENOENT' && !/HTTP ERROR 4\d\d/.test(e.message ?? '');
    throw unavailable ? new DocumentUnavailable(message) : new OperationError(message);
  }
  if (!doc || typeof doc !== 'object' || !('openapi' in doc || 'swagger' in doc)) {
    throw new OperationError(`${location} is not an OpenAPI document (no "openapi" or "swagger" field)`);
  }
  return { doc, location };
}

/**
 * Loads and dereferences a document, once per location (a failed load is tried again next
 * time). `headers` carry the resource auth for documents fetched over http.
 */
export function loadDocument(location: string, headers: Record<string, string> = {}): Promise<{ doc: Doc; location: string }> {
  let p = cache.get(location);
  if (!p) {
    p = load(location, headers);
    cache.set(location, p);
    p.catch(() => cache.delete(location));
  }
  return p;
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
    const pathItem = rawItem ?? {};
    for (const method of METHODS) {
      const op = pathItem[method];
      if (!op || op.operationId !== operationId) continue;
      // Operation-level parameters override path-level ones with the same name and location.
      const byKey = new Map<string, Parameter>();
      for (const raw of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = raw;
        byKey.set(`${p.in}:${p.name}`, { name: String(p.name), in: p.in, required: Boolean(p.required) || p.in === 'path' });
      }
      return {
        operationId,
        method: method.toUpperCase(),
        urlTemplate: serverUrl(doc, pathItem, op, location) + path,
        parameters: [...byKey.values()],
        requestBody: Boolean(op.requestBody),
        security: securityOf(doc, op),
        document: location,
      };
    }
  }
  throw new OperationError(`${location} has no operation "${operationId}"`);
}

/** The security requirements of an operation (its own `security`, else the document's). */
function securityOf(doc: Doc, op: Doc): SecurityScheme[][] {
  const requirements: Doc[] = op.security ?? doc.security ?? [];
  const schemes: Doc = doc.components?.securitySchemes ?? doc.securityDefinitions ?? {};
  return requirements.map((req) =>
    Object.keys(req ?? {}).map((name): SecurityScheme => {
      const s = schemes[name] ?? {};
      if (s.type === 'apiKey') return { type: 'apiKey', name: String(s.name), in: s.in };
      if (s.type === 'basic') return { type: 'http', scheme: 'basic' };
      if (s.type === 'http') return { type: 'http', scheme: String(s.scheme ?? '').toLowerCase() };
      return { type: s.type === 'openIdConnect' ? 'openIdConnect' : 'oauth2' };
    }),
  );
}

/** `operation` of a rest function → the operation it names. */
export async function resolveOperation(operation: string, baseDirs: string[], headers: Record<string, string> = {}): Promise<Operation> {
  const { document, operationId } = splitOperation(operation);
  const { doc, location } = await loadDocument(locate(document, baseDirs), headers);
  return findOperation(doc, operationId, location);
}
