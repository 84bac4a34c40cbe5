/**
 * `start.schedule` as Temporal Schedules, on the dev server: an interval schedule starts runs
 * of the definition (served by the real interpreter worker), `temporal schedule list` shows it,
 * a changed definition updates it, and `swflow schedules sync` deletes it once the definition
 * file is gone. Plus the spec's mapping (cron dialects, validUntil, time zones) and what
 * happens to a schedule on an event start state (a warning; no Schedule).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { formatFinding, loadAnyDefinition, loadDefinition } from '../../src/dsl';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { keepSchedulesInSync, listSchedules, scheduledDefinitions, scheduleIdOf, scheduleSpecOf, syncSchedules, v1ScheduleSpecOf } from '../../src/client/schedules';
import { route } from '../../src/gateway/routing';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { runSwflow } from '../helpers/cli';


const ticker = (interval: string) => ({
  id: 'ticker',
  specVersion: '0.8',
  start: { stateName: 'Tick', schedule: interval },
  states: [{ name: 'Tick', type: 'inject', data: { ticked: true }, end: true }],
});

let dir: string;
let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-schedules-'));
  env = await startDevEnv();
  client = env.client as Client;
  worker = await createInterpreterWorker({ connection: env.nativeConnection as NativeConnection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [dir], workflowBundle: await bundleInterpreter() });
  running = worker.run();
});

after(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  rmSync(dir, { recursive: true, force: true });
});

test('the spec\'s schedule forms map onto Temporal Schedule specs', () => {
  assert.deepEqual(scheduleSpecOf({ interval: 'R/PT2H' }), { intervals: [{ every: 7_200_000 }] });
  assert.deepEqual(scheduleSpecOf({ interval: 'R/2020-03-20T13:00:00Z/PT2H' }), { intervals: [{ every: 7_200_000, offset: 3_600_000 }], startAt: new Date('2020-03-20T13:00:00Z') });
  assert.deepEqual(scheduleSpecOf({ interval: 'R/PT2H/2020-05-11T15:30:00Z' }), { intervals: [{ every: 7_200_000 }], endAt: new Date('2020-05-11T15:30:00Z') });
  // Local date-times are in the schedule's time zone (Paris is UTC+1 in March 2020).
  assert.deepEqual(scheduleSpecOf({ interval: 'R/2020-03-20T13:00:00/PT1H', timezone: 'Europe/Paris' }).startAt, new Date('2020-03-20T12:00:00Z'));
  // Quartz (seconds first, '?', Sunday = 1) as in the spec's examples, and Unix 5-field cron.
  assert.deepEqual(scheduleSpecOf({ cron: { expression: '0 0/15 * * * ?' } }).cronExpressions, ['0 0/15 * * * * *']);
  assert.deepEqual(scheduleSpecOf({ cron: { expression: '0 0 12 ? * 2-6' } }).cronExpressions, ['0 0 12 * * 1-5 *']);
  assert.deepEqual(scheduleSpecOf({ cron: { expression: '0 9 8 * *' } }).cronExpressions, ['0 0 9 8 * * *']);
  const until = scheduleSpecOf({ cron: { expression: '0 15,30,45 * ? * *', validUntil: '2021-11-05T08:15:30-05:00' }, timezone: 'America/New_York' });
  assert.deepEqual([until.endAt, until.timezone], [new Date('2021-11-05T13:15:30Z'), 'America/New_York']);
  assert.throws(() => scheduleSpecOf({ cron: { expression: '0 0 0 L * ?' } }), /uses L, W or #/);
});

test('validation: a schedule on an event start state is accepted with a located warning, and no Schedule is made for it; bad intervals, crons and zones are located', async () => {
  const eventStart = (schedule: unknown) => ({
    id: 'ev',
    specVersion: '0.8',
    events: [{ name: 'E', type: 'e', source: 's' }],
    start: { stateName: 'Wait', schedule },
    states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['E'] }], end: true }],
  });
  const r = await loadDefinition(eventStart({ cron: '0 * * * *' }));
  assert.ok(r.definition, r.problems.map(formatFinding).join('\n'));
  assert.deepEqual(
    r.problems.map((p) => [p.severity, p.pointer, p.message]),
    [['warning', '/start/schedule', "start.schedule is not used: the start state 'Wait' is an event state, so instances start when the event gateway receives its event(s), as without a schedule; swflow makes no Temporal Schedule for this workflow (spec 0.8, Start Definition: scheduling an event start state \"would mean that there needs to be an event service that issues the needed events at the defined times\")"]],
  );
  // What the warning says: the event start definition gets no Temporal Schedule; a scheduled one does.
  const tickerDef = (await loadDefinition(ticker('R/PT1H'))).definition!;
  assert.deepEqual(scheduledDefinitions([r.definition, tickerDef]).map((d) => d.id), ['ticker']);
  // ... and its event starts an instance through the gateway, as without a schedule.
  assert.deepEqual(route([r.definition], { specversion: '1.0', id: 'bid-1', type: 'e', source: 's' }), [{ via: 'id', workflowType: 'ev', workflowId: 'ev/s/bid-1', start: true, keyedBy: 'event', events: ['E'] }]);
  // The unused schedule's own problems are warnings too (the sdk-java example's start/end interval).
  const window = await loadDefinition(eventStart('2020-03-20T09:00:00Z/2020-03-20T15:00:00Z'));
  assert.ok(window.definition);
  assert.deepEqual(window.problems.map((p) => p.severity), ['warning', 'warning']);
  assert.match(formatFinding(window.problems[1]), /warning: invalid schedule interval: .* start\/end pairs of date-times are not allowed by the spec's interval format \(the schedule is not used\)/);
  const bad = async (schedule: unknown) =>
    (await loadDefinition({ id: 'b', specVersion: '0.8', start: { stateName: 'a', schedule }, states: [{ name: 'a', type: 'inject', data: {}, end: true }] })).problems.map(formatFinding).join('\n');
  assert.match(await bad('R5/PT1H'), /number of recurrences.*at \/start\/schedule/);
  assert.match(await bad('R/P1M'), /years or months.*at \/start\/schedule/);
  assert.match(await bad({ cron: { expression: '* * *' } }), /has 3 fields.*at \/start\/schedule\/cron\/expression/);
  assert.match(await bad({ cron: { expression: '0 * * * *', validUntil: 'soon' } }), /invalid validUntil.*at \/start\/schedule\/cron\/validUntil/);
  assert.match(await bad({ interval: 'R/PT1H', timezone: 'Mars/Olympus' }), /not a known IANA time zone.*at \/start\/schedule\/timezone/);
});

test('an interval schedule starts runs; it is updated when the definition changes and deleted (swflow schedules sync) when it goes', { timeout: 180_000 }, async () => {
  const file = join(dir, 'ticker.sw.json');
  writeFileSync(file, JSON.stringify(ticker('R/PT2S')));
  const registry = new DefinitionRegistry([dir]);
  const id = scheduleIdOf('ticker');

  // What a serving worker does (swflow worker / swflow start): sync now and then periodically.
  const keeper = keepSchedulesInSync(client, () => registry.definitions(), { intervalMs: 60_000 });
  const first = await keeper.ready;
  await keeper.stop();
  assert.deepEqual(first?.created, [id]);

  // A real Temporal Schedule: the Temporal CLI lists it.
  const cli = await resolveTemporalCli();
  const listed = spawnSync(cli!.path, ['schedule', 'list', '--address', env.address, '--namespace', 'default', '-o', 'json'], { encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`"scheduleId": "${id.replace('/', '\\/')}"`));

  // It starts runs of the definition, which the interpreter completes.
  let completed = 0;
  for (let i = 0; i < 300 && completed < 2; i++) {
    completed = 0;
    for await (const w of client.workflow.list({ query: `WorkflowType = 'ticker' AND ExecutionStatus = 'Completed'` })) if (w.workflowId.startsWith('ticker/scheduled')) completed++;
    if (completed < 2) await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(completed >= 2, `scheduled runs completed: ${completed}`);
  let last: string | undefined;
  for await (const w of client.workflow.list({ query: `WorkflowType = 'ticker' AND ExecutionStatus = 'Completed'` })) last = w.workflowId;
  assert.deepEqual(await client.workflow.getHandle(last!).result(), { ticked: true });
  assert.deepEqual((await listSchedules(client)).map((s) => [s.scheduleId, s.definitionId]), [[id, 'ticker']]);

  // The definition changes: the Schedule follows; syncing again changes nothing.
  writeFileSync(file, JSON.stringify(ticker('R/PT1H')));
  await new Promise((r) => setTimeout(r, 20)); // a new mtime for the registry
  const changed = await syncSchedules(client, await registry.definitions());
  assert.deepEqual([changed.updated, changed.created], [[id], []]);
  assert.deepEqual((await client.schedule.getHandle(id).describe()).spec.intervals?.map((i) => i.every), [3_600_000]);
  assert.deepEqual((await syncSchedules(client, await registry.definitions())).unchanged, [id]);

  // The definition goes: `swflow schedules sync` (the real CLI) deletes its Schedule.
  rmSync(file);
  const sync = await runSwflow(env.address, ['schedules', 'sync', '--definitions', dir]);
  assert.equal(sync.code, 0, sync.err);
  assert.match(sync.out, new RegExp(`schedule ${id} deleted \\(its definition is gone\\)`));
  await assert.rejects(client.schedule.getHandle(id).describe(), ScheduleNotFoundError);
});

test('schedules of other task queues and hand-made ones are left alone', { timeout: 60_000 }, async () => {
  const other = await client.schedule.create({
    scheduleId: 'hand-made',
    spec: { intervals: [{ every: '1h' }] },
    action: { type: 'startWorkflow', workflowType: 'x', taskQueue: INTERPRETER_TASK_QUEUE, args: [{}] },
    state: { paused: true },
  });
  const report = await syncSchedules(client, []);
  assert.ok(!report.deleted.includes('hand-made'));
  await other.describe();
  await other.delete();
});

/** A 1.0 document that sets `{ ticked: true }`, with a schedule. */
const ticker1 = (schedule: Record<string, unknown>) => ({
  document: { dsl: '1.0.3', namespace: 'tests', name: 'ticker1', version: '0.1.0' },
  schedule,
  do: [{ tick: { set: { ticked: true } } }],
});

