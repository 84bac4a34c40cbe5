/**
 * Test helpers for the interpreter: definitions normalized by the real loader (src/dsl), a harness that runs
 * the interpreter worker plus a mock function worker (a dynamic activity) on a REAL server, and one that
 * runs the real built-in adapters against a real HTTP service.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection, type ReplayWorkerOptions } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Definition, Json, WorkflowDef } from '../../src/common/model';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE, type CloudEventJson, type FunctionCall, type StartOptions } from '../../src/common/contracts';
import { historyFromFixture, historyToFixture } from '../../src/testing/history';
import { RESOLVE_DEFINITION_ACTIVITY, type ResolveResult } from '../../src/common/pinning';
import { formatFinding, loadAnyDefinition, loadDefinition, type LoadOptions } from '../../src/dsl';
import { installQuietRuntime } from '../../src/testing/env';
import { bundleInterpreter, createInterpreterWorker, type WorkflowBundle } from '../../src/worker/interpreter-worker';
import { autoHeartbeat } from '../../src/worker/heartbeat';
import { callInterceptor } from '../../src/adapter-sdk/call';
import { INTERPRETER_FEATURES } from '../../src/common/features';
import { stopWorkers } from '../../src/worker/stop';
import { startDevEnv } from '../helpers/temporal';

installQuietRuntime(); // before any test creates a server or worker

type Any = any;

/**
 * A definition for a test, normalized by the real loader (src/dsl `loadDefinition`), from a
 * compact document: `specVersion` defaults to 0.8 and consumed events without a `source` get
 * `source: "test"` (what {@link ce} sends). Returns a promise: `h.run`/`h.start` (and their
 * `subflows`) take it as it is, so tests read `const d = def({...}); await h.run(d)`.
 */
export async function def(doc: Any): Promise<WorkflowDef> {
  const events = doc.events?.map((e: Any) => ((e.kind ?? 'consumed') === 'consumed' && e.source === undefined ? { ...e, source: 'test' } : e));
  const { definition, problems } = await loadDefinition({ specVersion: '0.8', ...doc, ...(events ? { events } : {}) }, { source: `test definition ${doc.id}` });
  if (!definition) throw new Error(`test definition "${doc.id}" is invalid: ${problems.map(formatFinding).join('; ')}`);
  return definition;
}

/** A definition of any dialect (a 1.0 document, ...) loaded as it is; throws its problems when it is invalid. */
export async function loadAny(doc: unknown, opts: LoadOptions = {}): Promise<Definition> {
  const { definition, problems } = await loadAnyDefinition(doc, opts);
  if (!definition) throw new Error(`test definition is invalid:\n${problems.map(formatFinding).join('\n')}`);
  return definition;
}

/** A definition, or the promise def() returns. */
export type Defn = WorkflowDef | Promise<WorkflowDef>;
type RunOpts = Omit<StartOptions, 'definition' | 'subflows'> & { subflows?: Record<string, Defn>; workflowId?: string };

async function resolveSubflows(subflows: Record<string, Defn> | undefined): Promise<Record<string, WorkflowDef> | undefined> {
  if (!subflows) return undefined;
  return Object.fromEntries(await Promise.all(Object.entries(subflows).map(async ([k, v]) => [k, await v] as const)));
}

export type MockFn = (args: Any, call: FunctionCall) => Json | Promise<Json>;

export interface Harness {
  env: TestWorkflowEnvironment;
  calls: { function: string; arguments: Json; call: FunctionCall; activityType: string; taskQueue: string }[];
  produced: CloudEventJson[];
  mocks: Record<string, MockFn>;
  /** The workflow id of the last run()/start(). */
  lastWorkflowId?: string;
  run(d: Defn, input?: Json, opts?: RunOpts & { events?: CloudEventJson[] }): Promise<Json>;
  start(d: Defn, input?: Json, opts?: RunOpts): Promise<Any>;
  reset(): void;
  close(): Promise<void>;
  /** Returns a finished run's history; saves it as a replay fixture (test/fixtures/histories/<name>.json) when missing or when SWFLOW_RECORD_HISTORIES=1. */
  saveHistory(workflowId: string, name: string): Promise<Any>;
}

export const FIXTURES_DIR = join(__dirname, '..', 'fixtures', 'histories');

/** A service failure as adapters report it. */
export function serviceError(code: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: code, details: [{ code, message }], nonRetryable: false });
}

let bundlePromise: Promise<WorkflowBundle> | undefined;
export function sharedBundle(): Promise<WorkflowBundle> {
  bundlePromise ??= bundleInterpreter();
  return bundlePromise;
}

