/**
 * Runs workflow test cases (FORMAT.md) on a real Temporal server: one server and one
 * interpreter bundle for all cases; per case its own workflow id, mocks, event sink and
 * workers (cases run one after the other: time skipping is global to the server). Whatever
 * a case leaves running ends with it (isolation.ts), so cases may run in any order.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  ApplicationFailure,
  type TemporalFailure,
} from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  EVENT_SIGNAL,
  INTERPRETER_TASK_QUEUE,
  STATE_QUERY,
  type CloudEventJson,
  type FunctionCall,
  type InstanceState,
  type StartOptions,
} from '../common/contracts';
import type { Definition, Json } from '../common/model';
import { isV1Definition } from '../common/model-v1';
import { BUILTIN_ADAPTERS, CASE_FILE_RE, CaseError, loadCaseFile, type CaseDefinition, type TestCase } from './case';
import { activityTypeOf } from '../common/calls';
import { checkOutcome, type RunOutcome } from './expect';
import { historyText, historyToFixture, openTimers, runTree, workflowTaskFailure, type History } from './history';
import { MockService, functionTaskQueues, mockProblems } from './mocks';
import { startTestServer } from './env';
import { resolveSecretArguments } from '../expr/secrets';
import { callInterceptor } from '../adapter-sdk/call';
import { stopWorkers } from '../worker/stop';
import { autoHeartbeat } from '../worker/heartbeat';
import { mockDelay } from './delay';
import { restoreTimeSkipping, terminateOpenRuns, CASE_ENDED } from './isolation';
import { shuffled } from './order';

export interface CaseResult {
  name: string;
  file: string;
  passed: boolean;
  /** Why it failed (empty when it passed). */
  problems: string[];
  durationMs: number;
  workflowId?: string;
  outcome?: RunOutcome;
}

export interface RunCasesOptions {
  /** Reuse this environment (else one is started and torn down). */
  env?: TestWorkflowEnvironment;
  /** Whether `env` skips time (default: `env.supportsTimeSkipping`). */
  timeSkipping?: boolean;
  /** Real-time limit per case (default 60 s). */
  timeoutMs?: number;
  /** Called with each result as soon as it is known (the CLI prints PASS/FAIL lines). */
  onResult?: (r: CaseResult) => void;
  /** Progress and notes (server start, fallbacks). */
  log?: (msg: string) => void;
  /** Save each passing case's history as `<dir>/<case>.json` (replay fixtures). */
  recordHistoriesDir?: string;
  /** A prebuilt interpreter bundle (else built once for the whole run). */
  workflowBundle?: { code: string };
  /** Run the cases in the order of a shuffle seeded with this (else in the files' sorted order). */
  shuffleSeed?: number;
}

export interface RunCasesResult {
  passed: number;
  failed: number;
  results: CaseResult[];
}

/** `*.case.yaml|yml|json` files: the files given, and those under the folders given (recursively), sorted. */
export function collectCaseFiles(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string, explicit: boolean) => {
    let st: Stats;
    try {
      st = statSync(p);
    } catch {
      throw new Error(`${p}: no such file or folder`);
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) {
        if (name === 'node_modules' || name.startsWith('.')) continue;
        walk(join(p, name), false);
      }
    } else if (explicit || CASE_FILE_RE.test(p)) out.push(p);
  };
  for (const p of paths) walk(resolve(p), true);
  return out;
}

type InterpreterWorkerModule = typeof import('../worker/interpreter-worker');
type DslModule = typeof import('../dsl');
type ExprModule = typeof import('../expr');

