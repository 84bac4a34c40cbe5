/**
 * `call`: `http`, `openapi`, `grpc`, `asyncapi`, `mcp` and `a2a` are activities (`sw.http`, `sw.openapi`,
 * `sw.grpc`, `sw.asyncapiCall`, `sw.mcp`, `sw.a2a`) of the built-in adapter worker (adapters/http, rest, rpc, asyncapi, mcp, a2a) on `swflow-adapters` (or the task's `metadata.worker` queue); a
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
import { ADAPTER_ACTIVITY_OF_CALL as ADAPTER_OF, BUILTIN_CALLS, type Authentication, type Task } from '../../../common/model-v1';
import type { Json } from '../../../common/model';
import { ADAPTER_TASK_QUEUE, type FunctionCall } from '../../../common/contracts';
import { heartbeatTimeoutMs, isLocalCall } from '../../../common/metadata';
import { isSafeMethod } from '../../../common/calls';
import { lastHeartbeatDetails, platformFailure, throughPlatformFailures } from '../../platform';
import { needsDocument } from '../../../common/catalogs';
import { FEATURE_EAGER_CALLS, FEATURE_LOCAL_CALLS, FEATURE_LOCAL_READS, FEATURE_SCALED_HEARTBEATS, FEATURE_V1_A2A_CALLS, FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS, FEATURE_V1_CALL_HEADERS, FEATURE_V1_CALL_PLATFORM_FAILURES, FEATURE_V1_CATALOGS, FEATURE_V1_GRPC_ASYNCAPI_CALLS, FEATURE_V1_MCP_CALLS, FEATURE_V1_SUBSCRIPTION_STREAMING } from '../../../common/features';
import { iterateMessages, splitSubscription, streamMessages, streams, subscribes, subscriptionArgument } from './asyncapi-subscription';
import { scaledHeartbeatMs, UNLIMITED_CALL_MS } from '../../timeouts';
import type { TaskAt, TaskContext, TaskOutcome } from '../context';
import { WorkflowError } from '../errors';
import { splitSecrets } from '../secrets';
import { callActivityArgs, secretContextOfCall } from '../../call-context';
import { expandUriTemplate, UriTemplateError } from '../uri-template';

/** Start-to-close timeout of a call activity on runs without the v1-call-platform-failures feature. */
export const CALL_ACTIVITY_TIMEOUT_MS = 10 * 60_000;

const DEFAULT_CATALOG = /^(.+):([^:@]+)@default$/;

/** Calls served since a feature: runs recorded before it had them fail as unsupported (501). */
const LATER_CALLS: Readonly<Record<string, string>> = { grpc: FEATURE_V1_GRPC_ASYNCAPI_CALLS, asyncapi: FEATURE_V1_GRPC_ASYNCAPI_CALLS, mcp: FEATURE_V1_MCP_CALLS, a2a: FEATURE_V1_A2A_CALLS };

