/**
 * Failures of the platform are not the user's errors (src/workflow/platform-failures.ts): the built-in
 * adapter worker runs as a separate process (`swflow adapters`) calling a real HTTP service that
 * holds the call open; the process is killed (SIGKILL) or stopped (SIGINT) in the middle of the
 * call of a definition that defines no retries, then started again. The call is made again and the
 * run ends as the service's answer and the definition say: completed, or the service's error
 * handled by onErrors, or the run failed. No timing is asserted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { WorkflowFailedError } from '@temporalio/client';
import { decodeTimeoutType } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import type { Json, WorkflowDef } from '../../src/common/model';
import { formatFinding, loadAnyDefinition } from '../../src/dsl';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { freePort } from '../helpers/ports';
import { def, saveHistory, sharedBundle } from './helpers';

const ROOT = resolve(__dirname, '..', '..');

// ------------------------------------------------------------------ the user's service

/** How the service answers each POST /jobs, in order: hold the call open, or a status and body. */
type Answer = 'hold' | { status: number; body: Json };

class JobService {
  readonly requests: Json[] = [];
  readonly answers: Answer[] = [];
  private held: ServerResponse[] = [];
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.port = await freePort();
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server.listen(this.port, '127.0.0.1', r));
  }

  get operation(): string {
    return `http://127.0.0.1:${this.port}/openapi.json#runJob`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET' && req.url === '/openapi.json') return void res.end(JSON.stringify(this.openapi()));
    let body = '';
    for await (const chunk of req) body += chunk;
    this.requests.push(JSON.parse(body || 'null'));
    const answer = this.answers.shift() ?? { status: 200, body: { done: true } };
    if (answer === 'hold') return void this.held.push(res);
    res.statusCode = answer.status;
    res.end(JSON.stringify(answer.body));
  }

  private openapi(): Json {
    return {
      openapi: '3.0.0',
      info: { title: 'jobs', version: '1' },
      servers: [{ url: `http://127.0.0.1:${this.port}` }],
      paths: {
        '/jobs': {
          post: {
            operationId: 'runJob',
            requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
            responses: { '200': { description: 'done' } },
          },
        },
      },
    };
  }

  async waitForRequests(n: number): Promise<void> {
    while (this.requests.length < n) await delay(50);
  }

  async stop(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

// ------------------------------------------------------------------ swflow's processes

let env: TestWorkflowEnvironment;
let interpreter: Worker;
let interpreterRun: Promise<void>;
const service = new JobService();
let adapters: { child: ChildProcess; output: string } | undefined;

/** `swflow adapters` as its own process, serving swflow-adapters on the test's server. */
async function startAdapters(): Promise<void> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'adapters'], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const entry = { child, output: '' };
  adapters = entry;
  child.stdout!.on('data', (d) => (entry.output += d));
  child.stderr!.on('data', (d) => (entry.output += d));
  while (!/serving task queue/.test(entry.output)) {
    if (child.exitCode !== null) throw new Error(`swflow adapters exited: ${entry.output}`);
    await delay(50);
  }
}

async function stopAdapters(signal: NodeJS.Signals): Promise<void> {
  const child = adapters!.child;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

before(async () => {
  env = await startDevEnv();
  await service.start();
  interpreter = await createInterpreterWorker({ connection: env.nativeConnection, workflowBundle: await sharedBundle(), definitions: [] });
  interpreterRun = interpreter.run();
  await startAdapters();
});

after(async () => {
  if (adapters?.child.exitCode === null) await stopAdapters('SIGKILL');
  interpreter?.shutdown();
  await interpreterRun;
  await service.stop();
  await env?.teardown();
});

// ------------------------------------------------------------------ definitions and runs

/** One REST call of a job, no retries defined; `extra` adds errors, onErrors, function metadata. */
function jobDefinition(id: string, extra: { metadata?: Record<string, string>; onErrors?: boolean; actionExecTimeout?: string } = {}): Promise<WorkflowDef> {
  return def({
    id,
    start: 'Run',
    ...(extra.actionExecTimeout ? { timeouts: { actionExecTimeout: extra.actionExecTimeout } } : {}),
    errors: [{ name: 'Unavailable', code: '503' }],
    functions: [{ name: 'runJob', operation: service.operation, ...(extra.metadata ? { metadata: extra.metadata } : {}) }],
    states: [
      {
        name: 'Run',
        type: 'operation',
        actions: [{ name: 'run', functionRef: { refName: 'runJob', arguments: { job: '${ .job }' } }, actionDataFilter: { toStateData: '${ .result }' } }],
        ...(extra.onErrors ? { onErrors: [{ errorRef: 'Unavailable', transition: 'Fallback' }] } : {}),
        end: true,
      },
      { name: 'Fallback', type: 'inject', data: { result: 'fallback' }, end: true },
    ],
  });
}

async function start(d: WorkflowDef, input: Json) {
  return env.client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `${d.id}-${Date.now()}`, args: [input, { definition: d }] });
}

