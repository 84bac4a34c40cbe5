/**
 * Test helpers for the interpreter: a compact way to write definitions (a tiny normalizer
 * for the shortcuts used in these tests — the real one is src/dsl), and a harness that runs
 * the interpreter worker plus a mock function worker (a dynamic activity) on a REAL server.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Json, WorkflowDef } from '../../src/dsl/model';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE, type CloudEventJson, type FunctionCall, type StartOptions } from '../../src/common/contracts';
import { historyToFixture } from '../../src/testing/history';
import { installQuietRuntime } from '../../src/testing/env';
import { bundleInterpreter, createInterpreterWorker, type WorkflowBundle } from '../../src/worker/interpreter-worker';

installQuietRuntime(); // before any test creates a server or worker

type Any = any;

function transition(t: Any) {
  if (t === undefined) return undefined;
  if (typeof t === 'string') return { nextState: t, produceEvents: [], compensate: false };
  return { produceEvents: [], compensate: false, ...t };
}
function end(e: Any) {
  if (e === undefined || e === false) return undefined;
  if (e === true) return { terminate: false, produceEvents: [], compensate: false };
  return { terminate: false, produceEvents: [], compensate: false, ...e };
}
function action(a: Any) {
  const out: Any = { ...a, actionDataFilter: { useResults: true, ...(a.actionDataFilter ?? {}) } };
  if (typeof a.functionRef === 'string') out.functionRef = { refName: a.functionRef, invoke: 'sync' };
  else if (a.functionRef) out.functionRef = { invoke: 'sync', ...a.functionRef };
  if (typeof a.subFlowRef === 'string') out.subFlowRef = { workflowId: a.subFlowRef, invoke: 'sync', onParentComplete: 'terminate' };
  else if (a.subFlowRef) out.subFlowRef = { invoke: 'sync', onParentComplete: 'terminate', ...a.subFlowRef };
  if (a.eventRef) out.eventRef = { invoke: 'sync', ...a.eventRef };
  return out;
}
const edf = (f: Any) => ({ useData: true, ...(f ?? {}) });

/** A normalized definition from a compact 0.8-style document (shortcuts used in tests only). */
export function def(doc: Any): WorkflowDef {
  const states = doc.states.map((s: Any) => {
    const o: Any = { onErrors: [], usedForCompensation: false, metadata: {}, ...s };
    o.transition = transition(s.transition);
    o.end = end(s.end);
    if (!o.transition) delete o.transition;
    if (!o.end) delete o.end;
    o.onErrors = (s.onErrors ?? []).map((h: Any) => ({
      errorRefs: h.errorRefs ?? [h.errorRef],
      ...(h.transition ? { transition: transition(h.transition) } : {}),
      ...(h.end ? { end: end(h.end) } : {}),
    }));
    if (s.actions) o.actions = s.actions.map(action);
    if (s.type === 'operation') o.actionMode ??= 'sequential';
    if (s.type === 'foreach') {
      o.mode ??= 'parallel';
      o.iterationParam ??= 'item';
    }
    if (s.type === 'event') {
      o.exclusive ??= true;
      o.onEvents = s.onEvents.map((on: Any) => ({ actionMode: 'sequential', ...on, actions: (on.actions ?? []).map(action), eventDataFilter: edf(on.eventDataFilter) }));
    }
    if (s.type === 'callback') {
      o.action = action(s.action);
      o.eventDataFilter = edf(s.eventDataFilter);
    }
    if (s.type === 'parallel') {
      o.completionType ??= 'allOf';
      o.branches = s.branches.map((b: Any) => ({ ...b, actions: b.actions.map(action) }));
    }
    if (s.type === 'switch') {
      o.dataConditions = (s.dataConditions ?? []).map((c: Any) => ({ metadata: {}, ...c, transition: transition(c.transition), end: end(c.end) }));
      o.eventConditions = (s.eventConditions ?? []).map((c: Any) => ({ metadata: {}, ...c, eventDataFilter: edf(c.eventDataFilter), transition: transition(c.transition), end: end(c.end) }));
      o.defaultCondition = { transition: transition(s.defaultCondition?.transition), end: end(s.defaultCondition?.end) };
    }
    return o;
  });
  return {
    specVersion: '0.8',
    dialect: '0.8',
    annotations: [],
    metadata: {},
    expressionLang: 'jq',
    constants: {},
    secrets: [],
    errors: [],
    keepActive: false,
    autoRetries: false,
    retries: [],
    auth: [],
    ...doc,
    start: typeof doc.start === 'string' ? { stateName: doc.start } : doc.start,
    functions: (doc.functions ?? []).map((f: Any) => ({ type: 'rest', metadata: {}, ...f })),
    events: (doc.events ?? []).map((e: Any) => ({ kind: 'consumed', correlation: [], dataOnly: true, metadata: {}, ...e })),
    states,
  } as WorkflowDef;
}

export type MockFn = (args: Any, call: FunctionCall) => Json | Promise<Json>;

export interface Harness {
  env: TestWorkflowEnvironment;
  calls: { function: string; arguments: Json; call: FunctionCall; activityType: string; taskQueue: string }[];
  produced: CloudEventJson[];
  mocks: Record<string, MockFn>;
  /** The workflow id of the last run()/start(). */
  lastWorkflowId?: string;
  run(d: WorkflowDef, input?: Json, opts?: Omit<StartOptions, 'definition'> & { workflowId?: string; events?: CloudEventJson[] }): Promise<Json>;
  start(d: WorkflowDef, input?: Json, opts?: Omit<StartOptions, 'definition'> & { workflowId?: string }): Promise<Any>;
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
    }),
    ...(await Promise.all(
      [ADAPTER_TASK_QUEUE, ...extraQueues].map((taskQueue) => Worker.create({ connection: env.nativeConnection, taskQueue, activities: { default: mock } })),
    )),
  ];
  const running = workers.map((w) => w.run());
  const client = env.client;
  const h: Harness = {
    env,
    calls,
    produced,
    mocks,
    async start(d, input = {}, opts = {}) {
      const { workflowId, ...rest } = opts as Any;
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
    async saveHistory(workflowId, name) {
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
    },
    async close() {
      for (const w of workers) w.shutdown();
      await Promise.allSettled(running);
    },
  };
  return h;
}

export function ce(type: string, data?: Json, extra: Record<string, Json> = {}): CloudEventJson {
  return { specversion: '1.0', id: randomUUID(), source: extra.source as string ?? 'test', type, ...(data !== undefined ? { data } : {}), ...extra };
}
