/**
 * 1.0 `call: a2a` end to end: the dev server, the interpreter worker, the built-in adapter
 * worker, and a real A2A agent built with the same SDK's server side (./a2a-agent.ts) that
 * requires a bearer token. Messages answered at once and long-running tasks (polled), streaming,
 * tasks/get and tasks/cancel, via the agent card and via the server endpoint, errors caught by
 * try/catch, no secret in history; and the adapter worker killed (kill -9, a `swflow adapters`
 * process) during a long task: the call is made again, resumes following the same agent task
 * (its id from the lost attempt's last heartbeat), and the agent received the message once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import type { Json } from '../../src/common/model';
import { formatFinding, loadAnyDefinition } from '../../src/dsl';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { historyText } from '../../src/testing/history';
import { startDevEnv } from '../helpers/temporal';
import { assertNoSecrets } from '../helpers/leaks';
import { freePort } from '../helpers/ports';
import { saveHistory, sharedBundle } from '../workflow/helpers';
import { startTestAgent, type TestAgent } from './a2a-agent';
import { a2aCall, paramsOf } from '../../adapters/a2a/request';

const ROOT = resolve(__dirname, '..', '..');
const TOKEN = 'agent-token-7f3k9q';
const SECRETS = { agentCreds: JSON.stringify({ token: TOKEN }), agentToken: TOKEN };
const RUNTIME = 'https://serverlessworkflow.io/spec/1.0.0/errors/runtime';

let env: TestWorkflowEnvironment;
let agent: TestAgent;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let n = 0;

before(async () => {
  agent = await startTestAgent(TOKEN);
  env = await startDevEnv();
  workers = [
    await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: await sharedBundle() }),
    await createBuiltinAdapterWorker({ connection: env.nativeConnection, secrets: SECRETS }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await env?.teardown();
  await agent?.close();
});

const docOf = (name: string, tasks: unknown[], extra: Record<string, unknown> = {}) => ({
  document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' },
  use: { secrets: ['agentCreds', 'agentToken'] },
  ...extra,
  do: tasks,
});

async function start(doc: unknown, input: Json = {}) {
  const loaded = await loadAnyDefinition(doc as Record<string, unknown>);
  assert.ok(loaded.definition, loaded.problems.map(formatFinding).join('\n'));
  const d = loaded.definition!;
  return env.client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `a2a-${++n}-${Date.now()}`, args: [input, { definition: d }], workflowExecutionTimeout: '2 minutes' });
}

const run = async (doc: unknown, input: Json = {}) => (await start(doc, input)).result() as Promise<any>;

/** The agent card, with the bearer token from a secret (the token is the secret's `token`). */
const card = () => ({ endpoint: { uri: agent.cardUrl, authentication: { bearer: { use: 'agentCreds' } } } });
/** The JSON-RPC endpoint, the token by `$secrets` expression. */
const server = () => ({ uri: agent.rpcUrl, authentication: { bearer: { token: '${ $secrets.agentToken }' } } });
const say = (text: string) => ({ message: { parts: [{ kind: 'text', text }] } });
const received = (text: string) => agent.received.filter((m) => m.text === text).length;

