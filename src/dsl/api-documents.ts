/**
 * The documents that live beside workflow definitions without being one: the OpenAPI and
 * AsyncAPI documents a function's `operation` (0.8) or a `call: openapi` / `call: asyncapi` task
 * (1.0) refers to, and the JSON Schemas of data schemas (examples/myapis/greetingapis.json beside
 * examples/greeting.sw.json). A folder of definitions is scanned for every `.json`/`.yaml`, so
 * these have to be told apart from broken definitions, which are reported.
 */

export type ApiDocumentKind = 'OpenAPI' | 'AsyncAPI' | 'JSON Schema';

/**
 * Top-level keys of workflow definitions (0.8 family, the v0.1 draft, 1.0) that no API or schema
 * document has at its top: one of them and the document is a definition, checked and reported
 * when broken, whatever else it holds.
 */
const WORKFLOW_KEYS = ['specVersion', 'document', 'states', 'start', 'do', 'functions', 'events', 'errors', 'retries', 'trigger-defs'];

/** The JSON Schema meta-schemas' home (draft-04 to 2020-12, http or https). */
const JSON_SCHEMA_META = /^https?:\/\/json-schema\.org\//i;

/** A format's version as its documents write it (`openapi: 3.0.3`, `swagger: "2.0"`, `asyncapi: 2.6`). */
const versionLike = (v: unknown): boolean => typeof v === 'string' || typeof v === 'number';

/**
 * The kind of API or schema document `doc` is, or undefined when it may be a workflow definition:
 * it has none of the workflow keys and the marker of a known format (`openapi` or `swagger`,
 * `asyncapi`, a `$schema` naming json-schema.org). Anything else stays a definition, so a broken
 * one is never hidden.
 */
export function apiDocumentKind(doc: unknown): ApiDocumentKind | undefined {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const o = doc as Record<string, unknown>;
  if (WORKFLOW_KEYS.some((k) => Object.hasOwn(o, k))) return undefined;
  if (versionLike(o.openapi) || versionLike(o.swagger)) return 'OpenAPI';
  if (versionLike(o.asyncapi)) return 'AsyncAPI';
  if (typeof o.$schema === 'string' && JSON_SCHEMA_META.test(o.$schema)) return 'JSON Schema';
  return undefined;
}

/** How messages name a kind: "an OpenAPI document", "a JSON Schema". */
export function apiDocumentName(kind: ApiDocumentKind): string {
  return kind === 'JSON Schema' ? 'a JSON Schema' : `an ${kind} document`;
}
