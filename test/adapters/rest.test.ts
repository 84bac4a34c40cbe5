/**
 * The REST adapter against a real HTTP service (a node:http server standing in for the user's
 * service and serving its OpenAPI document), driven by the real interpreter on the dev server.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { loadDefinition } from '../../src/dsl';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import SwaggerParser from '@apidevtools/swagger-parser';
import { findOperation, locate, resolveOperation } from '../../adapters/rest/openapi';
import { buildRequest } from '../../adapters/rest/request';
import { startDevEnv } from '../helpers/temporal';

const API_KEY = 'pets-k3y-do-not-log';

// ---- the stand-in service -------------------------------------------------------------------
let server: Server;
let base: string;
const received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
const pets: Record<string, { id: string; name: string }> = { '7': { id: '7', name: 'Rex' } };

function openapi(serverUrl: string) {
  return {
    openapi: '3.0.3',
    info: { title: 'pets', version: '1' },
    servers: [{ url: `${serverUrl}/{version}`, variables: { version: { default: 'v1' } } }],
    components: { parameters: { apiKey: { name: 'X-Api-Key', in: 'header', required: true, schema: { type: 'string' } } } },
    paths: {
      '/pets/{petId}': {
        parameters: [{ $ref: '#/components/parameters/apiKey' }],
        get: {
          operationId: 'getPet',
          parameters: [
            { name: 'petId', in: 'path', required: true },
            { name: 'verbose', in: 'query' },
          ],
        },
      },
      '/pets': {
        post: { operationId: 'addPet', parameters: [{ $ref: '#/components/parameters/apiKey' }], requestBody: { content: { 'application/json': {} } } },
      },
      '/crash': { get: { operationId: 'crash' } },
    },
  };
}

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const url = new URL(req.url!, base);
      if (url.pathname === '/openapi.json') return json(200, openapi(base));
      if (url.pathname.startsWith('/v1/pets') && req.headers['x-api-key'] !== API_KEY) return json(401, { message: 'bad key' });
      const m = url.pathname.match(/^\/v1\/pets\/([^/]+)$/);
      if (m && req.method === 'GET') {
        const pet = pets[decodeURIComponent(m[1])];
        if (!pet) return json(404, { message: `no pet ${m[1]}` });
        return json(200, url.searchParams.get('verbose') === 'true' ? { pet, verbose: true } : { pet });
      }
      if (url.pathname === '/v1/pets' && req.method === 'POST') {
        const pet = { id: String(Object.keys(pets).length + 100), ...JSON.parse(body) };
        pets[pet.id] = pet;
        return json(201, { created: pet });
      }
      if (url.pathname === '/v1/crash') return json(500, { message: 'the database is on fire' });
      json(404, { message: 'no such path' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((r) => server.close(() => r())));

// ---- pure parts -----------------------------------------------------------------------------
test('operations resolve with path-level $ref parameters and server variables', async () => {
  const op = findOperation(await SwaggerParser.dereference(openapi('http://svc.example') as never), 'getPet', 'http://svc.example/openapi.json');
  assert.equal(op.method, 'GET');
  assert.equal(op.urlTemplate, 'http://svc.example/v1/pets/{petId}');
  assert.deepEqual(op.parameters.map((p) => `${p.in}:${p.name}:${p.required}`), ['header:X-Api-Key:true', 'path:petId:true', 'query:verbose:false']);
  const req = buildRequest(op, { petId: 'a b', verbose: true, 'X-Api-Key': 'k' });
  assert.equal(req.url, 'http://svc.example/v1/pets/a%20b?verbose=true');
  assert.equal(req.headers['x-api-key'], 'k');
  assert.equal(req.body, undefined);
});

test('arguments map to the body of an operation that takes one; left-overs elsewhere are an error', async () => {
  const doc = await SwaggerParser.dereference(openapi('http://svc.example') as never);
  const add = buildRequest(findOperation(doc, 'addPet', 'x'), { 'X-Api-Key': 'k', name: 'Tom', tags: ['cat'] });
  assert.equal(add.method, 'POST');
  assert.deepEqual(JSON.parse(add.body!), { name: 'Tom', tags: ['cat'] });
  assert.equal(add.headers['content-type'], 'application/json');
  assert.throws(() => buildRequest(findOperation(doc, 'getPet', 'x'), { petId: 1, 'X-Api-Key': 'k', colour: 'red' }), /no parameter "colour" and takes no request body; its parameters: X-Api-Key \(header\), petId \(path\), verbose \(query\)/);
  assert.throws(() => buildRequest(findOperation(doc, 'getPet', 'x'), { 'X-Api-Key': 'k' }), /required path parameter "petId" has no argument/);
  assert.throws(() => findOperation(doc, 'nope', 'doc.json'), /doc.json has no operation "nope"/);
});

test('Swagger 2: host, basePath, scheme and a body parameter', () => {
  const doc = {
    swagger: '2.0',
    host: 'old.example',
    basePath: '/api',
    schemes: ['http'],
    paths: { '/orders': { post: { operationId: 'order', parameters: [{ name: 'order', in: 'body' }, { name: 'dryRun', in: 'query' }] } } },
  };
  const req = buildRequest(findOperation(doc, 'order', 'f.json'), { order: { sku: 'A' }, dryRun: false });
  assert.equal(req.url, 'http://old.example/api/orders?dryRun=false');
  assert.deepEqual(JSON.parse(req.body!), { sku: 'A' });
});

test("the spec examples' file://dir/doc.json means a path relative to the definitions", () => {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-rest-'));
  writeFileSync(join(dir, 'api.json'), '{}');
  assert.equal(locate('file://api.json', [dir]), join(dir, 'api.json'));
  assert.equal(locate('api.json', ['/nowhere', dir]), join(dir, 'api.json'));
  assert.throws(() => locate('file://myapis/missing.json', [dir]), /OpenAPI document "file:\/\/myapis\/missing.json" not found/);
});

// ---- through the interpreter ----------------------------------------------------------------
let env: TestWorkflowEnvironment;
let interpreter: Worker;
let adapters: Worker;
let running: Promise<unknown>;

before(async () => {
  env = await startDevEnv();
  const connection = env.nativeConnection as NativeConnection;
  interpreter = await createInterpreterWorker({ connection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [], workflowBundle: await bundleInterpreter() });
  adapters = await createBuiltinAdapterWorker({ connection, secrets: { PETS_KEY: API_KEY } });
  running = Promise.all([interpreter.run(), adapters.run()]);
});

after(async () => {
  interpreter?.shutdown();
  adapters?.shutdown();
  await running;
  await env?.teardown();
});

async function run(doc: Record<string, unknown>, input: unknown = {}) {
  const loaded = await loadDefinition({ specVersion: '0.8', ...doc });
  assert.ok(loaded.definition, JSON.stringify(loaded.problems));
  const workflowId = `${doc.id}-${Date.now()}`;
  const client = env.client as Client;
  const result = client.workflow.execute(String(doc.id), { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [input, { definition: loaded.definition }], workflowExecutionTimeout: '1 minute' });
  return { result, history: async () => JSON.stringify(await client.workflow.getHandle(workflowId).fetchHistory()) };
}

const functions = () => [
  { name: 'getPet', operation: `${base}/openapi.json#getPet` },
  { name: 'addPet', operation: `${base}/openapi.json#addPet` },
  { name: 'crash', operation: `${base}/openapi.json#crash` },
  { name: 'ghost', operation: `${base}/openapi.json#ghost` },
];

test('a rest function calls the service: path, query, a secret header, JSON results', async () => {
  received.length = 0;
  const r = await run(
    {
      id: 'petlookup',
      start: 'Lookup',
      secrets: ['PETS_KEY'],
      functions: functions(),
      states: [
        {
          name: 'Lookup',
          type: 'operation',
          actions: [
            { functionRef: { refName: 'getPet', arguments: { petId: '${ .id }', verbose: true, 'X-Api-Key': '${ $SECRETS.PETS_KEY }' } } },
            { functionRef: { refName: 'addPet', arguments: { 'X-Api-Key': '${ $SECRETS.PETS_KEY }', name: '${ .newName }' } }, actionDataFilter: { results: '${ .created }', toStateData: '${ .added }' } },
          ],
          end: true,
        },
      ],
    },
    { id: '7', newName: 'Tom' },
  );
  assert.deepEqual(await r.result, { id: '7', newName: 'Tom', pet: { id: '7', name: 'Rex' }, verbose: true, added: { id: '101', name: 'Tom' } });
  const calls = received.filter((c) => c.url !== '/openapi.json');
  assert.deepEqual(calls.map((c) => `${c.method} ${c.url}`), ['GET /v1/pets/7?verbose=true', 'POST /v1/pets']);
  assert.deepEqual(JSON.parse(calls[1].body), { name: 'Tom' });
  assert.ok(calls.every((c) => c.headers['x-api-key'] === API_KEY));
  assert.ok(!(await r.history()).includes(API_KEY), 'the secret is not in the history');
});

test('an HTTP error status is the error code onErrors matches; the service message is kept', async () => {
  const r = await run({
    id: 'petmissing',
    start: 'Lookup',
    secrets: ['PETS_KEY'],
    errors: [{ name: 'NoSuchPet', code: '404' }],
    functions: functions(),
    states: [
      { name: 'Lookup', type: 'operation', actions: [{ functionRef: { refName: 'getPet', arguments: { petId: '99', 'X-Api-Key': '${ $SECRETS.PETS_KEY }' } } }], onErrors: [{ errorRef: 'NoSuchPet', transition: 'Missing' }], end: true },
      { name: 'Missing', type: 'inject', data: { found: false }, end: true },
    ],
  });
  assert.deepEqual(await r.result, { found: false });
});

test('an unhandled 500 fails the run naming state, action, function, request and answer', async () => {
  const r = await run({
    id: 'crashing',
    start: 'Call',
    functions: functions(),
    states: [{ name: 'Call', type: 'operation', actions: [{ name: 'boom', functionRef: 'crash' }], end: true }],
  });
  await assert.rejects(r.result, (e: any) => {
    assert.ok(e instanceof WorkflowFailedError);
    assert.equal(e.cause?.message, 'state "Call", action "boom", function "crash" failed: the database is on fire (code 500)');
    return true;
  });
  // The failed activity (what the Web UI shows for the call) names the request and the answer.
  assert.match(await r.history(), /GET http:\/\/127\.0\.0\.1:\d+\/v1\/crash answered 500 Internal Server Error: {\\"message\\":\\"the database is on fire\\"}/);
});

test('an operation missing from its document fails at once with where it looked', async () => {
  const r = await run({
    id: 'ghostcall',
    start: 'Call',
    functions: functions(),
    states: [{ name: 'Call', type: 'operation', actions: [{ functionRef: 'ghost' }], end: true }],
  });
  await assert.rejects(r.result, (e: any) => /openapi\.json has no operation "ghost"/.test(e.cause?.message ?? ''));
});

test('$refs to other files are followed (swagger-parser), relative to the document', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-refs-'));
  writeFileSync(join(dir, 'params.yaml'), 'Tenant:\n  name: tenant\n  in: query\n  required: true\n');
  writeFileSync(
    join(dir, 'api.yaml'),
    'openapi: 3.0.3\ninfo: { title: t, version: "1" }\nservers: [{ url: "http://svc.example" }]\npaths:\n  /items:\n    get:\n      operationId: listItems\n      parameters: [{ $ref: "params.yaml#/Tenant" }]\n',
  );
  const op = await resolveOperation('file://api.yaml#listItems', [dir]);
  assert.deepEqual(op.parameters, [{ name: 'tenant', in: 'query', required: true }]);
  assert.equal(buildRequest(op, { tenant: 'acme' }).url, 'http://svc.example/items?tenant=acme');
  writeFileSync(join(dir, 'broken.yaml'), 'openapi: 3.0.3\ninfo: { title: t, version: "1" }\npaths:\n  /x:\n    get: { operationId: x, parameters: [{ $ref: "missing.yaml#/P" }] }\n');
  await assert.rejects(resolveOperation('broken.yaml#x', [dir]), (e: Error) => e.name === 'OperationError' && /broken\.yaml/.test(e.message));
});
