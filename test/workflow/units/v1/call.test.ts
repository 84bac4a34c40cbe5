/**
 * The 1.0 `call` task (v1/tasks/call.ts, one module per kind in v1/tasks/calls/): the activity
 * each kind schedules (type, exact arguments and options, queue, local or not), functions of
 * `use.functions` and pinned catalogs, calls made again after a platform failure, timeouts, and
 * the kinds runs recorded before their feature refuse.
 * Without a server: a document through the real loader, the real task pipeline over the fake
 * effects of ../fake-task-context.ts (Temporal on a virtual clock), the real jq engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActivityFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import type { FunctionCall } from '../../../../src/common/contracts';
import { FEATURE_EAGER_CALLS, FEATURE_V1_A2A_CALLS, FEATURE_V1_CALL_PLATFORM_FAILURES, FEATURE_V1_CATALOGS, FEATURE_V1_MCP_CALLS, FEATURE_LOCAL_READS } from '../../../../src/common/features';
import { UNLIMITED_CALL_MS } from '../../../../src/workflow/timeouts';
import { WorkflowError } from '../../../../src/workflow/v1/errors';
import { callContextOf } from '../../../../src/workflow/interceptors';
import { DEFAULT_FEATURES, FakeTaskContext } from '../fake-task-context';
import type { ActivityCommand, Command } from '../fake-effects';
import { callOf, http, serviceFailure, heartbeatLost, rejects } from './support';

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
    // call-ids: the first call of the step in the run (of the chain's run `run-1`).
    callId: 'run-1//do/0/getPet#1',
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
