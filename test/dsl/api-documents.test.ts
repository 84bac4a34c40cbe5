/**
 * What a folder scan takes for an API or schema document beside the definitions
 * (src/dsl/api-documents.ts), and what it keeps checking as a definition: any workflow key wins,
 * so a broken definition is never taken for an API document.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiDocumentKind } from '../../src/dsl/api-documents';
import { loadAnyDefinition } from '../../src/dsl';

test('OpenAPI, Swagger, AsyncAPI and JSON Schema documents are told by their markers', () => {
  assert.equal(apiDocumentKind({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} }), 'OpenAPI');
  assert.equal(apiDocumentKind({ openapi: '3.1.0', webhooks: {} }), 'OpenAPI');
  assert.equal(apiDocumentKind({ swagger: '2.0', info: {}, paths: {} }), 'OpenAPI');
  assert.equal(apiDocumentKind({ swagger: 2 }), 'OpenAPI', 'YAML `swagger: 2.0` unquoted is a number');
  assert.equal(apiDocumentKind({ asyncapi: '2.6.0', id: 'urn:orders', channels: {} }), 'AsyncAPI', 'AsyncAPI has an `id` of its own');
  assert.equal(apiDocumentKind({ asyncapi: '3.0.0', operations: {} }), 'AsyncAPI');
  assert.equal(apiDocumentKind({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }), 'JSON Schema');
  assert.equal(apiDocumentKind({ $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'https://example.com/person', properties: { states: { type: 'array' } } }), 'JSON Schema');
  assert.equal(apiDocumentKind({ $schema: 'http://json-schema.org/draft-04/schema#', id: 'person', type: 'object' }), 'JSON Schema', 'draft-04 names itself with `id`');
});

test('a document with any workflow key is a definition, whatever API marker it has too', () => {
  assert.equal(apiDocumentKind({ openapi: '3.0.3', specVersion: '0.8' }), undefined);
  assert.equal(apiDocumentKind({ openapi: '3.0.3', document: { dsl: '1.0.0' } }), undefined);
  assert.equal(apiDocumentKind({ asyncapi: '2.6.0', do: [] }), undefined);
  assert.equal(apiDocumentKind({ $schema: 'http://json-schema.org/draft-07/schema#', id: 'w', states: [] }), undefined, 'a 0.8 definition may name a $schema');
  assert.equal(apiDocumentKind({ swagger: '2.0', start: 'a' }), undefined);
  assert.equal(apiDocumentKind({ openapi: '3.0.3', functions: [] }), undefined);
  assert.equal(apiDocumentKind({ asyncapi: '2.6.0', events: [] }), undefined);
  assert.equal(apiDocumentKind({ openapi: '3.0.3', 'trigger-defs': [] }), undefined);
});

test('no known marker: not an API document (checked, and reported, as a definition)', () => {
  assert.equal(apiDocumentKind({ id: 'w', version: '1.0' }), undefined);
  assert.equal(apiDocumentKind({ $schema: 'https://example.com/my-meta-schema', type: 'object' }), undefined);
  assert.equal(apiDocumentKind({ type: 'object', properties: {} }), undefined, 'a schema without $schema');
  assert.equal(apiDocumentKind({ openapi: { version: '3' } }), undefined);
  assert.equal(apiDocumentKind({ openapi: null }), undefined);
  for (const v of [null, undefined, 'openapi: 3.0.3', 3, [], [{ openapi: '3.0.3' }]]) assert.equal(apiDocumentKind(v), undefined);
});

test('the loader says what an API document is instead of checking it as a definition', async () => {
  const r = await loadAnyDefinition('{\n  "openapi": "3.0.3",\n  "info": { "title": "t", "version": "1" },\n  "paths": {}\n}\n', { source: 'api.json' });
  assert.equal(r.definition, undefined);
  assert.equal(r.apiDocument, 'OpenAPI');
  assert.deepEqual(r.problems.map((p) => p.message), ['an OpenAPI document, not a workflow definition']);
  const schema = await loadAnyDefinition({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
  assert.deepEqual([schema.apiDocument, schema.problems.map((p) => p.message)], ['JSON Schema', ['a JSON Schema, not a workflow definition']]);
  // A broken definition keeps its own findings.
  const broken = await loadAnyDefinition({ openapi: '3.0.3', id: 'w', specVersion: '0.8', start: 'a', states: [] });
  assert.equal(broken.apiDocument, undefined);
  assert.ok(broken.problems.some((p) => p.severity === 'error' && !/not a workflow definition/.test(p.message)), JSON.stringify(broken.problems));
});
