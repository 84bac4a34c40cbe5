/**
 * The baseline: what a Temporal user would write by hand for bench/definitions/ten-calls.sw.json,
 * calling the same activity (type `sw.rest`, same queue, same argument shape) ten times.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';

type Call = (call: unknown) => Promise<unknown>;
const acts = proxyActivities<Record<string, Call>>({
  taskQueue: 'swflow-adapters',
  startToCloseTimeout: '1 minute',
});

export async function tenCallsHandwritten(input: Record<string, unknown>): Promise<Record<string, unknown>> {
  return calls(input, 10);
}

export async function oneCallHandwritten(input: Record<string, unknown>): Promise<Record<string, unknown>> {
  return calls(input, 1);
}

async function calls(input: Record<string, unknown>, n: number): Promise<Record<string, unknown>> {
  const info = workflowInfo();
  for (let i = 1; i <= n; i++) {
    await acts['sw.rest']({
      function: { name: 'echo', type: 'rest', operation: 'http://bench.example/api.json#echo', metadata: {} },
      arguments: { i },
      workflow: { id: info.workflowId, instanceId: info.runId, definitionId: n === 1 ? 'onecall' : 'tencalls' },
      state: 'Call',
    });
  }
  return input;
}
