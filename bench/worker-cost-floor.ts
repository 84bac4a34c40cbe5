/**
 * bench/worker-cost.ts's TypeScript floor worker process: bench/worker-cost-floor-workflow.ts
 * on queue `bench-floor`, its activities a bare node:http request to the echo service (keep-alive,
 * JSON answer) and the pinned floor's `pin` (./worker-cost-pin.ts; argv[2]: the folder of the peer's swflow documents),
 * with the V8 flags swflow's worker commands set (bin/heap.js). What any
 * TypeScript worker pays for these runs: the difference to swflow's is the interpreter's and the
 * adapters'. Prints `ready`; stops on SIGINT.
 *
 *   TEMPORAL_ADDRESS=host:port BENCH_SERVICE=http://127.0.0.1:port BENCH_FLOOR_BUNDLE=<bundle.js> npx tsx bench/worker-cost-floor.ts [<swflow documents>]
 */
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { pin } from './worker-cost-pin';

(require(join(__dirname, '..', 'bin', 'heap')) as { applyWorkerHeapFlags(): string }).applyWorkerHeapFlags();

const agent = new Agent({ keepAlive: true });
const service = process.env.BENCH_SERVICE!;

function send(method: string, path: string, body?: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(`${service}${path}`, { method, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(JSON.parse(text)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: 'bench-floor',
    // Bundled ahead of time (BENCH_FLOOR_BUNDLE, by the bench) as a production TypeScript worker would be: no webpack in this process.
    workflowBundle: { codePath: process.env.BENCH_FLOOR_BUNDLE! },
    activities: { pin: async (_type: string) => pin(process.argv[2] ?? '.'), get: (i: number) => send('GET', `/echo/${i}`), post: (i: number) => send('POST', `/echo/${i}`, JSON.stringify({ i })) },
  });
  console.log('ready');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
