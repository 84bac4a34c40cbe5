/**
 * `swflow payloads gc|get|ls` against a real dev server and a file payload store (a temp dir),
 * with an in-process interpreter worker storing every payload over 64 KiB. Runs with 300 KB
 * inputs: a 1.0 run waiting for an event (input A), a completed 0.8 run (input B), a 1.0 run
 * with input A and a 0.8 run with a unique input U, both then deleted, a paused schedule whose
 * action carries a large input, an unreferenced young payload and an old temporary file. Each
 * run's keys are what the store gained while it ran (not what the gc computes). The gc (as a
 * real `swflow` process) removes exactly the deleted runs' own payloads; the waiting run is
 * then woken and completes with its whole input: nothing a live run needs was removed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { EVENT_SIGNAL, INTERPRETER_TASK_QUEUE, type StartOptions } from '../../src/common/contracts';
import type { Definition, Json } from '../../src/common/model';
import { dataConverterOptions } from '../../src/codec';
import { FilePayloadStore } from '../../src/payloads/file-store';
import { contentKey } from '../../src/payloads/store';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { runSwflow } from '../helpers/cli';
import { startDevEnv } from '../helpers/temporal';
import { ce, def, loadAny, sharedBundle } from '../workflow/helpers';

const saved = { store: process.env.SWFLOW_PAYLOAD_STORE, threshold: process.env.SWFLOW_PAYLOAD_THRESHOLD };
const dir = mkdtempSync(join(tmpdir(), 'swflow-gc-'));
const storeDir = join(dir, 'payloads');
// Before any client or worker exists: they take their store from the environment.
process.env.SWFLOW_PAYLOAD_STORE = storeDir;
process.env.SWFLOW_PAYLOAD_THRESHOLD = '64KiB';

const store = new FilePayloadStore(storeDir);
let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;

/** A 300 KB value whose bytes are its own (random text). */
const big = (tag: string) => ({ tag, big: randomBytes(150_000).toString('hex') });
const A = big('A');
const B = big('B');
const U = big('U');
const S = big('S');

const keysNow = async () => {
  const keys = new Set<string>();
  for await (const p of store.list()) keys.add(p.key);
  return keys;
};
const minus = (a: Set<string>, b: Set<string>) => new Set([...a].filter((k) => !b.has(k)));
/** The content key of a value as the SDK stores it without a codec (the json/plain payload's proto bytes). */
const keyOf = (value: unknown) => contentKey(temporal.api.common.v1.Payload.encode(defaultPayloadConverter.toPayload(value)!).finish());

let waiting10: Definition;
let done08: Definition;
let echo10: Definition;
const start = (d: Definition, id: string, input: Json) => client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: id, args: [input, { definition: d } satisfies StartOptions] });

