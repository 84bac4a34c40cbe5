/**
 * The interpreter worker as deployed: definitions resolved from a folder by workflow type
 * (started from the real `temporal` CLI), pinned into history, search attributes, current
 * details, activity/timer summaries in history, and a clear failure for an unknown id.
 * Also records histories for the replay test (test/fixtures/histories/).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { startDevEnv } from '../helpers/temporal';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { startWorkflow } from '../../src/client/start';
import { loadDefinitionFile } from '../../src/dsl';
import { DEFAULT_DEFINITIONS_DIR } from '../../src/worker/interpreter-worker';
import { ce, def, harness, type Harness } from './helpers';

const run = promisify(execFile);
let h: Harness;

before(async () => {
  h = await harness(await startDevEnv(), [], [DEFAULT_DEFINITIONS_DIR]);
});
after(async () => {
  await h?.close();
  await h?.env.teardown();
});

const saveHistory = (workflowId: string, name: string) => h.saveHistory(workflowId, name);

test('helloworld from examples/, started with the temporal CLI by --type', async () => {
  const cli = await resolveTemporalCli();
  assert.ok(cli, 'temporal CLI available');
  const workflowId = `cli-hello-${randomUUID().slice(0, 8)}`;
  const common = ['--address', h.env.address, '--namespace', 'default'];
  await run(cli!.path, ['workflow', 'start', '--type', 'helloworld', '--task-queue', 'swflow', '--workflow-id', workflowId, '--input', '{}', ...common]);
  const { stdout } = await run(cli!.path, ['workflow', 'result', '--workflow-id', workflowId, ...common]);
  assert.match(stdout, /Hello World!/);
  assert.deepEqual(await h.env.client.workflow.getHandle(workflowId).result(), { result: 'Hello World!' });
  // the definition is pinned into history by the resolving local activity (a marker)
  const history = await saveHistory(workflowId, 'interpreter-helloworld-by-type');
  const marker = history.events!.find((e: any) => e.markerRecordedEventAttributes);
  assert.ok(marker, 'local activity marker recorded');
  const pc = h.env.client.options.loadedDataConverter.payloadConverter;
  const pinned: any = pc.fromPayload((marker!.markerRecordedEventAttributes!.details as any).result.payloads[0]);
  assert.equal(pinned.definition.id, 'helloworld');
  assert.match(pinned.source, /hello-world\.sw\.json$/);
  // search attributes
  const desc = await h.env.client.workflow.getHandle(workflowId).describe();
  assert.deepEqual(desc.searchAttributes.SwDefinitionId, ['helloworld']);
  assert.deepEqual(desc.searchAttributes.SwDefinitionVersion, ['1.0']);
  assert.deepEqual(desc.searchAttributes.SwState, ['Hello State']);
  assert.equal(String(desc.searchAttributes.SwDefinitionHash).length, 64);
});

test('greeting from examples/ with startWorkflow (staticSummary names the definition); summaries in history', async () => {
  h.reset();
  h.mocks.greetingFunction = (a) => ({ greeting: `Welcome to Serverless Workflow, ${a.name}!` });
  const handle = await startWorkflow(h.env.client, { id: 'greeting', input: { person: { name: 'John' } } });
  assert.equal(await handle.result(), 'Welcome to Serverless Workflow, John!');
  assert.deepEqual(h.calls[0].arguments, { name: 'John' });
  const desc = await handle.describe();
  assert.match((await desc.staticSummary()) ?? '', /greeting/);
  const history = await saveHistory(handle.workflowId, 'interpreter-greeting-by-id');
  const scheduled = history.events!.filter((e: any) => e.activityTaskScheduledEventAttributes);
  const summaries = await Promise.all(scheduled.map((e: any) => h.env.client.options.loadedDataConverter.payloadConverter.fromPayload(e.userMetadata!.summary!)));
  assert.deepEqual(summaries, ['Greet › action 1 → greetingFunction']);
});

test('timer summaries and current details (Markdown table of the path)', async () => {
  h.reset();
  const d = def({
    id: 'napper',
    start: 'Nap',
    events: [{ name: 'Go', type: 'go' }],
    states: [
      { name: 'Nap', type: 'sleep', duration: 'PT0.2S', transition: 'Wait' },
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'] }], end: true },
    ],
  });
  const handle = await h.start(d);
  for (let i = 0; i < 100; i++) {
    const s: any = await handle.query('state');
    if (s.currentStates.includes('Wait')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  // what the Web UI shows as "current details"
  const meta: any = await handle.query('__temporal_workflow_metadata');
  const text = meta?.currentDetails;
  await handle.signal('swflow.event', ce('go'));
  await handle.result();
  const history = await saveHistory(handle.workflowId, 'interpreter-sleep-then-event');
  const timer = history.events!.find((e: any) => e.timerStartedEventAttributes);
  assert.equal(h.env.client.options.loadedDataConverter.payloadConverter.fromPayload(timer!.userMetadata!.summary!), 'Nap → sleep PT0.2S');
  assert.match(String(text), /\| 2 \| Wait \| event \| running \|/);
  const state: any = await handle.query('state');
  assert.deepEqual(state.statesEntered, ['Nap', 'Wait']);
  assert.equal(state.status, 'completed');
});

test('started as <id>@<version>: that version of the definition runs', async () => {
  const handle = await h.env.client.workflow.start('helloworld@1.0', { taskQueue: 'swflow', workflowId: `v-${randomUUID().slice(0, 8)}`, args: [{ v: 1 }] });
  assert.deepEqual(await handle.result(), { v: 1, result: 'Hello World!' });
  const missing = await h.env.client.workflow.start('helloworld@9.9', { taskQueue: 'swflow', workflowId: `v-${randomUUID().slice(0, 8)}`, args: [{}] });
  await assert.rejects(missing.result(), (e: any) => /version "9.9"/.test(e.cause?.message ?? '') && /helloworld@1.0/.test(e.cause?.message ?? ''));
});

test('an unknown definition id fails the run naming the id and where the worker looked', async () => {
  const handle = await h.env.client.workflow.start('no-such-flow', { taskQueue: 'swflow', workflowId: `unknown-${randomUUID().slice(0, 8)}`, args: [{}] });
  await assert.rejects(handle.result(), (e: any) => {
    assert.ok(e instanceof WorkflowFailedError);
    assert.match(e.cause?.message ?? '', /no-such-flow/);
    assert.match(e.cause?.message ?? '', /examples/);
    return true;
  });
});

test('a definition loaded by src/dsl runs with StartOptions.definition (recorded for replay)', async () => {
  h.reset();
  const { definition } = await loadDefinitionFile(join(DEFAULT_DEFINITIONS_DIR, 'hello-world.sw.json'));
  const handle = await h.start(definition!, { x: 1 });
  assert.deepEqual(await handle.result(), { x: 1, result: 'Hello World!' });
  await saveHistory(handle.workflowId, 'interpreter-helloworld-with-definition');
});

test('search attributes are written at most once per workflow task, just before the run blocks: a loop writes none per iteration', async () => {
  h.reset();
  h.mocks.inc = (a) => ({ count: a.count + 1 });
  const d = def({
    id: 'sa-loop',
    start: 'Increment',
    functions: [{ name: 'inc', operation: 'x#inc' }],
    states: [
      { name: 'Increment', type: 'operation', actions: [{ functionRef: { refName: 'inc', arguments: { count: '${ .count }' } } }], transition: 'Check' },
      { name: 'Check', type: 'switch', dataConditions: [{ condition: '${ .count < 5 }', transition: 'Increment' }], defaultCondition: { end: true } },
    ],
  });
  const handle = await h.start(d, { count: 0 });
  assert.deepEqual(await handle.result(), { count: 5 });
  const events = (await handle.fetchHistory()).events as any[];
  const ours = (e: any) => !!e.upsertWorkflowSearchAttributesEventAttributes;
  const upserts = events.filter(ours);
  // one before the first activity (definition attributes + SwState=Increment), one at completion (SwState=Check)
  assert.equal(upserts.length, 2, `upserts: ${upserts.length}`);
  let perTask = 0;
  for (const e of events) {
    if (e.workflowTaskCompletedEventAttributes) perTask = 0;
    if (ours(e)) assert.ok(++perTask <= 1, 'at most one upsert per workflow task');
  }
  // activity events: exactly the 5 calls; the rest is workflow tasks and the two upserts
  assert.equal(events.filter((e) => e.activityTaskScheduledEventAttributes).length, 5);
  const desc = await handle.describe();
  assert.deepEqual(desc.searchAttributes.SwState, ['Check']);
  assert.deepEqual(desc.searchAttributes.SwDefinitionId, ['sa-loop']);
  assert.ok(!events.some((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch'), 'no patch marker (versioned by the resolve result)');
  await saveHistory(handle.workflowId, 'interpreter-upserts-before-blocking');
});