test('message/send via the agent card: a message answered at once is the output ({ message }), with the spec\'s defaults (messageId, role user); no secret in history', async () => {
  const h = await start(docOf('send-now', [{ ask: { call: 'a2a', with: { method: 'message/send', agentCard: card(), parameters: say('${ "hello " + .who }') } } }]), { who: 'ada' });
  const out = (await h.result()) as any;
  assert.equal(out.message.role, 'ROLE_AGENT');
  assert.deepEqual(out.message.parts, [{ text: 'echo: hello ada', mediaType: 'text/plain' }]);
  const sent = agent.received.find((m) => m.text === 'hello ada')!;
  assert.match(sent.messageId, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a UUID made from the run and the activity');
  await assertNoSecrets(env.client, h.workflowId, [TOKEN], [], false);
});

test('message/send via the server endpoint: a long task (submitted → working → completed) is polled to its end; the output is the final task', async () => {
  const out = await run(docOf('send-slow', [{ report: { call: 'a2a', with: { method: 'message/send', server: server(), parameters: say('slow 1500') } } }]));
  assert.equal(out.task.status.state, 'TASK_STATE_COMPLETED');
  assert.deepEqual(out.task.artifacts[0].parts, [{ text: 'report for: slow 1500', mediaType: 'text/plain' }]);
  assert.deepEqual(out.task.history.map((m: any) => m.parts[0].text), ['slow 1500', 'working on it', 'done']);
  assert.equal(received('slow 1500'), 1);
});

test('message/stream: every stream response in order, the last one the completed status', async () => {
  const out = (await run(docOf('stream', [{ s: { call: 'a2a', with: { method: 'message/stream', agentCard: card(), parameters: say('slow 300') } } }]))) as any[];
  assert.deepEqual(
    out.map((e) => Object.keys(e)[0]),
    ['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate'],
  );
  assert.equal(out[0].task.status.state, 'TASK_STATE_SUBMITTED');
  assert.equal(out.at(-1).statusUpdate.status.state, 'TASK_STATE_COMPLETED');
});

test('tasks/get and tasks/cancel on a task started without blocking (0.3 spelling: configuration.blocking false)', async () => {
  const out = await run(
    docOf('get-cancel', [
      { start: { call: 'a2a', with: { method: 'message/send', server: server(), parameters: { ...say('slow 20000'), configuration: { blocking: false } } }, export: { as: '{ started: .task.status.state }' } } },
      { get: { call: 'a2a', with: { method: 'tasks/get', agentCard: card(), parameters: { id: '${ .task.id }' } }, export: { as: '$context + { got: .id }' } } },
      { cancel: { call: 'a2a', with: { method: 'tasks/cancel', server: server(), parameters: { id: '${ .id }' } } } },
      { summary: { set: { started: '${ $context.started }', same: '${ $context.got == .id }', state: '${ .status.state }' } } },
    ]),
  );
  assert.deepEqual(out, { started: 'TASK_STATE_SUBMITTED', same: true, state: 'TASK_STATE_CANCELED' });
});

test('errors: a failed, rejected or input-required task, a JSON-RPC error, a refused token and an unreachable agent are RFC 7807 errors a try/catch handles', async () => {
  const caught = (name: string, w: Record<string, unknown>) => ({
    [name]: {
      try: [{ call: { call: 'a2a', with: w } }],
      catch: { as: 'e', do: [{ keep: { set: { [name]: '${ { type: $e.type, status: $e.status, detail: $e.detail } }' } } }] },
      export: { as: '$context + .' },
    },
  });
  const nowhere = `http://127.0.0.1:${await freePort()}/a2a`;
  const out = await run(
    docOf('errors', [
      caught('failed', { method: 'message/send', agentCard: card(), parameters: say('fail') }),
      caught('rejected', { method: 'message/send', server: server(), parameters: say('reject') }),
      caught('input', { method: 'message/send', server: server(), parameters: say('ask') }),
      caught('unknown', { method: 'tasks/get', server: server(), parameters: { id: 'no-such-task' } }),
      caught('refused', { method: 'tasks/get', server: { uri: agent.rpcUrl, authentication: { bearer: { token: 'wrong-token' } } }, parameters: { id: 'x' } }),
      caught('unreachable', { method: 'tasks/get', server: nowhere, parameters: { id: 'x' } }),
      { all: { set: '${ $context }' } },
    ]),
  );
  assert.equal(out.failed.type, RUNTIME);
  assert.equal(out.failed.status, 500);
  assert.match(out.failed.detail, /^\/do\/0\/failed\/try\/0\/call: a2a message\/send to http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json: task \S+ failed: the report generator crashed$/);
  assert.deepEqual([out.rejected.type, out.rejected.status], [RUNTIME, 422]);
  assert.match(out.rejected.detail, /was rejected: not my job/);
  assert.deepEqual([out.input.type, out.input.status], [RUNTIME, 422]);
  assert.match(out.input.detail, /requires input \(input-required[\s\S]*which quarter\?/);
  assert.deepEqual([out.unknown.type, out.unknown.status], [RUNTIME, 404]);
  assert.match(out.unknown.detail, /a2a tasks\/get to http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc: the agent answered JSON-RPC error -32001 \(TASK_NOT_FOUND\)/);
  assert.deepEqual([out.refused.type, out.refused.status], ['https://serverlessworkflow.io/spec/1.0.0/errors/authentication', 401]);
  assert.deepEqual([out.unreachable.type, out.unreachable.status], ['https://serverlessworkflow.io/spec/1.0.0/errors/communication', 503]);
  assert.ok(out.unreachable.detail.includes(`a2a tasks/get to ${nowhere}: `) && out.unreachable.detail.endsWith('(ConnectionRefused)'), out.unreachable.detail);
  // Uncaught: the run fails with the problem, at the task.
  const h = await start(docOf('uncaught', [{ boom: { call: 'a2a', with: { method: 'message/send', server: server(), parameters: say('fail') } } }]));
  const err = await h.result().then(() => assert.fail('the run did not fail'), (e) => e);
  assert.ok(err instanceof WorkflowFailedError);
  const problem = (err.cause as ApplicationFailure).details![0] as Record<string, Json>;
  assert.deepEqual([problem.type, problem.status, problem.instance], [RUNTIME, 500, '/do/0/boom']);
  await assertNoSecrets(env.client, h.workflowId, [TOKEN], [], false);
  await saveHistory(env.client, h.workflowId, 'v1-a2a-uncaught');
});

test('the other methods: tasks/list, tasks/resubscribe, agent/getAuthenticatedExtendedCard; push notifications the agent does not offer are a runtime error (501)', async () => {
  const out = await run(
    docOf('others', [
      { start: { call: 'a2a', with: { method: 'message/send', server: server(), parameters: { ...say('slow 600'), configuration: { returnImmediately: true } } }, export: { as: '{ id: .task.id }' } } },
      { list: { call: 'a2a', with: { method: 'tasks/list', agentCard: card(), parameters: { pageSize: 100 } }, export: { as: '$context + { listed: ([.tasks[].id] | index($context.id) != null) }' } } },
      { follow: { call: 'a2a', with: { method: 'tasks/resubscribe', agentCard: card(), parameters: { id: '${ $context.id }' } }, export: { as: '$context + { events: [.[] | keys[0]], last: .[-1].statusUpdate.status.state }' } } },
      { card: { call: 'a2a', with: { method: 'agent/getAuthenticatedExtendedCard', agentCard: card() }, export: { as: '$context + { card: .name }' } } },
      {
        push: {
          try: [{ set: { call: 'a2a', with: { method: 'tasks/pushNotificationConfig/set', server: server(), parameters: { taskId: '${ $context.id }', pushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } } } } }],
          catch: { as: 'e', do: [{ keep: { set: { push: '${ { type: $e.type, status: $e.status, detail: $e.detail } }' } } }] },
          export: { as: '$context + .' },
        },
      },
      { all: { set: '${ $context | del(.id) }' } },
    ]),
  );
  assert.equal(out.listed, true);
  assert.equal(out.events[0], 'task');
  assert.equal(out.last, 'TASK_STATE_COMPLETED');
  assert.equal(out.card, 'Report agent');
  assert.deepEqual([out.push.type, out.push.status], [RUNTIME, 501]);
  assert.match(out.push.detail, /a2a tasks\/pushNotificationConfig\/set to http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc: .*\(PUSH_NOTIFICATION_NOT_SUPPORTED\)/);
});

test('parameters: the spec\'s 0.3 spelling read as A2A 1.0; the spec\'s defaults; definition problems are clear', () => {
  const id = () => 'generated-id';
  const send = a2aCall({ method: 'message/send', agentCard: { endpoint: { uri: 'https://a.example/card.json' } }, parameters: { message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'hi' }, { kind: 'data', data: { n: 1 } }, { kind: 'file', file: { uri: 'https://f/x.pdf', mimeType: 'application/pdf', name: 'x.pdf' } }] }, configuration: { blocking: false } } }, id);
  assert.deepEqual(send.target, { url: 'https://a.example/card.json', kind: 'agentCard' });
  assert.deepEqual(send.params, {
    message: { messageId: 'generated-id', role: 'ROLE_AGENT', parts: [{ text: 'hi' }, { data: { n: 1 } }, { url: 'https://f/x.pdf', mediaType: 'application/pdf', filename: 'x.pdf' }] },
    configuration: { returnImmediately: true },
  });
  assert.equal((a2aCall({ method: 'message/stream', server: 'https://a.example/rpc', parameters: { message: { parts: ['plain'] } } }, id).params.message as any).role, 'ROLE_USER');
  assert.deepEqual(paramsOf('tasks/pushNotificationConfig/get', { id: 't', pushNotificationConfigId: 'c' }, id), { taskId: 't', id: 'c' });
  assert.deepEqual(paramsOf('tasks/pushNotificationConfig/set', { taskId: 't', pushNotificationConfig: { url: 'u' } }, id), { taskId: 't', url: 'u' });
  assert.deepEqual(a2aCall({ method: 'tasks/get', server: 'https://a.example/rpc', parameters: '{"id":"t"}' }, id).params, { id: 't' });
  assert.throws(() => a2aCall({ method: 'message/send', parameters: say('x') }, id), /needs `agentCard` \(the URL of the agent card\) or `server`/);
  assert.throws(() => a2aCall({ method: 'tasks/poke', server: 'https://a/rpc' }, id), /method "tasks\/poke" is not an A2A method/);
  assert.throws(() => a2aCall({ method: 'message/send', server: 'https://a/rpc', parameters: {} }, id), /message\/send: parameters\.message is required/);
  assert.throws(() => a2aCall({ method: 'tasks/get', server: 'not a url' }, id), /server "not a url" is not an absolute URL/);
});

