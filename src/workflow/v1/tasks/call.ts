/**
 * `call`: `http`, `openapi`, `grpc` and `asyncapi` are activities (`sw.http`, `sw.openapi`,
 * `sw.grpc`, `sw.asyncapiCall`) of the built-in adapter worker (adapters/http, rest, rpc, asyncapi) on `swflow-adapters` (or the task's `metadata.worker` queue); a
 * function of `use.functions` runs as its own task, on the evaluated `with` as input; a call
 * to swflow's default catalog, `<activity>:<version>@default`, is the adapter activity of that
 * name (the 1.0 way to reach custom adapters); a cataloged function (`<name>:<version>@<catalog>`)
 * or a function by URI runs its document's task like a `use.functions` function: the interpreter
 * worker fetched it when it pinned the definition (`ctx.functions`, feature `v1-catalogs`;
 * src/dsl/v1/catalogs.ts). Every call activity gets a FunctionCall
 * (src/common/contracts.ts) in the 0.8 calls' wire format (`v1-call-headers`: the evaluated `with`
 * as the input, the rest in the `swflow-call` header; ../../call-context.ts), so adapters and
 * `swflow test` mocks serve both; runs recorded before it send the whole FunctionCall as the input.
 *
 * In the workflow: `with` is evaluated (except strings referencing `$secrets`, which travel
 * unevaluated: see ../secrets.ts), a literal endpoint's URI template is expanded from the
 * task's input, and `authentication: { use }` is replaced by the named policy.
 */
import type { ActivityOptions } from '@temporalio/workflow';
import { ADAPTER_ACTIVITY_OF_CALL as ADAPTER_OF, BUILTIN_CALLS, type Authentication, type Task } from '../../../dsl/v1/model';
import type { Json } from '../../../dsl/model';
import { ADAPTER_TASK_QUEUE, type FunctionCall } from '../../../common/contracts';
import { heartbeatTimeoutMs, isLocalCall } from '../../../dsl/metadata';
import { platformFailure, throughPlatformFailures } from '../../platform';
import { needsDocument } from '../../../dsl/v1/catalogs';
import { FEATURE_LOCAL_CALLS, FEATURE_V1_CALL_HEADERS, FEATURE_V1_CATALOGS, FEATURE_V1_CALL_PLATFORM_FAILURES, FEATURE_V1_GRPC_ASYNCAPI_CALLS } from '../../resolve';
import { UNLIMITED_CALL_MS } from '../../timeouts';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { WorkflowError } from '../errors';
import { splitSecrets } from '../secrets';
import { callActivityArgs, secretContextOfCall } from '../../call-context';
import { expandUriTemplate, UriTemplateError } from '../uri-template';

/** Start-to-close timeout of a call activity on runs without the v1-call-platform-failures feature. */
export const CALL_ACTIVITY_TIMEOUT_MS = 10 * 60_000;

const DEFAULT_CATALOG = /^(.+):([^:@]+)@default$/;

/** Calls served since the v1-grpc-asyncapi-calls feature. */
const LATER_CALLS = new Set(['grpc', 'asyncapi']);

