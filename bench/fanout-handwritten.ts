/**
 * bench/fanout.ts's baseline: the two fan-outs written by hand as Temporal TypeScript workflows,
 * calling the same built-in `sw.http` activity as local activities (as swflow's reads run), in
 * the shape a Temporal user would give them to stay inside Temporal's limits: the parallel one in
 * child workflows of 500 items (`chunksInFlight` at once, default 8; 100 calls at once in each),
 * the sequential one continuing as new when the server suggests it. The difference to swflow's is the interpreter's.
 */
import { continueAsNew, executeChild, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';

const adapters = proxyLocalActivities<Record<string, (call: unknown) => Promise<{ i: number }>>>({
  startToCloseTimeout: '1 minute',
});

const CHUNK = 500;
const CALLS_IN_FLIGHT = 100;

function get(base: string, mode: string, i: number): Promise<{ i: number }> {
  const info = workflowInfo();
  return adapters['sw.http']({
    function: { name: 'http', type: 'http', operation: 'http', metadata: {} },
    arguments: { method: 'get', endpoint: { uri: `${base}/${mode}/${i}` } },
    workflow: { id: info.workflowId, instanceId: info.runId, definitionId: 'handwritten' },
    state: 'get',
    action: 'get',
  });
}

/** Runs `n` tasks, `width` at a time; results in order. */
async function pool<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
  return out;
}

interface FanoutInput {
  base: string;
  items: number[];
  mode: string;
  /** Chunk children at once (swflow's foreach with batchSize 100 runs one: 100 calls at once in all). */
  chunksInFlight?: number;
}

/** The parallel fan-out: one child per 500 items; `{ count, sum }` of the answers. */
export async function foreachHandwritten(input: FanoutInput): Promise<{ count: number; sum: number }> {
  const chunks = Math.ceil(input.items.length / CHUNK);
  const parts = await pool(chunks, input.chunksInFlight ?? 8, (c) =>
    executeChild(foreachChunkHandwritten, { args: [{ ...input, items: input.items.slice(c * CHUNK, (c + 1) * CHUNK) }], workflowId: `${workflowInfo().workflowId}-${c}` }),
  );
  const results = parts.flat();
  return { count: results.length, sum: results.reduce((a, b) => a + b, 0) };
}

export async function foreachChunkHandwritten(input: FanoutInput): Promise<number[]> {
  return pool(input.items.length, CALLS_IN_FLIGHT, async (k) => (await get(input.base, input.mode, input.items[k])).i);
}

/** The sequential loop: one call per item, the sum threaded, continuing as new when suggested. */
export async function forHandwritten(input: FanoutInput & { next?: number; sum: number; count: number }): Promise<{ count: number; sum: number }> {
  let { sum, count } = input;
  for (let i = input.next ?? 0; i < input.items.length; i++) {
    const r = await get(input.base, input.mode, input.items[i]);
    sum += r.i;
    count++;
    if (i + 1 < input.items.length && workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof forHandwritten>({ ...input, next: i + 1, sum, count });
    }
  }
  return { count, sum };
}
