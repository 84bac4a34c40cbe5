/**
 * The 1.0 task-tree executor end to end, on a real dev server, with the real built-in adapter
 * worker calling a real local HTTP service: what the conformance kit does not cover (fork
 * without compete, catch.when/exceptWhen, for.while, exit inside for, expression arguments,
 * HTTP output modes, authentication, default-catalog adapter activities, run.workflow
 * await:false, listen foreach) and what a person sees in the Web UI (task pointers as summaries
 * and SwState).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { EVENT_SIGNAL, INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import type { Definition, Json } from '../../src/common/model';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createAdapterWorker, defineAdapter } from '../../src/adapter-sdk';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { createProcessWorker } from '../../src/worker/process-worker';
import { stopWorkers } from '../../src/worker/stop';
import { historyText } from '../../src/testing/history';
import { startDevEnv } from '../helpers/temporal';
import { loadAny, sharedBundle } from './helpers';

let env: TestWorkflowEnvironment;
let server: Server;
let base = '';
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let n = 0;
const seen: { method: string; url: string; authorization?: string; body: string }[] = [];
let tokensIssued = 0;
const lifecycle: { type: string; subject?: string; data: Record<string, Json> }[] = [];

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
      // A token endpoint (OAuth2 client_credentials with client_secret_post) and its OIDC discovery.
      if (req.url === '/.well-known/openid-configuration') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ issuer: base, token_endpoint: `${base}/oauth2/token` }));
      }
      if (req.url === '/oauth2/token') {
        const form = new URLSearchParams(body);
        const ok = form.get('grant_type') === 'client_credentials' && form.get('client_id') === 'app' && form.get('client_secret') === 'app-secret-1';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(ok ? { access_token: `issued-token-${++tokensIssued}`, token_type: 'Bearer', expires_in: 3600 } : { error: 'invalid_client' }));
      }
      if (req.url === '/moved') {
        res.writeHead(302, { location: '/items' });
        return res.end();
      }
      if (req.url === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('plain text');
      }
      if (req.url === '/echo-fail') {
        // A careless service that quotes the request's credentials in its error.
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ message: `rejected key ${req.headers['x-key']} with ${req.headers.authorization}` }));
      }
      if (req.url === '/fail') {
        res.writeHead(503, { 'content-type': 'application/json' });
        return res.end('{"message":"busy"}');
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-served-by': 'test' });
      res.end(JSON.stringify({ url: req.url, method: req.method, body: body ? JSON.parse(body) : null }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = await startDevEnv();
  workers = [
    await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle() }),
    await createBuiltinAdapterWorker({ connection: env.nativeConnection, secrets: { petCreds: '{"username":"ada","password":"lovelace"}', apiKey: 'k-123', idp: '{"authority":"__BASE__","client":{"id":"app","secret":"app-secret-1"}}'.replace('__BASE__', base) } }),
    await createProcessWorker({ connection: env.nativeConnection }),
    // An interpreter worker that opted into lifecycle events, on its own queue.
    await createInterpreterWorker({
      connection: env.nativeConnection,
      taskQueue: 'swflow-lifecycle',
      definitions: [],
      workflowBundle: await sharedBundle(),
      lifecycleEvents: true,
      eventSinks: [async (e) => void lifecycle.push({ type: e.type, subject: e.subject, data: e.data as Record<string, Json> })],
    }),
    // A custom adapter built on the SDK, reached with `call: greeter.hello:1.0.0@default`.
    await createAdapterWorker({
      connection: env.nativeConnection,
      taskQueue: 'greeter-adapters',
      adapters: [defineAdapter({ name: 'greeter', activities: { hello: (args: { name: string }, ctx) => ({ greeting: `hello ${args.name}`, task: ctx.state }) } })],
    }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
  await new Promise<void>((r) => server.close(() => r()));
});

const load = (doc: unknown): Promise<Definition> => loadAny(doc);

const docOf = (name: string, tasks: unknown[], extra: Record<string, unknown> = {}) => ({ document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' }, ...extra, do: tasks });

async function start(doc: unknown, input: Json = {}, subflows: Definition[] = []) {
  const definition = await load(doc);
  const opts: StartOptions = { definition, subflows: Object.fromEntries(subflows.map((s) => [s.id, s])) };
  return env.client.workflow.start(definition.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `v1-${++n}`, args: [input, opts] });
}

async function run(doc: unknown, input: Json = {}, subflows: Definition[] = []): Promise<Json> {
  return (await start(doc, input, subflows)).result();
}

async function fault(doc: unknown, input: Json = {}): Promise<Record<string, Json>> {
  try {
    await run(doc, input);
  } catch (err) {
    assert.ok(err instanceof WorkflowFailedError);
    return (err.cause as ApplicationFailure).details![0] as Record<string, Json>;
  }
  assert.fail('the run did not fault');
}

test('fork without compete: outputs in branch order; a failing branch faults the fork with its pointer', async () => {
  const out = await run(docOf('fork', [{ both: { fork: { branches: [{ a: { set: { a: '${ .x }' } } }, { b: { wait: { milliseconds: 50 }, output: { as: '.x * 2' } } }] } } }]), { x: 21 });
  assert.deepEqual(out, [{ a: 21 }, 42]);
  const e = await fault(docOf('fork-fail', [{ both: { fork: { branches: [{ ok: { wait: 'PT1H' } }, { boom: { raise: { error: { type: 'https://example.com/boom', status: 409, title: 'Boom' } } } }] } } }]));
  assert.deepEqual(e, { type: 'https://example.com/boom', status: 409, title: 'Boom', instance: '/do/0/both/fork/branches/1/boom' });
});

test('catch.when / exceptWhen see the error; uncaught errors keep their instance', async () => {
  const raise = { boom: { raise: { error: { type: 'https://example.com/e', status: 418, detail: '${ "for " + .who }' } } } };
  const caught = await run(docOf('catch-when', [{ t: { try: [raise], catch: { when: '.status == 418', as: 'e', do: [{ h: { set: { got: '${ $e.detail }' } } }] } } }]), { who: 'ada' });
  assert.deepEqual(caught, { got: 'for ada' });
  const e = await fault(docOf('catch-except', [{ t: { try: [raise], catch: { exceptWhen: '.status == 418' } } }]), { who: 'bob' });
  assert.equal(e.instance, '/do/0/t/try/0/boom');
  assert.equal(e.detail, 'for bob');
});

test('for: while stops before an item; exit stops the loop; descriptors are available', async () => {
  const out = await run(
    docOf('for-while', [
      { loop: { for: { each: 'n', in: '.numbers', at: 'i' }, while: '.total < 5', do: [{ add: { set: { total: '${ .total + $n }', last: '${ $i }' } } }] } },
      { describe: { set: { total: '${ .total }', task: '${ $task.name }', ref: '${ $task.reference }', wf: '${ $workflow.definition.document.name }', runtime: '${ $runtime.name }', raw: '${ $workflow.input.numbers | length }' } } },
    ]),
    { numbers: [1, 2, 3, 4, 5], total: 0 },
  );
  assert.deepEqual(out, { total: 6, task: 'describe', ref: '/do/1/describe', wf: 'for-while', runtime: 'swflow', raw: 5 });
  const exited = await run(docOf('for-exit', [{ loop: { for: { in: [1, 2, 3] }, do: [{ s: { set: { n: '${ $item }' } } }, { stop: { if: '.n == 2', set: { stopped: '${ $index }' }, then: 'exit' } }] } }]));
  assert.deepEqual(exited, { stopped: 1 });
});

test('call http: content, response and raw outputs, query and headers, redirect, status errors', async () => {
  const content = await run(docOf('http-content', [{ c: { call: 'http', with: { method: 'post', endpoint: `${base}/items/{id}`, query: { q: '${ .q }' }, headers: { 'x-k': 'v' }, body: { n: '${ .n }' } } } }]), { id: 'a b', q: 'x&y', n: 3 });
  assert.deepEqual(content, { url: '/items/a%20b?q=x%26y', method: 'POST', body: { n: 3 } });
  const response = (await run(docOf('http-response', [{ c: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/items` }, output: 'response' } } }]))) as Record<string, any>;
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['x-served-by'], 'test');
  assert.equal(response.request.method, 'GET');
  assert.equal(response.content.url, '/items');
  assert.equal(await run(docOf('http-raw', [{ c: { call: 'http', with: { method: 'get', endpoint: `${base}/text`, output: 'raw' } } }])), Buffer.from('plain text').toString('base64'));
  assert.equal(await run(docOf('http-text', [{ c: { call: 'http', with: { method: 'get', endpoint: `${base}/text` } } }])), 'plain text');
  const moved = await fault(docOf('http-302', [{ c: { call: 'http', with: { method: 'get', endpoint: `${base}/moved` } } }]));
  assert.equal(moved.status, 302);
  const followed = (await run(docOf('http-redirect', [{ c: { call: 'http', with: { method: 'get', endpoint: `${base}/moved`, redirect: true } } }]))) as Record<string, Json>;
  assert.equal(followed.url, '/items');
  const busy = await fault(docOf('http-503', [{ c: { call: 'http', with: { method: 'get', endpoint: `${base}/fail` } } }]));
  assert.equal(busy.type, 'https://serverlessworkflow.io/spec/1.0.0/errors/communication');
  assert.equal(busy.status, 503);
  assert.equal(busy.instance, '/do/0/c');
});

test('authentication: basic by name, secret-based basic, bearer with $secrets; $authorization', async () => {
  seen.length = 0;
  const out = await run(
    docOf(
      'auth',
      [
        { named: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/a`, authentication: { use: 'petAuth' } } }, output: { as: '$authorization' } } },
        { secret: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/b`, authentication: { basic: { use: 'petCreds' } } } } } },
        { bearer: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/c`, authentication: { bearer: { token: '${ $secrets.apiKey }' } } } } } },
      ],
      { use: { secrets: ['petCreds', 'apiKey'], authentications: { petAuth: { basic: { username: '${ .user }', password: 'pw' } } } } },
    ),
    { user: 'bob' },
  );
  assert.deepEqual(seen.map((s) => s.authorization), [`Basic ${Buffer.from('bob:pw').toString('base64')}`, `Basic ${Buffer.from('ada:lovelace').toString('base64')}`, 'Bearer k-123']);
  assert.equal((out as Record<string, Json>).url, '/c');
});

test('secrets ($secrets, secret-based authentication) never reach history, even when the service echoes them', async () => {
  const h = await start(
    docOf('leaky', [{ leak: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/echo-fail`, authentication: { basic: { use: 'petCreds' } } }, headers: { 'x-key': '${ $secrets.apiKey }' } } } }], {
      use: { secrets: ['petCreds', 'apiKey'] },
    }),
  );
  await assert.rejects(h.result(), WorkflowFailedError);
  const history = JSON.stringify(await h.fetchHistory());
  const basic = Buffer.from('ada:lovelace').toString('base64');
  for (const secret of ['k-123', 'lovelace', basic]) assert.ok(!history.includes(secret), `history holds ${secret}`);
  assert.match(history, /rejected key \[redacted\] with \[redacted\]/);
});

test('authentication: oauth2 client_credentials and oidc (discovery) against a real token endpoint; tokens cached per worker; a refused client fails with an authentication error', async () => {
  seen.length = 0;
  const before = tokensIssued;
  const h = await start(
    docOf('oauth2', [
      { named: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/o1`, authentication: { use: 'idp' } } } } },
      { discovered: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/o2`, authentication: { oidc: { use: 'idp' } } } } } },
    ], { use: { secrets: ['idp'], authentications: { idp: { oauth2: { use: 'idp' } } } } }),
  );
  await h.result();
  const history = historyText(await h.fetchHistory());
  for (const secret of ['app-secret-1', 'issued-token-']) assert.ok(!history.includes(secret), `${secret} is not in history`);
  // The same client written inline (a literal secret is the definition's own, so in history): the cached token.
  const inline = { oauth2: { authority: base, grant: 'client_credentials', client: { id: 'app', secret: 'app-secret-1' } } };
  await run(docOf('oauth2-inline', [{ c: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/o3`, authentication: inline } } } }]));
  const token = `Bearer issued-token-${before + 1}`;
  assert.deepEqual(seen.filter((s) => /^\/o\d/.test(s.url)).map((s) => s.authorization), [token, token, token], 'one token, cached by the worker for the same client');
  assert.equal(tokensIssued, before + 1);
  const refused = await fault(docOf('oauth2-refused', [{ c: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/o4`, authentication: { oauth2: { authority: base, client: { id: 'app', secret: 'wrong-secret' } } } } } } }]));
  assert.equal(refused.type, 'https://serverlessworkflow.io/spec/1.0.0/errors/authentication');
  assert.equal(refused.status, 401);
  assert.equal(refused.instance, '/do/0/c');
  const unsupported = await fault(docOf('digest', [{ c: { call: 'http', with: { method: 'get', endpoint: { uri: `${base}/o5`, authentication: { digest: { use: 'missingCreds' } } } } } }], { use: { secrets: ['missingCreds'] } }));
  assert.equal(unsupported.type, 'https://serverlessworkflow.io/spec/1.0.0/errors/configuration');
  assert.match(String(unsupported.detail), /secret 'missingCreds' is not available to this worker/);
});

test('call <activity>:<version>@default reaches a custom adapter on its queue', async () => {
  const out = await run(docOf('catalog', [{ hi: { call: 'greeter.hello:1.0.0@default', with: { name: '${ .who }' }, metadata: { worker: 'greeter-adapters' } } }]), { who: 'ada' });
  assert.deepEqual(out, { greeting: 'hello ada', task: '/do/0/hi' });
});

test('run.workflow with await: false starts the child and goes on with the input', async () => {
  const child = await load(docOf('child', [{ s: { wait: 'PT1H' } }]));
  const out = await run(docOf('parent', [{ spawn: { run: { workflow: { namespace: 'tests', name: 'child', version: '0.1.0' }, await: false } } }]), { keep: 1 }, [child]);
  assert.deepEqual(out, { keep: 1 });
});

test('listen foreach runs tasks per event as it comes; until stops it', async () => {
  const h = await start(
    docOf('listen-foreach', [
      { gossip: { listen: { to: { any: [], until: '${ length >= 2 }' } }, foreach: { item: 'ev', do: [{ wrap: { set: { said: '${ $ev.text }', at: '${ $index }' } } }], export: { as: '$context + { last: .said }' } } } },
      { report: { set: { heard: '${ . }', last: '${ $context.last }' } } },
    ]),
  );
  await h.signal(EVENT_SIGNAL, { specversion: '1.0', id: 'e1', source: 's', type: 'chat', data: { text: 'hi' } });
  await h.signal(EVENT_SIGNAL, { specversion: '1.0', id: 'e1', source: 's', type: 'chat', data: { text: 'duplicate' } });
  await h.signal(EVENT_SIGNAL, { specversion: '1.0', id: 'e2', source: 's', type: 'chat', data: { text: 'there' } });
  assert.deepEqual(await h.result(), { heard: [{ said: 'hi', at: 0 }, { said: 'there', at: 1 }], last: 'there' });
});

test('Web UI: task pointers as summaries and SwState, a Task table in the current details', async () => {
  const h = await start(docOf('ui', [{ getItems: { call: 'http', with: { method: 'get', endpoint: `${base}/items` } } }, { pause: { wait: { milliseconds: 10 } } }]));
  await h.result();
  const events = (await h.fetchHistory()).events ?? [];
  const conv = env.client.options.loadedDataConverter.payloadConverter;
  const summaries = events.filter((e) => e.userMetadata?.summary).map((e) => conv.fromPayload(e.userMetadata!.summary!) as string);
  assert.ok(summaries.includes(`/do/0/getItems → GET ${base}/items`), summaries.join('\n'));
  assert.ok(summaries.includes('/do/1/pause → wait PT0.01S'), summaries.join('\n'));
  const upserts = events.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).map((e) => JSON.stringify(e.upsertWorkflowSearchAttributesEventAttributes));
  const states = upserts.flatMap((u) => [...u.matchAll(/"SwState".*?"data":"([^"]+)"/g)].map((m) => Buffer.from(m[1], 'base64').toString()));
  assert.ok(states.includes('"/do/0/getItems"') && states.includes('"/do/1/pause"'), states.join(', '));
  const described = await h.describe();
  assert.equal(described.searchAttributes.SwDefinitionId?.[0], 'tests/ui');
});

test('a long run continues as new between top-level tasks, carrying its data, $context and position', async () => {
  const doc = {
    document: { dsl: '1.0.3', namespace: 'tests', name: 'long', version: '0.1.0', metadata: { 'swflow.historyLimit': 25 } },
    do: [
      { init: { set: { n: 0 }, export: { as: '{ started: true }' } } },
      { tick: { wait: { milliseconds: 1 } } },
      { count: { set: { n: '${ .n + 1 }', ctx: '${ $context.started }' } } },
      { again: { switch: [{ more: { when: '.n < 12', then: 'tick' } }] } },
    ],
  };
  const h = await start(doc);
  assert.deepEqual(await h.result(), { n: 12, ctx: true });
  const first = await env.client.workflow.getHandle(h.workflowId, h.firstExecutionRunId).describe();
  assert.equal(first.status.name, 'CONTINUED_AS_NEW');
});

test('run.shell and run.script run on the opt-in process worker (stdin, arguments, environment, return modes)', async () => {
  const { readFileSync } = await import('node:fs');
  const { resolve } = await import('node:path');
  const example = readFileSync(resolve(__dirname, '..', '..', '..', 'shared', 'specs', 'serverless-workflow-1.0.3', 'examples', 'run-shell-stdin-and-arguments.yaml'), 'utf8');
  const shell = await load(example);
  const out = await env.client.workflow.execute(shell.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `v1-${++n}`, args: [{}, { definition: shell }] });
  assert.equal(out, 'STDIN was: Hello World\nARGS are Foo Bar\n');
  const all = await run(
    docOf('script', [
      {
        js: {
          run: {
            script: { language: 'javascript', code: 'import { readFileSync } from "node:fs"; console.log(readFileSync(0, "utf8"), process.argv[2], process.env.foo); process.exit(3);', stdin: '${ .msg }', arguments: ['hello'], environment: { foo: 'bar' } },
            return: 'all',
          },
        },
      },
    ]),
    { msg: 'from stdin' },
  );
  assert.deepEqual(all, { code: 3, stdout: 'from stdin hello bar\n', stderr: '' });
  assert.equal(await run(docOf('code', [{ c: { run: { shell: { command: 'exit 7' }, return: 'code' } } }])), 7);
  const failed = await fault(docOf('fails', [{ f: { run: { shell: { command: 'echo oops >&2; exit 2' } } } }]));
  assert.equal(failed.type, 'https://serverlessworkflow.io/spec/1.0.0/errors/runtime');
  assert.match(String(failed.detail), /exit code 2: oops/);
  assert.equal(failed.instance, '/do/0/f');
});

test('lifecycle CloudEvents, on a worker that opted in: workflow and task started/completed/faulted/retried, status changes', async () => {
  const definition = await load(
    docOf('lifecycle', [
      { first: { set: { a: 1 } } },
      { guarded: { try: [{ boom: { raise: { error: { type: 'https://example.com/e', status: 500 } } } }], catch: { retry: { delay: { milliseconds: 10 }, limit: { attempt: { count: 1 } } }, do: [{ recover: { set: { ok: true } } }] } } },
    ]),
  );
  const out = await env.client.workflow.execute(definition.id, { taskQueue: 'swflow-lifecycle', workflowId: `v1-${++n}`, args: [{}, { definition }] });
  assert.deepEqual(out, { ok: true });
  const line = lifecycle.map((e) => `${e.type.replace(/^io\.serverlessworkflow\.|\.v1$/g, '')}${e.subject ? ` ${e.subject}` : ''}`);
  assert.deepEqual(line, [
    'workflow.started',
    'workflow.status-changed',
    'task.created /do/0/first',
    'task.started /do/0/first',
    'task.completed /do/0/first',
    'task.created /do/1/guarded',
    'task.started /do/1/guarded',
    'task.created /do/1/guarded/try/0/boom',
    'task.started /do/1/guarded/try/0/boom',
    'task.faulted /do/1/guarded/try/0/boom',
    'task.retried /do/1/guarded',
    'task.created /do/1/guarded/try/0/boom',
    'task.started /do/1/guarded/try/0/boom',
    'task.faulted /do/1/guarded/try/0/boom',
    'task.created /do/1/guarded/catch/do/0/recover',
    'task.started /do/1/guarded/catch/do/0/recover',
    'task.completed /do/1/guarded/catch/do/0/recover',
    'task.completed /do/1/guarded',
    'workflow.status-changed',
    'workflow.completed',
  ]);
  assert.deepEqual(lifecycle[0].data.definition, { name: 'lifecycle', namespace: 'tests', version: '0.1.0' });
  assert.deepEqual(lifecycle.filter((e) => e.type.endsWith('.status-changed.v1')).map((e) => e.data.status), ['running', 'completed']);
  assert.equal(lifecycle[9].data.task, '/do/1/guarded/try/0/boom');
  assert.equal((lifecycle[9].data.error as Record<string, Json>).status, 500);
  assert.deepEqual(lifecycle.at(-1)!.data.output, { ok: true });
});
