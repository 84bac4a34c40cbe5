/**
 * Coalesced visibility lookups (src/gateway/dispatch.ts, AwaitingLookups): concurrent 1.0
 * events whose instances are found through SwAwaitedEvents share visibility queries, and each
 * still reaches exactly the instance waiting for its own correlation key. Real dev server,
 * interpreter worker and dispatcher.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { Dispatcher } from '../../src/gateway/dispatch';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';

const DOCUMENT = {
  document: { dsl: '1.0.0', namespace: 'test', name: 'coalesced', version: '1.0.0' },
  do: [{ wait: { listen: { to: { one: { with: { type: 'coalesced.go' }, correlate: { key: { from: '${ .data.key }', expect: '${ .key }' } } } } } } }],
};

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let registry: DefinitionRegistry;

before(async () => {
  env = await startDevEnv();
  const dir = mkdtempSync(join(tmpdir(), 'swflow-coalesced-'));
  writeFileSync(join(dir, 'coalesced.sw.json'), JSON.stringify(DOCUMENT));
  registry = new DefinitionRegistry([dir]);
  worker = await createInterpreterWorker({ connection: env.nativeConnection, definitions: [dir], workflowBundle: await bundleInterpreter() });
  running = worker.run();
});
after(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
});

test('concurrent events share visibility queries and each wakes the instance of its own key', { timeout: 120_000 }, async () => {
  const client = env.client;
  const keys = Array.from({ length: 8 }, (_, i) => `k${i}-${Date.now()}`);
  const handles = await Promise.all(keys.map((key) => client.workflow.start('test/coalesced', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `coalesced-${key}`, args: [{ key }] })));
  // Until visibility lists every instance waiting for its key.
  const listed = `WorkflowType = 'test/coalesced' AND ExecutionStatus = 'Running' AND SwAwaitedEvents IN (${keys.map((k) => `'coalesced.go#key=${k}'`).join(', ')})`;
  for (let i = 0; (await client.workflow.count(listed)).count < keys.length; i++) {
    assert.ok(i < 300, 'the instances did not all wait within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const dispatcher = new Dispatcher({ client, definitions: () => registry.allDefinitions() });
  const results = await Promise.all(keys.map((key, i) => dispatcher.dispatch({ specversion: '1.0', id: `e${i}`, source: 'test', type: 'coalesced.go', data: { key, i } }, false)));
  results.forEach((r, i) => {
    assert.equal(r.status, 202, JSON.stringify(r));
    assert.deepEqual(r.delivered?.map((d) => [d.workflowId, d.via]), [[`coalesced-${keys[i]}`, 'visibility']]);
  });
  assert.ok(dispatcher.lookupQueries < keys.length, `${keys.length} concurrent lookups made ${dispatcher.lookupQueries} visibility queries`);
  await Promise.all(handles.map((h) => h.result()));
  for (const h of handles) assert.equal((await h.describe()).status.name, 'COMPLETED');
});
