/**
 * The built-in adapter of Serverless Workflow 1.0 `call: a2a` (activity `sw.a2a`), written with
 * the public adapter SDK over the maintained A2A SDK's client (@a2a-js/sdk): the agent is reached
 * through its agent card (`agentCard`, resolved by the SDK's ClientFactory, which picks the
 * transport the card offers: JSON-RPC or HTTP+JSON, A2A 1.0 or 0.3) or its JSON-RPC endpoint
 * (`server`). Every HTTP request goes out through `ctx.fetch` (cancellation, connection failures
 * with codes), with the endpoint's 1.0 authentication (basic/bearer: a header; oauth2/oidc: a
 * token from the worker's cache), redacted like every secret.
 *
 * A long-running agent task is followed durably: `message/send` asks the agent not to block
 * (`returnImmediately`) and, when it answers with a Task that is not done, polls `tasks/get`
 * until the task is done, heartbeating the task's id. When the worker is lost meanwhile (its
 * heartbeat times out), the call is made again with the lost attempt's last heartbeat details
 * (`ctx.info.heartbeatDetails`: a Temporal retry's, or those the interpreter passes on to the call
 * it makes again, src/workflow/v1/tasks/calls/activity.ts), and the new attempt goes on polling that task
 * instead of sending the message twice. `message/stream` records the task id the same way and,
 * resumed, subscribes to the task again.
 *
 * Output: the A2A 1.0 JSON of the method's result (`message/send`: `{ task }` or `{ message }`;
 * `message/stream`, `tasks/resubscribe`: the array of stream responses). Failures: RFC 7807
 * problems (src/adapter-sdk problemFailure; 1.0 retries are the definition's): a task that ends failed, rejected or canceled, or stops for input or
 * authentication, and a JSON-RPC error are runtime errors; an unreachable agent or an HTTP
 * status a communication error (401: authentication, 403: authorization); a definition problem
 * a configuration error.
 */
import { createHash } from 'node:crypto';
import {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
  TaskState,
} from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { isJsonRpcError } from '@a2a-js/sdk/errors';
import {
  authenticationHeader,
  BUILTIN_ADAPTER,
  builtinActivityName,
  A2A_CALL_ACTIVITY,
  ConfigurationError,
  configurationFailure,
  defineAdapter,
  errorClass,
  ErrorTypes,
  fetchArguments,
  isAdapterError,
  problemFailure,
  SwflowError,
  tokenAuthentication,
  type ActivityContext,
  type Adapter,
  type Auth,
  type Json,
  type Problem,
} from '../../src/adapter-sdk';
import { a2aCall, type A2ACall } from './request';

/** What a heartbeat of a followed agent task records: enough to resume it. */
export interface A2AProgress {
  a2a: { method: string; taskId: string };
}

/** How often a followed task is asked for: from the first interval, growing to the last. */
export const POLL_INTERVALS_MS = [250, 500, 1000, 2000, 5000];

/** One `call: a2a`: the method sent to the agent, a long task followed to its end. */
export async function invokeA2a(args: Json, ctx: ActivityContext): Promise<Json> {
  let call: A2ACall;
  try {
    call = a2aCall(args, () => messageIdOf(ctx));
  } catch (err) {
    if (err instanceof ConfigurationError) throw configurationFailure(`${ctx.state}: ${err.message}`);
    throw err;
  }
  const agent = new AgentConnection(call, ctx);
  try {
    const client = await agent.client();
    return await perform(call, client, ctx);
  } catch (err) {
    throw agent.failure(err);
  }
}

