/**
 * bench/fanout.ts's worker processes, one per side so each side's memory and CPU are its own:
 * `swflow` (the interpreter worker with the bench's definitions, serving built-in calls as `swflow
 * start` does) or `handwritten` (bench/fanout-handwritten.ts with the same `sw.http` activity).
 * Prints `ready`.
 *
 *   TEMPORAL_ADDRESS=host:port npx tsx bench/fanout-worker.ts swflow <definitions folder>
 *   TEMPORAL_ADDRESS=host:port npx tsx bench/fanout-worker.ts handwritten <task queue>
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createInterpreterWorker } from '../src/worker/interpreter-worker';
import { builtinAdapters } from '../src/worker/adapter-worker';
import { adapterActivities, adapterServices, callInterceptor } from '../src/adapter-sdk';

async function main(): Promise<void> {
  const [side, arg] = process.argv.slice(2);
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker =
    side === 'swflow'
      ? await createInterpreterWorker({ connection, definitions: [arg], builtinCalls: true })
      : await Worker.create({
          connection,
          taskQueue: arg,
          workflowsPath: require.resolve('./fanout-handwritten'),
          activities: adapterActivities(builtinAdapters({ baseDirs: [] }), adapterServices()) as Record<string, (...args: any[]) => Promise<unknown>>,
          interceptors: { activity: [callInterceptor] },
        });
  console.log('ready');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