async function awaiting(handle: WorkflowHandle, type: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const awaited = ((await handle.describe()).searchAttributes.SwAwaitedEvents ?? []) as string[];
    if (awaited.some((a) => a.includes(type))) return;
    if (Date.now() > deadline) throw new Error(`${handle.workflowId} never waited for ${type}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Deletes a run and waits (bounded) until the server no longer has its history (the dev server takes ~30 s). */
async function deleteRun(workflowId: string): Promise<void> {
  const service = client.connection.workflowService;
  await service.deleteWorkflowExecution({ namespace: 'default', workflowExecution: { workflowId } });
  const deadline = Date.now() + 90_000;
  for (;;) {
    const gone = await service.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId } }).then(
      () => false,
      (err: { code?: number }) => err.code === 5,
    );
    if (gone) return;
    if (Date.now() > deadline) throw new Error(`${workflowId} still has a history 90 s after its deletion`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Every stored file except `keep` made two hours old (as if the runs had been written then). */
function ageStore(keep: Set<string>): void {
  const old = new Date(Date.now() - 2 * 3600_000);
  for (const shard of readdirSync(storeDir)) for (const name of readdirSync(join(storeDir, shard))) if (!keep.has(name)) utimesSync(join(storeDir, shard, name), old, old);
}

const swflow = (...args: string[]) => runSwflow(env.address, args);

const keys: Record<'waiting' | 'done' | 'sharedDeleted' | 'uniqueDeleted' | 'schedule', Set<string>> = {} as never;
let young = '';
let tmpName = '';

before(async () => {
  env = await startDevEnv();
  client = new Client({ connection: env.connection, ...dataConverterOptions() });
  worker = await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle() });
  running = worker.run();
  waiting10 = await loadAny({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'gc-waiting', version: '0.1.0' },
    do: [
      { remember: { set: '${ . }', export: { as: '${ . }' } } },
      { wake: { listen: { to: { one: { with: { type: 'gc.wake' } } } } } },
      { done: { set: '${ $context + { woken: true } }' } },
    ],
  });
  done08 = await def({ id: 'gc-done08', version: '1.0', start: 'Keep', states: [{ name: 'Keep', type: 'inject', data: { done: true }, end: true }] });
  echo10 = await loadAny({ document: { dsl: '1.0.3', namespace: 'tests', name: 'gc-echo', version: '0.1.0' }, do: [{ echo: { set: '${ . + { echoed: true } }' } }] });
});

after(async () => {
  await stopWorkers(worker ? [worker] : [], running ? [running] : []);
  await env?.teardown();
  await store.close();
  for (const [k, v] of [['SWFLOW_PAYLOAD_STORE', saved.store], ['SWFLOW_PAYLOAD_THRESHOLD', saved.threshold]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dir, { recursive: true, force: true });
});

test('runs store their large inputs and outputs; two are deleted; a schedule holds one too', async () => {
  let before = await keysNow();
  const w = await start(waiting10, 'gc-waiting', A);
  await awaiting(w, 'gc.wake');
  keys.waiting = minus(await keysNow(), before);
  assert.ok(keys.waiting.has(keyOf(A)), `the waiting run's input A is stored (${keys.waiting.size} new keys)`);

  before = await keysNow();
  const done = await start(done08, 'gc-done', B);
  assert.deepEqual(await done.result(), { ...B, done: true });
  keys.done = minus(await keysNow(), before);
  assert.ok(keys.done.has(keyOf(B)) && keys.done.size >= 2, `the completed run stored its input and output (${keys.done.size} keys)`);

  // Input A again: its payload is the waiting run's (content addressing), only the output is new.
  before = await keysNow();
  assert.deepEqual(await (await start(echo10, 'gc-shared-deleted', A)).result(), { ...A, echoed: true });
  keys.sharedDeleted = minus(await keysNow(), before);
  assert.ok(!keys.sharedDeleted.has(keyOf(A)) && keys.sharedDeleted.size >= 1, `the shared input was not written again (${keys.sharedDeleted.size} new keys)`);

  before = await keysNow();
  assert.deepEqual(await (await start(done08, 'gc-unique-deleted', U)).result(), { ...U, done: true });
  keys.uniqueDeleted = minus(await keysNow(), before);
  assert.ok(keys.uniqueDeleted.has(keyOf(U)), 'the unique input is stored');

  before = await keysNow();
  await client.schedule.create({
    scheduleId: 'gc-schedule',
    spec: { intervals: [{ every: '1h' }] },
    state: { paused: true },
    action: { type: 'startWorkflow', workflowType: done08.id, taskQueue: INTERPRETER_TASK_QUEUE, args: [S, { definition: done08 } satisfies StartOptions] },
  });
  keys.schedule = minus(await keysNow(), before);

  const t0 = Date.now();
  await Promise.all([deleteRun('gc-shared-deleted'), deleteRun('gc-unique-deleted')]);
  const deletedIn = (Date.now() - t0) / 1000;

  // An unreferenced payload put just now, and a temporary file a crash left long ago.
  const youngBytes = temporal.api.common.v1.Payload.encode(defaultPayloadConverter.toPayload(big('young'))!).finish();
  young = contentKey(youngBytes);
  await store.put(young, youngBytes);
  tmpName = `${keyOf(big('tmp'))}.0a1b2c.tmp`;
  mkdirSync(join(storeDir, tmpName.slice(7, 9)), { recursive: true });
  writeFileSync(join(storeDir, tmpName.slice(7, 9), tmpName), 'half a payload');
  ageStore(new Set([young]));
  console.log(`stored keys: waiting ${keys.waiting.size}, completed ${keys.done.size}, deleted (shared input) ${keys.sharedDeleted.size}, deleted (unique input) ${keys.uniqueDeleted.size}, schedule ${keys.schedule.size}, young 1, old .tmp 1; deleted runs' histories gone in ${deletedIn.toFixed(1)} s`);
});

