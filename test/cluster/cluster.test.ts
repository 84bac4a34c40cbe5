/**
 * swflow on a real multi-process Temporal cluster: the Temporal server (go.temporal.io/server
 * v1.29.1, the release the CLI embeds) as two processes (frontend + history, history + matching +
 * worker; 4 history shards) on Debian's PostgreSQL with SQL visibility (src/platform/cluster.ts).
 * `swflow setup` prepares the bare namespace; the real `swflow worker`, `adapters` and `gateway`
 * processes, with codec keys, run a 0.8 definition and a 1.0 document that each call a real local
 * HTTP service, sleep on a timer and wait for an event sent through the gateway (routed by the
 * SwAwaitedEvents visibility query, i.e. by SQL visibility). Then every row of every table of
 * both databases is read: no plaintext of the inputs, call arguments and results, events or
 * results, while an unencrypted control run's input is found.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import type { Definition, Json } from '../../src/common/model';
import { dataConverterOptions, ENCODING_ENCRYPTED } from '../../src/codec';
import { startCluster, type Cluster } from '../../src/platform/cluster';
import { runSwflow } from '../helpers/cli';
import { freePort } from '../helpers/ports';
import { reversed, startReplyService, type ReplyService } from '../helpers/reply-service';
import { SERVING, SwflowProcess } from '../reliability/harness';
import { formatFinding, loadAnyDefinition } from '../../src/dsl';

const KEYS = `cluster-key:${randomBytes(32).toString('base64')}`;
const IN08 = 'in08-cluster-plain-7d1e';
const IN10 = 'in10-cluster-plain-a93f';
const EVT08 = 'evt08-cluster-plain-2b6c';
const EVT10 = 'evt10-cluster-plain-e40d';
const SVC08 = `svc-${reversed(IN08)}`;
const SVC10 = `svc-${reversed(IN10)}`;
const MARKERS = { IN08, IN10, EVT08, EVT10, SVC08, SVC10 };
const CONTROL = 'control-cluster-plain-51c8';

/** A definition of any dialect, loaded by the real loader (not test/workflow/helpers: it installs a Core runtime that keeps the process alive). */
async function load(doc: unknown): Promise<Definition> {
  const { definition, problems } = await loadAnyDefinition(doc);
  if (!definition) throw new Error(`invalid test definition:\n${problems.map(formatFinding).join('\n')}`);
  return definition;
}

let dir = '';
let cluster: Cluster;
let service: ReplyService;
let base = '';
let connection: Connection;
let procs: SwflowProcess[] = [];
let gatewayPort = 0;
const ids = { v08: `cl-08-${randomBytes(4).toString('hex')}`, v10: `cl-10-${randomBytes(4).toString('hex')}` };

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-cluster-test-'));
  service = await startReplyService();
  base = service.base;
  // No namespace: `swflow setup` makes it.
  cluster = await startCluster({ namespaces: [], fastDisk: true, log: (m) => console.log(`[cluster] ${m}`) });
  connection = await Connection.connect({ address: cluster.address });
});

after(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGTERM')));
  await connection?.close();
  await cluster?.stop();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});


test('the cluster runs two Temporal server processes and several history shards on PostgreSQL', async () => {
  assert.deepEqual([...cluster.processes.values()].map((p) => [p.name, p.services]), [['a', ['frontend', 'history']], ['b', ['history', 'matching', 'worker']]]);
  assert.equal(Number(await cluster.sql('temporal', 'SELECT count(*) FROM shards')), 4);
  // Two history hosts (role 2 in cluster_membership) share the shards.
  const history = await cluster.sql('temporal', `SELECT count(DISTINCT rpc_port) FROM cluster_membership WHERE role = 2 AND last_heartbeat > now() - interval '20 seconds'`);
  assert.equal(Number(history), 2);
});