/** The run's activity events: scheduled (with summary), timed out (type), failed (failure type). */
async function activityStory(workflowId: string): Promise<string[]> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const conv = env.client.options.loadedDataConverter.payloadConverter;
  return events.flatMap((e): string[] => {
    if (e.activityTaskScheduledEventAttributes) return [`scheduled: ${e.userMetadata?.summary ? conv.fromPayload(e.userMetadata.summary) : ''}`];
    if (e.activityTaskTimedOutEventAttributes) return [`timed out: ${decodeTimeoutType(e.activityTaskTimedOutEventAttributes.failure?.timeoutFailureInfo?.timeoutType)}`];
    if (e.activityTaskFailedEventAttributes) return [`failed: ${e.activityTaskFailedEventAttributes.failure?.applicationFailureInfo?.type}`];
    if (e.activityTaskCompletedEventAttributes) return ['completed'];
    return [];
  });
}

// ------------------------------------------------------------------ tests

test('kill -9 of the adapter worker mid-call, no retries defined: after a restart the call is made again and the run completes', async () => {
  service.requests.length = 0;
  service.answers.push('hold'); // the first call never answers: its worker dies with it
  const handle = await start(await jobDefinition('platform-kill'), { job: 'report-1' });
  await service.waitForRequests(1);
  await stopAdapters('SIGKILL');
  await startAdapters();
  assert.deepEqual(await handle.result(), { job: 'report-1', result: { done: true } });
  assert.equal(service.requests.length, 2, 'the service saw the call once per execution: the lost one and the repeat');
  assert.deepEqual(service.requests, [{ job: 'report-1' }, { job: 'report-1' }]);
  const story = await activityStory(handle.workflowId);
  assert.equal(story.length, 4, story.join('\n'));
  assert.match(story[0], /^scheduled: Run › run → runJob$/);
  // the default heartbeat timeout (no metadata) noticed the lost worker
  assert.equal(story[1], 'timed out: HEARTBEAT');
  assert.match(story[2], /^scheduled: Run › run → runJob \(again: its worker stopped heartbeating/);
  assert.equal(story[3], 'completed');
  await saveHistory(env.client, handle.workflowId, 'interpreter-platform-heartbeat-timeout');
});

test('kill -9 mid-call, then the service answers 503: the definition (no retries, onErrors) handles it once, as written', async () => {
  service.requests.length = 0;
  service.answers.push('hold', { status: 503, body: { message: 'busy' } });
  // metadata swflow.heartbeat sets the function's heartbeat timeout (shorter here: a faster test)
  const d = await jobDefinition('platform-kill-503', { onErrors: true, metadata: { 'swflow.heartbeat': 'PT5S' } });
  const handle = await start(d, { job: 'report-2' });
  await service.waitForRequests(1);
  await stopAdapters('SIGKILL');
  await startAdapters();
  assert.deepEqual(await handle.result(), { job: 'report-2', result: 'fallback' });
  assert.equal(service.requests.length, 2, 'the 503 is not retried (the definition defines no retries)');
  const story = await activityStory(handle.workflowId);
  assert.deepEqual(story.slice(1), ['timed out: HEARTBEAT', story[2], 'failed: 503']);
  const scheduled = (await env.client.workflow.getHandle(handle.workflowId).fetchHistory()).events!.find((e) => e.activityTaskScheduledEventAttributes)!;
  assert.equal(Number(scheduled.activityTaskScheduledEventAttributes!.heartbeatTimeout?.seconds), 5);
});

test('the adapter worker shuts down (SIGINT) mid-call: the call is made again; the service then answers 503 and the run fails as the definition says', async () => {
  service.requests.length = 0;
  service.answers.push('hold', { status: 503, body: { message: 'busy' } });
  const handle = await start(await jobDefinition('platform-shutdown'), { job: 'report-3' });
  await service.waitForRequests(1);
  await stopAdapters('SIGINT');
  await startAdapters();
  const err = await handle.result().then(
    () => assert.fail('the run should fail with the service error'),
    (e) => e,
  );
  assert.ok(err instanceof WorkflowFailedError);
  assert.match(String(err.cause?.message), /state "Run", action "run", function "runJob" failed: busy \(code 503\)/);
  assert.equal(service.requests.length, 2);
  const story = await activityStory(handle.workflowId);
  assert.equal(story[1], 'failed: WorkerShutdown');
  assert.match(story[2], /\(again: its worker shut down during the call\)/);
  assert.equal(story[3], 'failed: 503');
});

test('1.0 call: kill -9 of the adapter worker mid-call, no timeout defined: the call runs unlimited with a heartbeat timeout and is made again, not raised', async () => {
  service.requests.length = 0;
  service.answers.push('hold');
  const loaded = await loadAnyDefinition({
    document: { dsl: '1.0.3', namespace: 'tests', name: 'v1-platform-kill', version: '0.1.0' },
    // metadata swflow.heartbeat: the task's heartbeat timeout, as for 0.8 functions (shorter here: a faster test)
    do: [{ runJob: { call: 'http', with: { method: 'post', endpoint: `http://127.0.0.1:${service.port}/jobs`, body: { job: '${ .job }' } }, metadata: { 'swflow.heartbeat': 'PT5S' } } }],
  });
  assert.ok(loaded.definition, loaded.problems.map(formatFinding).join('\n'));
  const d = loaded.definition!;
  const handle = await env.client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `v1-platform-kill-${Date.now()}`, args: [{ job: 'report-3' }, { definition: d }] });
  await service.waitForRequests(1);
  await stopAdapters('SIGKILL');
  await startAdapters();
  assert.deepEqual(await handle.result(), { done: true });
  assert.deepEqual(service.requests, [{ job: 'report-3' }, { job: 'report-3' }], 'at-least-once: the lost call and the repeat');
  const story = await activityStory(handle.workflowId);
  assert.equal(story.length, 4, story.join('\n'));
  assert.match(story[0], /^scheduled: \/do\/0\/runJob → POST http/);
  assert.equal(story[1], 'timed out: HEARTBEAT');
  assert.match(story[2], /\(again: its worker stopped heartbeating/);
  assert.equal(story[3], 'completed');
  const scheduled = (await env.client.workflow.getHandle(handle.workflowId).fetchHistory()).events!.find((e) => e.activityTaskScheduledEventAttributes)!.activityTaskScheduledEventAttributes!;
  assert.equal(Number(scheduled.heartbeatTimeout?.seconds), 5);
  assert.ok(Number(scheduled.startToCloseTimeout?.seconds) >= 365 * 24 * 3600, 'no timeout defined: unlimited (years), not ten minutes');
  await saveHistory(env.client, handle.workflowId, 'v1-call-platform-heartbeat-timeout');
});

