/**
 * The run's own per-task data flow (V1Run.runTask: if → input.from → the executor → output.as →
 * export.as → then) over the fake effects, without a server: V1Run takes its effects from its
 * run host (built here with the fake effects) and hands them to every executor. V1Run reads workflowInfo() once when it
 * is built, so a stand-in of the SDK's activator holding only `info` is installed meanwhile;
 * nothing else of the SDK may be reached (no schemas, no lifecycle events, a tracker stub).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Json } from '../../../src/common/model';
import { RunHost } from '../../../src/workflow/host/run-host';
import type { Tracker } from '../../../src/workflow/ui';
import { V1Run } from '../../../src/workflow/v1/run';
import { callContextOf } from '../../../src/workflow/interceptors';
import { WorkflowError } from '../../../src/workflow/v1/errors';
import { FakeTaskContext, T0, type FakeEffects } from './fake-task-context';

const g = globalThis as { __TEMPORAL_ACTIVATOR__?: unknown };
before(() => {
  g.__TEMPORAL_ACTIVATOR__ = { info: { workflowId: 'wf-9', runId: 'run-9', taskQueue: 'swflow', namespace: 'default', historyLength: 3, workflowType: 'test/units' } };
});
after(() => {
  delete g.__TEMPORAL_ACTIVATOR__;
});

const trackerStub = () => ({ current: [] as string[], entered: [] as string[], status: 'running', upsert: () => undefined, trackAwaitedEvents: () => undefined, enter: (state: string) => ({ state }), leave: () => undefined, render: () => undefined, flush: () => undefined }) as unknown as Tracker;

async function runOf(doc: Record<string, unknown>): Promise<{ run: V1Run; effects: FakeEffects }> {
  const fake = await FakeTaskContext.of(doc); // the document, loaded; the fake effects
  const host = new RunHost({ definition: fake.def as never }, fake.effects);
  host.pin({ hash: 'test', source: 'test', searchAttributes: [], features: [...fake.features] });
  host.tracker = trackerStub();
  const run = new V1Run(host, fake.def as never);
  return { run, effects: fake.effects };
}

test('V1Run over fake effects: if skips, input.from/output.as/export.as transform, then jumps; the call goes through the effects', async () => {
  const { run, effects } = await runOf({
    do: [
      { prepare: { set: { a: 1, b: 2 }, export: { as: '${ {seen: .a} }' } } },
      { skipped: { if: '${ .a > 5 }', set: { never: true } } },
      { pick: { input: { from: '${ {x: .b} }' }, set: { y: '${ .x * 10 }', seen: '${ $context.seen }' }, output: { as: '${ .y + .seen }' }, then: 'fetch' } },
      { notRun: { set: { no: true } } },
      { fetch: { call: 'http', with: { method: 'get', endpoint: 'https://svc.example/n/{n}' }, input: { from: '${ {n: .} }' }, output: { as: '${ {got: ., in: $input} }' } } },
    ],
  });
  effects.activities['sw.http'] = (args) => (args[0] as { endpoint: { uri: string } }).endpoint.uri; // the input is the evaluated `with` (v1-call-headers)
  const r = await effects.drive(run.runList(run.def.workflow.do, '/do', { start: true }, {}));
  assert.deepEqual(r, { output: { got: 'https://svc.example/n/21', in: { n: 21 } }, end: false, exited: false });
  assert.deepEqual(run.context, { seen: 1 });
  assert.deepEqual(run.entered(), ['prepare', 'skipped', 'pick', 'fetch']);
  const [c] = effects.of('activity');
  assert.equal(c.options.summary, '/do/4/fetch → GET https://svc.example/n/21');
  assert.deepEqual(callContextOf(c.args)?.workflow, { id: 'wf-9', instanceId: 'run-9', definitionId: 'test/units' });
});

test('V1Run over fake effects: a task timeout is a timer of the effects; the failure is a problem at the task', async () => {
  const { run, effects } = await runOf({ do: [{ nap: { wait: { minutes: 5 }, timeout: { after: { seconds: 30 } } } }] });
  await assert.rejects(effects.drive(run.runList(run.def.workflow.do, '/do', {}, {})), (e: unknown) => {
    assert.ok(e instanceof WorkflowError);
    assert.deepEqual([e.problem.status, e.problem.instance, e.problem.detail], [408, '/do/0/nap', 'task /do/0/nap did not finish within PT30S (timeout.after)']);
    return true;
  });
  assert.deepEqual(
    effects.commands.map((c) => [c.kind, c.state, c.at - T0]),
    [
      ['timer', 'fired', 0],
      ['timer', 'cancelled', 0],
    ],
  );
  assert.equal(effects.elapsed, 30_000);
});