export async function harness(env: TestWorkflowEnvironment, extraQueues: string[] = [], definitions: (string | WorkflowDef)[] = []): Promise<Harness> {
  const calls: Harness['calls'] = [];
  const produced: CloudEventJson[] = [];
  const mocks: Record<string, MockFn> = {};
  const mock = async (call: FunctionCall) => {
    const info = Context.current().info;
    calls.push({ function: call.function.name, arguments: call.arguments, call, activityType: info.activityType, taskQueue: info.taskQueue });
    const fn = mocks[call.function.name];
    if (!fn) throw ApplicationFailure.create({ message: `no mock for ${call.function.name}`, nonRetryable: true });
    return fn(call.arguments, call);
  };
  const bundle = await sharedBundle();
  const workers: Worker[] = [
    await createInterpreterWorker({
      connection: env.nativeConnection,
      definitions,
      eventSinks: [async (e) => void produced.push(e)],
      workflowBundle: bundle,
      localCalls: { default: mock },
    }),
    ...(await Promise.all(
      [ADAPTER_TASK_QUEUE, ...extraQueues].map((taskQueue) =>
        Worker.create({ connection: env.nativeConnection, taskQueue, activities: { default: mock }, interceptors: { activity: [callInterceptor, autoHeartbeat] } }),
      ),
    )),
  ];
  const running = workers.map((w) => w.run());
  const client = env.client;
  const h: Harness = {
    env,
    calls,
    produced,
    mocks,
    async start(defn, input = {}, opts = {}) {
      const d = await defn;
      const { workflowId, subflows, ...rest } = opts as Any;
      const resolvedSubflows = await resolveSubflows(subflows);
      if (resolvedSubflows) rest.subflows = resolvedSubflows;
      const id: string = workflowId ?? `t-${d.id}-${randomUUID().slice(0, 8)}`;
      h.lastWorkflowId = id;
      return client.workflow.start(d.id, {
        taskQueue: INTERPRETER_TASK_QUEUE,
        workflowId: id,
        args: [input, { definition: d, ...rest }],
      });
    },
    async run(d, input = {}, opts = {}) {
      const { events, ...rest } = opts;
      const handle = await h.start(d, input, rest);
      for (const e of events ?? []) await handle.signal('swflow.event', e);
      return handle.result();
    },
    reset() {
      calls.length = 0;
      produced.length = 0;
      for (const k of Object.keys(mocks)) delete mocks[k];
    },
    saveHistory: (workflowId, name) => saveHistory(client, workflowId, name),
    async close() {
      for (const w of workers) w.shutdown();
      await Promise.allSettled(running);
    },
  };
  return h;
}

/** A finished run's history, saved as the replay fixture test/fixtures/histories/<name>.json (see Harness.saveHistory). */
export async function saveHistory(client: Client, workflowId: string, name: string): Promise<Any> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  // Written when missing, or re-recorded with SWFLOW_RECORD_HISTORIES=1 (as the conformance
  // runner does), so ordinary test runs do not churn the committed fixtures.
  const file = join(FIXTURES_DIR, `${name}.json`);
  if (process.env.SWFLOW_RECORD_HISTORIES === '1' || !existsSync(file)) {
    mkdirSync(FIXTURES_DIR, { recursive: true });
    // the same fixture format as the conformance runner's (src/testing/history.ts)
    writeFileSync(file, historyToFixture(history as any));
  }
  return history;
}

/**
 * Replays every recorded history in {@link FIXTURES_DIR} with `options` (the bundle, sinks): the
 * fixtures' file names, how many replayed, and the failures (`<fixture>: <error>`).
 */
