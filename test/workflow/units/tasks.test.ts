/**
 * Every 1.0 task executor (src/workflow/v1/tasks/*) without a server: data in (a document
 * loaded by the real loader, an input, events in the mailbox), and out the commands it issues
 * (activities with their exact arguments and options, timers, children), the events it awaited
 * and consumed, its output and the flow directive it chose. Temporal is played by the fake
 * effects of ./fake-task-context.ts on a virtual clock; expressions run on the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { ParentClosePolicy } from '@temporalio/workflow';
import type { Json } from '../../../src/common/model';
import type { V1Definition } from '../../../src/common/model-v1';
import type { CloudEventJson, FunctionCall } from '../../../src/common/contracts';
import { FEATURE_EAGER_CALLS, FEATURE_SYNC_EXPRESSIONS, FEATURE_V1_A2A_CALLS, FEATURE_V1_CALL_PLATFORM_FAILURES, FEATURE_V1_CATALOGS, FEATURE_V1_MCP_CALLS, FEATURE_V1_RUN_CONTAINER } from '../../../src/common/features';
import { FEATURE_LOCAL_READS, FEATURE_V1_LISTEN_UNTIL_ANY_EVENT } from '../../../src/common/features';
import { UNLIMITED_CALL_MS } from '../../../src/workflow/timeouts';
import { WorkflowError } from '../../../src/workflow/v1/errors';
import { callContextOf } from '../../../src/workflow/interceptors';
import { DEFAULT_FEATURES, FakeTaskContext } from './fake-task-context';
import { T0, type ActivityCommand, type Command } from './fake-effects';

const COMM = 'https://serverlessworkflow.io/spec/1.0.0/errors/communication';
/** The call as an adapter gets it back: the arguments (the input) with the context of its `swflow-call` header. */
const callOf = (args: unknown[]): FunctionCall => {
  const context = callContextOf(args);
  return context ? ({ ...context, arguments: args[0] } as FunctionCall) : (args[0] as FunctionCall);
};
const http = (handler: (fc: FunctionCall, attempt: number) => unknown) => (args: unknown[], _c: Command, attempt: number) => handler(callOf(args), attempt);

/** A failed call as the adapter worker reports it: an ActivityFailure caused by the service's error. */
function serviceFailure(code: string, message: string): ActivityFailure {
  return new ActivityFailure('activity failed', 'sw.http', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'adapter', ApplicationFailure.create({ message, type: code, details: [{ code, message }] }));
}

/** A call cut short by the platform: its worker stopped heartbeating. */
function heartbeatLost(): ActivityFailure {
  return new ActivityFailure('activity timed out', 'sw.http', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, new TimeoutFailure('heartbeat', undefined, 'HEARTBEAT'));
}

const ev = (type: string, data: Json, extra: Record<string, Json> = {}): CloudEventJson => ({ specversion: '1.0', id: `${type}-${JSON.stringify(data)}`, source: 'test', type, data, ...extra });

/** A child's workflow arguments (ChildWorkflowOptions types them apart). */
const argsOf = (options: object): Json[] => (options as { args: Json[] }).args;

