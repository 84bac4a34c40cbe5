/**
 * bench/worker-cost.ts's swflow worker process: what `swflow start` runs against an existing
 * server (the interpreter worker with the bench's definitions and the built-in adapter worker),
 * nothing else. BENCH_BUNDLE_IN_PROCESS=1 bundles as the worker did before 2026-11-25 (webpack
 * in the worker process, the source map with the sources' texts). Prints `ready`; stops on SIGINT. BENCH_MEMORY_LOG=1 logs the main thread's heap every 5 s.
 *
 *   TEMPORAL_ADDRESS=host:port npx tsx bench/worker-cost-worker.ts <definitions folder>
 *   (bench/worker-cost.ts runs it compiled: bin/compiled.js, compiledExtra)
 */
import { join } from 'node:path';
import { bundleWorkflowCode, NativeConnection } from '@temporalio/worker';
import { createInterpreterWorker, WORKFLOW_INTERCEPTORS_PATH, WORKFLOWS_PATH } from '../src/worker/interpreter-worker';
import { createBuiltinAdapterWorker } from '../src/worker/adapter-worker';

// The V8 heap settings `swflow worker` applies (bin/heap.js; SWFLOW_V8_FLAGS replaces them, empty: none).
(require(join(__dirname, '..', 'bin', 'heap')) as { applyWorkerHeapFlags(): string }).applyWorkerHeapFlags();

async function main(): Promise<void> {
  const [definitions] = process.argv.slice(2);
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  // BENCH_BUNDLE_IN_PROCESS=1: as before 2026-11-25, webpack in this process and the full source map.
  const workflowBundle = process.env.BENCH_BUNDLE_IN_PROCESS
    ? await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, preloadModules: [require.resolve('../src/expr/engine')], workflowInterceptorModules: [WORKFLOW_INTERCEPTORS_PATH], logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } as never })
    : undefined;
  const workers = [await createInterpreterWorker({ connection, definitions: [definitions], workflowBundle, builtinCalls: true }), await createBuiltinAdapterWorker({ connection, baseDirs: [definitions] })];
  console.log('ready');
  // BENCH_MEMORY_LOG=1: the main thread's heap every 5 s (the rest of the RSS is the workflow thread and native code).
  if (process.env.BENCH_MEMORY_LOG) {
    setInterval(() => {
      const m = process.memoryUsage();
      const mb = (x: number) => Math.round(x / 1048576);
      console.error(`[memory] rss ${mb(m.rss)} heapTotal ${mb(m.heapTotal)} heapUsed ${mb(m.heapUsed)} external ${mb(m.external)} arrayBuffers ${mb(m.arrayBuffers)}`);
    }, 5000).unref();
  }
  await Promise.all(workers.map((w) => w.run()));
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
