/**
 * The fan-out documents of bench/fanout.ts and test/limits/fanout.test.ts (a 0.8 `foreach` and a
 * 1.0 `for` with one GET per item to a local service: `GET <base>/<mode>/<i>` → `{ "i": <i> }`),
 * and what a run's chain of runs and children recorded: runs, children, largest history, and the
 * most activities / child workflows pending at once in any one run (Temporal's limit is 2,000).
 */
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

/** The definition files (name → text) for a service at `base`. */
export function fanoutDocuments(base: string, opts: { batchSize?: number; forHistoryLimit?: number } = {}): Record<string, string> {
  const api = {
    openapi: '3.0.3',
    info: { title: 'The fan-out benches’ local service', version: '1.0' },
    servers: [{ url: base }],
    paths: {
      '/{mode}/{i}': {
        get: {
          operationId: 'get',
          parameters: [
            { name: 'mode', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'i', in: 'path', required: true, schema: { type: 'integer' } },
          ],
          responses: { '200': { description: 'The item', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
  };
  const foreach = {
    id: 'fanout08',
    version: '1.0',
    specVersion: '0.8',
    start: 'FetchAll',
    functions: [{ name: 'get', operation: 'file://fanout-api.json#get' }],
    states: [
      {
        name: 'FetchAll',
        type: 'foreach',
        inputCollection: '${ .items }',
        iterationParam: 'item',
        batchSize: opts.batchSize ?? 100,
        outputCollection: '${ .results }',
        actions: [{ name: 'get', functionRef: { refName: 'get', arguments: { mode: '${ .mode }', i: '${ $item }' } }, actionDataFilter: { results: '${ .i }' } }],
        stateDataFilter: { output: '${ { count: (.results | length), sum: (.results | add) } }' },
        end: true,
      },
    ],
  };
  const loop = {
    document: {
      dsl: '1.0.3',
      namespace: 'bench',
      name: 'fanout10',
      version: '1.0.0',
      ...(opts.forHistoryLimit ? { metadata: { 'swflow.historyLimit': opts.forHistoryLimit } } : {}),
    },
    do: [
      {
        fetchAll: {
          output: { as: '${ { sum, count } }' },
          for: { in: '${ .items }', each: 'item', at: 'index' },
          do: [
            {
              get: {
                call: 'http',
                // `mode` threads through the data, not read as `$workflow.input.mode`: an expression
                // naming `$workflow` gets all of it (the 100,000 items of the input) serialized for
                // jq at every evaluation, a cost growing with N per item (README "Fan-outs").
                with: { method: 'get', endpoint: `\${ "${base}/\\(.mode)/\\($item)" }` },
                output: { as: '${ { sum: ($input.sum + .i), count: ($input.count + 1), mode: $input.mode } }' },
              },
            },
          ],
        },
      },
    ],
  };
  return {
    'fanout-api.json': JSON.stringify(api, null, 2),
    'fanout08.sw.json': JSON.stringify(foreach, null, 2),
    'fanout10.sw.json': JSON.stringify(loop, null, 2),
  };
}

export interface Chain {
  /** Runs of the workflow id (1 + continue-as-new), children (foreach chunks) with their own runs. */
  runs: number;
  children: number;
  /** Events of the longest history among all these runs. */
  largestHistory: number;
  /** Bytes of the largest history among them (the server's `historySizeBytes`; Temporal's limit is 50 MB). */
  largestHistoryBytes: number;
  /** Most activities (local activities are not pending on the server) / child workflows open at once in one run. */
  maxPendingActivities: number;
  maxPendingChildren: number;
}

type Event = temporal.api.history.v1.IHistoryEvent;

/** Everything the chain from `runId` (following continue-as-new) and its children recorded, read from their histories. */
export async function runsOf(client: Client, workflowId: string, runId?: string): Promise<Chain> {
  const chain: Chain = { runs: 0, children: 0, largestHistory: 0, largestHistoryBytes: 0, maxPendingActivities: 0, maxPendingChildren: 0 };
  await walk(client, workflowId, runId, chain, true);
  return chain;
}

async function walk(client: Client, workflowId: string, runId: string | undefined, chain: Chain, top: boolean): Promise<void> {
  let next: string | undefined = runId;
  let first = true;
  while (first || next) {
    first = false;
    const handle = client.workflow.getHandle(workflowId, next);
    const events: Event[] = (await handle.fetchHistory()).events ?? [];
    if (top) chain.runs++;
    chain.largestHistory = Math.max(chain.largestHistory, events.length);
    chain.largestHistoryBytes = Math.max(chain.largestHistoryBytes, Number((await handle.describe()).raw.workflowExecutionInfo?.historySizeBytes ?? 0));
    let activities = 0;
    let children = 0;
    const started: { workflowId: string; runId: string }[] = [];
    for (const e of events) {
      if (e.activityTaskScheduledEventAttributes) activities++;
      if (e.activityTaskCompletedEventAttributes || e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes || e.activityTaskCanceledEventAttributes) activities--;
      if (e.startChildWorkflowExecutionInitiatedEventAttributes) children++;
      if (
        e.startChildWorkflowExecutionFailedEventAttributes ||
        e.childWorkflowExecutionCompletedEventAttributes ||
        e.childWorkflowExecutionFailedEventAttributes ||
        e.childWorkflowExecutionCanceledEventAttributes ||
        e.childWorkflowExecutionTimedOutEventAttributes ||
        e.childWorkflowExecutionTerminatedEventAttributes
      )
        children--;
      const c = e.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (c?.workflowId && c.runId) started.push({ workflowId: c.workflowId, runId: c.runId });
      chain.maxPendingActivities = Math.max(chain.maxPendingActivities, activities);
      chain.maxPendingChildren = Math.max(chain.maxPendingChildren, children);
    }
    chain.children += started.length;
    for (const c of started) await walk(client, c.workflowId, c.runId, chain, false);
    next = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
}