async function rejects(p: Promise<unknown>): Promise<WorkflowError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof WorkflowError, `expected a WorkflowError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the task to fail');
}

// ------------------------------------------------------------------ call

test('call http: arguments evaluated, URI template expanded, $secrets kept out, one activity with the exact options', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      {
        getPet: {
          call: 'http',
          metadata: { 'swflow.heartbeat': 'PT10S' },
          with: {
            method: 'get',
            endpoint: 'https://petstore.example/pets/{petId}',
            headers: { 'x-request': '${ .req }', authorization: '${ "Bearer " + $secrets.token }' },
            query: { status: '${ .status }' },
          },
        },
      },
    ],
  });
  ctx.effects.activities['sw.http'] = http(() => ({ id: 7, name: 'Rex' }));
  const input = { petId: 7, req: 'r-1', status: 'sold' };
  const out = await ctx.exec('getPet', input);
  assert.deepEqual(out, { output: { id: 7, name: 'Rex' } });
  assert.equal(ctx.effects.commands.length, 1);
  const [c] = ctx.effects.of('activity');
  assert.equal(c.type, 'sw.http');
  // eager-calls: no taskQueue, i.e. the run's own (the interpreter worker serves the built-in adapters).
  assert.deepEqual(c.options, {
    startToCloseTimeout: UNLIMITED_CALL_MS,
    heartbeatTimeout: 10_000,
    retry: { maximumAttempts: 1 },
    summary: '/do/0/getPet → GET https://petstore.example/pets/7',
  });
  // One wire format (v1-call-headers): the input is the evaluated `with`, the rest goes in the `swflow-call` header.
  assert.deepEqual(c.args, [{ method: 'get', endpoint: { uri: 'https://petstore.example/pets/7' }, headers: { 'x-request': 'r-1', authorization: null }, query: { status: 'sold' } }]);
  assert.ok(!JSON.stringify(c.args).includes('$secrets'));
  assert.deepEqual(callContextOf(c.args), {
    function: { name: 'http', type: 'http', operation: 'http', metadata: { 'swflow.heartbeat': 'PT10S' } },
    secretArguments: { '/headers/authorization': '${ "Bearer " + $secrets.token }' },
    // minimal-secret-context: the expression reads nothing but $secrets, so nothing else travels
    workflow: { id: 'wf-1', instanceId: 'run-1', definitionId: 'test/units' },
    state: '/do/0/getPet',
    action: 'getPet',
  });
});

test('call of a use.functions entry: runs the function as its own task on the evaluated `with`', async () => {
  const ctx = await FakeTaskContext.of({
    use: { functions: { getPetById: { call: 'http', with: { method: 'get', endpoint: 'https://petstore.example/pets/{id}' } } } },
    do: [{ fetch: { call: 'getPetById', with: { id: '${ .petId }' } } }],
  });
  ctx.effects.activities['sw.http'] = http((fc) => ({ got: (fc.arguments as { endpoint: { uri: string } }).endpoint.uri }));
  const out = await ctx.exec('fetch', { petId: 42 });
  assert.deepEqual(out, { output: { got: 'https://petstore.example/pets/42' } });
  assert.deepEqual(ctx.entered, ['/do/0/fetch']);
  const fc = callOf(ctx.effects.of('activity')[0].args);
  assert.deepEqual(fc.function, { name: 'getPetById', type: 'http', operation: 'http', metadata: {} });
  assert.equal(fc.action, 'getPetById');
  assert.equal(fc.state, '/do/0/fetch');
  assert.equal(ctx.effects.of('activity')[0].options.summary, '/do/0/fetch → GET https://petstore.example/pets/42');
});

test('call of a pinned function document (v1-catalogs): runs its task on the evaluated `with`, named by the call; without the feature a 501 as before', async () => {
  const doc = {
    use: { catalogs: { pets: { endpoint: 'https://catalog.example' } } },
    do: [{ fetch: { call: 'getPet:1.0.0@pets', with: { id: '${ .petId }' } } }],
  };
  const functions = { 'getPet:1.0.0@pets': { task: { call: 'http', with: { method: 'get', endpoint: 'https://petstore.example/pets/{id}' } }, source: 'https://catalog.example/functions/getPet/1.0.0/function.yaml' } };
  const ctx = await FakeTaskContext.of(doc, { functions });
  ctx.effects.activities['sw.http'] = http((fc) => ({ got: (fc.arguments as { endpoint: { uri: string } }).endpoint.uri }));
  assert.deepEqual(await ctx.exec('fetch', { petId: 7 }), { output: { got: 'https://petstore.example/pets/7' } });
  assert.deepEqual(ctx.entered, ['/do/0/fetch']);
  const fc = callOf(ctx.effects.of('activity')[0].args);
  assert.equal(fc.function.name, 'getPet:1.0.0@pets'); // what `swflow test` mocks it by
  assert.equal(fc.state, '/do/0/fetch');

  const old = await FakeTaskContext.of(doc, { functions, features: DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_CATALOGS) });
  const err = await old.exec('fetch', { petId: 7 }).catch((e) => e);
  assert.ok(err instanceof WorkflowError);
  assert.equal(err.problem.status, 501);
  assert.equal(old.effects.commands.length, 0);

  // With the feature, a call whose document was not pinned is a runtime error, not a silent adapter call.
  const unpinned = await FakeTaskContext.of(doc);
  const e2 = await unpinned.exec('fetch', { petId: 7 }).catch((e) => e);
  assert.ok(e2 instanceof WorkflowError);
  assert.match(e2.problem.detail ?? '', /was not pinned with the definition/);
});

test('call: a platform failure is made again (summary says why), a service error is not', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ getPet: { call: 'http', with: { method: 'get', endpoint: 'https://petstore.example/pets/1' } } }] });
  ctx.effects.activities['sw.http'] = http((_fc, attempt) => {
    if (attempt <= 2) throw heartbeatLost();
    return 'third time';
  });
  assert.deepEqual(await ctx.exec('getPet'), { output: 'third time' });
  const calls = ctx.effects.of('activity');
  assert.deepEqual(
    calls.map((c) => [c.state, c.options.summary]),
    [
      ['failed', '/do/0/getPet → GET https://petstore.example/pets/1'],
      ['failed', '/do/0/getPet → GET https://petstore.example/pets/1 (again: its worker stopped heartbeating (heartbeat timeout))'],
      ['completed', '/do/0/getPet → GET https://petstore.example/pets/1 (again: its worker stopped heartbeating (heartbeat timeout))'],
    ],
  );
  assert.deepEqual(calls[1].args, calls[0].args); // the same call
  assert.deepEqual(ctx.effects.warnings, ['a function call is made again: its worker stopped heartbeating (heartbeat timeout)']);

  const failing = await FakeTaskContext.of({ do: [{ getPet: { call: 'http', with: { method: 'get', endpoint: 'https://petstore.example/pets/1' } } }] });
  failing.effects.activities['sw.http'] = http(() => {
    throw serviceFailure('503', 'unavailable');
  });
  await assert.rejects(failing.exec('getPet'), ActivityFailure);
  assert.equal(failing.effects.commands.length, 1);
});

test('eager-calls: a built-in call without metadata.worker goes to the run\'s own queue; with metadata.worker, or before the feature, to its queue', async () => {
  const doc = (metadata?: object): Record<string, unknown> => ({ do: [{ getPet: { call: 'http', ...(metadata ? { metadata } : {}), with: { method: 'get', endpoint: 'https://petstore.example/pets/1' } } }] });
  const queueOf = async (d: Record<string, unknown>, features?: string[]) => {
    const ctx = await FakeTaskContext.of(d, features ? { features } : {});
    ctx.effects.activities['sw.http'] = http(() => 1);
    await ctx.exec('getPet');
    const [c] = ctx.effects.of('activity');
    return 'taskQueue' in c.options ? c.options.taskQueue : '(the run\'s own)';
  };
  assert.equal(await queueOf(doc()), "(the run's own)");
  assert.equal(await queueOf(doc({ worker: 'pets' })), 'pets');
  assert.equal(await queueOf(doc(), DEFAULT_FEATURES.filter((f) => f !== FEATURE_EAGER_CALLS)), 'swflow-adapters');
});

test('local-reads: a call http GET/HEAD/OPTIONS is a local call, a POST or a method from metadata swflow.local: false an activity; without the feature an activity', async () => {
  const doc = (method: string, metadata?: object): Record<string, unknown> => ({ do: [{ pet: { call: 'http', ...(metadata ? { metadata } : {}), with: { method, endpoint: 'https://petstore.example/pets/1' } } }] });
  const kindOf = async (d: Record<string, unknown>, features: string[] = [...DEFAULT_FEATURES, FEATURE_LOCAL_READS]) => {
    const ctx = await FakeTaskContext.of(d, { features });
    ctx.effects.activities['sw.http'] = http(() => 1);
    await ctx.exec('pet');
    return ctx.effects.commands.map((c) => c.kind);
  };
  for (const m of ['get', 'HEAD', 'options']) assert.deepEqual(await kindOf(doc(m)), ['localCall'], m);
  assert.deepEqual(await kindOf(doc('post')), ['activity']);
  assert.deepEqual(await kindOf(doc('get', { 'swflow.local': false })), ['activity']);
  assert.deepEqual(await kindOf(doc('get', { worker: 'pets' })), ['activity']);
  assert.deepEqual(await kindOf(doc('get'), DEFAULT_FEATURES), ['activity']);
});

test('call timeouts: unlimited start-to-close with the default heartbeat; ten minutes and no repeat before v1-call-platform-failures; local calls', async () => {
  const doc = { do: [{ getPet: { call: 'http', with: { method: 'get', endpoint: 'https://petstore.example/pets/1' } } }] };
  const now = await FakeTaskContext.of(doc);
  now.effects.activities['sw.http'] = http(() => 1);
  await now.exec('getPet');
  assert.equal(now.effects.of('activity')[0].options.startToCloseTimeout, UNLIMITED_CALL_MS);
  assert.equal(now.effects.of('activity')[0].options.heartbeatTimeout, 30_000);

  const old = await FakeTaskContext.of(doc, { features: DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_CALL_PLATFORM_FAILURES && f !== FEATURE_EAGER_CALLS) });
  old.effects.activities['sw.http'] = http(() => {
    throw heartbeatLost();
  });
  await assert.rejects(old.exec('getPet'), ActivityFailure);
  assert.equal(old.effects.commands.length, 1);
  assert.deepEqual(old.effects.of('activity')[0].options, { taskQueue: 'swflow-adapters', startToCloseTimeout: 600_000, retry: { maximumAttempts: 1 }, summary: '/do/0/getPet → GET https://petstore.example/pets/1' });

  const local = await FakeTaskContext.of({ do: [{ getPet: { call: 'http', metadata: { 'swflow.local': true }, with: { method: 'get', endpoint: 'https://petstore.example/pets/1' } } }] });
  local.effects.activities['sw.http'] = http(() => 'local');
  assert.deepEqual(await local.exec('getPet'), { output: 'local' });
  assert.deepEqual(
    local.effects.commands.map((c) => [c.kind, 'type' in c ? c.type : '']),
    [['localCall', 'sw.http']],
  );
});

test('call mcp: the activity sw.mcp on the evaluated `with`, a named endpoint policy resolved, $secrets kept out; before v1-mcp-calls a 501', async () => {
  const doc = {
    use: { secrets: ['MCP_BEARER', 'tenant'], authentications: { mcpAuth: { bearer: { use: 'MCP_BEARER' } } } },
    do: [
      {
        ask: {
          call: 'mcp',
          with: {
            method: 'tools/call',
            parameters: { name: 'add', arguments: { a: '${ .a }', b: 2 } },
            transport: { http: { endpoint: { uri: 'http://mcp.example/mcp', authentication: { use: 'mcpAuth' } }, headers: { 'x-tenant': '${ $secrets.tenant }' } } },
          },
        },
      },
    ],
  };
  const ctx = await FakeTaskContext.of(doc);
  ctx.effects.activities['sw.mcp'] = http(() => ({ content: [{ type: 'text', text: '3' }] }));
  assert.deepEqual(await ctx.exec('ask', { a: 1 }), { output: { content: [{ type: 'text', text: '3' }] }, authorization: { scheme: 'Bearer' } });
  const [c] = ctx.effects.of('activity');
  assert.equal(c.type, 'sw.mcp');
  assert.equal(c.options.summary, '/do/0/ask → mcp tools/call add @ http://mcp.example/mcp');
  assert.deepEqual(c.args[0], {
    method: 'tools/call',
    parameters: { name: 'add', arguments: { a: 1, b: 2 } },
    transport: { http: { endpoint: { uri: 'http://mcp.example/mcp', authentication: { bearer: { use: 'MCP_BEARER' } } }, headers: { 'x-tenant': null } } },
  });
  assert.deepEqual(callOf(c.args).secretArguments, { '/transport/http/headers/x-tenant': '${ $secrets.tenant }' });

  const old = await FakeTaskContext.of(doc, { features: DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_MCP_CALLS) });
  const e = await rejects(old.exec('ask', { a: 1 }));
  assert.equal(e.problem.status, 501);
  assert.match(e.message, /call: mcp is not supported by this runtime yet/);
  assert.equal(old.effects.commands.length, 0);
});

test('call a2a: sw.a2a with the resolved authentication, never local; made again after a heartbeat timeout with the lost attempt\'s heartbeat details; 501 before v1-a2a-calls', async () => {
  const doc = {
    // The document's default `swflow.local: true` does not make it local.
    document: { metadata: { 'swflow.local': true } },
    use: { authentications: { agent: { bearer: { token: '${ .token }' } } } },
    do: [{ ask: { call: 'a2a', with: { method: 'message/send', agentCard: { endpoint: { uri: 'https://agents.example/card.json', authentication: { use: 'agent' } } }, parameters: { message: { parts: [{ text: '${ .q }' }] } } } } }],
  };
  const ctx = await FakeTaskContext.of(doc);
  const seen: FunctionCall[] = [];
  ctx.effects.activities['sw.a2a'] = (args: unknown[], _c: Command, attempt: number) => {
    seen.push(callOf(args));
    if (attempt === 1) throw new ActivityFailure('activity timed out', 'sw.a2a', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, new TimeoutFailure('heartbeat', { a2a: { method: 'message/send', taskId: 't-7' } }, 'HEARTBEAT'));
    return { task: { id: 't-7' } };
  };
  assert.deepEqual(await ctx.exec('ask', { q: 'report', token: 'tk' }), { output: { task: { id: 't-7' } }, authorization: { scheme: 'Bearer', parameter: 'tk' } });
  assert.deepEqual(ctx.effects.commands.map((c) => [c.kind, 'type' in c ? c.type : '']), [['activity', 'sw.a2a'], ['activity', 'sw.a2a']], 'an activity, not a local call');
  assert.deepEqual(seen[0].arguments, { method: 'message/send', agentCard: { endpoint: { uri: 'https://agents.example/card.json', authentication: { bearer: { token: 'tk' } } } }, parameters: { message: { parts: [{ text: 'report' }] } } });
  assert.equal(seen[0].heartbeatDetails, undefined);
  assert.deepEqual(seen[1].heartbeatDetails, { a2a: { method: 'message/send', taskId: 't-7' } });
  assert.equal(ctx.effects.of('activity')[0].options.summary, '/do/0/ask → a2a message/send https://agents.example/card.json');

  const old = await FakeTaskContext.of(doc, { features: DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_A2A_CALLS) });
  const e = await rejects(old.exec('ask', { q: 'report', token: 'tk' }));
  assert.deepEqual([e.problem.status, e.problem.detail], [501, 'call: a2a is not supported by this runtime yet']);
  assert.equal(old.effects.commands.length, 0);
});

test('call under a task timeout: a timer races the call, which is cancelled when it fires', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ slow: { call: 'http', timeout: { after: { seconds: 5 } }, with: { method: 'get', endpoint: 'https://petstore.example/slow' } } }] });
  ctx.effects.activities['sw.http'] = () => ctx.effects.after(60_000, 'too late');
  const e = await rejects(ctx.runAll());
  assert.equal(e.problem.status, 408);
  assert.equal(e.problem.instance, '/do/0/slow');
  assert.equal(e.problem.detail, 'task /do/0/slow did not finish within PT5S (timeout.after)');
  assert.deepEqual(
    ctx.effects.commands.map((c) => [c.kind, c.state, c.kind === 'timer' ? c.summary : (c as ActivityCommand).options.summary]),
    [
      ['timer', 'fired', '/do/0/slow → timeout PT5S'],
      ['activity', 'cancelled', '/do/0/slow → GET https://petstore.example/slow'],
    ],
  );
  assert.equal(ctx.effects.elapsed, 5000);
});

// ------------------------------------------------------------------ do

test('do: subtasks in sequence, `then` jumps, `exit` leaves the list, `end` ends the workflow', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      {
        steps: {
          do: [
            { a: { set: { n: '${ .n + 1 }' }, then: 'c' } },
            { b: { set: { n: 100 } } },
            { c: { set: { n: '${ .n * 10 }' }, then: 'exit' } },
            { d: { set: { n: -1 } } },
          ],
        },
      },
      { stop: { do: [{ x: { set: { stopped: true }, then: 'end' } }, { y: { set: { stopped: false } } }] } },
    ],
  });
  assert.deepEqual(await ctx.exec('steps', { n: 1 }), { output: { n: 20 } });
  assert.deepEqual(ctx.entered, ['/do/0/steps/do/0/a', '/do/0/steps/do/2/c']);
  assert.deepEqual(await ctx.exec('stop', {}), { output: { stopped: true }, then: 'end' });
  assert.deepEqual(ctx.entered.slice(2), ['/do/1/stop/do/0/x']);
  assert.equal(ctx.effects.commands.length, 0);
});

// ------------------------------------------------------------------ emit

test('emit: the CloudEvent built in the workflow (id from uuid4, time from workflow time) and handed to swflow.produceEvent', async () => {
  const ctx = await FakeTaskContext.of({
    do: [{ notify: { emit: { event: { with: { source: 'https://petstore.example', type: 'com.petstore.order.placed.v1', data: { pet: '${ .petId }', by: '${ $workflow.input.user }' }, subject: 'order' } } } } }],
  }, { workflowInput: { user: 'ann' } });
  ctx.effects.activities['swflow.produceEvent'] = () => undefined;
  const ce = {
    specversion: '1.0',
    id: '00000000-0000-4000-8000-000000000001',
    source: 'https://petstore.example',
    type: 'com.petstore.order.placed.v1',
    time: new Date(T0).toISOString(),
    data: { pet: 7, by: 'ann' },
    subject: 'order',
    datacontenttype: 'application/json',
  };
  assert.deepEqual(await ctx.exec('notify', { petId: 7 }), { output: ce });
  const [c] = ctx.effects.of('activity');
  assert.equal(c.type, 'swflow.produceEvent');
  assert.deepEqual(c.args, [ce]);
  assert.deepEqual(c.options, { taskQueue: 'swflow-interpreter', startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 }, summary: '/do/0/notify → emit com.petstore.order.placed.v1' });

  const bare = await FakeTaskContext.of({ do: [{ ping: { emit: { event: { with: { type: 'com.x.ping', id: 'ev-1' } } } } }] });
  bare.effects.activities['swflow.produceEvent'] = () => undefined;
  const out = (await bare.exec('ping')).output as Record<string, Json>;
  assert.deepEqual(out, { specversion: '1.0', id: 'ev-1', source: 'swflow/test/units', type: 'com.x.ping', time: new Date(T0).toISOString() });
});

// ------------------------------------------------------------------ for

test('for: each/at bound, data threads through the iterations, while stops the loop', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      { sum: { for: { each: 'pet', in: '${ .pets }', at: 'i' }, while: '${ $i < 2 }', do: [{ add: { set: '${ {total: (.total + $pet.price)} }' } }] } },
      { trace: { for: { in: '${ .xs }' }, do: [{ note: { set: '${ {xs: .xs, seen: (.seen + [{item: $item, index: $index}])} }' } }] } },
      { firstBig: { for: { in: '${ .xs }' }, do: [{ check: { switch: [{ big: { when: '${ $item > 10 }', then: 'exit' } }] } }, { keep: { set: '${ {last: $item} }' } }] } },
    ],
  });
  assert.deepEqual(await ctx.exec('sum', { pets: [{ price: 1 }, { price: 2 }, { price: 4 }], total: 0 }), { output: { total: 3 } });
  assert.deepEqual(ctx.entered, ['/do/0/sum/do/0/add', '/do/0/sum/do/0/add']);
  assert.deepEqual(await ctx.exec('trace', { xs: ['a', 'b'], seen: [] }), {
    output: { xs: ['a', 'b'], seen: [{ item: 'a', index: 0 }, { item: 'b', index: 1 }] },
  });
  // `exit` inside the iteration stops the loop: the output is what the list had then.
  assert.deepEqual(await ctx.exec('firstBig', { xs: [1, 2, 30, 4] }), { output: { last: 2 } });
});

// ------------------------------------------------------------------ fork

const forkDoc = (compete: boolean, branches: Record<string, unknown>[]) => ({ do: [{ race: { fork: { compete, branches } } }] });
const get = (path: string) => ({ call: 'http', with: { method: 'get', endpoint: `https://svc.example/${path}` } });