export async function runCall(task: Task, at: TaskAt, input: Json, ctx: TaskContext): Promise<TaskOutcome> {
  const call = task.call!;
  const adapter = ADAPTER_OF[call];
  // Runs recorded before grpc/asyncapi/mcp/a2a calls were served had them fail as unsupported (below).
  const served = adapter !== undefined && (!Object.hasOwn(LATER_CALLS, call) || ctx.features.has(LATER_CALLS[call]!));
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
  // v1-asyncapi-subscriptions: a subscription's expressions are the activity's, per message (asyncapi-subscription.ts).
  const sub = activity === 'sw.asyncapiCall' && ctx.features.has(FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS) && subscribes(task.with) ? splitSubscription(task.with as Record<string, Json>) : undefined;
  const written = (sub?.rest ?? task.with ?? {}) as Record<string, Json>;
  const split = splitSecrets(written);
  const w = ((ctx.sync ? ctx.valueSync(split.value, input, args, 'with') : await ctx.value(split.value, input, args, 'with')) ?? {}) as Record<string, Json>;
  if (sub) w.subscription = subscriptionArgument(sub.subscription, args);
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
  if (activity === ADAPTER_OF.http) {
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
  } else if (activity === ADAPTER_OF.openapi) {
    await resolveAuth(w as { authentication?: Authentication });
    target = `openapi ${String(w.operationId)}`;
  } else if (activity === ADAPTER_OF.grpc) {
    const service = (w.service ?? {}) as { name?: string; authentication?: Authentication };
    await resolveAuth(service);
    target = `grpc ${String(service.name)}/${String(w.method)}`;
  } else if (activity === ADAPTER_OF.asyncapi) {
    await resolveAuth(w as { authentication?: Authentication });
    const named = w.operation ?? (ctx.features.has(FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS) ? w.channel : undefined);
    target = `asyncapi ${String(named)}${sub ? ' (subscription)' : ''}`;
  } else if (activity === ADAPTER_OF.mcp) {
    target = await mcpTarget(w, resolveAuth);
  } else if (activity === ADAPTER_OF.a2a) {
    // The agent card's endpoint (its credentials also reach the agent) or the server's.
    const card = w.agentCard && typeof w.agentCard === 'object' && !Array.isArray(w.agentCard) ? (w.agentCard as Record<string, Json>) : undefined;
    const e = endpointOf(card ? card.endpoint : w.server);
    if (e) {
      await resolveAuth(e);
      if (card) card.endpoint = e as Json;
      else w.server = e as Json;
    }
    target = `a2a ${String(w.method)} ${e?.uri ?? ''}`;
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
  // `swflow.local` on a built-in call: a local activity on this worker (the interpreter worker serves the built-in adapters).
  // Never `call: a2a`: it follows a long agent task with heartbeats, which a local activity has not.
  const builtin = queue === ADAPTER_TASK_QUEUE && ADAPTER_OF[task.call!] === activity && activity !== 'sw.a2a';
  // local-reads: so is a `call: http` with a safe method (GET, HEAD, OPTIONS), unless `swflow.local: false`.
  const reads = ctx.features.has(FEATURE_LOCAL_READS) && activity === ADAPTER_OF.http && isSafeMethod(w.method);
  const local = ctx.features.has(FEATURE_LOCAL_CALLS) && builtin && isLocalCall(task.metadata as Record<string, unknown> | undefined, ctx.def.workflow.document.metadata, reads);
  // eager-calls: otherwise an activity on the run's own queue (no taskQueue: the workflow's), which
  // the server hands back eagerly to the worker that scheduled it.
  const eager = !local && builtin && ctx.features.has(FEATURE_EAGER_CALLS);
  const options: ActivityOptions = {
    ...(eager ? {} : { taskQueue: queue }),
    ...callTimeouts(task, ctx.features, at.timeoutMs),
    retry: { maximumAttempts: 1 }, // 1.0 retries are explicit: try/catch retry
    summary: summary.slice(0, 200),
  };
  // v1-call-headers: the evaluated `with` as the input, the rest in the `swflow-call` header (as 0.8 calls).
  const headers = ctx.features.has(FEATURE_V1_CALL_HEADERS);
  // v1-a2a-calls: a call made again after a heartbeat timeout carries the lost attempt's last
  // heartbeat details, so its adapter can resume (adapters/a2a follows the agent task it recorded).
  const resumable = ctx.features.has(FEATURE_V1_A2A_CALLS);
  const once = (again?: string, lost?: unknown, made: FunctionCall = fc) => {
    const opts = { ...options, ...(again ? { summary: `${summary} (again: ${again})`.slice(0, 200) } : {}) };
    const details = resumable && !local ? lastHeartbeatDetails(lost) : undefined;
    const call: FunctionCall = details !== undefined ? { ...made, heartbeatDetails: details as Json } : made;
    return local ? ctx.effects.localCall<Json>(activity, callActivityArgs(call, headers), opts) : ctx.effects.activity<Json>(activity, callActivityArgs(call, headers), opts);
  };
  // v1-subscription-streaming: the workflow consumes the subscription in steps, one call each (asyncapi-subscription.ts).
  if (sub && ctx.features.has(FEATURE_V1_SUBSCRIPTION_STREAMING) && streams(sub.subscription)) {
    const step = async (subscription: Json): Promise<Json> => {
      const made: FunctionCall = { ...fc, arguments: { ...w, subscription } };
      try {
        return await once(undefined, undefined, made);
      } catch (err) {
        const why = ctx.features.has(FEATURE_V1_CALL_PLATFORM_FAILURES) ? platformFailure(err, false) : undefined;
        if (why === undefined || ctx.effects.cancelled()) throw err;
        return await throughPlatformFailures(false, (again, lost) => once(again ?? why, lost ?? err, made), ctx.effects);
      }
    };
    const output = await streamMessages(sub.subscription, input, at, ctx, step);
    return { output, ...(authorization !== undefined ? { authorization } : {}) };
  }
  let output: Json;
  try {
    // Awaited directly, as before the feature: concurrent branches keep the order of their commands.
    output = await once();
  } catch (err) {
    // A task `timeout` is a timer around the whole task, never the activity's start-to-close: so
    // every start-to-close or heartbeat timeout here is the platform's (platform.ts).
    const why = ctx.features.has(FEATURE_V1_CALL_PLATFORM_FAILURES) ? platformFailure(err, false) : undefined;
    if (why === undefined || ctx.effects.cancelled()) throw err;
    output = await throughPlatformFailures(false, (again, lost) => once(again ?? why, lost ?? err), ctx.effects);
  }
  if (sub) output = await iterateMessages(sub.subscription, output, at, ctx);
  return { output, ...(authorization !== undefined ? { authorization } : {}) };
}

/**
 * `call: mcp`: the HTTP transport's endpoint authentication resolved (a named policy replaced by
 * its definition); the summary names the method, its tool/prompt/resource and the server.
 */
async function mcpTarget(w: Record<string, Json>, resolveAuth: (holder: { authentication?: Authentication } | undefined) => Promise<void>): Promise<string> {
  const objectOf = (v: Json | undefined) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, Json>) : undefined);
  const transport = objectOf(w.transport);
  const http = objectOf(transport?.http);
  const endpoint = endpointOf(http?.endpoint);
  if (http && endpoint) {
    await resolveAuth(endpoint);
    http.endpoint = endpoint as Json;
  }
  const p = objectOf(w.parameters);
  const subject = p?.name ?? p?.uri;
  const server = endpoint?.uri ?? String(objectOf(transport?.stdio)?.command ?? '');
  return `mcp ${String(w.method)}${typeof subject === 'string' ? ` ${subject}` : ''} @ ${server}`;
}

/**
 * The call activity's timeouts: unlimited (a task `timeout` bounds the task by a timer) with the
 * task's heartbeat timeout (`metadata['swflow.heartbeat']`, as 0.8 functions; with
 * scaled-heartbeats and a task `timeout.after` of `timeoutMs`, scaled to it: timeouts.ts
 * scaledHeartbeatMs, so a lost adapter is noticed and the call made again before the task's
 * timer runs out), or, on runs before the v1-call-platform-failures feature, ten minutes.
 */
function callTimeouts(task: Task, features: ReadonlySet<string>, timeoutMs: number | undefined): Pick<ActivityOptions, 'startToCloseTimeout' | 'heartbeatTimeout'> {
  if (!features.has(FEATURE_V1_CALL_PLATFORM_FAILURES)) return { startToCloseTimeout: CALL_ACTIVITY_TIMEOUT_MS };
  const metadata = task.metadata as Record<string, string> | undefined;
  const heartbeat = features.has(FEATURE_SCALED_HEARTBEATS) ? scaledHeartbeatMs(metadata, timeoutMs) : heartbeatTimeoutMs(metadata);
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
