/** parseDuration, and external resources: relative files, file://, http(s) (local server), errors. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { loadDefinition, loadDefinitionFile, parseDuration } from '../../src/dsl';

const FX = path.join(__dirname, 'fixtures');

test('parseDuration', () => {
  assert.equal(parseDuration('PT30S'), 30_000);
  assert.equal(parseDuration('PT1H30M'), 5_400_000);
  assert.equal(parseDuration('P1DT2H'), 26 * 3_600_000);
  assert.equal(parseDuration('P2W'), 14 * 86_400_000);
  assert.equal(parseDuration('PT0.5S'), 500);
  assert.equal(parseDuration('PT1,5M'), 90_000);
  assert.equal(parseDuration('pt0.001s'), 1);
  for (const bad of ['P', 'PT', '30S', 'PT5X', 'P1Y', 'P1M', '-PT1S', 'PT1S2M']) assert.throws(() => parseDuration(bad), Error, bad);
  assert.throws(() => parseDuration('P1M'), /years or months/);
});

test('relative files, file:// and YAML resources are resolved and inlined', async () => {
  const r = await loadDefinitionFile(path.join(FX, 'refs.sw.yaml'));
  assert.deepEqual(r.problems, []);
  const d = r.definition!;
  assert.deepEqual(d.functions, [{ name: 'greet', operation: 'http://example.com/api.json#greet', type: 'rest', metadata: {} }]);
  assert.deepEqual(d.retries, [{ name: 'twice', delay: 'PT1S', maxAttempts: 2 }]);
  assert.deepEqual(d.secrets, ['TOKEN']);
  assert.deepEqual(d.constants, { greeting: 'Hello' });
  assert.deepEqual(d.dataInputSchema, { schema: { type: 'object', required: ['name'] }, failOnValidationErrors: true });
});

test('an unreadable resource is a clear located error', async () => {
  const yaml = "id: x\nspecVersion: '0.8'\nstart: A\nfunctions: file://nowhere/functions.json\nstates:\n  - { name: A, type: inject, data: {}, end: true }\n";
  const r = await loadDefinition(yaml, { baseDir: FX, source: 'x.yaml' });
  assert.equal(r.definition, undefined);
  assert.equal(r.problems.length, 1);
  const p = r.problems[0];
  assert.equal(p.line, 4);
  assert.equal(p.col, 12);
  assert.match(p.message, /^cannot read "file:\/\/nowhere\/functions\.json": no such file \(looked in .*fixtures\/nowhere\/functions\.json\)$/);
});

test('problems inside a referenced file point into that file', async () => {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'swflow-ref-'));
  fs.writeFileSync(path.join(dir, 'fns.yaml'), 'functions:\n  - name: f\n    operation: x\n    authRef: nope\n');
  const r = await loadDefinition({ id: 'x', specVersion: '0.8', start: 'A', functions: 'fns.yaml', states: [{ name: 'A', type: 'operation', actions: [{ functionRef: 'f' }], end: true }] }, { baseDir: dir });
  const p = r.problems.find((x) => x.message === "function refers to unknown auth 'nope'");
  assert.ok(p, JSON.stringify(r.problems));
  assert.equal(p!.file, path.join(dir, 'fns.yaml'));
  assert.equal(p!.line, 4);
});

test('http(s) resources are fetched (local server)', async () => {
  const server = http.createServer((req, res) => {
    if (req.url === '/defs/functions.json') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ functions: [{ name: 'remote', operation: 'http://example.com/api.json#op' }] }));
    } else if (req.url === '/wf/events.yaml') {
      res.end('- name: In\n  type: t.in\n  source: s\n');
    } else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const doc = (functions: string) => ({
      id: 'x',
      specVersion: '0.8',
      start: 'A',
      functions,
      events: 'events.yaml',
      states: [{ name: 'A', type: 'event', onEvents: [{ eventRefs: ['In'], actions: [{ functionRef: 'remote' }] }], end: true }],
    });
    const r = await loadDefinition(doc(`${base}/defs/functions.json`), { baseDir: `${base}/wf/` });
    assert.deepEqual(r.problems, []);
    assert.equal(r.definition!.functions[0].name, 'remote');
    assert.equal(r.definition!.events[0].type, 't.in');
    const missing = await loadDefinition(doc(`${base}/defs/missing.json`), { baseDir: `${base}/wf/` });
    assert.equal(missing.definition, undefined);
    assert.equal(missing.problems[0].message, `cannot fetch "${base}/defs/missing.json": HTTP 404 Not Found`);
  } finally {
    server.close();
  }
});