test('fork: the branches run together; outputs in declaration order, not completion order', async () => {
  const ctx = await FakeTaskContext.of(forkDoc(false, [{ slow: get('slow') }, { fast: get('fast') }, { local: { set: { l: true } } }]));
  const finished: string[] = [];
  ctx.effects.activities['sw.http'] = http((fc) => {
    const uri = (fc.arguments as { endpoint: { uri: string } }).endpoint.uri;
    return ctx.effects.after(uri.endsWith('slow') ? 3000 : 1000, uri).then((v) => (finished.push(uri), v));
  });
  assert.deepEqual(await ctx.exec('race'), { output: ['https://svc.example/slow', 'https://svc.example/fast', { l: true }] });
  assert.deepEqual(finished, ['https://svc.example/fast', 'https://svc.example/slow']);
  // Both calls were issued before either completed (at time 0), slow first.
  assert.deepEqual(
    ctx.effects.of('activity').map((c) => [c.at, c.options.summary]),
    [
      [0, '/do/0/race/fork/branches/0/slow → GET https://svc.example/slow'],
      [0, '/do/0/race/fork/branches/1/fast → GET https://svc.example/fast'],
    ],
  );
  assert.equal(ctx.effects.elapsed, 3000);
});

test('fork compete: the first branch to complete wins, the others are cancelled', async () => {
  const ctx = await FakeTaskContext.of(forkDoc(true, [{ slow: get('slow') }, { fast: get('fast') }]));
  ctx.effects.activities['sw.http'] = http((fc) => {
    const uri = (fc.arguments as { endpoint: { uri: string } }).endpoint.uri;
    return ctx.effects.after(uri.endsWith('slow') ? 3000 : 1000, `${uri} won`);
  });
  assert.deepEqual(await ctx.exec('race'), { output: 'https://svc.example/fast won' });
  assert.deepEqual(
    ctx.effects.of('activity').map((c) => c.state),
    ['cancelled', 'completed'],
  );
  assert.equal(ctx.effects.elapsed, 1000);
});

