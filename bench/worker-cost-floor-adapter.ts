/**
 * bench/worker-cost.ts's `ts-floor-adapter` (and `-writes`) worker process: the pinned TypeScript floor
 * (`tenLocalGetsPinnedAdapter`, `tenPostsPinnedAdapter`: bench/worker-cost-floor-workflow.ts) whose ten calls are served by
 * swflow's built-in `call: http` adapter (adapters/http) through the adapter SDK, with the activity
 * interceptors every swflow worker registers (callActivityInterceptors): the request
 * built from the call's `with`, its answer shaped per `output`, statuses as problems, secrets
 * redacted, the payload limit. The same V8 flags as swflow's worker commands. Prints `ready`; stops on SIGINT.
 *
 *   TEMPORAL_ADDRESS=host:port BENCH_FLOOR_BUNDLE=<bundle.js> npx tsx bench/worker-cost-floor-adapter.ts <swflow documents>
 */
import { join } from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { httpAdapter } from '../adapters/http';
import { adapterActivities, adapterServices } from '../src/adapter-sdk';
import { callActivityInterceptors } from '../src/worker/adapter-worker';
import { pin } from './worker-cost-pin';

(require(join(__dirname, '..', 'bin', 'heap')) as { applyWorkerHeapFlags(): string }).applyWorkerHeapFlags();

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: 'bench-floor',
    workflowBundle: { codePath: process.env.BENCH_FLOOR_BUNDLE! },
    activities: { pin: async (type: string) => pin(process.argv[2] ?? '.', type), ...adapterActivities([httpAdapter()], adapterServices()) },
    interceptors: { activity: callActivityInterceptors() },
  });
  console.log('ready');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
