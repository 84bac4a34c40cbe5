/**
 * End to end on a real dev server, with the real built-in adapter worker calling a real local
 * HTTP service and the interpreter worker's event sink catching emitted events: `use.extensions`
 * (the spec's logging and mocking examples, `when`, `all`), `evaluate.mode: loose`, and the
 * constructs of the specification's main branch after 1.0.3 (`catch.then`, an inline `for.in`,
 * `emit` without `source`, the `open-workflow-specification.org` error types in catch filters).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE, type CloudEventJson, type StartOptions } from '../../src/common/contracts';
import type { Definition, Json } from '../../src/common/model';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { startDevEnv } from '../helpers/temporal';
import { loadAny, sharedBundle } from './helpers';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

const EXAMPLES = join(__dirname, '..', '..', '..', 'shared', 'specs', 'serverless-workflow-1.0.3', 'examples');

let env: TestWorkflowEnvironment;
let server: Server;
let base = '';
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let n = 0;
/** What the local service received: `METHOD /path body`. */
const seen: string[] = [];
const emitted: CloudEventJson[] = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}${body ? ` ${body}` : ''}`);
      if (req.url === '/fail') {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end('{"message":"busy"}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ url: req.url, logged: req.url === '/log' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = await startDevEnv();
  workers = [
    await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle(), eventSinks: [async (e) => void emitted.push(e)] }),
    await createBuiltinAdapterWorker({ connection: env.nativeConnection }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
  await new Promise<void>((r) => server.close(() => r()));
});

const docOf = (name: string, tasks: unknown[], extra: Record<string, unknown> = {}) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, ...extra, do: tasks });

async function run(doc: unknown, input: Json = {}): Promise<Json> {
  const definition: Definition = await loadAny(doc);
  const opts: StartOptions = { definition };
  const h = await env.client.workflow.start(definition.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `v1-ext-${++n}`, args: [input, opts] });
  return h.result();
}

test("extensions: the spec's logging example (extend: all, before/after calls), the log calls' outputs leave the data alone", async () => {
  seen.length = 0;
  const log = (verb: string) => [{ sendLog: { call: 'http', with: { method: 'post', endpoint: `${base}/log`, body: { message: `\${ "${verb} task '\\($task.reference)'..." }` } } } }];
  const out = await run(
    docOf('logging-extension', [{ sampleTask: { call: 'http', with: { method: 'get', endpoint: `${base}/sample` } } }, { shape: { set: { got: '${ .url }' } } }], {
      use: { extensions: [{ logging: { extend: 'all', before: log('Executing'), after: log('Executed') } }] },
    }),
  );
  assert.deepEqual(out, { got: '/sample' });
  assert.deepEqual(seen, [
    `POST /log {"message":"Executing task '/do/0/sampleTask'..."}`,
    'GET /sample',
    `POST /log {"message":"Executed task '/do/0/sampleTask'..."}`,
    `POST /log {"message":"Executing task '/do/1/shape'..."}`,
    `POST /log {"message":"Executed task '/do/1/shape'..."}`,
  ]);
});

test('extensions: an after that emits every HTTP call (extend: call) with the extended task and its raw output', async () => {
  seen.length = 0;
  emitted.length = 0;
  const out = await run(
    docOf('emit-extension', [{ getA: { call: 'http', with: { method: 'get', endpoint: `${base}/a` }, output: { as: '.url' } } }, { notACall: { set: { done: '${ . }' } } }], {
      use: { extensions: [{ audit: { extend: 'call', after: [{ report: { emit: { event: { with: { type: 'com.example.http.called', data: { task: '${ $task.reference }', uri: '${ $task.with.endpoint }', output: '${ $task.output }' } } } } } }] } }] },
    }),
  );
  assert.deepEqual(out, { done: '/a' });
  assert.deepEqual(seen, ['GET /a']);
  const calls = emitted.filter((e) => e.type === 'com.example.http.called');
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].data, { task: '/do/0/getA', uri: `${base}/a`, output: { url: '/a', logged: false } });
});

test("extensions: mocking a call in a test environment (the spec's mock example, when on $workflow), before exits so the service is not called; an after exit replaces an output when $context says so", async () => {
  const mocked = `${base}/mocked`;
  const callHttp = { callHttp: { call: 'http', with: { method: 'get', endpoint: `${mocked}/sample` }, output: { as: '.content' } } };
  const use = {
    extensions: [
      {
        mockService: {
          extend: 'call',
          when: `$workflow.input.environment == "test" and ($task.with.endpoint | type) == "string" and ($task.with.endpoint | startswith("${mocked}"))`,
          before: [{ mockResponse: { set: { statusCode: 200, headers: { 'Content-Type': 'application/json' }, content: { foo: { bar: 'baz' } } }, then: 'exit' } }],
        },
      },
      { patch: { extend: 'call', when: '$context.patch == true', after: [{ replace: { set: '${ {patched: .url} }', then: 'exit' } }] } },
    ],
  };
  const doc = docOf(
    'mock-extension',
    [
      callHttp,
      { realCall: { call: 'http', with: { method: 'get', endpoint: `${base}/real` }, export: { as: '${ {patch: true} }' } } },
      { patched: { call: 'http', with: { method: 'get', endpoint: `${base}/real` } } },
    ],
    {
      use,
      output: { as: '${ {first: $workflow.input.first, last: .} }' },
    },
  );
  seen.length = 0;
  const inTest = (await run(doc, { environment: 'test' })) as Record<string, Json>;
  assert.deepEqual(seen, ['GET /real', 'GET /real']);
  assert.deepEqual(inTest.last, { patched: '/real' });
  seen.length = 0;
  await run(doc, { environment: 'production' });
  assert.deepEqual(seen, ['GET /mocked/sample', 'GET /real', 'GET /real']);
  // The first output, mocked, went through the task's output.as.
  const first = await run(docOf('mock-first', [callHttp], { use }), { environment: 'test' });
  assert.deepEqual(first, { foo: { bar: 'baz' } });
  // The specification's example document itself, its `when` as written: a string endpoint on the
  // mocked service is intercepted (nothing leaves: mocked.service.com is not reachable from here).
  const example = parseYaml(readFileSync(join(EXAMPLES, 'mock-service-extension.yaml'), 'utf8')) as { do: { callHttp: { with: { endpoint: unknown } } }[] };
  example.do[0].callHttp.with.endpoint = 'https://mocked.service.com/sample';
  assert.deepEqual(await run(example), { statusCode: 200, headers: { 'Content-Type': 'application/json' }, content: { foo: { bar: 'baz' } } });
});

test("extensions: an extension's failing task has its own reference; extension tasks are not extended", async () => {
  seen.length = 0;
  const doc = docOf('guard-extension', [{ work: { set: { n: 1 } } }], {
    use: {
      extensions: [
        { counter: { extend: 'all', before: [{ count: { call: 'http', with: { method: 'post', endpoint: `${base}/log`, body: { ref: '${ $task.reference }' } } } }] } },
        { guard: { extend: 'set', when: '.deny == true', before: [{ deny: { raise: { error: { type: 'https://example.com/denied', status: 403, title: 'Denied' } } } }] } },
      ],
    },
  });
  assert.deepEqual(await run(doc, { deny: false }), { n: 1 });
  assert.deepEqual(seen, ['POST /log {"ref":"/do/0/work"}']);
  await assert.rejects(run(doc, { deny: true }), (err: unknown) => {
    const details = ((err as { cause?: { details?: unknown[] } }).cause?.details?.[0] ?? {}) as Record<string, Json>;
    assert.deepEqual([details.type, details.instance], ['https://example.com/denied', '/use/extensions/1/guard/before/0/deny']);
    return true;
  });
});

test('evaluate.mode loose: every string of a value is evaluated; one that fails stands for itself', async () => {
  seen.length = 0;
  const out = await run(
    docOf(
      'loose',
      [
        { s: { set: { who: '.name', greeting: 'hello world', sum: '.a + .b', marked: '${ .name | ascii_upcase }' } } },
        { c: { call: 'http', with: { method: 'post', endpoint: `${base}/loose`, body: { who: '.who', kind: 'application/json' } }, output: { as: '$input + {posted: .url}' } } },
      ],
      { evaluate: { language: 'jq', mode: 'loose' } },
    ),
    { name: 'ada', a: 1, b: 2 },
  );
  assert.deepEqual(out, { who: 'ada', greeting: 'hello world', sum: 3, marked: 'ADA', posted: '/loose' });
  assert.deepEqual(seen, ['POST /loose {"who":"ada","kind":"application/json"}']);
});

test('after 1.0.3: catch.then, an inline for.in, emit without source, errors typed under open-workflow-specification.org caught by either spelling', async () => {
  emitted.length = 0;
  const OWS = 'https://open-workflow-specification.org/spec/1.0.0/errors/';
  const SW = 'https://serverlessworkflow.io/spec/1.0.0/errors/';
  const out = await run(
    docOf('after-103', [
      { sum: { for: { each: 'n', in: [1, 2, 3] }, do: [{ add: { set: { total: '${ (.total // 0) + $n }' } } }] } },
      {
        guarded: {
          try: [{ busy: { call: 'http', with: { method: 'get', endpoint: `${base}/fail` } } }],
          catch: { errors: { with: { type: `${OWS}communication`, status: 503 } }, as: 'e', do: [{ note: { set: '${ $input + {caught: $e.type} }' } }], then: 'announce' },
        },
      },
      { skipped: { set: { never: true } } },
      { announce: { emit: { event: { with: { type: 'com.example.announced', data: '${ . }' } } } } },
      { raised: { try: [{ r: { raise: { error: { type: `${OWS}timeout`, status: 408 } } } }], catch: { errors: { with: { type: `${SW}timeout` } }, do: [{ ok: { set: { timeoutCaught: true } } }] } } },
    ]),
  );
  assert.deepEqual(out, { timeoutCaught: true });
  const [announced] = emitted.filter((e) => e.type === 'com.example.announced');
  assert.ok(announced, 'the event was emitted');
  // swflow raises the 1.0.x spelling; the OWS filter matched it.
  assert.deepEqual(announced.data, { total: 6, caught: `${SW}communication` });
  assert.equal(announced.source, 'swflow/tests/after-103');
  assert.match(announced.id, /^[0-9a-f-]{36}$/);
});
