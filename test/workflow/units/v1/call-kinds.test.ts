/**
 * Every 1.0 call kind at once, in the branches of one fork: concurrent branches interleave by
 * microtask turns, so the order in which their activities are scheduled is fixed by how many
 * `await`s each kind's path takes before it schedules (its authentication resolved or not, an
 * async frame or not). Recorded histories replay only if that order stays: this pins it, with
 * and without `sync-expressions`, before and with `v1-direct-frames`, and the exact commands
 * (type, options, arguments) each kind sends, on the fake effects of ./fake-task-context.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FEATURE_SYNC_EXPRESSIONS, FEATURE_V1_DIRECT_FRAMES } from '../../../../src/common/features';
import { ACTIVITY_OF_CALL } from '../../../../src/common/call-kinds';
import { CALL_KINDS } from '../../../../src/workflow/v1/tasks/calls/kinds';
import { DEFAULT_FEATURES, FakeTaskContext } from '../fake-task-context';
import type { ActivityCommand } from '../fake-effects';

const endpoint = (uri: string, policy?: string) => ({ uri, ...(policy ? { authentication: { use: policy } } : {}) });

/** One branch per kind; kinds with an authentication to resolve before and after those without. */
const branches = [
  { mcpHttp: { call: 'mcp', with: { method: 'tools/call', parameters: { name: 'add' }, transport: { http: { endpoint: endpoint('https://mcp.example/mcp', 'token') } } } } },
  { mcpStdio: { call: 'mcp', with: { method: 'tools/call', parameters: { name: 'add' }, transport: { stdio: { command: 'mcp-add' } } } } },
  { httpAuth: { call: 'http', with: { method: 'post', endpoint: endpoint('https://svc.example/pets/{id}', 'token') } } },
  { httpPlain: { call: 'http', with: { method: 'get', endpoint: 'https://svc.example/pets/{id}' } } },
  { openapi: { call: 'openapi', with: { document: { endpoint: 'https://svc.example/openapi.json' }, operationId: 'getPet', authentication: { use: 'token' } } } },
  { grpc: { call: 'grpc', with: { proto: { endpoint: 'https://svc.example/pets.proto' }, service: { name: 'Pets', host: 'svc.example', port: 50051 }, method: 'Get' } } },
  { asyncapi: { call: 'asyncapi', with: { document: { endpoint: 'https://svc.example/asyncapi.json' }, operation: 'sendPet', message: { payload: { id: '${ .id }' } } } } },
  { a2a: { call: 'a2a', with: { method: 'message/send', server: endpoint('https://agents.example/a2a', 'token'), parameters: { message: { parts: [{ text: 'hi' }] } } } } },
  { custom: { call: 'echo.say:1.0.0@default', with: { text: '${ .id }' } } },
  { customHttp: { call: 'sw.http:1.0.0@default', with: { method: 'get', endpoint: 'https://svc.example/raw/{id}' } } },
  { fn: { call: 'getPet', with: { id: '${ .id }' } } },
];

const doc = {
  use: {
    authentications: { token: { bearer: { token: '${ .token }' } } },
    functions: { getPet: { call: 'http', with: { method: 'get', endpoint: 'https://svc.example/fn/{id}' } } },
  },
  do: [{ all: { fork: { branches } } }],
};

async function scheduled(features: readonly string[]): Promise<ActivityCommand[]> {
  const ctx = await FakeTaskContext.of(doc, { features });
  ctx.effects.activities['*'] = () => 'ok';
  await ctx.exec('all', { id: 7, token: 'tk' });
  return ctx.effects.of('activity');
}

const at = (name: string) => `/do/0/all/fork/branches/${branches.findIndex((b) => name in b)}/${name}`;

/** The order the branches' calls are scheduled in without sync-expressions, as before call kinds became modules (calls/). */
const ORDER = [
  ['echo.say', `${at('custom')} → echo.say`], // no authentication: no turn
  ['sw.mcp', `${at('mcpStdio')} → mcp tools/call add @ mcp-add`], // mcp's async frame
  ['sw.http', `${at('httpPlain')} → GET https://svc.example/pets/7`], // an endpoint without a policy
  ['sw.grpc', `${at('grpc')} → grpc Pets/Get`],
  ['sw.asyncapiCall', `${at('asyncapi')} → asyncapi sendPet`],
  ['sw.http', `${at('customHttp')} → GET https://svc.example/raw/7`], // @default of a built-in activity: as `call: http`
  ['sw.http', `${at('httpAuth')} → POST https://svc.example/pets/7`], // a named policy evaluated
  ['sw.openapi', `${at('openapi')} → openapi getPet`],
  ['sw.a2a', `${at('a2a')} → a2a message/send https://agents.example/a2a`],
  ['sw.mcp', `${at('mcpHttp')} → mcp tools/call add @ https://mcp.example/mcp`], // a policy and the async frame
  ['sw.http', `${at('fn')} → GET https://svc.example/fn/7`], // `with` evaluated, then a task of its own
];

