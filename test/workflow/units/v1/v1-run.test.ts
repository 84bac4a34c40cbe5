/**
 * V1Run, the 1.0 front end, over a real run host and the real task pipeline with fake effects
 * (no server, no SDK globals: the host reads the workflow info and the clock from the effects).
 * The workflow's own data flow, `$workflow`/`$runtime`, the tasks' data flow and flow directives,
 * and the task timeout as a timer of the effects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunHost } from '../../../../src/workflow/host/run-host';
import type { Tracker } from '../../../../src/workflow/host/tracker';
import { V1Run } from '../../../../src/workflow/v1/run';
import { callContextOf } from '../../../../src/workflow/interceptors';
import { WorkflowError } from '../../../../src/workflow/v1/errors';
import { RUNTIME_VERSION } from '../../../../src/common/runtime';
import { FakeTaskContext } from '../fake-task-context';
import { T0, type FakeEffects } from '../fake-effects';

const trackerStub = () => ({ current: [] as string[], entered: [] as string[], status: 'running', upsert: () => undefined, trackAwaitedEvents: () => undefined, enter: (state: string) => ({ state }), leave: () => undefined, render: () => undefined, flush: () => undefined }) as unknown as Tracker;

async function runOf(doc: Record<string, unknown>): Promise<{ run: V1Run; effects: FakeEffects }> {
  const fake = await FakeTaskContext.of(doc); // the document, loaded; the fake effects
  const host = new RunHost({ definition: fake.def as never }, fake.effects);
  host.pin({ hash: 'test', source: 'test', searchAttributes: [], features: [...fake.features] });
  host.tracker = trackerStub();
  return { run: new V1Run(host, fake.def as never), effects: fake.effects };
}

test('V1Run over fake effects: if skips, input.from/output.as/export.as transform, then jumps; the call goes through the effects', async () => {
  const { run, effects } = await runOf({
    input: { from: '${ {start: .start, n: 2} }' },
    do: [
      { prepare: { set: { a: 1, b: '${ .n }' }, export: { as: '${ {seen: .a} }' } } },
      { skipped: { if: '${ .a > 5 }', set: { never: true } } },
      { pick: { input: { from: '${ {x: .b} }' }, set: { y: '${ .x * 10 }', seen: '${ $context.seen }' }, output: { as: '${ .y + .seen }' }, then: 'fetch' } },
      { notRun: { set: { no: true } } },
      { fetch: { call: 'http', with: { method: 'get', endpoint: 'https://svc.example/n/{n}' }, input: { from: '${ {n: .} }' }, output: { as: '${ {got: ., in: $input} }' } } },
    ],
    output: { as: '${ .got }' },
  });
  effects.activities['sw.http'] = (args) => (args[0] as { endpoint: { uri: string } }).endpoint.uri; // the input is the evaluated `with` (v1-call-headers)
  const output = await effects.drive(() => run.run({ start: true, ignored: 1 }));
  assert.equal(output, 'https://svc.example/n/21');
  assert.deepEqual(run.tasks.context, { seen: 1 });
  assert.deepEqual(run.entered(), ['prepare', 'skipped', 'pick', 'fetch']);
  const [c] = effects.of('activity');
  assert.equal(c.options.summary, '/do/4/fetch → GET https://svc.example/n/21');
  assert.deepEqual(callContextOf(c.args)?.workflow, { id: 'wf-1', instanceId: 'run-1', definitionId: 'test/units' });
});

test('V1Run over fake effects: $workflow and $runtime are the run\'s (its input, its start on the effects\' clock, the package version)', async () => {
  const { run, effects } = await runOf({
    do: [{ describe: { set: { input: '${ $workflow.input }', startedAt: '${ $workflow.startedAt.epoch.milliseconds }', iso: '${ $workflow.startedAt.iso8601 }', runtime: '${ $runtime.name + "/" + $runtime.version }', runId: '${ $runtime.metadata.runId }' } } }],
  });
  const output = await effects.drive(() => run.run({ who: 'me' }));
  assert.deepEqual(output, { input: { who: 'me' }, startedAt: T0, iso: new Date(T0).toISOString(), runtime: `swflow/${RUNTIME_VERSION}`, runId: 'run-1' });
  assert.match(RUNTIME_VERSION, /^\d+\.\d+\.\d+/);
});

test('V1Run over fake effects: a task timeout is a timer of the effects; the failure is a problem at the task', async () => {
  const { run, effects } = await runOf({ do: [{ nap: { wait: { minutes: 5 }, timeout: { after: { seconds: 30 } } } }] });
  await assert.rejects(effects.drive(() => run.tasks.runList(run.def.workflow.do, '/do', {}, {})), (e: unknown) => {
    assert.ok(e instanceof WorkflowError);
    assert.deepEqual([e.problem.status, e.problem.instance, e.problem.detail], [408, '/do/0/nap', 'task /do/0/nap did not finish within PT30S (timeout.after)']);
    return true;
  });
  assert.deepEqual(
    effects.commands.map((c) => [c.kind, c.state, c.at]),
    [
      ['timer', 'fired', 0],
      ['timer', 'cancelled', 0],
    ],
  );
  assert.equal(effects.elapsed, 30_000);
});