test('gc without a store, or with a bad --min-age, fails clearly and removes nothing', async () => {
  const none = await runSwflow(env.address, ['payloads', 'gc'], { SWFLOW_PAYLOAD_STORE: 'none' });
  assert.equal(none.code, 1);
  assert.match(none.err, /no payload store is configured: set SWFLOW_PAYLOAD_STORE/);
  const bad = await swflow('payloads', 'gc', '--min-age', 'soon');
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--min-age "soon" is not a duration/);
  console.log(`gc without a store: exit ${none.code}, "${none.err.trim()}"; bad --min-age: exit ${bad.code}`);
});

test('gc --dry-run reports the deleted runs\' payloads and removes nothing', async () => {
  const before = await keysNow();
  const r = await swflow('payloads', 'gc', '--dry-run', '--json');
  assert.equal(r.code, 0, r.err);
  const report = JSON.parse(r.out);
  const expected = keys.sharedDeleted.size + keys.uniqueDeleted.size + 1; // + the old .tmp file
  assert.equal(report.removed, expected, r.out);
  assert.equal(report.dryRun, true);
  assert.deepEqual(await keysNow(), before);
  console.log(`gc --dry-run: runs ${report.runs}, references ${report.references}, would remove ${report.removed} (${report.bytesFreed} bytes), store unchanged (${before.size} files)`);
});

test('gc (default --min-age 1h) removes exactly the deleted runs\' own payloads and the old temporary file', async () => {
  const before = await keysNow();
  const r = await swflow('payloads', 'gc');
  assert.equal(r.code, 0, r.err);
  const removed = minus(before, await keysNow());
  const expected = new Set([...keys.sharedDeleted, ...keys.uniqueDeleted, tmpName]);
  assert.deepEqual([...removed].sort(), [...expected].sort(), r.out);
  for (const k of [...keys.waiting, ...keys.done, ...keys.schedule, young]) assert.ok((await keysNow()).has(k), `${k} kept`);
  assert.match(r.out, /runs scanned 2, schedules 1/);
  assert.match(r.out, new RegExp(`payloads removed ${expected.size}, bytes freed \\d+`));
  console.log(`gc: ${r.out.trim().replace(/\n/g, ' | ')}`);
});

test('gc --min-age 0s also removes the young unreferenced payload, nothing a run or schedule refers to', async () => {
  const before = await keysNow();
  const r = await swflow('payloads', 'gc', '--min-age', '0s', '--json');
  assert.equal(r.code, 0, r.err);
  const report = JSON.parse(r.out);
  assert.deepEqual([...minus(before, await keysNow())], [young]);
  assert.equal(report.keptReferenced, keys.waiting.size + keys.done.size + keys.schedule.size);
  assert.equal(report.missing, 0);
  console.log(`gc --min-age 0s: removed ${report.removed} (the young payload), kept ${report.keptReferenced} referenced, ${report.runs} runs, ${report.schedules} schedule(s), ${report.seconds} s`);
});

test('old content put again (a new run re-using it, its event not yet in history) is young again: gc keeps it', async () => {
  // Through the SDK's own path: a client stores the argument of a signal to a run that does not exist.
  const value = big('re-put');
  const key = keyOf(value);
  await client.workflow.getHandle('gc-no-such-run').signal(EVENT_SIGNAL, value as never).catch(() => undefined);
  assert.ok((await keysNow()).has(key), 'the signal argument was stored');
  ageStore(new Set());
  const t = Date.now();
  await client.workflow.getHandle('gc-no-such-run').signal(EVENT_SIGNAL, value as never).catch(() => undefined);
  const listed = await (async () => {
    for await (const p of store.list()) if (p.key === key) return p;
  })();
  assert.ok(listed && listed.createdAt.getTime() >= t - 1000, `createdAt refreshed by the second put (${listed?.createdAt.toISOString()})`);
  // The sweep's delete keeps a key put after its cutoff, whatever it listed before.
  assert.equal(await store.delete([key], new Date(t - 60_000)), 0);
  const r = await swflow('payloads', 'gc', '--json');
  assert.equal(r.code, 0, r.err);
  assert.ok((await keysNow()).has(key), 'kept by the gc');
  const report = JSON.parse(r.out);
  assert.equal(report.keptYoung, 1);
  assert.equal(report.removed, 0);
  console.log(`re-put: createdAt ${listed!.createdAt.toISOString()} (after the put at ${new Date(t).toISOString()}), gc kept it (keptYoung ${report.keptYoung}, removed ${report.removed})`);
});

