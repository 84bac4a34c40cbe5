/** A plain hand-written workflow: `n` sequential calls of one trivial activity on `queue`. */
import { proxyActivities } from '@temporalio/workflow';

export async function sequentialCalls(n: number, queue: string): Promise<number> {
  const { echo } = proxyActivities<{ echo(i: number): Promise<number> }>({ taskQueue: queue, startToCloseTimeout: '1 minute' });
  let sum = 0;
  for (let i = 0; i < n; i++) sum += await echo(i);
  return sum;
}
