/**
 * bench/peer.ts's floor for swflow: the 10 sequential GETs written by hand as a TypeScript
 * workflow, calling the same built-in `sw.http` activity with the same input and options as a
 * 1.0 `call: http` task. The difference to `swflow-1.0` is the interpreter's; the difference to
 * zigflow is the SDK's and the worker's.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';

const adapters = proxyActivities<Record<string, (call: unknown) => Promise<unknown>>>({
  taskQueue: 'swflow-adapters',
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 1 },
});

async function calls(service: string, n: number): Promise<unknown> {
  const info = workflowInfo();
  let out: unknown = null;
  for (let i = 1; i <= n; i++) {
    out = await adapters['sw.http']({
      function: { name: 'http', type: 'http', operation: 'http', metadata: {} },
      arguments: { method: 'get', endpoint: { uri: `${service}/echo/${i}` } },
      workflow: { id: info.workflowId, instanceId: info.runId, definitionId: 'handwritten' },
      state: `/do/${i - 1}/call${i}`,
      action: `call${i}`,
    });
  }
  return out;
}

export async function tenCallsHandwritten(input: { service: string }): Promise<unknown> {
  return calls(input.service, 10);
}

export async function oneCallHandwritten(input: { service: string }): Promise<unknown> {
  return calls(input.service, 1);
}

/** The data loop by hand: nothing to do but count (no jq). */
export async function dataLoopHandwritten(input: { loop: number }): Promise<unknown> {
  let count = 0;
  for (let i = 0; i < input.loop; i++) count = i + 1;
  return { count };
}