test('get prints a stored payload by key and by URI; ls counts the store', async () => {
  const byKey = await swflow('payloads', 'get', keyOf(B));
  assert.equal(byKey.code, 0, byKey.err);
  assert.deepEqual(JSON.parse(byKey.out), B);
  const output = [...keys.done].find((k) => k !== keyOf(B))!;
  const byUri = await swflow('payloads', 'get', store.uri(output));
  assert.equal(byUri.code, 0, byUri.err);
  assert.ok(JSON.stringify(JSON.parse(byUri.out)).includes(B.big), 'the completed run\'s other payload holds its output');
  const missing = await swflow('payloads', 'get', keyOf(U));
  assert.equal(missing.code, 1);
  assert.match(missing.err, /is not in the payload store/);
  // An encrypted payload (a client with codec keys): decoded with the keys, a clear error without.
  const codecKeys = `gc-key:${randomBytes(32).toString('base64')}`;
  const secret = big('secret');
  const beforeSecret = await keysNow();
  const keyed = new Client({ connection: env.connection, ...dataConverterOptions({ ...process.env, SWFLOW_CODEC_KEYS: codecKeys }) });
  await keyed.workflow.getHandle('gc-no-such-run').signal(EVENT_SIGNAL, secret as never).catch(() => undefined);
  const [encrypted] = minus(await keysNow(), beforeSecret);
  assert.ok(encrypted && encrypted !== keyOf(secret), 'the encrypted payload was stored under its own key');
  const withKeys = await runSwflow(env.address, ['payloads', 'get', encrypted], { SWFLOW_CODEC_KEYS: codecKeys });
  assert.equal(withKeys.code, 0, withKeys.err);
  assert.deepEqual(JSON.parse(withKeys.out), secret);
  const withoutKeys = await swflow('payloads', 'get', encrypted);
  assert.equal(withoutKeys.code, 1);
  assert.match(withoutKeys.err, /is encrypted: set SWFLOW_CODEC_KEYS/);
  assert.ok(!withoutKeys.out.includes(secret.big));
  const ls = await swflow('payloads', 'ls', '--long');
  assert.equal(ls.code, 0, ls.err);
  const count = (await keysNow()).size;
  assert.match(ls.out, new RegExp(`^${count} payload\\(s\\), \\d+ bytes`, 'm'));
  assert.equal(ls.out.trim().split('\n').length, count + 1);
  // Unset, against `swflow start`'s own server (no TEMPORAL_ADDRESS): its store, <data>/payloads.
  const embedded = await runSwflow(env.address, ['payloads', 'ls'], { SWFLOW_PAYLOAD_STORE: '', TEMPORAL_ADDRESS: '', SWFLOW_DATA: dir });
  assert.equal(embedded.code, 0, embedded.err);
  assert.match(embedded.out, new RegExp(`^${count} payload\\(s\\), \\d+ bytes \\(.*\\) in ${store.location}$`, 'm'));
  console.log(`get by key: ${byKey.out.length} chars of JSON (input B); by URI ${store.uri(output).slice(0, 40)}…: ${byUri.out.length} chars; removed key: "${missing.err.trim().slice(0, 80)}…"; encrypted: decoded with the keys, "${withoutKeys.err.trim().slice(0, 60)}…" without; ls: ${ls.out.trim().split('\n').at(-1)}`);
});

test('the waiting run, woken after the gcs, completes with its whole input; the completed run\'s result still reads', async () => {
  const w = client.workflow.getHandle('gc-waiting');
  await w.signal(EVENT_SIGNAL, ce('gc.wake', { now: true }));
  const result = (await w.result()) as typeof A & { woken: boolean };
  assert.equal(result.big, A.big);
  assert.deepEqual(result, { ...A, woken: true });
  assert.deepEqual(await client.workflow.getHandle('gc-done').result(), { ...B, done: true });
  console.log(`woken run completed with its ${JSON.stringify(A).length}-byte input intact; the completed run's ${JSON.stringify(B).length}-byte output read back`);
});