export async function replayFixtures(options: ReplayWorkerOptions): Promise<{ files: string[]; replayed: number; failures: string[] }> {
  const files = readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.json')).sort();
  async function* histories() {
    for (const f of files) yield { workflowId: f.replace(/\.json$/, ''), history: historyFromFixture(readFileSync(join(FIXTURES_DIR, f), 'utf8')) };
  }
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories(options, histories())) {
    replayed++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.name}: ${r.error.message ?? r.error}`);
  }
  return { files, replayed, failures };
}

/** A function call as a finished run's history shows it (what the Web UI lists): an activity, or a local activity's marker. */
export interface HistoryCall {
  kind: 'activity' | 'local';
  type: string;
  /** An activity's task queue. */
  taskQueue?: string;
  summary: string;
}

/**
 * A finished run's calls in history order (the definition's resolve apart), what the resolve
 * pinned (its features, readFunctions…), and the history's events.
 */
export async function callsOf(client: Client, workflowId: string) {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const conv = client.options.loadedDataConverter.payloadConverter;
  const summaryOf = (e: (typeof events)[number]) => (e.userMetadata?.summary ? (conv.fromPayload(e.userMetadata.summary) as string) : '');
  const calls: HistoryCall[] = [];
  let pinned: ResolveResult | undefined;
  for (const e of events) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s && s.activityType?.name !== RESOLVE_DEFINITION_ACTIVITY) calls.push({ kind: 'activity', type: s.activityType!.name!, taskQueue: s.taskQueue!.name!, summary: summaryOf(e) });
    const m = e.markerRecordedEventAttributes;
    if (!m) continue;
    const data = conv.fromPayload(m.details!.data!.payloads![0]) as { activity_type?: string };
    if (data.activity_type === RESOLVE_DEFINITION_ACTIVITY) pinned = conv.fromPayload(m.details!.result!.payloads![0]) as ResolveResult;
    else calls.push({ kind: 'local', type: data.activity_type!, summary: summaryOf(e) });
  }
  if (!pinned) throw new Error(`${workflowId}: no resolve marker in its history`);
  return { calls, pinned, events };
}

/**
 * An interpreter worker acting as one from before `features` existed: its runs resolve without
 * them (the interpreter takes the paths their histories recorded). On its own task queue;
 * `stop()` shuts it down.
 */
export async function workerWithout(env: TestWorkflowEnvironment, taskQueue: string, features: string[]): Promise<{ taskQueue: string; stop(): Promise<void> }> {
  const worker = await createInterpreterWorker({
    connection: env.nativeConnection,
    taskQueue,
    definitions: [],
    workflowBundle: await sharedBundle(),
    features: INTERPRETER_FEATURES.filter((f) => !features.includes(f)),
  });
  const running = worker.run();
  return {
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

export function ce(type: string, data?: Json, extra: Record<string, Json> = {}): CloudEventJson {
  return { specversion: '1.0', id: randomUUID(), source: extra.source as string ?? 'test', type, ...(data !== undefined ? { data } : {}), ...extra };
}

/** What {@link builtinCallsHarness} sets up: a real HTTP service, a definition folder for it, a dev server and its workers. */
export interface BuiltinCallsHarness {
  env: TestWorkflowEnvironment;
  /** The HTTP service's URL. */
  base: string;
  /** The definition folder: `api.json`, the service's OpenAPI document (0.8 REST functions name it). */
  dir: string;
  /** A document loaded as the workers load it (relative to `dir`). */
  load(doc: unknown): Promise<Definition>;
  /**
   * Runs `doc` to its end on `taskQueue` (default: the interpreter's): its output and workflow
   * id; `byType`: started by type only, so the worker's registry pins it (and looks its REST
   * documents up).
   */
  execute(doc: unknown, input?: Json, taskQueue?: string, byType?: boolean): Promise<{ output: Json; workflowId: string }>;
  close(): Promise<void>;
}

/**
 * The set-up of the tests of calls served by the built-in adapters (eager-calls, local-calls,
 * local-reads): a real HTTP service answering with `respond` (`url`: the request's, parsed), a
 * temporary definition folder with its OpenAPI document (`api`: its title and paths; its server
 * is the service), a dev server, and the workers `workers` creates for them (interpreter and
 * adapter workers, each test file its own). Run ids are `<name>-1`, `<name>-2`, ….
 */
export async function builtinCallsHarness(opts: {
  name: string;
  respond: (req: IncomingMessage, res: ServerResponse, url: URL) => void;
  api: { title: string; paths: Record<string, unknown> };
  workers: (setup: { connection: NativeConnection; dir: string; bundle: WorkflowBundle }) => Promise<Worker>[];
}): Promise<BuiltinCallsHarness> {
  let base = '';
  const server = createServer((req, res) => opts.respond(req, res, new URL(req.url!, base)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), `swflow-${opts.name}-`));
  writeFileSync(join(dir, 'api.json'), JSON.stringify({ openapi: '3.0.0', info: { title: opts.api.title, version: '1' }, servers: [{ url: base }], paths: opts.api.paths }));
  const env = await startDevEnv();
  const workers = await Promise.all(opts.workers({ connection: env.nativeConnection, dir, bundle: await sharedBundle() }));
  const runs = workers.map((w) => w.run());
  let n = 0;
  const load = (doc: unknown) => loadAny(doc, { baseDir: dir });
  return {
    env,
    base,
    dir,
    load,
    async execute(doc, input = {}, taskQueue = INTERPRETER_TASK_QUEUE, byType = false) {
      const definition = await load(doc);
      const workflowId = `${opts.name}-${++n}`;
      const args: unknown[] = byType ? [input] : [input, { definition } as StartOptions];
      const output = (await env.client.workflow.execute(definition.id, { taskQueue, workflowId, args }).catch((err) => {
        throw new Error(`run ${workflowId} failed: ${err.cause?.message ?? err.message}`);
      })) as Json;
      return { output, workflowId };
    },
    async close() {
      await stopWorkers(workers, runs);
      await env.teardown();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