export async function runCases(paths: string[], opts: RunCasesOptions = {}): Promise<RunCasesResult> {
  const log = opts.log ?? (() => {});
  const sorted = collectCaseFiles(paths);
  const files = opts.shuffleSeed === undefined ? sorted : shuffled(sorted, opts.shuffleSeed);
  const results: RunCasesResult = { passed: 0, failed: 0, results: [] };
  const report = (r: CaseResult) => {
    results.results.push(r);
    if (r.passed) results.passed++;
    else results.failed++;
    opts.onResult?.(r);
  };
  if (files.length === 0) return results;

  let env = opts.env;
  let timeSkipping = opts.timeSkipping ?? env?.supportsTimeSkipping ?? false;
  let ownEnv = false;
  const dsl: DslModule = await import('../dsl');
  const iw: InterpreterWorkerModule = await import('../worker/interpreter-worker');
  const expr: ExprModule = await import('../expr');
  await expr.initExpressions();
  try {
    if (!env) {
      const started = Date.now();
      const server = await startTestServer(log);
      env = server.env;
      timeSkipping = server.timeSkipping;
      ownEnv = true;
      if (server.note) log(`note: ${server.note}`);
      log(`Temporal ${timeSkipping ? 'time-skipping test server' : 'dev server'} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    let bundle = opts.workflowBundle;
    if (!bundle) {
      const started = Date.now();
      bundle = await iw.bundleInterpreter();
      log(`Interpreter bundled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
    const ctx: CaseContext = { env, timeSkipping, bundle, dsl, iw, expr, opts, timeoutMs: opts.timeoutMs ?? 60_000 };
    for (const file of files) {
      const started = Date.now();
      let r: CaseResult;
      try {
        r = await runOneCase(file, ctx);
      } catch (err) {
        r = {
          name: file.replace(/^.*\//, '').replace(CASE_FILE_RE, ''),
          file,
          passed: false,
          problems: [err instanceof CaseError ? err.message : `runner error: ${(err as Error).stack ?? err}`],
          durationMs: 0,
        };
      }
      r.durationMs = Date.now() - started;
      report(r);
    }
  } finally {
    if (ownEnv) await env?.teardown().catch(() => {});
  }
  return results;
}

/** `$CONST` of a 0.8-family definition (1.0 documents have none). */
function constantsOf(def: Definition): Json | undefined {
  return isV1Definition(def) ? undefined : def.constants;
}

interface CaseContext {
  env: TestWorkflowEnvironment;
  timeSkipping: boolean;
  bundle: { code: string };
  dsl: DslModule;
  iw: InterpreterWorkerModule;
  expr: ExprModule;
  opts: RunCasesOptions;
  timeoutMs: number;
}

// ------------------------------------------------------------------ definitions

interface LoadedDefs {
  definition?: Definition;
  subflows: Definition[];
  /** Validation errors, formatted. */
  errors: string[];
}

async function loadDefinitions(tc: TestCase, dsl: DslModule): Promise<LoadedDefs> {
  const errors: string[] = [];
  const load = async (src: CaseDefinition, constants?: Record<string, Json>): Promise<Definition | undefined> => {
    let doc: unknown;
    let baseDir: string;
    let source: string;
    if (src.kind === 'file') {
      let text: string;
      try {
        text = readFileSync(src.path, 'utf8');
      } catch (err) {
        errors.push(`${src.label}: cannot read ${src.path}: ${(err as Error).message}`);
        return undefined;
      }
      baseDir = dirname(src.path);
      source = src.path;
      if (!constants) {
        const res = await dsl.loadAnyDefinitionFile(src.path);
        return collect(res);
      }
      try {
        doc = parseYaml(text);
      } catch (err) {
        errors.push(`${src.path}: not valid JSON/YAML: ${(err as Error).message}`);
        return undefined;
      }
    } else {
      doc = structuredClone(src.doc);
      baseDir = dirname(tc.file);
      source = `${tc.file}#${src.label}`;
    }
    // The case's `constants` supply $CONST where the definition's constants is a URI.
    if (constants && doc && typeof doc === 'object' && typeof (doc as Record<string, unknown>).constants === 'string') {
      (doc as Record<string, unknown>).constants = constants;
    }
    const res = await dsl.loadAnyDefinition(doc as never, { baseDir, source });
    const def = collect(res);
    if (def && constants && !isV1Definition(def)) def.constants = { ...def.constants, ...constants };
    return def;
  };
  const collect = (res: Awaited<ReturnType<DslModule['loadAnyDefinition']>>): Definition | undefined => {
    const errs = res.problems.filter((p) => p.severity === 'error');
    for (const p of errs) errors.push(dsl.formatFinding(p));
    return errs.length === 0 ? res.definition : undefined;
  };
  const definition = await load(tc.workflow, tc.constants);
  const subflows: Definition[] = [];
  for (const s of tc.subflows) {
    const d = await load(s);
    if (d) subflows.push(d);
  }
  return { definition: errors.length ? undefined : definition, subflows, errors };
}

// ------------------------------------------------------------------ one case

async function runOneCase(file: string, ctx: CaseContext): Promise<CaseResult> {
  const tc = loadCaseFile(file);
  const base = { name: tc.name, file, durationMs: 0 };
  const fail = (problems: string[], extra: Partial<CaseResult> = {}): CaseResult => ({ ...base, passed: false, problems, ...extra });

  const defs = await loadDefinitions(tc, ctx.dsl);
  if (tc.expect.status === 'invalid') {
    if (defs.errors.length === 0) return fail(['expected the definition to be rejected as invalid, but it validated']);
    const wanted = tc.expect.error?.messageContains ?? '';
    if (!defs.errors.some((m) => m.includes(wanted))) {
      return fail([`the definition was rejected, but no validation message contains ${JSON.stringify(wanted)}:\n    ${defs.errors.join('\n    ')}`]);
    }
    return { ...base, passed: true, problems: [] };
  }
  if (defs.errors.length || !defs.definition) {
    return fail([`the definition does not validate:\n    ${defs.errors.join('\n    ') || 'no definition produced'}`]);
  }
  const definition = defs.definition;
  const allDefs = [definition, ...defs.subflows];
  const mp = mockProblems(tc.functions, allDefs);
  if (mp.length) return fail(mp);

  const functionQueues = functionTaskQueues(allDefs);
  if (functionQueues.includes(INTERPRETER_TASK_QUEUE)) {
    return fail([`a function is served on the interpreter's own task queue (${INTERPRETER_TASK_QUEUE}); the runner cannot mock it`]);
  }

  const { env } = ctx;
  const namespace = (env.client.options as { namespace?: string }).namespace ?? 'default';
  const caseEnded = new AbortController();
  const mocks = new MockService(tc.functions, {
    evaluate: (e, data) => ctx.expr.evaluateCondition(e, data, { constants: constantsOf(definition) }),
    sleep: mockDelay(env, ctx.timeSkipping),
    signal: caseEnded.signal,
    // As a real adapter does: secret arguments are resolved on the activity side only.
    // A 1.0 call's expressions read `$secrets` (a variable) and its context (secretContext).
    resolveSecretArguments: (args, secretArguments, call) =>
      isV1Definition(definition)
        ? resolveSecretArguments(args, secretArguments, call.secretContext?.data ?? null, { variables: { ...(call.secretContext?.scope.variables ?? {}), secrets: tc.secrets } }, {})
        : resolveSecretArguments(args, secretArguments, call.secretContext?.data ?? null, call.secretContext?.scope ?? { constants: definition.constants }, tc.secrets),
  });
  const served = await caseAdapters(tc);
  // A call whose function has no mock rules goes to a real adapter of the case, when one serves it.
  const serve = async (call: FunctionCall): Promise<Json> => {
    const real = tc.functions[call.function.name] ? undefined : served[activityTypeOf(call.function)];
    if (!real) return mocks.handle(call);
    await mocks.record(call);
    return real(call);
  };
  const produced: CloudEventJson[] = [];
  const workers: Worker[] = [];
  workers.push(
    await ctx.iw.createInterpreterWorker({
      connection: env.nativeConnection,
      namespace,
      taskQueue: INTERPRETER_TASK_QUEUE,
      definitions: allDefs,
      eventSinks: [
        async (e: CloudEventJson) => {
          produced.push(e);
        },
      ],
      workflowBundle: ctx.bundle,
      // 1.0 catalogs and functions by URI are fetched as in production: relative endpoints from the
      // definition's folder, `$secrets` of their authentication from the case's secrets.
      catalogs: { baseDir: tc.workflow.kind === 'file' ? dirname(tc.workflow.path) : dirname(tc.file), secrets: tc.secrets },
      // Calls marked `swflow.local` run on this worker: mocked (or served by the case's adapters) as the others.
      localCalls: { default: serve },
      // 1.0 schema resources: files beside the case (or its workflow file), fetched with the case's secrets.
      documentDirs: [tc.workflow.kind === 'file' ? dirname(tc.workflow.path) : dirname(tc.file)],
      secrets: tc.secrets,
    }),
  );
  for (const taskQueue of functionQueues) {
    workers.push(
      await Worker.create({
        connection: env.nativeConnection,
        namespace,
        taskQueue,
        activities: { default: serve },
        // Puts each call back together from its arguments and `swflow-call` header, and heartbeats
        // while it runs, as production adapter workers do.
        interceptors: { activity: [callInterceptor, autoHeartbeat] },
      }),
    );
  }

  const workflowId = `swflow-test-${tc.name}-${randomUUID().slice(0, 8)}`;
  // A plain client: time skipping is unlocked explicitly, only while waiting for the result.
  const client = new Client({ connection: env.connection, namespace });
  const runs = workers.map((w) => w.run());
  let drive: DriveResult;
  try {
    const workerDied = Promise.race(
      runs.map((p, i) =>
        p.then(
          () => {
            throw new Error(`worker ${workers[i].options.taskQueue} stopped during the case`);
          },
          (err) => {
            throw new Error(`worker ${workers[i].options.taskQueue} failed: ${(err as Error).message}`);
          },
        ),
      ),
    );
    workerDied.catch(() => {});
    drive = await Promise.race([driveCase(tc, ctx, client, definition, defs.subflows, workflowId), workerDied]);
  } finally {
    await endCase(tc, ctx, { client, workflowId, caseEnded, workers, runs });
  }

  const outcome: RunOutcome = {
    ...drive.outcome,
    calls: mocks.calls,
    producedEvents: produced.map((e) => ({ type: e.type, data: e.data })),
  };
  const problems = [...drive.problems, ...mocks.problems.map((p) => `unanswered call: ${p}`)];
  if (!drive.fatal) problems.push(...checkOutcome(tc.expect, outcome));
  const passed = problems.length === 0;
  if (passed && ctx.opts.recordHistoriesDir && drive.history) {
    mkdirSync(ctx.opts.recordHistoriesDir, { recursive: true });
    writeFileSync(join(ctx.opts.recordHistoriesDir, `${tc.name}.json`), historyToFixture(drive.history));
  }
  return { ...base, passed, problems, workflowId, outcome };
}

/**
 * Ends whatever the case left going, whatever its result (isolation.ts): its runs still open
 * (child runs its run abandoned...), its mocks' delays, its workers, and the time-skipping
 * locks calls still running when their run closed took with them.
 */
async function endCase(
  tc: TestCase,
  ctx: CaseContext,
  left: { client: Client; workflowId: string; caseEnded: AbortController; workers: Worker[]; runs: Promise<unknown>[] },
): Promise<void> {
  await terminateOpenRuns(left.client, left.workflowId);
  left.caseEnded.abort(new Error(CASE_ENDED));
  await stopWorkers(left.workers, left.runs);
  if (!ctx.timeSkipping) return;
  try {
    await restoreTimeSkipping(ctx.env);
  } catch (err) {
    ctx.opts.log?.(`warning: after ${tc.name}: ${(err as Error).message}; later cases that wait on timers may time out`);
  }
}

/** The activities of the case's real adapters (`adapters:`), by activity type, with the case's secrets. */
async function caseAdapters(tc: TestCase): Promise<Record<string, (call: FunctionCall) => Promise<Json>>> {
  if (tc.adapters.length === 0) return {};
  const sdk = await import('../adapter-sdk');
  const { builtinAdapters } = await import('../worker/adapter-worker');
  const definitionDir = tc.workflow.kind === 'file' ? dirname(tc.workflow.path) : dirname(tc.file);
  try {
    const adapters = tc.adapters.flatMap((a) => (a === BUILTIN_ADAPTERS ? builtinAdapters({ baseDirs: [definitionDir] }) : sdk.loadAdapters([a])));
    return sdk.adapterActivities(adapters, sdk.adapterServices(tc.secrets));
  } catch (err) {
    throw new CaseError(tc.file, 'adapters', (err as Error).message);
  }
}

interface DriveResult {
  outcome: Omit<RunOutcome, 'calls' | 'producedEvents'>;
  problems: string[];
  history?: History;
  /** The run did not end (timed out, or its workflow task kept failing): expectations are not checked. */
  fatal?: boolean;
}

function eventWithDefaults(e: Record<string, Json>): CloudEventJson {
  return {
    specversion: '1.0',
    source: 'swflow-test',
    id: randomUUID(),
    ...e,
  } as CloudEventJson;
}

const sleepReal = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function driveCase(
  tc: TestCase,
  ctx: CaseContext,
  client: Client,
  definition: Definition,
  subflowDefs: Definition[],
  workflowId: string,
): Promise<DriveResult> {
  const { env, timeSkipping } = ctx;
  const testService = timeSkipping ? env.connection.testService : undefined;
  const deadline = Date.now() + ctx.timeoutMs;
  const problems: string[] = [];

  const subflows: Record<string, Definition> = {};
  for (const s of subflowDefs) {
    subflows[s.id] = s;
    if (s.version) subflows[`${s.id}@${s.version}`] = s;
  }
  const startOptions: StartOptions = { definition, subflows };
  const startArgs: [Json, StartOptions] = [tc.input, startOptions];
  const startEvents = tc.events.filter((e) => e.at.kind === 'start');
  const laterEvents = tc.events.filter((e) => e.at.kind !== 'start');

  const startMs = await env.currentTimeMs();
  let handle: WorkflowHandle;
  const common = { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: startArgs };
  if (startEvents.length) {
    handle = await client.workflow.signalWithStart(definition.id, {
      ...common,
      signal: EVENT_SIGNAL,
      signalArgs: [eventWithDefaults(startEvents[0].event)],
    });
    for (const e of startEvents.slice(1)) await handle.signal(EVENT_SIGNAL, eventWithDefaults(e.event));
  } else {
    handle = await client.workflow.start(definition.id, common);
  }

  let lastState: InstanceState | undefined;
  const queryState = async (): Promise<InstanceState | undefined> => {
    try {
      lastState = await handle.query<InstanceState>(STATE_QUERY);
      return lastState;
    } catch {
      return undefined;
    }
  };
  const fetchEvents = async () => (await handle.fetchHistory()).events ?? [];
  const whereNow = async (): Promise<string> => {
    const s = (await queryState()) ?? lastState;
    if (!s) return 'state unknown (the state query did not answer)';
    return `in state ${s.currentStates.length ? s.currentStates.join(', ') : '(none)'}${
      s.awaitedEvents.length ? `, awaiting events ${s.awaitedEvents.join(', ')}` : ''
    }; states entered: ${s.statesEntered.join(' → ') || 'none'}`;
  };
  const isClosed = async (): Promise<string | undefined> => {
    const d = await handle.describe();
    return d.status.name === 'RUNNING' ? undefined : d.status.name;
  };
  const timedOut = async (what: string): Promise<DriveResult> => {
    const where = await whereNow().catch(() => 'state unknown');
    await handle.terminate('swflow test: case timed out').catch(() => {});
    return {
      outcome: { status: 'running', statesEntered: lastState?.statesEntered },
      problems: [...problems, `timed out after ${Math.round(ctx.timeoutMs / 1000)} s of real time ${what}: ${where}`],
      fatal: true,
    };
  };

  // ---- deliver the events, in order
  for (let i = 0; i < laterEvents.length; i++) {
    const e = laterEvents[i];
    const event = eventWithDefaults(e.event);
    const label = `event #${tc.events.indexOf(e) + 1} (${event.type})`;
    if (e.at.kind === 'after') {
      const target = startMs + e.at.ms;
      const now = await env.currentTimeMs();
      if (target > now) {
        if (timeSkipping) await env.sleep(target - now);
        else {
          if (Date.now() + (target - now) > deadline) return timedOut(`waiting to deliver ${label} at ${e.at.iso}`);
          await sleepReal(target - now);
        }
      }
      if (await isClosed()) {
        problems.push(`${label} could not be delivered at ${e.at.iso}: the run had already ended`);
        break;
      }
      await handle.signal(EVENT_SIGNAL, event);
      continue;
    }
    // at: waiting: as soon as the instance waits for an event of this type
    let stableSince = Date.now();
    let lastKey = '';
    let delivered = false;
    while (!delivered) {
      if (Date.now() > deadline) return timedOut(`waiting for the instance to wait for ${label}`);
      const s = await queryState();
      if (s?.awaitedEvents.includes(event.type) || s?.awaitedEvents.includes('*')) {
        await handle.signal(EVENT_SIGNAL, event);
        delivered = true;
        break;
      }
      const closed = await isClosed();
      if (closed) {
        problems.push(`${label} was never awaited: the run ended (${closed.toLowerCase()}) first`);
        break;
      }
      const events = await fetchEvents();
      const taskFailure = workflowTaskFailure(events);
      if (taskFailure) {
        await handle.terminate('swflow test: workflow task failed').catch(() => {});
        return { outcome: { status: 'running', statesEntered: lastState?.statesEntered }, problems: [...problems, taskFailure], fatal: true };
      }
      const key = JSON.stringify([s, events.length]);
      if (key !== lastKey) {
        lastKey = key;
        stableSince = Date.now();
      } else if (timeSkipping && Date.now() - stableSince > 200) {
        // Idle and not waiting for this event: skip to the next timer of the run (a sleep
        // before the event state, ...). Never skip blindly: an event timeout must not fire.
        const timers = openTimers(events);
        if (timers.length) {
          const next = Math.min(...timers.map((t) => t.fireAtMs));
          const now = await env.currentTimeMs();
          await env.sleep(Math.max(1, next - now + 1));
          stableSince = Date.now();
        }
      }
      await sleepReal(50);
    }
    if (!delivered && problems.length) break;
  }

  // ---- wait for the end (time skipping unlocked meanwhile)
  let result: { ok: true; value: unknown } | { ok: false; error: unknown } | undefined;
  if (testService) await testService.unlockTimeSkipping({});
  try {
    const resultP = handle.result().then(
      (value) => ({ ok: true as const, value }),
      (error) => ({ ok: false as const, error }),
    );
    while (!result) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      result = await Promise.race([resultP, sleepReal(Math.min(remaining, 1000)).then(() => undefined)]);
      if (!result) {
        const failure = workflowTaskFailure(await fetchEvents().catch(() => []));
        if (failure) {
          if (testService) await testService.lockTimeSkipping({}).catch(() => {});
          await handle.terminate('swflow test: workflow task failed').catch(() => {});
          await resultP;
          return { outcome: { status: 'running', statesEntered: lastState?.statesEntered }, problems: [...problems, failure], fatal: true };
        }
      }
    }
    if (!result) {
      if (testService) await testService.lockTimeSkipping({}).catch(() => {});
      const r = await timedOut('waiting for the run to end');
      await resultP;
      return r;
    }
  } finally {
    if (testService && result) await testService.lockTimeSkipping({}).catch(() => {});
  }

  const outcome: DriveResult['outcome'] = { status: 'completed' };
  if (result.ok) {
    outcome.output = result.value as Json;
  } else {
    const err = result.error;
    if (err instanceof WorkflowFailedError) {
      const cause = err.cause;
      if (cause instanceof TerminatedFailure) outcome.status = 'terminated';
      else if (cause instanceof CancelledFailure) outcome.status = 'canceled';
      else if (cause instanceof TimeoutFailure) outcome.status = 'timed-out';
      else outcome.status = 'failed';
      outcome.errorMessage = failureMessages(err);
    } else {
      problems.push(`could not get the run's result: ${(err as Error).message}`);
      outcome.status = 'failed';
      outcome.errorMessage = (err as Error).message;
    }
  }
  const finalState = await queryState();
  outcome.statesEntered = (finalState ?? lastState)?.statesEntered;
  if (outcome.status === 'timed-out' || outcome.status === 'terminated' || outcome.status === 'canceled') {
    const s = finalState ?? lastState;
    if (s) {
      outcome.errorMessage = `${outcome.errorMessage ?? outcome.status}; it was in state ${s.currentStates.join(', ') || '(none)'}${
        s.awaitedEvents.length ? `, awaiting events ${s.awaitedEvents.join(', ')}` : ''
      }${timeSkipping && outcome.status === 'timed-out' ? ' (time skipping ran the clock to the workflow timeout: nothing else could happen)' : ''}`;
    }
  }

  let history: History | undefined;
  try {
    history = await handle.fetchHistory();
    if (tc.expect.historyExcludes) {
      const texts: string[] = [];
      for await (const run of runTree(client, workflowId, history)) texts.push(historyText(run.history));
      outcome.historyText = texts.join('\n');
    }
  } catch (err) {
    problems.push(`could not fetch the run's history: ${(err as Error).message}`);
  }
  return { outcome, problems, history };
}

/** The failure's messages, outermost first ("Workflow execution failed: <cause>: <cause's cause>"). */
export function failureMessages(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err instanceof WorkflowFailedError ? err.cause : err;
  const seen = new Set<unknown>();
  while (e && !seen.has(e)) {
    seen.add(e);
    const msg = (e as Error).message;
    if (msg && !parts.includes(msg)) parts.push(msg);
    if (e instanceof ApplicationFailure && e.details?.length) {
      const d = e.details[0] as { message?: unknown } | undefined;
      if (d && typeof d.message === 'string' && !parts.includes(d.message)) parts.push(d.message);
    }
    e = (e as TemporalFailure).cause;
  }
  return parts.join(': ') || (err as Error).message;
}
