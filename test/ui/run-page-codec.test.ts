/**
 * The run page with encrypted payloads (docs/encryption.md): the page's client holds the keys, so
 * it reads the pinned definition and the command summaries from the history; without them it
 * falls back to the worker's definition and still draws the run from its `state` query. Real dev
 * server, real interpreter worker, the page's JSON API.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import type { WorkflowDef } from '../../src/common/model';
import { dataConverterOptions } from '../../src/codec';
import { loadDefinition } from '../../src/dsl';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startRunPage, type RunPage } from '../../src/ui/server';
import { freePort } from '../helpers/ports';

const KEYS = `k1:${randomBytes(32).toString('base64')}`;
const doc = {
  id: 'codecpage',
  version: '1.0',
  specVersion: '0.8',
  start: 'Greet',
  states: [
    { name: 'Greet', type: 'inject', data: { hello: 'world' }, transition: 'Nap' },
    { name: 'Nap', type: 'sleep', duration: 'PT0.1S', end: true },
  ],
};

let server: DevServer;
let worker: Worker;
let running: Promise<unknown>;
let def: WorkflowDef;
const pages: RunPage[] = [];
const saved = process.env.SWFLOW_CODEC_KEYS;
const workflowId = `codecpage-${Date.now()}`;

before(async () => {
  process.env.SWFLOW_CODEC_KEYS = KEYS;
  const cli = await resolveTemporalCli();
  assert.ok(cli);
  server = await startDevServer({ binary: cli.path, port: await freePort(), uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-runpage-codec-')), 'db.sqlite') });
  const loaded = await loadDefinition(doc);
  assert.ok(loaded.definition, JSON.stringify(loaded.problems));
  def = loaded.definition;
  worker = await createInterpreterWorker({ connection: await NativeConnection.connect({ address: server.address }), taskQueue: INTERPRETER_TASK_QUEUE, definitions: [def] });
  running = worker.run();
  const client = new Client({ connection: await Connection.connect({ address: server.address }), ...dataConverterOptions() });
  await client.workflow.execute(def.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [{}, { definition: def } satisfies StartOptions] });
});

after(async () => {
  for (const p of pages) await p.close();
  worker?.shutdown();
  await running;
  await server?.stop();
  if (saved === undefined) delete process.env.SWFLOW_CODEC_KEYS;
  else process.env.SWFLOW_CODEC_KEYS = saved;
});

async function runVia(keys: string, definitions: WorkflowDef[]): Promise<{ status: number; body: any }> {
  // dataConverterOptions(env) falls back to process.env's keys when `env` has none
  // (payloadCodec's default parameter): a client without keys is built without the option.
  const client = new Client({ connection: await Connection.connect({ address: server.address }), ...(keys ? dataConverterOptions({ SWFLOW_CODEC_KEYS: keys }) : {}) });
  const page = await startRunPage({ client, registry: new DefinitionRegistry(definitions), queryTimeoutMs: 3000 });
  pages.push(page);
  const res = await fetch(`${page.url}/api/runs/${workflowId}`);
  return { status: res.status, body: await res.json() };
}

test('with the keys: the pinned definition is read from the encrypted history, the path from the query', async () => {
  const { status, body } = await runVia(KEYS, []); // no definitions of its own: the history's is the one drawn
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.overlay.source, 'query');
  assert.deepEqual(body.overlay.path, ['start', 'Greet', 'Nap', 'end']);
  assert.equal(body.overlay.nodes.Nap.timers, 1);
});

test("without the keys: the page says it cannot read the run, or draws it with the worker's definition", async () => {
  const none = await runVia('', []);
  assert.equal(none.status, 422);
  assert.match(none.body.error, /has no definition this page can read .*encrypted/);
  const { status, body } = await runVia('', [def]);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.graph.nodes.length, 4);
  // The query's answer is encrypted too: the path comes from the history (SwState, the timer's summary).
  assert.equal(body.overlay.source, 'history');
  assert.match(body.queryError, /.+/);
  assert.deepEqual(body.overlay.path, ['start', 'Nap', 'end']);
});
