/**
 * The MCP tools about runs, on Temporal: describe one (read-only), and the operator's actions —
 * start, send an event, redrive, cancel, suspend, resume — each refused unless the request may
 * use them (McpContext.access: the operator token). They call the same operations as the CLI
 * (src/client/start.ts, src/operations/*), so an agent does what an operator's command does.
 */
import { WorkflowFailedError, type Client, type WorkflowExecutionDescription, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { temporal } from '@temporalio/proto';
import { z } from 'zod';
import { STATE_QUERY, type InstanceState } from '../common/contracts';
import type { Json } from '../common/model';
import { startWorkflow } from '../client/start';
import { historyFacts, nodeOfSummary } from '../ui/history';
import { cloudEvent, sendEvent } from '../operations/event';
import { resumeRun, suspendRun } from '../operations/suspend';
import { redrive } from '../operations/redrive';
import type { McpContext } from './context';
import { answer, errorText, guarded, refusal } from './result';

/** How long describe_run waits for the `state` query (no worker polling: it reads the history instead). */
const QUERY_TIMEOUT_MS = 5_000;

const WORKFLOW_ID = z.string().min(1).describe('the run\'s workflow id');
const RUN_ID = z.string().optional().describe('a run of that workflow id other than the latest');
const JSON_VALUE = z.any().describe('any JSON value');

/** A destructive tool: listed always, run only when the request may. */
function operatorTool(ctx: McpContext, tool: string, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  if (!ctx.access.allowed) return Promise.resolve(refusal(`${tool} is an operator action: ${ctx.access.why}`, { refused: true }));
  return guarded(tool, body);
}

export function registerRunTools(server: McpServer, ctx: McpContext): void {
  const destructive = { destructiveHint: true, readOnlyHint: false } as const;

  server.registerTool(
    'describe_run',
    {
      title: 'Describe a run',
      description: 'A run\'s status, definition id and version, current step(s), the steps entered, its failure (message and the step that failed) and its pending activities.',
      inputSchema: { workflowId: WORKFLOW_ID, runId: RUN_ID },
      annotations: { readOnlyHint: true },
    },
    (args) => guarded('describe_run', async () => describeRun(await ctx.client(), args.workflowId, args.runId)),
  );

  server.registerTool(
    'start_run',
    {
      title: 'Start a run',
      description: 'Starts a run of a definition the workers serve (operator token needed). Answers its workflow id and run id.',
      inputSchema: {
        definitionId: z.string().min(1).describe('the definition\'s id (a 1.0 one\'s is namespace/name)'),
        version: z.string().optional().describe('a version other than the latest'),
        input: JSON_VALUE.optional().describe('the run\'s input (a JSON object)'),
        workflowId: z.string().optional().describe('the workflow id (default <id>-<random>)'),
      },
      annotations: destructive,
    },
    (args) =>
      operatorTool(ctx, 'start_run', async () => {
        // The definition must be one the workers serve: say so here rather than in a failed run.
        const entry = await ctx.registry.resolve(args.version ? `${args.definitionId}@${args.version}` : args.definitionId);
        const handle = await startWorkflow(await ctx.client(), { id: entry.def.id, version: args.version, input: (args.input ?? {}) as Json, workflowId: args.workflowId });
        const out = { workflowId: handle.workflowId, runId: (handle as Partial<WorkflowHandleWithFirstExecutionRunId>).firstExecutionRunId ?? (await handle.describe()).runId, definitionId: entry.def.id, version: entry.def.version ?? null };
        return answer(`started ${out.workflowId} (run ${out.runId}) of ${out.definitionId}${out.version ? `@${out.version}` : ''}`, out);
      }),
  );

  server.registerTool(
    'send_event',
    {
      title: 'Send an event to a run',
      description: 'Sends a CloudEvent to one run (addressed by its workflow id, as `swflow event send --temporal --workflow-id` does; operator token needed).',
      inputSchema: {
        workflowId: WORKFLOW_ID,
        type: z.string().min(1).describe('the CloudEvent type'),
        source: z.string().optional().describe('the CloudEvent source (default swflow.operator)'),
        data: JSON_VALUE.optional().describe('the event data'),
        subject: z.string().optional(),
        extensions: z.record(z.string(), z.string()).optional().describe('more attributes, e.g. correlation keys'),
      },
      annotations: destructive,
    },
    (args) =>
      operatorTool(ctx, 'send_event', async () => {
        const event = cloudEvent({ workflowId: args.workflowId, type: args.type, source: args.source ?? 'swflow.operator', data: args.data as Json | undefined, subject: args.subject, extensions: args.extensions });
        const r = await sendEvent(await ctx.client(), event, { definitions: () => ctx.registry.indexedDefinitions() });
        const out = { eventId: event.id, status: r.status, delivered: r.delivered ?? [], ...(r.error ? { error: r.error } : {}) };
        if (r.status !== 202) return refusal(`send_event: the event was not taken (${r.status}): ${r.error}`, out);
        return answer(`event ${event.type} ${event.id} delivered to ${args.workflowId}`, out);
      }),
  );

  server.registerTool(
    'redrive_run',
    {
      title: 'Redrive a failed run',
      description: 'Restarts a failed run at the state (0.8) or task (1.0) that failed, keeping what succeeded before it; optionally onto another version of its definition; `dryRun` says what would be done (operator token needed).',
      inputSchema: {
        workflowId: WORKFLOW_ID,
        runId: RUN_ID,
        definitionVersion: z.string().optional().describe('carry the run over to this version of its definition'),
        dryRun: z.boolean().optional().describe('say what would be done, do nothing'),
        reapplySignals: z.boolean().optional().describe('apply the events received after the reset point again (default true)'),
      },
      annotations: destructive,
    },
    (args) =>
      operatorTool(ctx, 'redrive_run', async () => {
        const r = await redrive(await ctx.client(), { ...args, identity: 'swflow mcp' });
        return answer(r.newRunId ? `redriven ${r.workflowId} from step ${r.step}: new run ${r.newRunId}` : `would redrive ${r.workflowId} from step ${r.step}`, { ...r });
      }),
  );

  server.registerTool(
    'cancel_run',
    {
      title: 'Cancel a run',
      description: 'Asks a run to cancel (a Temporal cancel: the run ends cancelled; operator token needed).',
      inputSchema: { workflowId: WORKFLOW_ID, runId: RUN_ID },
      annotations: destructive,
    },
    (args) =>
      operatorTool(ctx, 'cancel_run', async () => {
        await (await ctx.client()).workflow.getHandle(args.workflowId, args.runId).cancel();
        return answer(`cancellation requested for ${args.workflowId}`, { workflowId: args.workflowId, cancelRequested: true });
      }),
  );

  for (const action of ['suspend', 'resume'] as const) {
    server.registerTool(
      `${action}_run`,
      {
        title: action === 'suspend' ? 'Suspend a run' : 'Resume a run',
        description:
          action === 'suspend'
            ? 'Suspends a run: no new state or task starts until it is resumed; calls and timers already started go on (operator token needed).'
            : 'Resumes a suspended run (operator token needed).',
        inputSchema: { workflowId: WORKFLOW_ID, runId: RUN_ID },
        annotations: destructive,
      },
      (args) =>
        operatorTool(ctx, `${action}_run`, async () => {
          const r = await (action === 'suspend' ? suspendRun : resumeRun)(await ctx.client(), { workflowId: args.workflowId, runId: args.runId });
          return answer(`${action} sent to ${args.workflowId}${r.status ? `: the run is ${r.status}` : ''}`, { ...r });
        }),
    );
  }
}

/** What describe_run answers. */
export async function describeRun(client: Client, workflowId: string, runId?: string): Promise<CallToolResult> {
  let info: WorkflowExecutionDescription;
  try {
    info = await client.workflow.getHandle(workflowId, runId).describe();
  } catch (err) {
    if ((err as Error).name === 'WorkflowNotFoundError') return refusal(`describe_run: no run with workflow id "${workflowId}"${runId ? ` and run id "${runId}"` : ''}`);
    throw err;
  }
  const handle = client.workflow.getHandle(workflowId, info.runId, { followRuns: false });
  const sa = info.searchAttributes as Record<string, unknown[] | undefined>;
  const pendingActivities = (info.raw.pendingActivities ?? []).map((a) => ({
    activityId: a.activityId ?? null,
    activityType: a.activityType?.name ?? null,
    state: a.state != null ? (temporal.api.enums.v1.PendingActivityState[a.state] ?? String(a.state)).replace(/^PENDING_ACTIVITY_STATE_/, '') : null,
    attempt: a.attempt ?? null,
    lastFailure: a.lastFailure?.message ?? null,
  }));
  const out: Record<string, unknown> = {
    workflowId,
    runId: info.runId,
    status: info.status.name,
    definitionId: sa.SwDefinitionId?.[0] ?? null,
    definitionVersion: sa.SwDefinitionVersion?.[0] ?? null,
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
    currentSteps: [] as string[],
    stepsEntered: [] as string[],
    pendingActivities,
  };
  // The `state` query answers for a closed run too while a worker replays it; without one, the history tells.
  const state = await withTimeout(handle.query<InstanceState>(STATE_QUERY), QUERY_TIMEOUT_MS).catch((err: unknown) => errorText(err));
  if (typeof state !== 'string') {
    Object.assign(out, {
      runStatus: state.status,
      definitionId: state.definitionId,
      definitionVersion: state.definitionVersion ?? null,
      currentSteps: info.status.name === 'RUNNING' ? state.currentStates : [],
      // The steps as currentStates names them (a 1.0 task's pointer; statesEntered has task names), the last STEPS_LISTED of stepsTotal.
      stepsEntered: state.steps ? state.steps.map((s) => s.step) : state.statesEntered,
      ...(state.stepsTotal !== undefined ? { stepsTotal: state.stepsTotal } : {}),
      awaitedEvents: state.awaitedEvents,
      stepsFrom: 'state query',
    });
  } else out.queryError = `the run's state query did not answer (${state})`;
  const open = info.status.name === 'RUNNING';
  if (open && typeof state === 'string' && sa.SwState?.[0]) out.currentSteps = [String(sa.SwState[0])];
  if (!open || typeof state === 'string') {
    const facts = historyFacts((await handle.fetchHistory()).events ?? []);
    if (typeof state === 'string') Object.assign(out, { stepsEntered: facts.swStates.map((s) => s.state).filter((s, i, all) => s !== all[i - 1]), stepsFrom: 'history' });
    if (facts.closed === 'failed' || facts.closed === 'terminated' || facts.closed === 'timedOut') {
      const failedSpans = Object.values(facts.commands).flat().filter((c) => c.failed);
      const fallback = failedSpans.length ? nodeOfSummary(failedSpans[failedSpans.length - 1].summary) : facts.swStates[facts.swStates.length - 1]?.state;
      out.failure = { message: facts.failure ?? facts.closed, step: (await failedStep(handle)) ?? fallback ?? null };
    }
  }
  const current = (out.currentSteps as string[]).join(', ');
  const failure = out.failure as { message: string; step: string | null } | undefined;
  const summary = `${workflowId} is ${info.status.name}${current ? ` at ${current}` : ''}${failure ? `: failed${failure.step ? ` in ${failure.step}` : ''}: ${failure.message}` : ''}`;
  return answer(summary, out);
}

/**
 * The step a failed run names in its failure: a 1.0 task's pointer (the RFC 7807 problem's
 * `instance`, in the failure's details), or the 0.8 state of the message (`state "X" failed: ...`).
 */
async function failedStep(handle: ReturnType<Client['workflow']['getHandle']>): Promise<string | undefined> {
  try {
    await handle.result();
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) return undefined;
    for (let c: any = err.cause; c; c = c.cause) {
      const instance = (c.details as { instance?: unknown }[] | undefined)?.find((d) => typeof d?.instance === 'string')?.instance;
      if (typeof instance === 'string') return instance;
      const m = /state "([^"]+)"/.exec(String(c.message ?? ''));
      if (m) return m[1];
    }
  }
  return undefined;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p.finally(() => clearTimeout(timer)), new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms (is a worker running?)`)), ms)))]);
}