export async function runCall(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const call = task.call!;
  const adapter = ADAPTER_OF[call];
  // Runs recorded before grpc/asyncapi calls were served had them fail as unsupported (below).
  const served = adapter !== undefined && (!LATER_CALLS.has(call) || ctx.features.has(FEATURE_V1_GRPC_ASYNCAPI_CALLS));
  if (served) return callAdapter(task, at, input, ctx, adapter);
  if ((BUILTIN_CALLS as readonly string[]).includes(call)) {
    throw WorkflowError.standard('runtime', at.reference, `call: ${call} is not supported by this runtime yet`, 501);
  }
  // v1-catalogs: a function document pinned with the definition (a `use.catalogs.default` overrides @default).
  let fn = ctx.features.has(FEATURE_V1_CATALOGS) ? ctx.functions?.[call]?.task : undefined;
  if (!fn) {
    const cataloged = DEFAULT_CATALOG.exec(call);
    if (cataloged) return callAdapter(task, at, input, ctx, cataloged[1]);
    fn = ctx.def.workflow.use?.functions?.[call];
  }
  if (!fn) {
    if (ctx.features.has(FEATURE_V1_CATALOGS) && needsDocument(call, ctx.def.workflow.use?.catalogs)) {
      // Every such call is resolved when the definition is pinned (or the run does not start): a bug if reached.
      throw WorkflowError.standard('runtime', at.reference, `function '${call}' was not pinned with the definition`);
    }
    throw WorkflowError.standard('runtime', at.reference, `function '${call}' cannot be called by this runtime (only use.functions and @default)`, 501);
  }
  // A function (use.functions, or a pinned document) runs as its own task on the evaluated `with`, named by the call.
  // (Inline, not a helper: an extra async frame would add microtask turns and reorder concurrent branches' commands.)
  const fnInput = task.with !== undefined ? await ctx.value(task.with, input, ctx.args(at, { input }), 'with') : input;
  const r = await ctx.runTask(call, fn, at.reference, fnInput, at.locals, call);
  return { output: r.output };
}

function endpointOf(v: Json | undefined): { uri?: string; authentication?: Authentication } | undefined {
  if (typeof v === 'string') return { uri: v };
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as { uri?: string; authentication?: Authentication }) : undefined;
}

async function callAdapter(task: Task, at: TaskAt, input: Json, ctx: TaskContext, activity: string): Promise<TaskOutcome> {
  const args = ctx.args(at, { input });
  const written = (task.with ?? {}) as Record<string, Json>;
  const split = splitSecrets(written);
  const w = ((ctx.sync ? ctx.valueSync(split.value, input, args, 'with') : await ctx.value(split.value, input, args, 'with')) ?? {}) as Record<string, Json>;
  let authorization: Json | undefined;
  const resolveAuth = async (holder: { authentication?: Authentication } | undefined) => {
    const a = holder?.authentication;
    if (!a || typeof a !== 'object') return;
    if (typeof a.use === 'string' && Object.keys(a).length === 1) {
      const named = ctx.def.workflow.use?.authentications?.[a.use];
      holder!.authentication = (await ctx.value((named ?? {}) as Json, input, args, `authentication ${a.use}`)) as Authentication;
    }
    authorization = authorizationOf(holder!.authentication!);
  };
  let target = activity;
  if (activity === 'sw.http') {
    const e = endpointOf(w.endpoint);
    const literal = endpointOf(written.endpoint)?.uri;
    if (e?.uri !== undefined && literal !== undefined && !literal.includes('${')) {
      try {
        e.uri = expandUriTemplate(e.uri, input);
      } catch (err) {
        if (err instanceof UriTemplateError) throw WorkflowError.standard('expression', at.reference, err.message);
        throw err;
      }
    }
    if (e) {
      await resolveAuth(e);
      w.endpoint = e as Json;
    }
    target = `${String(w.method ?? 'get').toUpperCase()} ${e?.uri ?? ''}`;
  } else if (activity === 'sw.openapi') {
    await resolveAuth(w as { authentication?: Authentication });
    target = `openapi ${String(w.operationId)}`;
  } else if (activity === 'sw.grpc') {
    const service = (w.service ?? {}) as { name?: string; authentication?: Authentication };
    await resolveAuth(service);
    target = `grpc ${String(service.name)}/${String(w.method)}`;
  } else if (activity === 'sw.asyncapiCall') {
    await resolveAuth(w as { authentication?: Authentication });
    target = `asyncapi ${String(w.operation)}`;
  }
  const secretArguments = Object.keys(split.secrets).length ? split.secrets : undefined;
  const fc: FunctionCall = {
    function: { name: at.fn ?? task.call!, type: (ADAPTER_OF[task.call!] ? task.call : 'custom') as FunctionCall['function']['type'], operation: task.call!, metadata: (task.metadata ?? {}) as Record<string, string> },
    arguments: w as Json,
    // What the secret expressions read besides `$secrets` (with minimal-secret-context only that: not
    // the whole `$workflow` with the definition and the workflow's input, `$task`, `$context`...).
    ...(secretArguments ? { secretArguments, ...secretContextOfCall(ctx.features, Object.values(secretArguments), input, { variables: args }) } : {}),
    workflow: { id: ctx.workflowId, instanceId: ctx.runId, definitionId: ctx.def.id },
    state: at.reference,
    action: at.name,
  };
  const queue = typeof task.metadata?.worker === 'string' ? task.metadata.worker : ADAPTER_TASK_QUEUE;
  const summary = ctx.summary(at.reference, target);
  const options: ActivityOptions = {
    taskQueue: queue,
    ...callTimeouts(task, ctx.features),
    retry: { maximumAttempts: 1 }, // 1.0 retries are explicit: try/catch retry
    summary: summary.slice(0, 200),
  };
  // `swflow.local` on a built-in call: a local activity on this worker (the interpreter worker serves the built-in adapters).
  const local = ctx.features.has(FEATURE_LOCAL_CALLS) && queue === ADAPTER_TASK_QUEUE && ADAPTER_OF[task.call!] === activity && isLocalCall(task.metadata as Record<string, unknown> | undefined, ctx.def.workflow.document.metadata);
  // v1-call-headers: the evaluated `with` as the input, the rest in the `swflow-call` header (as 0.8 calls).
  const headers = ctx.features.has(FEATURE_V1_CALL_HEADERS);
  const once = (again?: string) => {
    const opts = { ...options, ...(again ? { summary: `${summary} (again: ${again})`.slice(0, 200) } : {}) };
    return local ? ctx.effects.localCall<Json>(activity, callActivityArgs(fc, headers), opts) : ctx.effects.activity<Json>(activity, callActivityArgs(fc, headers), opts);
  };
  let output: Json;
  try {
    // Awaited directly, as before the feature: concurrent branches keep the order of their commands.
    output = await once();
  } catch (err) {
    // A task `timeout` is a timer around the whole task, never the activity's start-to-close: so
    // every start-to-close or heartbeat timeout here is the platform's (platform.ts).
    const why = ctx.features.has(FEATURE_V1_CALL_PLATFORM_FAILURES) ? platformFailure(err, false) : undefined;
    if (why === undefined || ctx.effects.cancelled()) throw err;
    output = await throughPlatformFailures(false, (again) => once(again ?? why), ctx.effects);
  }
  return { output, ...(authorization !== undefined ? { authorization } : {}) };
}