test('fork: a failing branch fails the fork and cancels the others', async () => {
  const ctx = await FakeTaskContext.of(
    forkDoc(false, [{ waiting: { wait: { minutes: 1 } } }, { fail: { raise: { error: { type: 'https://example.com/boom', status: 418, title: 'Boom' } } } }]),
  );
  const e = await rejects(ctx.exec('race'));
  assert.deepEqual(e.problem, { type: 'https://example.com/boom', status: 418, title: 'Boom', instance: '/do/0/race/fork/branches/1/fail' });
  assert.deepEqual(
    ctx.effects.commands.map((c) => [c.kind, c.state]),
    [['timer', 'cancelled']],
  );
  assert.equal(ctx.effects.elapsed, 0);
});

// ------------------------------------------------------------------ listen

test('listen one: an event already in the mailbox is taken (the oldest match); others are kept', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ hear: { listen: { to: { one: { with: { type: 'com.x.created' } } } } } }] });
  ctx.mailbox.push(ev('com.x.other', 0));
  ctx.mailbox.push(ev('com.x.created', { n: 1 }));
  ctx.mailbox.push(ev('com.x.created', { n: 2 }));
  assert.deepEqual(await ctx.exec('hear'), { output: [{ n: 1 }] });
  assert.deepEqual(ctx.mailbox.events.map((e) => e.data), [0, { n: 2 }]);
  assert.equal(ctx.effects.commands.length, 0);
  assert.equal(ctx.effects.elapsed, 0);
});

