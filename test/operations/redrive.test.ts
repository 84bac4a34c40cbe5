/**
 * Redrive (issue 33) against a real dev server, real `swflow worker` and `swflow adapters`
 * processes and a counting HTTP service that goes down and comes back:
 * - 0.8: the third call fails (service down), the service comes back, the run is redriven (by the
 *   CLI): the first two calls (a local read and an activity) are not made again, the run completes;
 * - 1.0: a `fork` whose second branch fails, and a `for` whose iteration 7 of 10 fails: redriven,
 *   no call that succeeded is made again;
 * - a definition fixed in version 2 (the failed state called a wrong path): redriven onto it and
 *   completed; version 3 also changed a completed state: refused, naming it;
 * - 200 failed runs redriven by a visibility query with a rate limit: all complete, 0 successful
 *   calls repeated.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { connectionOptions } from '../../src/client/connection';
import { dataConverterOptions } from '../../src/codec';
import { startWorkflow } from '../../src/client/start';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { redrive, redriveMany, RedriveRefused } from '../../src/operations/redrive';
import { cloudEvent, sendEvent } from '../../src/operations/event';
import { STATE_QUERY, type InstanceState } from '../../src/common/contracts';
import { startDevEnv } from '../helpers/temporal';
import { runSwflow } from '../helpers/cli';
import { saveHistory } from '../workflow/helpers';
import { SERVING, SwflowProcess } from '../reliability/harness';
import { redriveDefinitions, startRedriveService, type RedriveService } from './redrive-service';

let dir = '';
let env: TestWorkflowEnvironment;
let address = '';
let connection: Connection;
let client: Client;
let service: RedriveService;
const procs: SwflowProcess[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-redrive-'));
  service = await startRedriveService();
  for (const [name, doc] of Object.entries(redriveDefinitions(service.base))) writeFileSync(join(dir, name), JSON.stringify(doc, null, 2));
  env = await startDevEnv();
  address = (env as unknown as { address: string }).address;
  connection = await Connection.connect(connectionOptions({ address, namespace: 'default' }));
  client = new Client({ connection, ...dataConverterOptions() });
  const worker = new SwflowProcess(['worker', '--definitions', dir, '--no-schedules'], address);
  const adapters = new SwflowProcess(['adapters', '--definitions', dir], address);
  procs.push(worker, adapters);
  await Promise.all([worker.ready(SERVING, 120_000), adapters.ready(SERVING, 120_000)]);
});

after(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGTERM')));
  await connection?.close();
  await env?.teardown();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function failed(workflowId: string): Promise<string> {
  const err = await client.workflow.getHandle(workflowId).result().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof WorkflowFailedError, `${workflowId} should have failed`);
  return String((err.cause as Error | undefined)?.message ?? err.message);
}

async function completes(workflowId: string, runId: string): Promise<unknown> {
  return Promise.race([client.workflow.getHandle(workflowId, runId).result(), delay(60_000).then(() => Promise.reject(new Error(`${workflowId} did not complete in 60 s`)))]);
}

test('0.8: the third call failed; redriven by the CLI, the first two are not made again', async () => {
  const run = 'seq-1';
  service.down.add('/c');
  await startWorkflow(client, { id: 'redrive-seq', workflowId: run, input: { run } });
  const message = await failed(run);
  assert.deepEqual([service.count('/a', run), service.count('/b', run), service.count('/c', run)], [1, 1, 1]);
  service.down.delete('/c');
  const dry = await runSwflow(address, ['redrive', run, '--dry-run']);
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, /would redrive seq-1 .* from the step "C"/);
  const out = await runSwflow(address, ['redrive', run, '--json']);
  assert.equal(out.code, 0, out.err);
  const r = JSON.parse(out.out) as { step: string; newRunId: string; reused: number };
  assert.equal(r.step, 'C');
  const result = (await completes(run, r.newRunId)) as Record<string, unknown>;
  assert.deepEqual(result.c, { c: '/c-ok' });
  assert.deepEqual([service.count('/a', run), service.count('/b', run), service.count('/c', run)], [1, 1, 2], 'a and b once, c twice (failed, then redriven)');
  console.log(`0.8 redrive: failed with "${message.slice(0, 80)}", redriven from "${r.step}" (${r.reused} reused from the ledger); calls a=1 b=1 c=2`);
});

test('1.0: a fork branch and for iteration 7 of 10 failed; redriven, no successful call repeated', async () => {
  service.down.add('/fb');
  await startWorkflow(client, { id: 'redrive/fork', workflowId: 'fork-1', input: { run: 'fork-1' } });
  await failed('fork-1');
  assert.deepEqual([service.count('/fa', 'fork-1'), service.count('/fb', 'fork-1')], [1, 1]);
  service.down.delete('/fb');
  const f = await redrive(client, { workflowId: 'fork-1' });
  await completes('fork-1', f.newRunId!);
  assert.deepEqual([service.count('/fa', 'fork-1'), service.count('/fb', 'fork-1')], [1, 2], 'branch a once, branch b twice');
  // Redriven runs (a reset, the ledger) are replay fixtures from now on.
  await saveHistory(client, 'fork-1', 'interpreter-redrive-fork');
  console.log(`1.0 fork: redriven from ${f.step} (${f.reused} reused); fa=1 fb=2`);

  service.down.add('item:7');
  await startWorkflow(client, { id: 'redrive/loop', workflowId: 'loop-1', input: { run: 'loop-1' } });
  await failed('loop-1');
  const before = Array.from({ length: 10 }, (_, k) => service.count('/item', 'loop-1', k + 1));
  assert.deepEqual(before, [1, 1, 1, 1, 1, 1, 1, 0, 0, 0]);
  service.down.delete('item:7');
  const l = await redrive(client, { workflowId: 'loop-1' });
  await completes('loop-1', l.newRunId!);
  const afterCalls = Array.from({ length: 10 }, (_, k) => service.count('/item', 'loop-1', k + 1));
  assert.deepEqual(afterCalls, [1, 1, 1, 1, 1, 1, 2, 1, 1, 1], 'items 1-6 once, 7 twice, 8-10 once');
  await saveHistory(client, 'loop-1', 'interpreter-redrive-for');
  console.log(`1.0 for: redriven from ${l.step} (${l.reused} reused); item calls ${afterCalls.join(',')}`);
});

test('a failure inside a subflow and inside compensation: redriven, no successful call repeated', async () => {
  // The child (A, B, C) fails at C: the parent is reset before its subflow state, and the child
  // started again answers A and B from its failed run's ledger.
  service.down.add('/c');
  await startWorkflow(client, { id: 'redrive-parent', workflowId: 'parent-1', input: { run: 'parent-1' } });
  await failed('parent-1');
  assert.deepEqual([service.count('/a', 'parent-1'), service.count('/b', 'parent-1'), service.count('/c', 'parent-1')], [2, 1, 1], 'a: parent and child');
  service.down.delete('/c');
  const p = await redrive(client, { workflowId: 'parent-1' });
  assert.equal(p.step, 'Sub');
  const out = (await completes('parent-1', p.newRunId!)) as { child: { c: unknown } };
  assert.deepEqual(out.child.c, { c: '/c-ok' });
  assert.deepEqual([service.count('/a', 'parent-1'), service.count('/b', 'parent-1'), service.count('/c', 'parent-1')], [2, 1, 2], 'no successful call of the parent or the child made again');
  await saveHistory(client, 'parent-1', 'interpreter-redrive-subflow');
  const parentEvents = (await client.workflow.getHandle('parent-1', p.newRunId).fetchHistory()).events!;
  const childId = parentEvents.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)!.startChildWorkflowExecutionInitiatedEventAttributes!.workflowId!;
  await saveHistory(client, childId, 'interpreter-redrive-subflow-child');
  console.log(`subflow: redriven from "${p.step}"; a=2 (parent, child) b=1 c=2`);

  // Compensation (UndoB, then UndoA) fails at UndoB: redriven, the compensation goes on from UndoB.
  service.down.add('/undo');
  await startWorkflow(client, { id: 'redrive-comp', workflowId: 'comp-1', input: { run: 'comp-1' } });
  await failed('comp-1');
  assert.deepEqual([service.count('/a', 'comp-1'), service.count('/b', 'comp-1'), service.count('/undo', 'comp-1')], [1, 1, 1]);
  service.down.delete('/undo');
  const c = await redrive(client, { workflowId: 'comp-1' });
  assert.equal(c.step, 'UndoB');
  await completes('comp-1', c.newRunId!);
  assert.deepEqual([service.count('/a', 'comp-1'), service.count('/b', 'comp-1'), service.count('/undo', 'comp-1')], [1, 1, 3], 'UndoB again, then UndoA');
  await saveHistory(client, 'comp-1', 'interpreter-redrive-compensation');
  console.log(`compensation: redriven from "${c.step}"; a=1 b=1 undo=3 (failed UndoB, UndoB, UndoA)`);
});

test('events received after the reset point are applied again, or not with reapplySignals: false', async () => {
  const go = (workflowId: string) => sendEvent(client, cloudEvent({ type: 'redrive.go', source: 'test', workflowId, data: { go: workflowId } }), { definitions: async () => [] });
  const runOnce = async (workflowId: string) => {
    service.down.add('/fb');
    await startWorkflow(client, { id: 'redrive/fork-listen', workflowId, input: { run: workflowId } });
    // The event arrives while the failing call is in flight: after the reset point (before that call).
    for (let t = 0; t < 100 && service.count('/fb', workflowId) === 0; t++) await delay(20);
    assert.equal((await go(workflowId)).status, 202);
    await failed(workflowId);
    service.down.delete('/fb');
  };
  await runOnce('listen-1');
  const r = await redrive(client, { workflowId: 'listen-1' });
  await completes('listen-1', r.newRunId!);
  const reapplied = (await client.workflow.getHandle('listen-1', r.newRunId).fetchHistory()).events!.filter((e) => e.workflowExecutionSignaledEventAttributes).length;
  assert.equal(reapplied, 1, 'the event, once, in the new run');
  console.log('reapplied: the redriven run got its event again and completed');

  await runOnce('listen-2');
  const n = await redrive(client, { workflowId: 'listen-2', reapplySignals: false });
  const handle = client.workflow.getHandle('listen-2', n.newRunId);
  let state: InstanceState | undefined;
  for (let t = 0; t < 50; t++) {
    state = await handle.query<InstanceState>(STATE_QUERY);
    if (state.awaitedEvents.includes('redrive.go') && service.count('/fb', 'listen-2') === 2) break;
    await delay(100);
  }
  assert.deepEqual(state?.awaitedEvents, ['redrive.go'], 'without its event again, the listen waits');
  assert.equal((await handle.describe()).status.name, 'RUNNING');
  assert.equal((await go('listen-2')).status, 202);
  await completes('listen-2', n.newRunId!);
  console.log('not reapplied: the redriven run waited for a new event, then completed');
});

test('a fix in version 2 is redriven onto; version 3 changed a completed state and is refused', async () => {
  const run = 'fix-1';
  await startWorkflow(client, { id: 'redrive-fix', version: '1', workflowId: run, input: { run } });
  await failed(run);
  assert.equal(service.count('/cwrong', run), 1);
  const registry = new DefinitionRegistry([dir]);
  await assert.rejects(redrive(client, { workflowId: run, definitionVersion: '3', registry }), (err: Error) => {
    assert.ok(err instanceof RedriveRefused);
    assert.match(err.message, /the state "A" the run completed changed \(at \/actions\/0\/actionDataFilter\/toStateData\)/);
    console.log(`refused: ${err.message}`);
    return true;
  });
  const r = await redrive(client, { workflowId: run, definitionVersion: '2', registry });
  assert.equal(r.definitionVersion, '2');
  const result = (await completes(run, r.newRunId!)) as Record<string, unknown>;
  assert.deepEqual(result.c, { c: '/c-ok' });
  assert.deepEqual([service.count('/a', run), service.count('/b', run), service.count('/c', run)], [1, 1, 1], 'a and b not made again; c made once, by version 2');
  const desc = await client.workflow.getHandle(run).describe();
  assert.equal(desc.searchAttributes.SwDefinitionVersion?.[0], '2');
  await saveHistory(client, run, 'interpreter-redrive-onto-version');
  console.log(`onto version 2: ${r.reused} calls reused, completed; SwDefinitionVersion=2`);
});

test('bulk: 200 failed runs redriven by a query at a rate, 0 successful calls repeated', async () => {
  const n = 200;
  service.down.add('/c');
  const ids = Array.from({ length: n }, (_, k) => `bulk-${k}`);
  for (let k = 0; k < n; k += 20) await Promise.all(ids.slice(k, k + 20).map((id) => startWorkflow(client, { id: 'redrive-bulk', workflowId: id, input: { run: id } })));
  await Promise.all(ids.map((id) => failed(id)));
  service.down.delete('/c');
  const query = 'SwDefinitionId = "redrive-bulk" AND ExecutionStatus = "Failed"';
  // Visibility is eventually consistent: wait until it lists them all.
  for (let t = 0; t < 100; t++) {
    const { count } = await client.workflow.count(query);
    if (count >= n) break;
    await delay(200);
  }
  const dry = await redriveMany(client, { query, dryRun: true, ratePerSecond: 1000 });
  assert.equal(dry.counts.planned, n);
  assert.ok(dry.outcomes.every((o) => 'result' in o && o.result.step === 'C'));
  const report = await redriveMany(client, { query, ratePerSecond: 50 });
  assert.equal(report.counts.redriven, n, JSON.stringify(report.outcomes.filter((o) => o.outcome !== 'redriven').slice(0, 3)));
  assert.ok(report.ms >= ((n - 1) / 50) * 1000 * 0.9, `the rate limit holds: ${report.ms} ms for ${n} at 50/s`);
  await Promise.all(report.outcomes.map((o) => ('result' in o ? completes(o.workflowId, o.result.newRunId!) : undefined)));
  const repeated = ids.filter((id) => service.count('/a', id) !== 1 || service.count('/b', id) !== 1).length;
  assert.equal(repeated, 0);
  assert.ok(ids.every((id) => service.count('/c', id) === 2));
  // Redriven already: the old runs are not the latest, so a second bulk refuses them all.
  const again = await redriveMany(client, { query, ratePerSecond: 1000 });
  assert.equal(again.counts.redriven, 0);
  console.log(`bulk: ${n} runs redriven in ${report.ms} ms at 50/s (dry run ${dry.ms} ms), all completed, ${repeated} successful calls repeated; again: ${JSON.stringify(again.counts)}`);
});
