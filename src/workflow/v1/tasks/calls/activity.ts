/**
 * What every 1.0 call served by an adapter activity shares, whatever its kind (./kinds.ts): the
 * `with` evaluated (strings referencing `$secrets` travel unevaluated: ../../secrets.ts), the
 * kind's arguments built and its `authentication: { use }` replaced by the named policy, the
 * FunctionCall (src/common/contracts.ts) in the 0.8 calls' wire format (`v1-call-headers`: the
 * evaluated `with` as the input, the rest in the `swflow-call` header, ../../../call-context.ts;
 * runs recorded before it send the whole FunctionCall as the input), so adapters and `swflow
 * test` mocks serve both; the activity's timeouts, whether it runs as a local activity or
 * eagerly, a call made again after a platform failure, and an AsyncAPI subscription consumed.
 *
 * A kind is data and synchronous builders ({@link CallKind}); only this module awaits, and in the
 * same turns as when every kind was a branch here: concurrent fork branches interleave by
 * microtask turns, so one more `await` or async frame on a kind's path would reorder their
 * commands and break the replay of recorded histories (test/workflow/units/v1/call-kinds.test.ts).
 */
import type { ActivityOptions } from '@temporalio/workflow';
import type { Authentication, Task } from '../../../../common/model-v1';
import type { Json } from '../../../../common/model';
import { ADAPTER_TASK_QUEUE, type FunctionCall } from '../../../../common/contracts';
import { heartbeatTimeoutMs, isLocalCall } from '../../../../common/metadata';
import { lastHeartbeatDetails, platformFailure, throughPlatformFailures } from '../../../platform-failures';
import { FEATURE_CALL_IDS, FEATURE_EAGER_CALLS, FEATURE_LOCAL_CALLS, FEATURE_LOCAL_READS, FEATURE_SCALED_HEARTBEATS, FEATURE_V1_A2A_CALLS, FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS, FEATURE_V1_CALL_HEADERS, FEATURE_V1_CALL_PLATFORM_FAILURES, FEATURE_V1_DIRECT_FRAMES, FEATURE_V1_SUBSCRIPTION_STREAMING } from '../../../../common/features';
import { iterateMessages, splitSubscription, streamMessages, streams, subscribes, subscriptionArgument } from '../asyncapi-subscription';
import { scaledHeartbeatMs, UNLIMITED_CALL_MS } from '../../../timeouts';
import type { TaskAt, TaskContext, TaskOutcome } from '../../context';
import { splitSecrets } from '../../secrets';
import { callActivityArgs, secretContextOfCall } from '../../../call-context';
import { nextCallId } from '../../../call-ids';

/** Start-to-close timeout of a call activity on runs without the v1-call-platform-failures feature. */
export const CALL_ACTIVITY_TIMEOUT_MS = 10 * 60_000;

/** What a kind's builders read: the call's arguments, evaluated and as written, and where it is made. */
export interface CallArguments {
  /** The evaluated `with` (without its `$secrets` strings), which the kind shapes in place: the activity's arguments. */
  readonly w: Record<string, Json>;
  /** The `with` as written (without an AsyncAPI subscription). */
  readonly written: Record<string, Json>;
  /** The task's input (a literal endpoint's URI template is expanded from it). */
  readonly input: Json;
  readonly at: TaskAt;
  readonly features: ReadonlySet<string>;
  /** Whether the call consumes an AsyncAPI subscription (v1-asyncapi-subscriptions). */
  readonly subscription: boolean;
}

/** What holds an authentication policy: an endpoint, a service, the arguments themselves. */
export type AuthenticationHolder = { authentication?: Authentication };

/**
 * Replaces a holder's `authentication: { use }` by the named policy (evaluated) and records its
 * `$authorization`: a promise when it evaluates one (always, on runs before v1-direct-frames).
 */
export type ResolveAuthentication = (holder: AuthenticationHolder | undefined) => Promise<void> | undefined;

/** One kind of call served by an adapter activity: `call: http`, `call: grpc`, ... or a default-catalog activity. */
export interface CallKind {
  /** The FunctionCall's `function.type`: the `call:` name, `custom` for an activity of the default catalog. */
  readonly type: string;
  /** The adapter activity that serves it (src/common/call-kinds.ts, shared with adapters/). */
  readonly activity: string;
  /** The feature since which it is served: runs recorded before it fail it as unsupported (501). */
  readonly since?: string;
  /**
   * Whether `swflow.local` (feature local-calls) may make it a local activity on the interpreter
   * worker, and eager-calls an eager one, when it goes to the built-in adapters' queue.
   */
  readonly local: boolean;
  /** Whether its `with` may hold an AsyncAPI `subscription` (./asyncapi.ts). */
  readonly subscribes?: boolean;
  /**
   * Builds the activity's arguments in place (an endpoint's URI template, ...) and starts
   * resolving the authentication policy they name: returns that promise as is, or nothing when
   * there is none to resolve (never an async function of its own: see the header).
   */
  prepare?(call: CallArguments, resolveAuthentication: ResolveAuthentication): Promise<void> | undefined;
  /** The Web UI summary's target (`GET <uri>`, `grpc <service>/<method>`), once prepared. */
  target(call: CallArguments): string;
  /** local-reads: whether the call only reads (a safe HTTP method), so runs locally unless `swflow.local: false`. */
  reads?(call: CallArguments): boolean;
}

