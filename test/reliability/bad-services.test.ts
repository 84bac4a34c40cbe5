/**
 * Hanging and garbage services: a service that never answers (the action's timeout ends the call),
 * answers invalid JSON as application/json, answers an HTML 500, or drops the connection. Every run
 * ends FAILED with the state, the action and the function named (and what went wrong); the
 * `swflow worker` and `swflow adapters` processes serving them stay up and serve the next run.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { startDevEnv } from '../helpers/temporal';
import { freePort } from '../helpers/ports';
import { definitionsDir, startAdapters, startWorker, type SwflowProcess } from './harness';

let env: TestWorkflowEnvironment;
let server: Server;
let port = 0;
let worker: SwflowProcess;
let adapters: SwflowProcess;

/** How each path misbehaves. */
const BEHAVIOUR: Record<string, (res: import('node:http').ServerResponse) => void> = {
  '/hang': () => undefined,
  '/garbage': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok": tru\u0000\u00ff<html>'),
  '/html500': (res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body><h1>Internal Server Error</h1></body></html>'),
  '/drop': (res) => res.socket?.destroy(),
  '/ok': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
};

function openapi() {
  return {
    openapi: '3.0.0',
    info: { title: 'bad', version: '1' },
    servers: [{ url: `http://127.0.0.1:${port}` }],
    paths: Object.fromEntries(Object.keys(BEHAVIOUR).map((p) => [p, { get: { operationId: p.slice(1), responses: { '200': { description: 'x' } } } }])),
  };
}

/** One operation state calling `op`; a 2 s action timeout, so that a hanging call ends. */
const definition = (op: string) => ({
  id: `bad-${op}`,
  version: '1.0',
  specVersion: '0.8',
  start: 'CallIt',
  functions: [{ name: `${op}Fn`, operation: `http://127.0.0.1:${port}/openapi.json#${op}` }],
  states: [{ name: 'CallIt', type: 'operation', timeouts: { actionExecTimeout: 'PT2S' }, actions: [{ name: `${op}Action`, functionRef: `${op}Fn` }], end: true }],
});

before(async () => {
  env = await startDevEnv();
  port = await freePort();
  server = createServer((req, res) => {
    if (req.url === '/openapi.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(openapi()));
    (BEHAVIOUR[req.url ?? ''] ?? BEHAVIOUR['/ok'])(res);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  const dir = definitionsDir(Object.fromEntries(Object.keys(BEHAVIOUR).map((p) => [p.slice(1), definition(p.slice(1))])));
  [worker, adapters] = await Promise.all([startWorker(env.address, dir), startAdapters(env.address, dir)]);
});
after(async () => {
  await Promise.all([worker?.stop('SIGTERM'), adapters?.stop('SIGTERM')]);
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await env?.teardown();
});

const run = (op: string) => env.client.workflow.execute(`bad-${op}`, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `bad-${op}-${Date.now()}`, args: [{}] });

for (const [op, what] of [
  ['hang', /PT2S|timeout/i],
  ['garbage', /InvalidResponse|not valid JSON|application\/json/i],
  ['html500', /500/],
  ['drop', /socket|ECONNRESET|closed|terminated|fetch failed/i],
] as const) {
  test(`a service that ${op === 'hang' ? 'never answers' : op === 'garbage' ? 'answers invalid JSON' : op === 'html500' ? 'answers an HTML 500' : 'drops the connection'}: the run fails naming state, action and function`, async () => {
    const err = await run(op).then(
      (out) => assert.fail(`completed: ${JSON.stringify(out)}`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError, String(err));
    const message = (err as WorkflowFailedError).cause?.message ?? '';
    assert.match(message, /state "CallIt"/, message);
    assert.match(message, new RegExp(`action "${op}Action"`), message);
    assert.match(message, new RegExp(`function "${op}Fn"`), message);
    assert.match(message, what, message);
    console.log(`# ${op}: ${message}`);
    assert.equal(worker.child.exitCode, null, worker.output);
    assert.equal(adapters.child.exitCode, null, adapters.output);
  });
}

test('after all that, the same processes serve a good run', async () => {
  assert.deepEqual(await run('ok'), { ok: true });
});