/** The method, on a client of the agent. */
async function perform(call: A2ACall, client: Client, ctx: ActivityContext): Promise<Json> {
  const opts = { signal: ctx.signal };
  const p = call.params;
  switch (call.method) {
    case 'message/send':
      return sendMessage(call, client, ctx);
    case 'message/stream':
      return streamMessage(call, client, ctx);
    case 'tasks/get':
      return Task.toJSON(await client.getTask(GetTaskRequest.fromJSON(p), opts)) as Json;
    case 'tasks/list':
      return ListTasksResponse.toJSON(await client.listTasks(ListTasksRequest.fromJSON(p), opts)) as Json;
    case 'tasks/cancel':
      return Task.toJSON(await client.cancelTask(CancelTaskRequest.fromJSON(p), opts)) as Json;
    case 'tasks/resubscribe':
      return collect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON(p), opts), call, ctx);
    case 'tasks/pushNotificationConfig/set':
      return TaskPushNotificationConfig.toJSON(await client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON(p), opts)) as Json;
    case 'tasks/pushNotificationConfig/get':
      return TaskPushNotificationConfig.toJSON(await client.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON(p), opts)) as Json;
    case 'tasks/pushNotificationConfig/list':
      return ListTaskPushNotificationConfigsResponse.toJSON(await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON(p), opts)) as Json;
    case 'tasks/pushNotificationConfig/delete':
      await client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON(p), opts);
      return null;
    case 'agent/getAuthenticatedExtendedCard':
      return AgentCard.toJSON(await client.getAgentCard(opts)) as Json;
  }
}

/**
 * `message/send`: without `returnImmediately` in the parameters, the message is sent without
 * blocking and the task it starts is polled to its end (heartbeating its id); a resumed attempt
 * polls the task of the last heartbeat without sending anything.
 */
async function sendMessage(call: A2ACall, client: Client, ctx: ActivityContext): Promise<Json> {
  const opts = { signal: ctx.signal };
  const configuration = (call.params.configuration ?? {}) as Record<string, Json>;
  if (configuration.returnImmediately === true) return resultJson(await client.sendMessage(SendMessageRequest.fromJSON(call.params), opts));
  let task: Task;
  const resumed = resumedTaskId(ctx, call.method);
  if (resumed) task = await client.getTask(GetTaskRequest.fromJSON({ id: resumed }), opts);
  else {
    const request = SendMessageRequest.fromJSON({ ...call.params, configuration: { ...configuration, returnImmediately: true } });
    const result = await client.sendMessage(request, opts);
    if (!isTask(result)) return resultJson(result);
    task = result;
  }
  for (let i = 0; !isSettled(task); i++) {
    ctx.heartbeat(progress(call.method, task.id));
    await sleep(POLL_INTERVALS_MS[Math.min(i, POLL_INTERVALS_MS.length - 1)], ctx.signal);
    task = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }), opts);
  }
  ensureDone(task, call);
  return { task: Task.toJSON(task) as Json };
}

/** `message/stream`: every stream response, in order; a resumed attempt subscribes to the task of the last heartbeat. */
async function streamMessage(call: A2ACall, client: Client, ctx: ActivityContext): Promise<Json> {
  const opts = { signal: ctx.signal };
  const resumed = resumedTaskId(ctx, call.method);
  if (resumed) {
    const task = await client.getTask(GetTaskRequest.fromJSON({ id: resumed }), opts);
    const events: Json = isSettled(task) ? [{ task: Task.toJSON(task) as Json }] : await collect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: resumed }), opts), call, ctx);
    return events;
  }
  return collect(client.sendMessageStream(SendMessageRequest.fromJSON(call.params), opts), call, ctx);
}

/** A stream's responses as JSON; the task's id heartbeated; a task that did not end well fails the call. */
async function collect(stream: AsyncGenerator<StreamResponse>, call: A2ACall, ctx: ActivityContext): Promise<Json> {
  const out: Json[] = [];
  let last: Task | undefined;
  for await (const event of stream) {
    out.push(StreamResponse.toJSON(event) as Json);
    const payload = event.payload;
    const taskId = payload?.$case === 'task' ? payload.value.id : payload?.$case === 'statusUpdate' || payload?.$case === 'artifactUpdate' ? payload.value.taskId : undefined;
    if (taskId) ctx.heartbeat(progress(call.method, taskId));
    if (payload?.$case === 'task') last = payload.value;
    if (payload?.$case === 'statusUpdate' && payload.value.status) last = { ...(last ?? Task.fromJSON({ id: payload.value.taskId, contextId: payload.value.contextId })), status: payload.value.status };
  }
  if (last && isSettled(last)) ensureDone(last, call);
  return out;
}

const progress = (method: string, taskId: string): A2AProgress => ({ a2a: { method, taskId } });

/** The task id the lost attempt of this call heartbeated (a Temporal retry's details, or those the interpreter passes on). */
function resumedTaskId(ctx: ActivityContext, method: string): string | undefined {
  const details = ctx.info.heartbeatDetails as Partial<A2AProgress> | undefined;
  const d = details?.a2a;
  return d && d.method === method && typeof d.taskId === 'string' && d.taskId ? d.taskId : undefined;
}