// ------------------------------------------------------------------ a declared timeout (scaled-heartbeats)

/** The first scheduled activity's heartbeat and start-to-close timeouts (seconds). */
async function scheduledTimeouts(workflowId: string): Promise<{ heartbeat: number; startToClose: number }> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const a = events.find((e) => e.activityTaskScheduledEventAttributes)!.activityTaskScheduledEventAttributes!;
  return { heartbeat: Number(a.heartbeatTimeout?.seconds ?? 0), startToClose: Number(a.startToCloseTimeout?.seconds ?? 0) };
}

async function v1JobDefinition(name: string) {
  const loaded = await loadAnyDefinition({
    document: { dsl: '1.0.3', namespace: 'tests', name, version: '0.1.0' },
    do: [{ runJob: { call: 'http', with: { method: 'post', endpoint: `http://127.0.0.1:${service.port}/jobs`, body: { job: '${ .job }' } }, timeout: { after: 'PT6S' } } }],
  });
  assert.ok(loaded.definition, loaded.problems.map(formatFinding).join('\n'));
  return loaded.definition!;
}

test('0.8 actionExecTimeout PT6S: the adapter killed mid-call is noticed by a heartbeat timeout scaled to it (2 s), the call made again, the run completes', async () => {
  service.requests.length = 0;
  service.answers.push('hold');
  const handle = await start(await jobDefinition('platform-kill-timeout', { actionExecTimeout: 'PT6S' }), { job: 'report-5' });
  await service.waitForRequests(1);
  await stopAdapters('SIGKILL');
  await startAdapters();
  assert.deepEqual(await handle.result(), { job: 'report-5', result: { done: true } });
  assert.deepEqual(service.requests, [{ job: 'report-5' }, { job: 'report-5' }]);
  const story = await activityStory(handle.workflowId);
  assert.equal(story[1], 'timed out: HEARTBEAT', story.join('\n'));
  assert.match(story[2], /\(again: its worker stopped heartbeating/);
  assert.equal(story[3], 'completed');
  // per attempt: the call made again has the whole actionExecTimeout again
  assert.deepEqual(await scheduledTimeouts(handle.workflowId), { heartbeat: 2, startToClose: 6 });
  await saveHistory(env.client, handle.workflowId, 'interpreter-scaled-heartbeat-kill');
});

test('0.8 actionExecTimeout PT6S: a service that keeps the call busy longer fails it with the definition\'s timeout, named as such (the adapter heartbeats meanwhile)', async () => {
  service.requests.length = 0;
  service.answers.push('hold');
  const handle = await start(await jobDefinition('platform-busy-timeout', { actionExecTimeout: 'PT6S' }), { job: 'report-6' });
  const err = await handle.result().then(
    () => assert.fail('the run should fail with the timeout'),
    (e) => e,
  );
  assert.ok(err instanceof WorkflowFailedError);
  assert.match(String(err.cause?.message), /state "Run", action "run", function "runJob" failed: the call did not finish within its actionExecTimeout PT6S/);
  assert.doesNotMatch(String(err.cause?.message), /START_TO_CLOSE|startToClose/);
  assert.equal(service.requests.length, 1, 'not made again: the service held it, the worker was alive');
  assert.deepEqual(await activityStory(handle.workflowId), [(await activityStory(handle.workflowId))[0], 'timed out: START_TO_CLOSE']);
});

test('1.0 call with timeout.after PT6S: the adapter killed mid-call is noticed by a heartbeat timeout scaled to it, the call made again within the task timeout', async () => {
  service.requests.length = 0;
  service.answers.push('hold');
  const d = await v1JobDefinition('v1-platform-kill-timeout');
  const handle = await env.client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `v1-platform-kill-timeout-${Date.now()}`, args: [{ job: 'report-7' }, { definition: d }] });
  await service.waitForRequests(1);
  await stopAdapters('SIGKILL');
  await startAdapters();
  assert.deepEqual(await handle.result(), { done: true });
  assert.deepEqual(service.requests, [{ job: 'report-7' }, { job: 'report-7' }]);
  const story = await activityStory(handle.workflowId);
  assert.equal(story[1], 'timed out: HEARTBEAT', story.join('\n'));
  assert.equal(story[3], 'completed');
  assert.equal((await scheduledTimeouts(handle.workflowId)).heartbeat, 2);
  await saveHistory(env.client, handle.workflowId, 'v1-call-scaled-heartbeat-kill');
});

test('1.0 call with timeout.after PT6S: a service that keeps the call busy longer fails the task with a timeout naming timeout.after', async () => {
  service.requests.length = 0;
  service.answers.push('hold');
  const d = await v1JobDefinition('v1-platform-busy-timeout');
  const handle = await env.client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `v1-platform-busy-timeout-${Date.now()}`, args: [{ job: 'report-8' }, { definition: d }] });
  const err = await handle.result().then(
    () => assert.fail('the run should fail with the timeout'),
    (e) => e,
  );
  assert.ok(err instanceof WorkflowFailedError);
  assert.match(JSON.stringify(err.cause), /did not finish within PT6S \(timeout\.after\)/);
  assert.equal(service.requests.length, 1, 'not made again: the worker heartbeated all along');
  assert.ok(!(await activityStory(handle.workflowId)).includes('timed out: HEARTBEAT'));
});