test('listen all: one event per filter, in any order; a late event is waited for (its type shown as awaited)', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ both: { listen: { to: { all: [{ with: { type: 'com.x.paid' } }, { with: { type: 'com.x.shipped' } }] } } } }] });
  ctx.mailbox.push(ev('com.x.shipped', 's'));
  let awaited: string[] = [];
  ctx.effects.later(5000, () => {
    awaited = [...ctx.mailbox.awaited];
    ctx.mailbox.push(ev('com.x.paid', 'p'));
  });
  assert.deepEqual(await ctx.exec('both'), { output: ['s', 'p'] });
  assert.deepEqual(awaited, ['com.x.paid']);
  assert.deepEqual([...ctx.mailbox.awaited], []);
  assert.equal(ctx.effects.elapsed, 5000);
});

test('listen any until an expression: events consumed until it holds over the ones read', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ readings: { listen: { to: { any: [{ with: { type: 'com.x.reading' } }], until: '${ length >= 2 }' } } } }] });
  for (const [t, v] of [[1000, 1], [2000, 2], [3000, 3]]) ctx.effects.later(t, () => ctx.mailbox.push(ev('com.x.reading', { v })));
  // The third reading comes after the listen ended: the drive stops at 2 s.
  assert.deepEqual(await ctx.exec('readings'), { output: [{ v: 1 }, { v: 2 }] });
  assert.equal(ctx.effects.elapsed, 2000);
});