test('1.0 schedule: every and cron map onto Temporal Schedule specs; after and on are served (one form per document), bad values located', async () => {
  assert.deepEqual(v1ScheduleSpecOf({ every: { minutes: 5 } }), { intervals: [{ every: 300_000 }] });
  assert.deepEqual(v1ScheduleSpecOf({ every: 'PT2H' }), { intervals: [{ every: 7_200_000 }] });
  assert.deepEqual(v1ScheduleSpecOf({ cron: '0 0 * * *' }).cronExpressions, ['0 0 0 * * * *']);
  const problems = async (schedule: unknown) => (await loadAnyDefinition(ticker1(schedule as Record<string, unknown>))).problems.map(formatFinding).join('\n');
  assert.doesNotMatch(await problems({ every: { seconds: 2 } }), /schedule/);
  assert.equal(await problems({ after: { minutes: 1 } }), '');
  assert.equal(await problems({ on: { one: { with: { type: 'tick' } } } }), '');
  assert.match(await problems({ after: 'PT1M', every: 'PT1M' }), /a schedule gives one of 'every', 'cron', 'after' or 'on', not 'every' and 'after'.*at \/schedule/);
  assert.match(await problems({ after: 'P1Y' }), /at \/schedule\/after/);
  assert.match(await problems({ on: { one: { with: { type: 'tick' }, correlate: { k: { from: '${ $context.k }' } } } } }), /correlate.k.from reads more than the event.*at \/schedule\/on/);
  assert.match(await problems({ cron: '* * *' }), /invalid cron expression.*at \/schedule\/cron/);
  // every as a runtime expression: nothing to evaluate it on when the Schedule is made
  assert.match(await problems({ every: '${ "PT1H" }' }), /warning: 'schedule.every' as a runtime expression is not supported.*at \/schedule\/every/);
  assert.throws(() => v1ScheduleSpecOf({ every: '${ "PT1H" }' }), /schedule\.every "\$\{ \\"PT1H\\" \}" is a runtime expression: a Temporal Schedule's interval is fixed when it is made/);
});

test('1.0 schedule every: a Temporal Schedule starts runs of the document; it goes with the document', { timeout: 120_000 }, async () => {
  const file = join(dir, 'ticker1.sw.json');
  writeFileSync(file, JSON.stringify(ticker1({ every: { seconds: 2 } })));
  const registry = new DefinitionRegistry([dir]);
  const id = scheduleIdOf('tests/ticker1');
  assert.deepEqual((await syncSchedules(client, await registry.allDefinitions())).created, [id]);
  let done: string | undefined;
  for (let i = 0; i < 300 && !done; i++) {
    for await (const w of client.workflow.list({ query: `WorkflowType = 'tests/ticker1' AND ExecutionStatus = 'Completed'` })) done = w.workflowId;
    if (!done) await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(done?.startsWith('tests/ticker1/scheduled'), `a scheduled run completed: ${done}`);
  assert.deepEqual(await client.workflow.getHandle(done!).result(), { ticked: true });
  rmSync(file);
  assert.deepEqual((await syncSchedules(client, await registry.allDefinitions())).deleted, [id]);
});