/**
 * The spec's default `messageId` is a UUID; this one is derived from the run and the activity, so
 * every attempt of the activity sends the same id (an agent may deduplicate on it).
 */
function messageIdOf(ctx: ActivityContext): string {
  const h = createHash('sha256').update(`${ctx.workflow.id}\n${ctx.workflow.instanceId}\n${ctx.info.activityId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const SETTLED = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** Done, or waiting for what only the caller can give (input, authentication): nothing more to wait for. */
const isSettled = (task: Task) => SETTLED.has(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);

/** How a task that did not complete fails the call (the spec: a runtime error). */
const UNFINISHED: Partial<Record<TaskState, { status: number; what: string }>> = {
  [TaskState.TASK_STATE_FAILED]: { status: 500, what: 'failed' },
  [TaskState.TASK_STATE_REJECTED]: { status: 422, what: 'was rejected' },
  [TaskState.TASK_STATE_CANCELED]: { status: 409, what: 'was canceled' },
  [TaskState.TASK_STATE_INPUT_REQUIRED]: { status: 422, what: 'requires input (input-required: a multi-turn task, answer it with another message/send naming its taskId)' },
  [TaskState.TASK_STATE_AUTH_REQUIRED]: { status: 401, what: 'requires authentication (auth-required)' },
};

function ensureDone(task: Task, call: A2ACall): void {
  const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  const how = UNFINISHED[state];
  if (!how) return;
  const said = statusText(task);
  throw new A2AProblem({ type: ErrorTypes.runtime, status: how.status, title: 'A2A Task Not Completed', detail: `task ${task.id} ${how.what}${said ? `: ${said}` : ''}` });
}

/** The text parts of a task's status message. */
function statusText(task: Task): string {
  return (task.status?.message?.parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join(' ');
}

const isTask = (r: Task | Message): r is Task => 'status' in r && 'id' in r;

function resultJson(r: Task | Message): Json {
  return isTask(r) ? { task: Task.toJSON(r) as Json } : { message: Message.toJSON(r) as Json };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => (signal.removeEventListener('abort', stop), resolve()), ms);
    const stop = () => (clearTimeout(t), reject(signal.reason));
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** A problem the call raises itself (a task that did not complete). */
class A2AProblem extends SwflowError {
  static {
    errorClass(this, 'A2AProblem');
  }

  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

/** JSON-RPC error codes of A2A and JSON-RPC → the problem's status. */
const RPC_STATUS: Record<number, number> = {
  [-32700]: 400,
  [-32600]: 400,
  [-32601]: 501,
  [-32602]: 400,
  [-32603]: 500,
  [-32001]: 404,
  [-32002]: 409,
  [-32003]: 501,
  [-32004]: 501,
  [-32005]: 415,
  [-32006]: 502,
  [-32007]: 404,
  [-32008]: 400,
  [-32009]: 505,
};

/** The SDK's A2A error reasons (also raised by the client itself, e.g. push notifications the card does not offer) → status. */
const REASON_STATUS: Record<string, number> = {
  TASK_NOT_FOUND: 404,
  TASK_NOT_CANCELABLE: 409,
  PUSH_NOTIFICATION_NOT_SUPPORTED: 501,
  UNSUPPORTED_OPERATION: 501,
  CONTENT_TYPE_NOT_SUPPORTED: 415,
  INVALID_AGENT_RESPONSE: 502,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 404,
  EXTENSION_SUPPORT_REQUIRED: 400,
  VERSION_NOT_SUPPORTED: 505,
  INVALID_PARAMS: 400,
};

/**
 * The agent, as the call reaches it: a client made by the SDK's ClientFactory whose every request
 * goes through `ctx.fetch` with the endpoint's credentials; the last HTTP status that was not a
 * success is kept, to tell a refused request from the agent's own error.
 */
class AgentConnection {
  private refused?: { status: number; statusText: string };
  constructor(
    private readonly call: A2ACall,
    private readonly ctx: ActivityContext,
  ) {}

  /** What messages name: `a2a message/send to http://agent/...`. */
  get name(): string {
    return `a2a ${this.call.method} to ${this.call.target.url}`;
  }

  async client(): Promise<Client> {
    const { target } = this.call;
    let header: string | undefined;
    let auth: Auth | undefined;
    try {
      header = authenticationHeader(target.authentication, this.ctx);
      auth = await tokenAuthentication(target.authentication, this.ctx);
    } catch (err) {
      if (err instanceof ConfigurationError) throw configurationFailure(`${this.ctx.state}: ${this.name}: ${err.message}`);
      throw err;
    }
    const fetchImpl = this.fetchWith(header, auth);
    const legacyCompat = { enabled: true };
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat }), new RestTransportFactory({ fetchImpl, legacyCompat })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
      }),
    );
    if (target.kind === 'agentCard') return factory.createFromUrl(target.url, '');
    // `server`: the agent's A2A 1.0 JSON-RPC endpoint, without a card to read it from.
    const card = AgentCard.fromJSON({
      name: target.url,
      description: '',
      version: '',
      supportedInterfaces: [{ url: target.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true, extendedAgentCard: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    });
    return factory.createFromAgentCard(card);
  }

  /** `fetch` for the SDK: the context's (cancellation, failures with codes), with the credentials. */
  private fetchWith(header: string | undefined, auth: Auth | undefined): typeof fetch {
    return async (input, init) => {
      const { url, init: sent } = fetchArguments(input, init);
      const headers = sent.headers!;
      if (header) headers.authorization = header;
      const res = await this.ctx.fetch({ method: sent.method!, url, headers, ...(sent.body !== undefined ? { body: sent.body } : {}) }, { auth, ...(sent.signal ? { signal: sent.signal } : {}), ...(sent.redirect === 'manual' ? { redirect: 'manual' } : {}) });
      if (!res.ok) this.refused = { status: res.status, statusText: res.statusText };
      return res;
    };
  }

  /** The Temporal failure of what went wrong (see the module comment). */
  failure(err: unknown): unknown {
    if (this.ctx.signal.aborted) return err;
    // Already a problem (a definition problem found on the way).
    if ((err as { type?: unknown })?.type === ErrorTypes.configuration) return err;
    const where = `${this.ctx.state}: ${this.name}`;
    if (err instanceof A2AProblem) return problemFailure({ ...err.problem, detail: `${where}: ${err.problem.detail}` }, true);
    const message = (err as Error)?.message ?? String(err);
    if (isJsonRpcError(err)) {
      const code = err.envelopeCode;
      return problemFailure({ type: ErrorTypes.runtime, status: RPC_STATUS[code] ?? 500, title: 'A2A Error', detail: `${where}: the agent answered JSON-RPC error ${code} (${err.reason}): ${message}` }, true);
    }
    if (isAdapterError(err)) {
      // ctx.fetch's connection failures (ConnectionRefused, HostNotFound, ...); a refused token request.
      if (err.code === 'AuthError') return problemFailure({ type: ErrorTypes.authentication, status: 401, title: 'Authentication Error', detail: `${where}: ${message}` }, true);
      return problemFailure({ type: ErrorTypes.communication, status: 503, title: 'Service Unavailable', detail: `${where}: ${message} (${err.code})` }, true);
    }
    if (this.refused) {
      const { status, statusText } = this.refused;
      const type = status === 401 ? ErrorTypes.authentication : status === 403 ? ErrorTypes.authorization : ErrorTypes.communication;
      return problemFailure({ type, status, title: statusText || `HTTP ${status}`, detail: `${where}: ${message}` }, true);
    }
    // An A2A error the SDK raised itself, or anything else (an answer it could not read, an agent card it could not use).
    const reason = (err as { reason?: unknown })?.reason;
    const status = typeof reason === 'string' ? (REASON_STATUS[reason] ?? 502) : 502;
    return problemFailure({ type: ErrorTypes.runtime, status, title: 'A2A Error', detail: `${where}: ${message}${typeof reason === 'string' ? ` (${reason})` : ''}` }, true);
  }
}

/** The `call: a2a` adapter (activity `sw.a2a`). */
export function a2aAdapter(): Adapter {
  return defineAdapter({ name: BUILTIN_ADAPTER, description: '1.0 call: a2a', activities: { [builtinActivityName(A2A_CALL_ACTIVITY)]: invokeA2a } });
}