test('listen any until a strategy: its events end the listen and are not output; any: [] takes any event', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      { readings: { listen: { to: { any: [{ with: { type: 'com.x.reading' } }], until: { one: { with: { type: 'com.x.done' } } } } } } },
      { anything: { listen: { to: { any: [] } } } },
    ],
  });
  ctx.mailbox.push(ev('com.x.reading', 1));
  ctx.effects.later(1000, () => ctx.mailbox.push(ev('com.x.reading', 2)));
  ctx.effects.later(2000, () => ctx.mailbox.push(ev('com.x.done', 'done')));
  ctx.effects.later(3000, () => ctx.mailbox.push(ev('com.x.reading', 3)));
  assert.deepEqual(await ctx.exec('readings'), { output: [1, 2] });
  assert.equal(ctx.effects.elapsed, 2000);
  ctx.mailbox.push(ev('com.y.whatever', 'w'));
  assert.deepEqual(await ctx.exec('anything'), { output: ['w'] });
});

test('listen any until { any: [] }: the next event, whatever it is, ends the listen and is not output (v1-listen-until-any-event)', async () => {
  const fixed = { do: [{ readings: { listen: { to: { any: [{ with: { type: 'com.x.reading' } }], until: { any: [] } } } } }] };
  const ctx = await FakeTaskContext.of(fixed);
  ctx.effects.later(1000, () => ctx.mailbox.push(ev('com.x.reading', 1)));
  ctx.effects.later(2000, () => ctx.mailbox.push(ev('com.x.reading', 2)));
  assert.deepEqual(await ctx.exec('readings'), { output: [] });
  assert.equal(ctx.effects.elapsed, 1000);
  // Runs recorded before the feature kept consuming readings, never ending.
  const old = await FakeTaskContext.of(fixed, { features: DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_LISTEN_UNTIL_ANY_EVENT) });
  old.mailbox.push(ev('com.x.reading', 1));
  await assert.rejects(old.exec('readings'), /the work is stuck/);
});

test('listen correlate: `expect` over the task input; without expect, the first event fixes the value', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      { room: { listen: { to: { one: { with: { type: 'com.x.reading' }, correlate: { room: { from: '${ .data.room }', expect: '${ .room }' } } } } } } },
      {
        order: {
          listen: {
            to: {
              all: [
                { with: { type: 'com.x.paid' }, correlate: { order: { from: '${ .data.order }' } } },
                { with: { type: 'com.x.shipped' }, correlate: { order: { from: '${ .data.order }' } } },
              ],
            },
          },
        },
      },
    ],
  });
  ctx.mailbox.push(ev('com.x.reading', { room: 'r1' }));
  ctx.mailbox.push(ev('com.x.reading', { room: 'r2' }));
  assert.deepEqual(await ctx.exec('room', { room: 'r2' }), { output: [{ room: 'r2' }] });
  assert.deepEqual(ctx.mailbox.events.map((e) => e.data), [{ room: 'r1' }]);
  assert.deepEqual(ctx.correlation, {}); // expected values are not kept

  ctx.mailbox.events.length = 0;
  ctx.mailbox.push(ev('com.x.paid', { order: 1 }));
  ctx.mailbox.push(ev('com.x.shipped', { order: 2 }));
  ctx.effects.later(1000, () => ctx.mailbox.push(ev('com.x.shipped', { order: 1 })));
  assert.deepEqual(await ctx.exec('order'), { output: [{ order: 1 }, { order: 1 }] });
  assert.deepEqual(ctx.correlation, { order: 1 });
  assert.deepEqual(ctx.mailbox.events.map((e) => e.data), [{ order: 2 }]);
});

test('listen foreach: each event runs foreach.do, output.as and export.as as it comes', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      {
        twice: {
          listen: { to: { any: [{ with: { type: 'com.x.reading' } }], until: '${ length >= 2 }' } },
          foreach: {
            item: 'r',
            at: 'n',
            do: [{ double: { set: '${ {v: ($r.v * 2), n: $n} }' } }],
            output: { as: '${ .v + .n }' },
            export: { as: '${ {seen: (($context.seen // 0) + 1), last: .} }' },
          },
        },
      },
    ],
  });
  ctx.mailbox.push(ev('com.x.reading', { v: 5 }));
  ctx.effects.later(1000, () => ctx.mailbox.push(ev('com.x.reading', { v: 7 })));
  assert.deepEqual(await ctx.exec('twice'), { output: [10, 15] });
  assert.deepEqual(ctx.context, { seen: 2, last: 15 });
  assert.deepEqual(ctx.entered, ['/do/0/twice/foreach/do/0/double', '/do/0/twice/foreach/do/0/double']);
});

