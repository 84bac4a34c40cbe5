/**
 * The 1.0 `run` task (v1/tasks/run.ts): a child workflow, and shell, script and container
 * processes as activities on their queue.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ParentClosePolicy } from '@temporalio/workflow';
import type { Json } from '../../../../src/common/model';
import type { V1Definition } from '../../../../src/common/model-v1';
import type { FunctionCall } from '../../../../src/common/contracts';
import { FEATURE_V1_RUN_CONTAINER } from '../../../../src/common/features';
import { DEFAULT_FEATURES, FakeTaskContext } from '../fake-task-context';

/** A child's workflow arguments (ChildWorkflowOptions types them apart). */
const argsOf = (options: object): Json[] => (options as { args: Json[] }).args;

test('run workflow: a child of the generic workflow with its definition, input, id, queue and parent-close policy', async () => {
  const child = (await FakeTaskContext.of({ document: { name: 'child' }, do: [{ s: { set: { ok: true } } }] })).def;
  const subflows = { 'test/child@1.0.0': child as unknown as V1Definition };
  const ctx = await FakeTaskContext.of(
    {
      do: [
        { adopt: { run: { workflow: { namespace: 'test', name: 'child', version: '1.0.0', input: { pet: '${ .petId }' } } } } },
        { spawn: { run: { workflow: { namespace: 'test', name: 'child', version: '1.0.0' }, await: false } } },
      ],
    },
    { subflows: subflows as never },
  );
  ctx.effects.children['test/child@1.0.0'] = (options) => ({ childGot: argsOf(options)[0] });
  assert.deepEqual(await ctx.exec('adopt', { petId: 7 }), { output: { childGot: { pet: 7 } } });
  const [c] = ctx.effects.of('executeChild');
  assert.equal(c.type, 'test/child@1.0.0');
  assert.deepEqual(c.options, {
    args: [{ pet: 7 }, { definition: child, subflows }],
    workflowId: 'child-00000000-0000-4000-8000-000000000001',
    taskQueue: 'swflow-interpreter',
    parentClosePolicy: ParentClosePolicy.TERMINATE,
    staticSummary: '/do/0/adopt → workflow test/child@1.0.0',
    staticDetails: 'Subflow **test/child@1.0.0** of test/units (task /do/0/adopt)',
  });

  assert.deepEqual(await ctx.exec('spawn', { petId: 8 }), { output: { petId: 8 } });
  const [s] = ctx.effects.of('startChild');
  assert.equal(s.options.parentClosePolicy, ParentClosePolicy.ABANDON);
  assert.equal(s.options.workflowId, 'child-00000000-0000-4000-8000-000000000002');
  assert.deepEqual(argsOf(s.options), [{ petId: 8 }, { definition: child, subflows }]);
});

test('run shell/script: the evaluated process spec as an activity on its queue', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      { sh: { metadata: { worker: 'my-processes' }, run: { shell: { command: '${ "echo " + .name }', arguments: ['-n'], environment: { GREETING: '${ .greeting }' } } } } },
      { js: { run: { script: { language: 'js', code: 'console.log(1)', stdin: '${ {n: .n} }' }, return: 'code', await: false } } },
    ],
  });
  ctx.effects.activities['sw.run.shell'] = () => 'pets\n';
  ctx.effects.activities['sw.run.script'] = () => ctx.effects.after(10_000, 0);
  assert.deepEqual(await ctx.exec('sh', { name: 'pets', greeting: 'hi' }), { output: 'pets\n' });
  const [sh] = ctx.effects.of('activity');
  assert.equal(sh.type, 'sw.run.shell');
  assert.deepEqual(sh.args, [
    {
      function: { name: 'shell', type: 'custom', operation: 'run.shell', metadata: {} },
      arguments: { kind: 'shell', code: 'echo pets', arguments: ['-n'], environment: { GREETING: 'hi' }, return: 'stdout' },
      workflow: { id: 'wf-1', instanceId: 'run-1', definitionId: 'test/units' },
      state: '/do/0/sh',
      action: 'sh',
    },
  ]);
  assert.deepEqual(sh.options, { taskQueue: 'my-processes', startToCloseTimeout: 600_000, retry: { maximumAttempts: 1 }, summary: '/do/0/sh → run shell on my-processes' });

  // await: false goes on at once with its input as output.
  assert.deepEqual(await ctx.exec('js', { n: 3 }), { output: { n: 3 } });
  const js = ctx.effects.of('activity')[1];
  assert.deepEqual((js.args[0] as FunctionCall).arguments, { kind: 'script', code: 'console.log(1)', language: 'js', arguments: [], environment: {}, stdin: '{"n":3}', return: 'code' });
  assert.equal(js.options.taskQueue, 'swflow-processes');
  assert.equal(js.state, 'pending');
  assert.equal(ctx.effects.elapsed, 0);
});

test('run container: the evaluated container spec on the process queue, named by convention; runs without v1-run-container keep the 501', async () => {
  const doc = {
    do: [{ box: { run: { container: { image: 'alpine', command: '${ "echo " + .name }', ports: { 8080: 80 }, volumes: { '/data': '/mnt' }, environment: { A: '${ .name }' }, lifetime: { cleanup: 'eventually', after: { seconds: 30 } } } } } }],
  };
  const ctx = await FakeTaskContext.of(doc);
  ctx.effects.activities['sw.run.container'] = () => 'pets\n';
  assert.deepEqual(await ctx.exec('box', { name: 'pets' }), { output: 'pets\n' });
  const [box] = ctx.effects.of('activity');
  assert.equal(box.type, 'sw.run.container');
  assert.equal(box.options.taskQueue, 'swflow-processes');
  const args = (box.args[0] as FunctionCall).arguments as Record<string, unknown>;
  assert.match(String(args.name), /^units-[0-9a-f-]{36}\.test-box$/);
  assert.deepEqual({ ...args, name: undefined }, {
    kind: 'container', code: 'echo pets', arguments: [], environment: { A: 'pets' }, return: 'stdout',
    image: 'alpine', name: undefined, ports: { 8080: 80 }, volumes: { '/data': '/mnt' }, cleanup: 'eventually', afterMs: 30_000,
  });
  const before = await FakeTaskContext.of(doc, { features: DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_RUN_CONTAINER) });
  await assert.rejects(before.exec('box', {}), /run.container is not supported by this runtime/);
  assert.equal(before.effects.of('activity').length, 0);
});