/**
 * The call activity's timeouts: unlimited (a task `timeout` bounds the task by a timer) with the
 * task's heartbeat timeout (`metadata['swflow.heartbeat']`, as 0.8 functions), or, on runs
 * before the v1-call-platform-failures feature, ten minutes.
 */
function callTimeouts(task: Task, features: ReadonlySet<string>): Pick<ActivityOptions, 'startToCloseTimeout' | 'heartbeatTimeout'> {
  if (!features.has(FEATURE_V1_CALL_PLATFORM_FAILURES)) return { startToCloseTimeout: CALL_ACTIVITY_TIMEOUT_MS };
  const heartbeat = heartbeatTimeoutMs(task.metadata as Record<string, string> | undefined);
  return { startToCloseTimeout: UNLIMITED_CALL_MS, ...(heartbeat !== undefined ? { heartbeatTimeout: heartbeat } : {}) };
}

/** `$authorization` of an inline policy: the scheme and its parameter (secret-based policies: the scheme only). */
function authorizationOf(a: Authentication): Json | undefined {
  if (a.bearer) return typeof a.bearer.token === 'string' ? { scheme: 'Bearer', parameter: a.bearer.token } : { scheme: 'Bearer' };
  if (a.basic) {
    const { username, password } = a.basic;
    const b64 = (globalThis as { btoa?: (s: string) => string }).btoa;
    return typeof username === 'string' && b64 ? { scheme: 'Basic', parameter: b64(`${username}:${password ?? ''}`) } : { scheme: 'Basic' };
  }
  return undefined;
}