test('swflow setup creates the namespace and registers the search attributes; again, changes nothing', async () => {
  const first = await runSwflow(cluster.address, ['setup', '--retention-days', '1']);
  assert.equal(first.code, 0, first.err);
  assert.match(first.out, /namespace default: created; search attributes added SwDefinitionId, SwDefinitionVersion, SwDefinitionHash, SwState, SwAwaitedEvents; ready/);
  const again = await runSwflow(cluster.address, ['setup']);
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /namespace default: already there; search attributes all present; ready/);
  const ns = await connection.workflowService.describeNamespace({ namespace: 'default' });
  assert.equal(Number(ns.config?.workflowExecutionRetentionTtl?.seconds), 86_400);
  const bad = await runSwflow(cluster.address, ['setup', '--retention-days', 'soon']);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--retention-days must be a positive number, not "soon"/);
});

async function awaiting(handle: WorkflowHandle, type: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const awaited = ((await handle.describe()).searchAttributes.SwAwaitedEvents ?? []) as string[];
    if (awaited.some((a) => a.includes(type))) return;
    if (Date.now() > deadline) throw new Error(`${handle.workflowId} never waited for ${type} (SwAwaitedEvents ${JSON.stringify(awaited)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Posts a CloudEvent to the gateway until it is accepted: visibility (SQL) lags the run by a moment. */
async function sendEvent(event: Record<string, unknown>): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${gatewayPort}/`, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify(event) });
    const text = await res.text();
    if (res.status === 202) return;
    if (Date.now() > deadline) throw new Error(`the gateway answered ${res.status}: ${text}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('0.8 and 1.0 runs with a call, a timer and an event through the gateway, codec on', async () => {
  const doc08 = {
    id: 'cluster08',
    specVersion: '0.8',
    version: '1.0',
    start: 'Call',
    events: [{ name: 'Approved', type: 'cluster.approved08', source: 'test' }],
    functions: [{ name: 'echo', operation: `${base}/openapi.json#echo` }],
    states: [
      { name: 'Call', type: 'operation', actions: [{ functionRef: { refName: 'echo', arguments: { note: '${ .secret }' } }, actionDataFilter: { toStateData: '${ .call }' } }], transition: 'Nap' },
      { name: 'Nap', type: 'sleep', duration: 'PT1S', transition: 'Wait' },
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Approved'], eventDataFilter: { toStateData: '${ .approval }' } }], end: true },
    ],
  };
  const doc10 = {
    document: { dsl: '1.0.3', namespace: 'tests', name: 'cluster10', version: '0.1.0' },
    do: [
      { echo: { call: 'http', with: { method: 'post', endpoint: `${base}/echo10`, body: { note: '${ .secret }' } }, export: { as: '${ { reply: .reply } }' } } },
      { nap: { wait: { seconds: 1 } } },
      { approval: { listen: { to: { one: { with: { type: 'cluster.approved10' } } } } } },
      { done: { set: { reply: '${ $context.reply }', approval: '${ .[0].approval }' } } },
    ],
  };
  mkdirSync(join(dir, 'defs'));
  writeFileSync(join(dir, 'defs', 'cluster08.sw.json'), JSON.stringify(doc08));
  writeFileSync(join(dir, 'defs', 'cluster10.sw.json'), JSON.stringify(doc10));
  const v08 = await load(doc08);
  const v10 = await load(doc10);

  const keys = { SWFLOW_CODEC_KEYS: KEYS };
  gatewayPort = await freePort();
  procs = await Promise.all([
    new SwflowProcess(['worker', '--definitions', join(dir, 'defs'), '--no-schedules'], cluster.address, keys).ready(SERVING),
    new SwflowProcess(['adapters', '--definitions', join(dir, 'defs')], cluster.address, keys).ready(SERVING),
    new SwflowProcess(['gateway', '--definitions', join(dir, 'defs'), '--port', String(gatewayPort)], cluster.address, keys).ready(/listening on/),
  ]);
  const client = new Client({ connection, ...dataConverterOptions(keys) });
  const start = (d: Definition, id: string, input: Json) => client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: id, args: [input, { definition: d } satisfies StartOptions] });
  const h08 = await start(v08, ids.v08, { secret: IN08 });
  const h10 = await start(v10, ids.v10, { secret: IN10 });
  await awaiting(h08, 'cluster.approved08');
  await awaiting(h10, 'cluster.approved10');
  // Uncorrelated events: the gateway finds the waiting instances by a visibility query.
  await sendEvent({ specversion: '1.0', id: 'e08', source: 'test', type: 'cluster.approved08', data: { approval: EVT08 } });
  await sendEvent({ specversion: '1.0', id: 'e10', source: 'test', type: 'cluster.approved10', data: { approval: EVT10 } });
  assert.deepEqual(await h08.result(), { secret: IN08, call: { reply: SVC08 }, approval: { approval: EVT08 } });
  assert.deepEqual(await h10.result(), { reply: SVC10, approval: EVT10 });
  // The timers ran on the cluster (a TimerFired event each).
  for (const id of [ids.v08, ids.v10]) {
    const events = (await connection.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: id } })).history?.events ?? [];
    assert.ok(events.some((e) => e.timerFiredEventAttributes), `${id} has no TimerFired event`);
  }
  // The control: a run started without keys stores its input in the clear.
  const echo = await load({ document: { dsl: '1.0.3', namespace: 'tests', name: 'plain', version: '0.1.0' }, do: [{ keep: { set: { got: '${ .control }' } } }] });
  const plain = await new Client({ connection }).workflow.start(echo.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `plain-${ids.v10}`, args: [{ control: CONTROL }, { definition: echo } satisfies StartOptions] });
  assert.deepEqual(await client.workflow.getHandle(plain.workflowId).result(), { got: CONTROL });
});