test('listen read: data (default), envelope, raw', async () => {
  const one = { one: { with: { type: 'com.x.e' } } };
  const ctx = await FakeTaskContext.of({
    do: [{ data: { listen: { to: one } } }, { envelope: { listen: { to: one, read: 'envelope' } } }, { raw: { listen: { to: one, read: 'raw' } } }],
  });
  const e = (n: number) => ev('com.x.e', { n }, { subject: `s${n}` });
  ctx.mailbox.push(e(1));
  ctx.mailbox.push(e(2));
  ctx.mailbox.push(e(3));
  assert.deepEqual(await ctx.exec('data'), { output: [{ n: 1 }] });
  assert.deepEqual(await ctx.exec('envelope'), { output: [e(2)] });
  assert.deepEqual(await ctx.exec('raw'), { output: [{ n: 3 }] });
});

// ------------------------------------------------------------------ raise

test('raise: the problem (use.errors by name or inline, expressions evaluated) at the task reference', async () => {
  const ctx = await FakeTaskContext.of({
    use: { errors: { notFound: { type: 'https://example.com/errors/not-found', status: 404, title: 'Not Found', detail: '${ "pet " + (.petId|tostring) + " not found" }' } } },
    do: [{ missing: { raise: { error: 'notFound' } } }, { inline: { raise: { error: { type: 'https://example.com/errors/bad', status: 400, instance: '/elsewhere' } } } }],
  });
  const e = await rejects(ctx.exec('missing', { petId: 7 }));
  assert.deepEqual(e.problem, { type: 'https://example.com/errors/not-found', status: 404, title: 'Not Found', detail: 'pet 7 not found', instance: '/do/0/missing' });
  const f = await rejects(ctx.exec('inline'));
  assert.deepEqual(f.problem, { type: 'https://example.com/errors/bad', status: 400, instance: '/elsewhere' });
});

// ------------------------------------------------------------------ run

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

// ------------------------------------------------------------------ set, switch

test('set: an object with expressions, or one expression; with and without sync-expressions', async () => {
  const doc = { do: [{ obj: { set: { name: '${ .first + " " + .last }', fixed: 1, nested: { n: '${ .n * 2 }' } } } }, { expr: { set: '${ {sum: (.n + $workflow.input.k)} }' } }] };
  for (const features of [DEFAULT_FEATURES, DEFAULT_FEATURES.filter((f) => f !== FEATURE_SYNC_EXPRESSIONS)]) {
    const ctx = await FakeTaskContext.of(doc, { features, workflowInput: { k: 10 } });
    assert.equal(ctx.sync, features.includes(FEATURE_SYNC_EXPRESSIONS));
    assert.deepEqual(await ctx.exec('obj', { first: 'Ada', last: 'L', n: 2 }), { output: { name: 'Ada L', fixed: 1, nested: { n: 4 } } });
    assert.deepEqual(await ctx.exec('expr', { n: 2 }), { output: { sum: 12 } });
  }
});

test('switch: the first case that holds gives `then`; a case without `when` is the default; the output is the input', async () => {
  const ctx = await FakeTaskContext.of({
    do: [
      {
        size: {
          switch: [{ small: { when: '${ .n < 10 }', then: 'smallTask' } }, { other: { then: 'mediumTask' } }, { tiny: { when: '${ .n < 5 }', then: 'tinyTask' } }, { big: { when: '${ .n >= 100 }', then: 'end' } }],
        },
      },
      { strict: { switch: [{ only: { when: '${ .ok }', then: 'exit' } }] } },
      { smallTask: { set: { size: 'small' } } },
      { mediumTask: { set: { size: 'medium' } } },
      { tinyTask: { set: { size: 'tiny' } } },
    ],
  });
  assert.deepEqual(await ctx.exec('size', { n: 3 }), { output: { n: 3 }, then: 'smallTask' }); // small before tiny
  assert.deepEqual(await ctx.exec('size', { n: 500 }), { output: { n: 500 }, then: 'end' });
  assert.deepEqual(await ctx.exec('size', { n: 50 }), { output: { n: 50 }, then: 'mediumTask' });
  assert.deepEqual(await ctx.exec('strict', { ok: false }), { output: { ok: false } });
  assert.deepEqual(await ctx.exec('strict', { ok: true }), { output: { ok: true }, then: 'exit' });
});

// ------------------------------------------------------------------ try

const tryDoc = (c: Record<string, unknown>) => ({
  use: { retries: { twice: { delay: { seconds: 2 }, backoff: { exponential: {} }, limit: { attempt: { count: 2 } } } } },
  do: [{ guarded: { try: [{ getPet: get('pets/1') }], catch: c } }],
});

