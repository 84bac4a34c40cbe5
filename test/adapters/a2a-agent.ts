/**
 * A real A2A agent for tests, built with the server side of the same SDK (@a2a-js/sdk: an
 * AgentExecutor, the DefaultRequestHandler, the express JSON-RPC handler, v0.3 methods accepted
 * too), on a local port. Its JSON-RPC endpoint requires `Authorization: Bearer <token>`; its agent
 * card is public. What it does depends on the message's text:
 * - `slow <ms>`: a task, submitted → working → (an artifact) completed after <ms>;
 * - `fail`: a task that fails; `reject`: a task the agent rejects; `ask`: a task that needs input;
 * - anything else: a message at once, `echo: <text>`.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { AgentCard, Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

// express 5 ships no types (and @types/express is not a dependency): used untyped, in tests only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require('express') as () => any;

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });

function agentMessage(value: string, taskId = '', contextId = ''): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts: [text(value)], metadata: undefined, extensions: [], referenceTaskIds: [] };
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

class TestExecutor implements AgentExecutor {
  /** Every message the agent received: its id and text. */
  readonly received: { messageId: string; text: string }[] = [];
  readonly cancelled = new Set<string>();

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    this.cancelled.add(taskId);
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined }));
  };

  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const said = rc.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    this.received.push({ messageId: rc.userMessage.messageId, text: said });
    const { taskId, contextId } = rc;
    const status = (state: TaskState, message?: string) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: message ? agentMessage(message, taskId, contextId) : undefined, timestamp: new Date().toISOString() }, metadata: undefined }));
    const slow = /^slow (\d+)$/.exec(said);
    if (!slow && !['fail', 'reject', 'ask'].includes(said)) {
      bus.publish(AgentEvent.message(agentMessage(`echo: ${said}`, '', contextId)));
      bus.finished();
      return;
    }
    const task: Task = { id: taskId, contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [rc.userMessage], metadata: undefined };
    bus.publish(AgentEvent.task(task));
    await delay(100);
    status(TaskState.TASK_STATE_WORKING, 'working on it');
    if (said === 'fail') return void (status(TaskState.TASK_STATE_FAILED, 'the report generator crashed'), bus.finished());
    if (said === 'reject') return void (status(TaskState.TASK_STATE_REJECTED, 'not my job'), bus.finished());
    if (said === 'ask') return void (status(TaskState.TASK_STATE_INPUT_REQUIRED, 'which quarter?'), bus.finished());
    const until = Date.now() + Number(slow![1]);
    while (Date.now() < until) {
      if (this.cancelled.has(taskId)) return void bus.finished();
      await delay(100);
    }
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: { artifactId: randomUUID(), name: 'report', description: '', parts: [text(`report for: ${said}`)], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED, 'done');
    bus.finished();
  }
}

export interface TestAgent {
  /** The agent card's URL. */
  cardUrl: string;
  /** The JSON-RPC endpoint. */
  rpcUrl: string;
  token: string;
  received: { messageId: string; text: string }[];
  /** Requests the agent refused for want of the bearer token. */
  refused: number;
  close(): Promise<void>;
}

export async function startTestAgent(token: string): Promise<TestAgent> {
  const executor = new TestExecutor();
  const app = express();
  let base = '';
  const card = () =>
    AgentCard.fromJSON({
      name: 'Report agent',
      description: 'writes reports (a test agent)',
      version: '1.0.0',
      supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'report', name: 'report', description: 'writes a report', tags: ['report'] }],
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    });
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
  const agent: TestAgent = { cardUrl: '', rpcUrl: '', token, received: executor.received, refused: 0, close: async () => {} };
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card() }));
  app.use('/a2a/jsonrpc', (req: any, res: any, next: () => void) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      agent.refused++;
      res.status(401).set('www-authenticate', 'Bearer').json({ error: 'a bearer token is required' });
      return;
    }
    next();
  });
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agent.cardUrl = `${base}/.well-known/agent-card.json`;
  agent.rpcUrl = `${base}/a2a/jsonrpc`;
  agent.close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return agent;
}