// ------------------------------------------------------------------ a lost adapter worker

/** `swflow adapters` as its own process on `queue`, its secrets in its environment. */
async function startAdapters(queue: string): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'adapters', '--task-queue', queue], {
    cwd: ROOT,
    env: { ...process.env, ...SECRETS, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const entry = { child, output: '' };
  child.stdout!.on('data', (d) => (entry.output += d));
  child.stderr!.on('data', (d) => (entry.output += d));
  while (!/serving task queue/.test(entry.output)) {
    if (child.exitCode !== null) throw new Error(`swflow adapters exited: ${entry.output}`);
    await delay(50);
  }
  return entry;
}

test('kill -9 of the adapter worker during a long agent task: the call is made again, follows the same task (no second message) and the run completes', async () => {
  const queue = 'a2a-kill';
  const first = await startAdapters(queue);
  const text = 'slow 6000';
  const h = await start(
    docOf('kill', [
      {
        report: {
          call: 'a2a',
          with: { method: 'message/send', agentCard: card(), parameters: say(text) },
          // Its own queue (served by the child process); a short heartbeat timeout: a faster test.
          metadata: { worker: queue, 'swflow.heartbeat': 'PT2S' },
        },
      },
    ]),
  );
  while (received(text) < 1) await delay(50);
  await delay(800); // the task's id is heartbeated
  const exited = new Promise((r) => first.child.once('exit', r));
  first.child.kill('SIGKILL');
  await exited;
  const second = await startAdapters(queue);
  try {
    const out = (await h.result()) as any;
    assert.equal(out.task.status.state, 'TASK_STATE_COMPLETED');
    assert.deepEqual(out.task.artifacts[0].parts, [{ text: `report for: ${text}`, mediaType: 'text/plain' }]);
    assert.equal(received(text), 1, 'the agent received the message once');
    const history = await h.fetchHistory();
    const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
    assert.equal(scheduled.length, 2, 'the lost call and the one made again');
    assert.match(historyText(history), /\(again: its worker stopped heartbeating/);
    await saveHistory(env.client, h.workflowId, 'v1-a2a-worker-lost');
  } finally {
    const gone = new Promise((r) => second.child.once('exit', r));
    second.child.kill('SIGINT');
    await gone;
  }
});