test('try/catch by type and status, when and exceptWhen; catch.do gets $error', async () => {
  const fail = (ctx: FakeTaskContext) => (ctx.effects.activities['sw.http'] = http(() => Promise.reject(serviceFailure('503', 'down'))));
  const caughtBy = async (c: Record<string, unknown>) => {
    const ctx = await FakeTaskContext.of(tryDoc(c));
    fail(ctx);
    return ctx.exec('guarded', { petId: 1 });
  };
  const recover = [{ recover: { set: '${ {recovered: $error.status, at: $error.instance, was: .petId} }' } }];
  assert.deepEqual(await caughtBy({ errors: { with: { type: COMM, status: 503 } }, do: recover }), { output: { recovered: 503, at: '/do/0/guarded/try/0/getPet', was: 1 } });
  // The pre-1.0 spelling of the type matches too; `as` renames $error.
  assert.deepEqual(await caughtBy({ errors: { with: { type: 'https://serverlessworkflow.io/dsl/errors/types/communication' } }, as: 'oops', do: [{ r: { set: '${ {d: $oops.detail} }' } }] }), { output: { d: 'down' } });
  assert.deepEqual(await caughtBy({ when: '${ .status == 503 }' }), { output: null });
  const notCaught = [{ errors: { with: { status: 404 } } }, { when: '${ .status == 404 }' }, { exceptWhen: '${ $error.status == 503 }' }, { errors: { with: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/timeout' } } }];
  for (const c of notCaught) {
    const e = await rejects(caughtBy(c));
    assert.deepEqual(e.problem, { type: COMM, status: 503, title: 'Communication Error', detail: 'down', instance: '/do/0/guarded/try/0/getPet' }, JSON.stringify(c));
  }
  // catch.then overrides the task's then
  assert.deepEqual(await caughtBy({ then: 'end' }), { output: null, then: 'end' });
});

test('try retry: durable timers between attempts (exponential 2 s, 4 s), the limit, then the error stands or catch.do runs', async () => {
  const ctx = await FakeTaskContext.of(tryDoc({ retry: 'twice' }));
  ctx.effects.activities['sw.http'] = http(() => Promise.reject(serviceFailure('503', 'down')));
  const e = await rejects(ctx.exec('guarded'));
  assert.equal(e.problem.status, 503);
  const retryAfter = '/do/0/guarded → retry %d after: Communication Error: down (status 503, at /do/0/guarded/try/0/getPet)';
  assert.deepEqual(
    ctx.effects.commands.map((c) => (c.kind === 'timer' ? ['timer', c.ms, c.summary, c.at] : [c.kind, c.state, c.at])),
    [
      ['activity', 'failed', 0],
      ['timer', 2000, retryAfter.replace('%d', '1'), 0],
      ['activity', 'failed', 2000],
      ['timer', 4000, retryAfter.replace('%d', '2'), 2000],
      ['activity', 'failed', 6000],
    ],
  );
  assert.deepEqual(ctx.retried, ['task.retried /do/0/guarded', 'task.retried /do/0/guarded']);

  const alt = await FakeTaskContext.of(tryDoc({ retry: 'twice', do: [{ fallback: { set: { from: 'cache' } } }] }));
  alt.effects.activities['sw.http'] = http(() => Promise.reject(serviceFailure('503', 'down')));
  assert.deepEqual(await alt.exec('guarded'), { output: { from: 'cache' } });
  assert.equal(alt.effects.of('activity').length, 3);

  const second = await FakeTaskContext.of(tryDoc({ retry: { delay: { milliseconds: 500 } } }));
  second.effects.activities['sw.http'] = http((_fc, attempt) => (attempt === 1 ? Promise.reject(serviceFailure('503', 'down')) : { pet: 1 }));
  assert.deepEqual(await second.exec('guarded'), { output: { pet: 1 } });
  assert.deepEqual(
    second.effects.commands.map((c) => [c.kind, c.state]),
    [
      ['activity', 'failed'],
      ['timer', 'fired'],
      ['activity', 'completed'],
    ],
  );
  assert.equal(second.effects.elapsed, 500);
});

test('try retry limit.attempt.duration: each attempt under its own timer', async () => {
  const ctx = await FakeTaskContext.of(tryDoc({ retry: { delay: { seconds: 1 }, limit: { attempt: { count: 1, duration: { seconds: 3 } } } }, do: [{ gaveUp: { set: '${ {why: $error.status} }' } }] }));
  ctx.effects.activities['sw.http'] = () => ctx.effects.after(10_000, 'late');
  assert.deepEqual(await ctx.exec('guarded'), { output: { why: 408 } });
  assert.deepEqual(
    ctx.effects.commands.map((c) => (c.kind === 'timer' ? ['timer', c.ms, c.state] : [c.kind, c.state])),
    [
      ['timer', 3000, 'fired'],
      ['activity', 'cancelled'],
      ['timer', 1000, 'fired'],
      ['timer', 3000, 'fired'],
      ['activity', 'cancelled'],
    ],
  );
  assert.equal(ctx.effects.elapsed, 7000);
});

// ------------------------------------------------------------------ wait

test('wait: a durable timer of the duration (inline, ISO 8601, or an expression); the output is the input', async () => {
  const ctx = await FakeTaskContext.of({ do: [{ pause: { wait: { minutes: 1, seconds: 30 } } }, { iso: { wait: 'PT2S' } }, { dyn: { wait: '${ .delay }' } }] });
  assert.deepEqual(await ctx.exec('pause', { a: 1 }), { output: { a: 1 } });
  assert.deepEqual(await ctx.exec('iso', { b: 2 }), { output: { b: 2 } });
  assert.deepEqual(await ctx.exec('dyn', { delay: 'PT5S' }), { output: { delay: 'PT5S' } });
  assert.deepEqual(
    ctx.effects.commands.map((c) => c.kind === 'timer' && [c.ms, c.summary, c.state]),
    [
      [90_000, '/do/0/pause → wait PT90S', 'fired'],
      [2000, '/do/1/iso → wait PT2S', 'fired'],
      [5000, '/do/2/dyn → wait PT5S', 'fired'],
    ],
  );
  assert.equal(ctx.effects.elapsed, 97_000);
});
