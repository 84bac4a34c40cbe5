/**
 * What the platform-failure tests (platform-failures.test.ts for 0.8, v1-platform-failures.test.ts
 * for 1.0) share: the user's job service (a real HTTP service that can hold a call open), the
 * built-in adapter worker as its own process (`swflow adapters`, to be killed), and the story of
 * a run's activity events.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before } from 'node:test';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { decodeTimeoutType } from '@temporalio/common';
import type { Json } from '../../src/dsl/model';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { freePort } from '../helpers/ports';
import { startDevEnv } from '../helpers/temporal';
import { sharedBundle } from './helpers';

const ROOT = resolve(__dirname, '..', '..');

/** How the service answers each POST /jobs, in order: hold the call open, or a status and body. */
export type Answer = 'hold' | { status: number; body: Json };

export class JobService {
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

/** `swflow adapters` as its own process, serving swflow-adapters on a test's server. */
export class AdapterProcess {
  private entry?: { child: ChildProcess; output: string };

  constructor(private readonly temporalAddress: string) {}

  async start(): Promise<void> {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), 'adapters'], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: this.temporalAddress, TEMPORAL_NAMESPACE: 'default' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const entry = { child, output: '' };
    this.entry = entry;
    child.stdout!.on('data', (d) => (entry.output += d));
    child.stderr!.on('data', (d) => (entry.output += d));
    while (!/serving task queue/.test(entry.output)) {
      if (child.exitCode !== null) throw new Error(`swflow adapters exited: ${entry.output}`);
      await delay(50);
    }
  }

  get running(): boolean {
    return this.entry?.child.exitCode === null;
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    const child = this.entry!.child;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    await exited;
  }
}

/** The run's activity events: scheduled (with summary), timed out (type), failed (failure type). */
export async function activityStory(client: Client, workflowId: string): Promise<string[]> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const conv = client.options.loadedDataConverter.payloadConverter;
  return events.flatMap((e): string[] => {
    if (e.activityTaskScheduledEventAttributes) return [`scheduled: ${e.userMetadata?.summary ? conv.fromPayload(e.userMetadata.summary) : ''}`];
    if (e.activityTaskTimedOutEventAttributes) return [`timed out: ${decodeTimeoutType(e.activityTaskTimedOutEventAttributes.failure?.timeoutFailureInfo?.timeoutType)}`];
    if (e.activityTaskFailedEventAttributes) return [`failed: ${e.activityTaskFailedEventAttributes.failure?.applicationFailureInfo?.type}`];
    if (e.activityTaskCompletedEventAttributes) return ['completed'];
    return [];
  });
}


/** The test file's setup (registered as its before/after hooks): the dev server, the job service, an interpreter worker in the test, the adapter process. */
export function usePlatform(): { service: JobService; readonly env: TestWorkflowEnvironment; readonly adapters: AdapterProcess } {
  const service = new JobService();
  let env: TestWorkflowEnvironment | undefined;
  let adapters: AdapterProcess | undefined;
  let interpreter: Worker | undefined;
  let interpreterRun: Promise<void> | undefined;
  before(async () => {
    env = await startDevEnv();
    await service.start();
    interpreter = await createInterpreterWorker({ connection: env.nativeConnection, workflowBundle: await sharedBundle(), definitions: [] });
    interpreterRun = interpreter.run();
    adapters = new AdapterProcess(env.address);
    await adapters.start();
  });
  after(async () => {
    if (adapters?.running) await adapters.stop('SIGKILL');
    interpreter?.shutdown();
    await interpreterRun;
    await service.stop();
    await env?.teardown();
  });
  return {
    service,
    get env() {
      return env!;
    },
    get adapters() {
      return adapters!;
    },
  };
}
