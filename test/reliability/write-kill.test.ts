/**
 * kill -9 of the `swflow worker` making a write (feature `call-ids`): a POST in flight when its
 * worker process is SIGKILLed after the service received (and performed) it. The call is made
 * again by a second worker — as a new activity after the heartbeat timeout (the default path:
 * writes are activities) or as the local activity replayed after the workflow task timed out
 * (`swflow.local: true`) — and carries the same `Idempotency-Key`, so a service that honours the
 * key performs the write once and answers the repeat with its first answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { startDevEnv } from '../helpers/temporal';
import { freePort } from '../helpers/ports';
import { definitionsDir, startWorker, type SwflowProcess } from './harness';

let env: TestWorkflowEnvironment;
let server: Server;
let port = 0;
let dir: string;
const workers: SwflowProcess[] = [];

// ---- the service: performs a write on its key's first request and answers the repeats from
// it; the first request of a path listed in `hold` is performed but not answered (the worker dies first).
const requests: { path: string; key?: string }[] = [];
const answers = new Map<string, unknown>();
const hold = new Set<string>();
const held: ServerResponse[] = [];
let performed = 0;

const doc = (name: string, metadata: Record<string, unknown>) => ({
  document: { dsl: '1.0.3', namespace: 'rel', name, version: '1.0.0' },
  do: [{ place: { call: 'http', metadata, with: { method: 'post', endpoint: `http://127.0.0.1:${port}/orders/${name}`, body: { item: 'book' } } } }],
});

before(async () => {
  port = await freePort();
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url!, 'http://x').pathname;
      const header = req.headers['idempotency-key'];
      const key = Array.isArray(header) ? header.join(',') : header;
      requests.push({ path, key });
      let answer = key ? answers.get(key) : undefined;
      if (answer === undefined) {
        answer = { order: ++performed };
        if (key) answers.set(key, answer);
      }
      if (hold.delete(path)) return void held.push(res);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  env = await startDevEnv();
  // The activity's heartbeat timeout short, so the lost call is noticed within seconds.
  dir = definitionsDir({ 'write-kill': doc('write-kill', { 'swflow.heartbeat': 'PT2S' }), 'write-kill-local': doc('write-kill-local', { 'swflow.local': true }) });
});
after(async () => {
  await Promise.all(workers.map((w) => w.stop('SIGTERM')));
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await env?.teardown();
});

for (const local of [false, true]) {
  const name = local ? 'write-kill-local' : 'write-kill';
  const kind = local ? 'local activity (swflow.local: true)' : 'activity (the default for writes)';
  test(`kill -9 of the swflow worker mid-write, ${kind}: the write made again carries the same key and is performed once`, async () => {
    requests.length = 0;
    const before = performed;
    hold.add(`/orders/${name}`);
    const first = await startWorker(env.address, dir);
    workers.push(first);
    const handle = await env.client.workflow.start(`rel/${name}`, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `${name}-1`, args: [{}], workflowExecutionTimeout: '2 minutes' });
    const deadline = Date.now() + 60_000;
    while (!requests.length) {
      assert.ok(Date.now() < deadline, 'the service got the write within 60 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    const t = Date.now();
    workers.push(await startWorker(env.address, dir));

    const out = (await handle.result()) as { order: number };
    assert.equal(requests.length, 2, `the lost write and the one made again: ${JSON.stringify(requests)}`);
    assert.match(requests[0].key ?? '(none)', /^"[A-Za-z0-9_-]{43}"$/);
    assert.equal(requests[1].key, requests[0].key, 'the same key');
    assert.equal(performed - before, 1, 'performed once');
    assert.deepEqual(out, { order: before + 1 }, "the run got the first write's answer");
    const events = (await handle.fetchHistory()).events ?? [];
    const activities = events.filter((e) => e.activityTaskScheduledEventAttributes).length;
    // A local call: made again by the replaying worker, or, when that worker took over after the
    // local call's bound (swflow.localBound, 30 s), handed over as an activity (local-call-hand-over): one key either way.
    if (local) assert.ok(activities <= 1, `at most the hand-over's activity: ${activities}`);
    else assert.equal(activities, 2, 'two activities: the lost one and the one made again');
    console.log(`write kill -9 (${kind}): 2 requests with one key, performed once, ${activities} activities, run completed ${((Date.now() - t) / 1000).toFixed(1)} s after the kill`);
  });
}
