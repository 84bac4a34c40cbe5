/**
 * `use.extensions` and `evaluate.mode: loose` in the task pipeline over the fake effects (no server): which
 * tasks an extension wraps, the data its lists see and give, their order, their references, and
 * that runs recorded without the features (v1-extensions, v1-loose-evaluation) ignore them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Json } from '../../../../src/common/model';
import { WorkflowError } from '../../../../src/workflow/v1/errors';
import { FEATURE_V1_EXTENSIONS, FEATURE_V1_LOOSE_EVALUATION } from '../../../../src/common/features';
import { DEFAULT_FEATURES, FakeTaskContext } from '../fake-task-context';
import type { FakeEffects } from '../fake-effects';

async function runOf(doc: Record<string, unknown>, features: string[] = DEFAULT_FEATURES): Promise<{ run: FakeTaskContext; effects: FakeEffects; entered: string[] }> {
  const run = await FakeTaskContext.of(doc, { features });
  return { run, effects: run.effects, entered: run.entered };
}

const drive = (run: FakeTaskContext, effects: FakeEffects, input: Json = {}) => effects.drive(() => run.runList(run.def.workflow.do, '/do', input, {}));

/** Every sw.http call's method and URI, in order; answers `{ from: <uri> }`. */
function recordHttp(effects: FakeEffects): string[] {
  const calls: string[] = [];
  effects.activities['sw.http'] = (args) => {
    const w = args[0] as { method: string; endpoint: { uri: string } | string; body?: Json };
    const uri = typeof w.endpoint === 'string' ? w.endpoint : w.endpoint.uri;
    calls.push(`${w.method} ${uri}${w.body !== undefined ? ` ${JSON.stringify(w.body)}` : ''}`);
    return { from: uri };
  };
  return calls;
}

const logging = {
  extensions: [
    {
      logging: {
        extend: 'all',
        before: [{ sendLog: { call: 'http', with: { method: 'post', endpoint: 'https://log.example', body: { message: '${ "Executing task \'\\($task.reference)\'..." }' } } } }],
        after: [{ sendLog: { call: 'http', with: { method: 'post', endpoint: 'https://log.example', body: { message: '${ "Executed task \'\\($task.reference)\'..." }' } } } }],
      },
    },
  ],
};

test("extensions: the spec's logging extension wraps every task (not its own tasks); its calls' outputs do not touch the data", async () => {
  const { run, effects, entered } = await runOf({
    use: logging,
    do: [{ sampleTask: { call: 'http', with: { method: 'get', endpoint: 'https://svc.example/sample' } } }, { after: { set: { got: '${ .from }' } } }],
  });
  const calls = recordHttp(effects);
  const r = await drive(run, effects);
  assert.deepEqual(r.output, { got: 'https://svc.example/sample' });
  assert.deepEqual(calls, [
    `post https://log.example {"message":"Executing task '/do/0/sampleTask'..."}`,
    'get https://svc.example/sample',
    `post https://log.example {"message":"Executed task '/do/0/sampleTask'..."}`,
    `post https://log.example {"message":"Executing task '/do/1/after'..."}`,
    `post https://log.example {"message":"Executed task '/do/1/after'..."}`,
  ]);
  // The Web UI's summaries name the extension's task by its own reference.
  assert.deepEqual(
    effects.of('activity').slice(0, 3).map((c) => c.options.summary),
    ['/use/extensions/0/logging/before/0/sendLog → POST https://log.example', '/do/0/sampleTask → GET https://svc.example/sample', '/use/extensions/0/logging/after/0/sendLog → POST https://log.example'],
  );
  assert.deepEqual(entered, [
    '/do/0/sampleTask',
    '/use/extensions/0/logging/before/0/sendLog',
    '/use/extensions/0/logging/after/0/sendLog',
    '/do/1/after',
    '/use/extensions/0/logging/before/0/sendLog',
    '/use/extensions/0/logging/after/0/sendLog',
  ]);
});

test('extensions: before exits → the task is bypassed and its output is the mock (output.as still applies); when reads $task and $workflow', async () => {
  const { run, effects } = await runOf({
    use: {
      extensions: [
        {
          mockService: {
            extend: 'call',
            // The spec's own `when` (mock-service-extension.yaml): fails on an object endpoint, so it reads as false there.
            when: '(($task.with.endpoint != null and ($task.with.endpoint | startswith("https://mocked.service.com"))) or ($task.with.endpoint.uri != null and ($task.with.endpoint.uri | startswith("https://mocked.service.com")))) and $workflow.input.env == "test"',
            before: [{ mockResponse: { set: { statusCode: 200, content: { foo: { bar: 'baz' } }, mocked: '${ $task.reference }' }, then: 'exit' } }],
          },
        },
      ],
    },
    do: [
      { mocked: { call: 'http', with: { method: 'get', endpoint: 'https://mocked.service.com/a' }, output: { as: '${ {foo: .content.foo, by: .mocked} }' } } },
      { objectEndpoint: { call: 'http', with: { method: 'get', endpoint: { uri: 'https://mocked.service.com/b' } }, output: { as: '${ {prev: $input, now: .} }' } } },
      { real: { call: 'http', with: { method: 'get', endpoint: 'https://real.example/c' }, output: { as: '${ {prev: $input, now: .} }' } } },
    ],
  });
  // $workflow.input is the FakeTaskContext's null here: the V1Run's own is set by run(); bind it.
  (run as unknown as { workflowInput: Json }).workflowInput = { env: 'test' };
  const calls = recordHttp(effects);
  const r = await drive(run, effects);
  // The string endpoint is mocked; the object one's `when` fails (startswith on an object): not applied.
  assert.deepEqual(calls, ['get https://mocked.service.com/b', 'get https://real.example/c']);
  assert.deepEqual(r.output, { prev: { prev: { foo: { bar: 'baz' }, by: '/do/0/mocked' }, now: { from: 'https://mocked.service.com/b' } }, now: { from: 'https://real.example/c' } });

  const other = await runOf(run.def.workflow as unknown as Record<string, unknown>);
  (other.run as unknown as { workflowInput: Json }).workflowInput = { env: 'prod' };
  const otherCalls = recordHttp(other.effects);
  await drive(other.run, other.effects);
  assert.deepEqual(otherCalls, ['get https://mocked.service.com/a', 'get https://mocked.service.com/b', 'get https://real.example/c']);
});

