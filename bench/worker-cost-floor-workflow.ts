/**
 * bench/worker-cost.ts's TypeScript floor: the peer benches' 10 sequential calls written by hand
 * against the Temporal TypeScript SDK with nothing of swflow's in the path. `tenLocalGets`: ten
 * local activities (as swflow's default path runs reads); `tenPosts`: ten activities on the
 * worker's own queue (eager, as swflow's default path runs writes). `tenLocalGetsPinned`: what
 * any workflow that runs a document resolved at its start must add, by hand: one local activity
 * that returns the document (recorded in history, so replays run the same one) and one upsert of
 * the search attributes that name it, then the ten GETs.
 */
import { proxyActivities, proxyLocalActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';

type Calls = { get(i: number): Promise<unknown>; post(i: number): Promise<unknown> };
const local = proxyLocalActivities<Calls>({ startToCloseTimeout: '1 minute' });
const remote = proxyActivities<Calls>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 1 } });

export async function tenLocalGets(): Promise<unknown> {
  let out: unknown = null;
  for (let i = 1; i <= 10; i++) out = await local.get(i);
  return out;
}

type Pin = { definition: { document: { namespace: string; name: string; version: string } }; hash: string };
const pinning = proxyLocalActivities<{ pin(type: string): Promise<Pin> }>({ startToCloseTimeout: '1 minute' });

export async function tenLocalGetsPinned(): Promise<unknown> {
  const { definition, hash } = await pinning.pin(workflowInfo().workflowType);
  const { namespace, name, version } = definition.document;
  upsertSearchAttributes({ SwDefinitionId: [`${namespace}/${name}`], SwDefinitionVersion: [version], SwDefinitionHash: [hash], SwState: ['/do/0/call1'] });
  return tenLocalGets();
}

/**
 * `tenLocalGetsPinned` whose ten GETs are swflow's own `call: http` adapter activity (`sw.http`,
 * served by bench/worker-cost-floor-adapter.ts with the adapter SDK's interceptors) instead of a
 * bare node:http request: each call goes out as the FunctionCall the interpreter makes of the
 * document's task (the whole call as the input, a format the adapter SDK still reads). What is
 * left between this and swflow's worker is the interpreter's own cost.
 */
type HttpTask = { call: string; with: Record<string, unknown> };
type PinnedDocument = Pin & { definition: { do: Record<string, HttpTask>[] } };
const adapter = proxyLocalActivities<Record<string, (call: unknown) => Promise<unknown>>>({ startToCloseTimeout: '1 minute' });

export function tenLocalGetsPinnedAdapter(): Promise<unknown> {
  return pinnedAdapterCalls(adapter);
}

/** The same with the ten calls POSTs (the `-writes` document), as activities on the worker's own queue with swflow's heartbeat timeout (eager, as swflow's writes). */
const adapterRemote = proxyActivities<Record<string, (call: unknown) => Promise<unknown>>>({ startToCloseTimeout: '3650 days', heartbeatTimeout: '30 seconds', retry: { maximumAttempts: 1 } });

export function tenPostsPinnedAdapter(): Promise<unknown> {
  return pinnedAdapterCalls(adapterRemote);
}

async function pinnedAdapterCalls(calls: typeof adapter): Promise<unknown> {
  const info = workflowInfo();
  const { definition, hash } = (await pinning.pin(info.workflowType)) as PinnedDocument;
  const { namespace, name, version } = definition.document;
  const definitionId = `${namespace}/${name}`;
  upsertSearchAttributes({ SwDefinitionId: [definitionId], SwDefinitionVersion: [version], SwDefinitionHash: [hash], SwState: ['/do/0/call1'] });
  let out: unknown = null;
  for (const [i, entry] of definition.do.entries()) {
    const [taskName, task] = Object.entries(entry)[0];
    out = await calls['sw.http']({
      function: { name: task.call, type: 'http', operation: task.call, metadata: {} },
      arguments: task.with,
      workflow: { id: info.workflowId, instanceId: info.runId, definitionId },
      state: `/do/${i}/${taskName}`,
      action: taskName,
    });
  }
  return out;
}

export async function tenPosts(): Promise<unknown> {
  let out: unknown = null;
  for (let i = 1; i <= 10; i++) out = await remote.post(i);
  return out;
}

/** bench/worker-mixed.ts's long run: `n` sequential local GETs (a 100-iteration loop with a call each). */
export async function loopGets(n: number): Promise<unknown> {
  let out: unknown = null;
  for (let i = 1; i <= n; i++) out = await local.get(i);
  return out;
}

/** bench/worker-mixed.ts's fork: `branches` branches at once, each `calls` sequential local GETs. */
export async function forkGets(branches: number, calls: number): Promise<unknown[]> {
  return Promise.all(Array.from({ length: branches }, async (_, b) => {
    let out: unknown = null;
    for (let i = 1; i <= calls; i++) out = await local.get(b * 100 + i);
    return out;
  }));
}