/** Every row of every table of a database as text, bytea columns decoded to their bytes. */
async function tableBytes(database: 'temporal' | 'temporal_visibility'): Promise<{ tables: string[]; bytes: Buffer }> {
  const tables = (await cluster.sql(database, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`)).trim().split('\n');
  const parts: Buffer[] = [];
  for (const table of tables) {
    const rows = await cluster.sql(database, `SELECT t::text FROM "${table}" t`);
    parts.push(Buffer.from(rows));
    // Row text shows bytea as \x<hex>: decode each run, the way the server stored the bytes.
    for (const m of rows.matchAll(/\\\\x([0-9a-f]+)/g)) parts.push(Buffer.from(m[1], 'hex'));
  }
  return { tables, bytes: Buffer.concat(parts) };
}

test('the PostgreSQL tables hold no plaintext of inputs, calls, events or results', async () => {
  const main = await tableBytes('temporal');
  const vis = await tableBytes('temporal_visibility');
  for (const t of ['history_node', 'executions', 'current_executions']) assert.ok(main.tables.includes(t), `no table ${t} in ${main.tables.join(', ')}`);
  assert.ok(vis.tables.includes('executions_visibility'), `no executions_visibility in ${vis.tables.join(', ')}`);
  const bytes = Buffer.concat([main.bytes, vis.bytes]);
  // The controls: what is stored in the clear is found, in the decoded bytes and in visibility.
  assert.ok(bytes.includes(ids.v08) && bytes.includes(ids.v10), 'workflow ids not found: the search reads the wrong bytes');
  assert.ok(vis.bytes.includes('tests/cluster10'), 'SwDefinitionId not in the visibility rows');
  assert.ok(main.bytes.includes(ENCODING_ENCRYPTED), `${ENCODING_ENCRYPTED} not in the history`);
  assert.ok(main.bytes.includes(CONTROL), 'the unencrypted control input is not found: payloads are not stored as the search expects');
  for (const [name, m] of Object.entries(MARKERS)) {
    for (const form of [m, Buffer.from(m).toString('base64').slice(0, 16), Buffer.from(m).toString('hex')]) {
      assert.ok(!bytes.includes(form), `${name} (${JSON.stringify(form)}) is in PostgreSQL in the clear`);
    }
  }
});