/** An endpoint as written: a URI, or an object with `uri` and `authentication`. */
export function endpointOf(v: Json | undefined): { uri?: string; authentication?: Authentication } | undefined {
  if (typeof v === 'string') return { uri: v };
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as { uri?: string; authentication?: Authentication }) : undefined;
}

/** The call of `kind`'s adapter activity for the task, made again through platform failures. */
export async function callAdapter(task: Task, at: TaskAt, input: Json, ctx: TaskContext, kind: CallKind): Promise<TaskOutcome> {
  const { activity } = kind;
  const args = ctx.args(at, { input });
  // v1-asyncapi-subscriptions: a subscription's expressions are the activity's, per message (asyncapi-subscription.ts).
  const sub = kind.subscribes && ctx.features.has(FEATURE_V1_ASYNCAPI_SUBSCRIPTIONS) && subscribes(task.with) ? splitSubscription(task.with as Record<string, Json>) : undefined;
  const written = (sub?.rest ?? task.with ?? {}) as Record<string, Json>;
  const split = splitSecrets(written);
  const w = ((ctx.sync ? ctx.valueSync(split.value, input, args, 'with') : await ctx.value(split.value, input, args, 'with')) ?? {}) as Record<string, Json>;
  if (sub) w.subscription = subscriptionArgument(sub.subscription, args);
  let authorization: Json | undefined;
  const resolveAuthFramed = async (holder: AuthenticationHolder | undefined) => {
    const a = holder?.authentication;
    if (!a || typeof a !== 'object') return;
    if (typeof a.use === 'string' && Object.keys(a).length === 1) {
      const named = ctx.def.workflow.use?.authentications?.[a.use];
      holder!.authentication = (await ctx.value((named ?? {}) as Json, input, args, `authentication ${a.use}`)) as Authentication;
    }
    authorization = authorizationOf(holder!.authentication!);
  };
  // v1-direct-frames: a promise only for a named policy (its properties are evaluated).
  const resolveAuth: ResolveAuthentication = !ctx.features.has(FEATURE_V1_DIRECT_FRAMES)
    ? resolveAuthFramed
    : (holder) => {
        const a = holder?.authentication;
        if (!a || typeof a !== 'object') return undefined;
        if (typeof a.use === 'string' && Object.keys(a).length === 1) return resolveAuthFramed(holder);
        authorization = authorizationOf(a);
        return undefined;
      };
  const shape: CallArguments = { w, written, input, at, features: ctx.features, subscription: sub !== undefined };
  // The kind's own promise, awaited here (an async frame of its own would add turns: see the header).
  const authenticating = kind.prepare?.(shape, resolveAuth);
  if (authenticating) await authenticating;
  const target = kind.target(shape);
  const secretArguments = Object.keys(split.secrets).length ? split.secrets : undefined;
  const fc: FunctionCall = {
    function: { name: at.fn ?? task.call!, type: kind.type as FunctionCall['function']['type'], operation: task.call!, metadata: (task.metadata ?? {}) as Record<string, string> },
    arguments: w as Json,
    // What the secret expressions read besides `$secrets` (with minimal-secret-context only that: not
    // the whole `$workflow` with the definition and the workflow's input, `$task`, `$context`...).
    ...(secretArguments ? { secretArguments, ...secretContextOfCall(ctx.features, Object.values(secretArguments), input, { variables: args }) } : {}),
    workflow: { id: ctx.workflowId, instanceId: ctx.runId, definitionId: ctx.def.id },
    state: at.reference,
    action: at.name,
    // call-ids: one id for this call however often it is made (a try's retry rewinds the count: ../try.ts).
    ...(ctx.features.has(FEATURE_V1_CALL_HEADERS) && ctx.features.has(FEATURE_CALL_IDS) ? { callId: nextCallId(at.reference, ctx.effects) } : {}),
  };
  const queue = typeof task.metadata?.worker === 'string' ? task.metadata.worker : ADAPTER_TASK_QUEUE;
  const summary = ctx.summary(at.reference, target);
  // `swflow.local` on a built-in call: a local activity on this worker (the interpreter worker serves the built-in adapters).
  const builtin = queue === ADAPTER_TASK_QUEUE && kind.local;
  // local-reads: so is a call that only reads (`call: http` with GET, HEAD, OPTIONS), unless `swflow.local: false`.
  const reads = ctx.features.has(FEATURE_LOCAL_READS) && kind.reads !== undefined && kind.reads(shape);
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
    // every start-to-close or heartbeat timeout here is the platform's (platform-failures.ts).
    const why = ctx.features.has(FEATURE_V1_CALL_PLATFORM_FAILURES) ? platformFailure(err, false) : undefined;
    if (why === undefined || ctx.effects.cancelled()) throw err;
    output = await throughPlatformFailures(false, (again, lost) => once(again ?? why, lost ?? err), ctx.effects);
  }
  if (sub) output = await iterateMessages(sub.subscription, output, at, ctx);
  return { output, ...(authorization !== undefined ? { authorization } : {}) };
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