test('extensions: after sees the raw output as input and $task.output; exit replaces the raw output, else it is dropped; layers in document order', async () => {
  const { run, effects } = await runOf({
    use: {
      extensions: [
        { outer: { extend: 'set', before: [{ o1: { set: { ignored: true } } }], after: [{ o2: { set: '${ {outer: ., saw: $task.output} }', then: 'exit' } }] } },
        { inner: { extend: 'set', when: '$context.on == true', after: [{ i2: { set: '${ {inner: .} }', then: 'exit' } }] } },
        { log: { extend: 'wait', after: [{ noop: { set: { dropped: true } } }] } },
      ],
    },
    do: [
      { first: { set: { v: 1 }, output: { as: '${ {final: .} }' }, export: { as: '${ {on: true} }' } } },
      { second: { set: { v: 2 } } },
    ],
  });
  const r = await drive(run, effects);
  // first: inner's when is false ($context.on not yet set); outer wraps. second: inner then outer.
  assert.deepEqual(r.output, { outer: { inner: { v: 2 } }, saw: { inner: { v: 2 } } });
  const first = await runOf({ ...(run.def.workflow as unknown as Record<string, unknown>), do: [run.def.workflow.do[0]] });
  const r1 = await drive(first.run, first.effects);
  assert.deepEqual(r1.output, { final: { outer: { v: 1 }, saw: { v: 1 } } });
});

test("extensions: an error in an extension's task is at its own reference; the extended task's failure skips after", async () => {
  const { run, effects } = await runOf({
    use: { extensions: [{ guard: { extend: 'raise', before: [{ check: { if: '${ .deny }', raise: { error: { type: 'https://example.com/denied', status: 403 } } } }], after: [{ never: { set: { ran: true }, then: 'exit' } }] } }] },
    do: [{ fail: { raise: { error: { type: 'https://example.com/boom', status: 500 } } } }],
  });
  const denied = await effects.drive(() => run.runList(run.def.workflow.do, '/do', { deny: true }, {})).then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  );
  assert.ok(denied instanceof WorkflowError);
  assert.deepEqual([denied.problem.type, denied.problem.instance], ['https://example.com/denied', '/use/extensions/0/guard/before/0/check']);
  const boom = await effects.drive(() => run.runList(run.def.workflow.do, '/do', { deny: false }, {})).then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  );
  assert.ok(boom instanceof WorkflowError);
  assert.deepEqual([boom.problem.type, boom.problem.instance], ['https://example.com/boom', '/do/0/fail']);
});

test('extensions: runs recorded without v1-extensions ignore them (no extra commands)', async () => {
  const doc = { use: logging, do: [{ sampleTask: { call: 'http', with: { method: 'get', endpoint: 'https://svc.example/sample' } } }] };
  const { run, effects } = await runOf(doc, DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_EXTENSIONS));
  const calls = recordHttp(effects);
  await drive(run, effects);
  assert.deepEqual(calls, ['get https://svc.example/sample']);
});

test('evaluate.mode loose: every string of a value is evaluated, a failing one stands for itself; ${ } failures still fail; strict before the feature', async () => {
  const doc = {
    evaluate: { language: 'jq', mode: 'loose' },
    do: [{ s: { set: { a: '.x', b: 'hello world', n: '41 + 1', t: 'true', list: ['.x', 'plain text', 'application/json'], c: '${ .x }', keep: 'https://svc.example/{id}' } } }],
  };
  const { run, effects } = await runOf(doc);
  const r = await drive(run, effects, { x: 'X' });
  assert.deepEqual(r.output, { a: 'X', b: 'hello world', n: 42, t: true, list: ['X', 'plain text', 'application/json'], c: 'X', keep: 'https://svc.example/{id}' });

  const strict = await runOf(doc, DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_LOOSE_EVALUATION));
  const rs = await drive(strict.run, strict.effects, { x: 'X' });
  assert.deepEqual(rs.output, { a: '.x', b: 'hello world', n: '41 + 1', t: 'true', list: ['.x', 'plain text', 'application/json'], c: 'X', keep: 'https://svc.example/{id}' });

  const failing = await runOf({ evaluate: { mode: 'loose' }, do: [{ s: { set: { c: '${ .x | tonumber }' } } }] });
  await assert.rejects(drive(failing.run, failing.effects, { x: 'abc' }), (e: unknown) => e instanceof WorkflowError && e.problem.type.endsWith('/expression'));
});
