/**
 * kill -9 on the default path of a read (feature `local-reads`): a GET runs as a local activity in
 * the interpreter worker's process (`swflow worker`). That process is killed with SIGKILL while the
 * GET is in flight; the workflow task it held times out, a second `swflow worker` replays the run
 * and makes the read again (a read: harmless), and the run completes with the answers. History
 * shows every call as a local activity marker with its summary (the Web UI's list).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { startDevEnv } from '../helpers/temporal';
import { freePort } from '../helpers/ports';
import { definitionsDir, startWorker, type SwflowProcess } from './harness';
import { callsOf } from '../workflow/helpers';

let env: TestWorkflowEnvironment;
let server: Server;
let port = 0;
/** GETs received per path, and how long the service takes to answer. */
const hits = new Map<string, number>();
let latencyMs = 10_000;
let dir: string;
const workers: SwflowProcess[] = [];

const doc = () => {
  const get = (path: string) => ({ call: 'http', with: { method: 'get', endpoint: `http://127.0.0.1:${port}${path}` } });
  return {
    document: { dsl: '1.0.3', namespace: 'rel', name: 'read-kill', version: '1.0.0' },
    do: [{ first: { ...get('/count/first'), export: { as: '{ first: .n }' } } }, { second: { ...get('/count/second'), output: { as: '{ first: $context.first, second: .n }' } } }],
  };
};

before(async () => {
  port = await freePort();
  server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    setTimeout(() => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ n }));
    }, latencyMs);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  env = await startDevEnv();
  dir = definitionsDir({ 'read-kill': doc() });
});
after(async () => {
  await Promise.all(workers.map((w) => w.stop('SIGTERM')));
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await env?.teardown();
});

test('kill -9 of the swflow worker making a read (local-reads): the read is made again on the next worker and the run completes', async () => {
  const first = await startWorker(env.address, dir);
  workers.push(first);
  const handle = await env.client.workflow.start('rel/read-kill', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: 'read-kill-1', args: [{}] });
  while ((hits.get('/count/first') ?? 0) === 0) await new Promise((r) => setTimeout(r, 20));
  first.child.kill('SIGKILL');
  assert.equal((await first.exited).signal, 'SIGKILL');
  latencyMs = 20;
  workers.push(await startWorker(env.address, dir));

  const out = (await handle.result()) as { first: number; second: number };
  // The first read reached the service twice (the lost one and the one made again), the second once.
  assert.deepEqual(out, { first: 2, second: 1 });

  const { calls, events } = await callsOf(env.client, 'read-kill-1');
  assert.equal(events.filter((e) => e.activityTaskScheduledEventAttributes).length, 0, 'no call was an activity task');
  assert.deepEqual(calls, [
    { kind: 'local', type: 'sw.http', summary: `/do/0/first → GET http://127.0.0.1:${port}/count/first` },
    { kind: 'local', type: 'sw.http', summary: `/do/1/second → GET http://127.0.0.1:${port}/count/second` },
  ]);
  assert.ok(events.some((e) => e.workflowTaskTimedOutEventAttributes), "the lost worker's workflow task timed out");
});