/** With sync-expressions the function's own task awaits no data step, so its call comes before mcpHttp's. */
const ORDER_SYNC = [...ORDER.slice(0, -2), ORDER[ORDER.length - 1], ORDER[ORDER.length - 2]];

/**
 * With v1-direct-frames a built-in kind's task has no frames that only pass its promise on, and an
 * endpoint without a policy makes no promise: the kinds without a policy to resolve go first (in
 * branch order), then the default-catalog calls (still a call frame of their own), mcp's own async
 * frame, the function's task (sync-expressions), the named policies, mcp with a policy.
 */
const ORDER_DIRECT = [
  ['sw.http', `${at('httpPlain')} → GET https://svc.example/pets/7`],
  ['sw.grpc', `${at('grpc')} → grpc Pets/Get`],
  ['sw.asyncapiCall', `${at('asyncapi')} → asyncapi sendPet`],
  ['echo.say', `${at('custom')} → echo.say`],
  ['sw.http', `${at('customHttp')} → GET https://svc.example/raw/7`],
  ['sw.mcp', `${at('mcpStdio')} → mcp tools/call add @ mcp-add`],
  ['sw.http', `${at('fn')} → GET https://svc.example/fn/7`],
  ['sw.http', `${at('httpAuth')} → POST https://svc.example/pets/7`],
  ['sw.openapi', `${at('openapi')} → openapi getPet`],
  ['sw.a2a', `${at('a2a')} → a2a message/send https://agents.example/a2a`],
  ['sw.mcp', `${at('mcpHttp')} → mcp tools/call add @ https://mcp.example/mcp`],
];

/** Without sync-expressions the function's `with` and its task's data steps are awaited: its call is last. */
const ORDER_DIRECT_ASYNC = [...ORDER_DIRECT.slice(0, 6), ...ORDER_DIRECT.slice(7), ORDER_DIRECT[6]];

/** Runs recorded before v1-direct-frames. */
const FRAMED = DEFAULT_FEATURES.filter((f) => f !== FEATURE_V1_DIRECT_FRAMES);

test('call kinds in one fork: their activities are scheduled in the order of their await turns (sync-expressions)', async () => {
  const commands = await scheduled(FRAMED);
  assert.deepEqual(
    commands.map((c) => [c.type, c.options.summary]),
    ORDER_SYNC,
  );
});

test('call kinds in one fork: the same without sync-expressions (every `with` awaited)', async () => {
  const commands = await scheduled(FRAMED.filter((f) => f !== FEATURE_SYNC_EXPRESSIONS));
  assert.deepEqual(
    commands.map((c) => [c.type, c.options.summary]),
    ORDER,
  );
});

test('call kinds in one fork with v1-direct-frames: fewer turns, a new order for new runs (with and without sync-expressions)', async () => {
  assert.ok(DEFAULT_FEATURES.includes(FEATURE_V1_DIRECT_FRAMES), 'a new run gets v1-direct-frames');
  assert.deepEqual((await scheduled(DEFAULT_FEATURES)).map((c) => [c.type, c.options.summary]), ORDER_DIRECT);
  assert.deepEqual((await scheduled(DEFAULT_FEATURES.filter((f) => f !== FEATURE_SYNC_EXPRESSIONS))).map((c) => [c.type, c.options.summary]), ORDER_DIRECT_ASYNC);
});

test('the registry has a kind for every call kind of src/common/call-kinds.ts, named by its call and scheduling its activity', () => {
  assert.deepEqual(
    Object.entries(CALL_KINDS).map(([call, kind]) => [call, kind.type, kind.activity]),
    Object.entries(ACTIVITY_OF_CALL).map(([call, activity]) => [call, call, activity]),
  );
});
