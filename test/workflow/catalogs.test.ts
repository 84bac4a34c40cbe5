/**
 * 1.0 catalogs and functions by URI end to end (feature v1-catalogs), on a real dev server with
 * the real interpreter worker and the real built-in adapter worker: a catalog served over HTTP
 * with bearer-token authentication (`$secrets` from the worker), a file catalog beside a
 * definition the worker resolves by type, a function by URI. The function documents are pinned
 * when the run starts: a catalog that changes meanwhile does not change the run (nor its
 * continue-as-new successor), and a replay fetches nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { EVENT_SIGNAL, INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import type { Json } from '../../src/common/model';
import { FEATURE_V1_CATALOGS } from '../../src/common/features';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { historyText } from '../../src/testing/history';
import { startDevEnv } from '../helpers/temporal';
import { ce, loadAny, sharedBundle, workerWithout } from './helpers';

let env: TestWorkflowEnvironment;
let server: Server;
let base = '';
let dir = '';
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let n = 0;
const catalogRequests: { url: string; authorization?: string }[] = [];
const CATALOG_TOKEN = 'catalog-token-7f3a';

/** The HTTP catalog: `greet` calls the local service with `http`, validating its input and output. */
const GREET = (service: string) =>
  [
    'input:',
    '  schema:',
    '    document: { type: object, required: [name], properties: { name: { type: string } } }',
    'output:',
    '  schema:',
    '    document: { type: object, required: [greeting], properties: { greeting: { type: string } } }',
    'call: http',
    'with:',
    '  method: post',
    `  endpoint: ${service}/greet`,
    '  body: ${ . }',
  ].join('\n');

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url === '/greet') {
        const { name } = JSON.parse(body || '{}');
        res.writeHead(200, { 'content-type': 'application/json' });
        // `nobody` gets no greeting: what the function's output.schema refuses.
        return res.end(JSON.stringify(name === 'nobody' ? { served: true } : { greeting: `hello ${name}`, served: true }));
      }
      catalogRequests.push({ url: req.url!, authorization: req.headers.authorization });
      if (req.url === '/catalog/functions/greet/1.0.0/function.yaml') {
        if (req.headers.authorization !== `Bearer ${CATALOG_TOKEN}`) {
          res.writeHead(401);
          return res.end('who are you?');
        }
        res.writeHead(200, { 'content-type': 'application/yaml' });
        return res.end(GREET(base));
      }
      if (req.url === '/fns/shout.yaml') {
        res.writeHead(200, { 'content-type': 'application/yaml' });
        return res.end('input:\n  schema:\n    document: { type: object, required: [word] }\nset: ${ .word | ascii_upcase + "!" }\n');
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // A definition folder with a file catalog beside the definition (`file://./catalog`).
  dir = mkdtempSync(join(tmpdir(), 'swflow-catalogs-'));
  setDouble('2');
  writeFileSync(
    join(dir, 'changed.sw.yaml'),
    [
      'document: { dsl: "1.0.3", namespace: tests, name: changed, version: "0.1.0" }',
      'use:',
      '  catalogs:',
      '    files: { endpoint: "file://./catalog" }',
      'do:',
      '  - waitGo:',
      '      listen: { to: { one: { with: { type: go } } } }',
      '      output: { as: "${ $context.n // 21 }" }',
      '  - calc:',
      '      call: double:1.0.0@files',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'chained.sw.yaml'),
    [
      // A small history limit: the run continues as new between its top-level tasks.
      'document: { dsl: "1.0.3", namespace: tests, name: chained, version: "0.1.0", metadata: { swflow.historyLimit: 5 } }',
      'use:',
      '  catalogs:',
      '    files: { endpoint: "file://./catalog" }',
      'do:',
      '  - waitGo:',
      '      listen: { to: { one: { with: { type: go } } } }',
      '  - one: { set: "${ 21 }" }',
      '  - two: { set: "${ 21 }" }',
      '  - calc:',
      '      call: double:1.0.0@files',
    ].join('\n'),
  );

  env = await startDevEnv();
  workers = [
    await createInterpreterWorker({ connection: env.nativeConnection, definitions: [dir], workflowBundle: await sharedBundle(), secrets: { catalogToken: CATALOG_TOKEN } }),
    await createBuiltinAdapterWorker({ connection: env.nativeConnection }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

function setDouble(factor: string): void {
  mkdirSync(join(dir, 'catalog', 'functions', 'double', '1.0.0'), { recursive: true });
  writeFileSync(join(dir, 'catalog', 'functions', 'double', '1.0.0', 'function.yaml'), `set: \${ . * ${factor} }\n`);
}

const remoteCatalog = (authentication: unknown = { bearer: { token: '${ $secrets.catalogToken }' } }) => ({
  catalogs: { remote: { endpoint: { uri: `${base}/catalog`, ...(authentication ? { authentication } : {}) } } },
});

const docOf = (name: string, tasks: unknown[], use: Record<string, unknown> = {}) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, use, do: tasks });

async function start(doc: unknown, input: Json = {}, taskQueue = INTERPRETER_TASK_QUEUE): Promise<WorkflowHandle> {
  const definition = await loadAny(doc);
  const opts: StartOptions = { definition };
  return env.client.workflow.start(definition.id, { taskQueue, workflowId: `catalogs-${++n}`, args: [input, opts] });
}

async function failure(h: WorkflowHandle): Promise<ApplicationFailure> {
  try {
    await h.result();
  } catch (err) {
    assert.ok(err instanceof WorkflowFailedError, String(err));
    assert.ok(err.cause instanceof ApplicationFailure, String(err.cause));
    return err.cause;
  }
  assert.fail('the run did not fail');
}

test('a cataloged function from an HTTP catalog with bearer authentication ($secrets): its http call, its input and output schemas; pinned in history; a replay fetches nothing', async () => {
  const h = await start(docOf('greet', [{ greet: { call: 'greet:1.0.0@remote', with: { name: '${ .who }' } } }], remoteCatalog()), { who: 'Ada' });
  assert.deepEqual(await h.result(), { greeting: 'hello Ada', served: true });
  assert.ok(catalogRequests.some((r) => r.url === '/catalog/functions/greet/1.0.0/function.yaml' && r.authorization === `Bearer ${CATALOG_TOKEN}`));

  const history = await h.fetchHistory();
  const text = historyText(history);
  // The function document is in the resolve marker, the catalog's credentials are not.
  assert.match(text, /functions\/greet\/1\.0\.0\/function\.yaml/);
  assert.ok(!text.includes(CATALOG_TOKEN), 'the catalog token is in the history');
  const fetched = catalogRequests.length;
  await Worker.runReplayHistory({ workflowBundle: await sharedBundle() }, history, h.workflowId);
  assert.equal(catalogRequests.length, fetched, 'the replay fetched the catalog');
});

test("a bad input (and a bad answer) fails the call with a validation error at the calling task (the function's input.schema, output.schema)", async () => {
  const h = await start(docOf('greet-bad', [{ first: { set: { who: 42 } } }, { greet: { call: 'greet:1.0.0@remote', with: { name: '${ .who }' } } }], remoteCatalog()));
  const f = await failure(h);
  const problem = f.details?.[0] as Record<string, Json>;
  assert.equal(problem.type, 'https://serverlessworkflow.io/spec/1.0.0/errors/validation');
  assert.equal(problem.instance, '/do/1/greet');
  assert.match(String(problem.detail ?? f.message), /task input does not match its schema: \/name: must be string/);

  // The service's answer goes through the function's output.schema.
  const out = await failure(await start(docOf('greet-bad-output', [{ greet: { call: 'greet:1.0.0@remote', with: { name: 'nobody' } } }], remoteCatalog())));
  const p2 = out.details?.[0] as Record<string, Json>;
  assert.equal(p2.type, 'https://serverlessworkflow.io/spec/1.0.0/errors/validation');
  assert.equal(p2.instance, '/do/0/greet');
  assert.match(String(p2.detail), /task output does not match its schema: \/: must have required property 'greeting'/);
});

test('a function by URI (http), with its own input.schema', async () => {
  const h = await start(docOf('by-uri', [{ shout: { call: `${base}/fns/shout.yaml`, with: { word: '${ .word }' } } }]), { word: 'hey' });
  assert.equal(await h.result(), 'HEY!');
  const bad = await failure(await start(docOf('by-uri-bad', [{ shout: { call: `${base}/fns/shout.yaml`, with: { text: 'hey' } } }])));
  assert.equal((bad.details?.[0] as Record<string, Json> | undefined)?.instance, '/do/0/shout');
});

test('an auth failure (401) keeps the run from starting, with a message naming the catalog, function, version and address', async () => {
  const h = await start(docOf('greet-401', [{ greet: { call: 'greet:1.0.0@remote', with: { name: 'Ada' } } }], remoteCatalog(null)));
  const f = await failure(h);
  assert.equal(f.type, 'FunctionNotResolved');
  assert.equal(
    f.message,
    `cannot pin function greet version 1.0.0 of catalog 'remote' from ${base}/catalog/functions/greet/1.0.0/function.yaml: GET answered 401 Unauthorized (check the catalog endpoint's authentication)`,
  );
});

async function waitingForGo(h: WorkflowHandle): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const text = historyText(await h.fetchHistory());
    if (/waitGo/.test(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  const d = await h.describe();
  assert.fail(`${h.workflowId} never reached its listen (${d.status.name}): ${historyText(await h.fetchHistory()).slice(-1500)}`);
}

test('a file catalog beside a definition resolved by type: a running run keeps the function it pinned (also across continue-as-new); new runs get the changed one', async () => {
  setDouble('2');
  const opts = (id: string) => ({ taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `${id}-${++n}`, args: [{}] as [Json] });
  const a = await env.client.workflow.start('tests/changed', opts('changed'));
  const b = await env.client.workflow.start('tests/chained', opts('chained'));
  await waitingForGo(a);
  await waitingForGo(b);
  setDouble('3'); // the catalog changes while both runs wait
  await a.signal(EVENT_SIGNAL, ce('go'));
  await b.signal(EVENT_SIGNAL, ce('go'));
  assert.equal(await a.result(), 42);
  assert.equal(await b.result(), 42);
  const chain = await b.describe();
  assert.notEqual(chain.runId, chain.raw.workflowExecutionInfo?.firstRunId, 'the chained run did not continue as new');

  const c = await env.client.workflow.start('tests/changed', opts('changed'));
  await waitingForGo(c);
  await c.signal(EVENT_SIGNAL, ce('go'));
  assert.equal(await c.result(), 63);
});

test('runs of a worker without v1-catalogs fail such calls as before (501)', async () => {
  const old = await workerWithout(env, 'swflow-no-catalogs', [FEATURE_V1_CATALOGS]);
  try {
    const h = await start(docOf('old', [{ greet: { call: 'greet:1.0.0@remote', with: { name: 'Ada' } } }], remoteCatalog()), {}, old.taskQueue);
    const f = await failure(h);
    const problem = f.details?.[0] as Record<string, Json>;
    assert.equal(problem.status, 501);
    assert.match(String(problem.detail), /function 'greet:1\.0\.0@remote' cannot be called by this runtime/);
  } finally {
    await old.stop();
  }
});
