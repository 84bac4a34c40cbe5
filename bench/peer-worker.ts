/**
 * bench/peer.ts's swflow worker process: what `swflow start` runs against an existing server
 * (the interpreter worker with the bench's definitions, the built-in adapter worker), plus the
 * hand-written baseline (bench/peer-handwritten.ts) on its own queue. Prints `ready`.
 *
 *   TEMPORAL_ADDRESS=host:port npx tsx bench/peer-worker.ts <definitions folder> <hand-written queue> [<queue of an interpreter without eager-calls>]
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createInterpreterWorker } from '../src/worker/interpreter-worker';
import { createBuiltinAdapterWorker } from '../src/worker/adapter-worker';

async function main(): Promise<void> {
  const [definitions, handwrittenQueue, queueInterpreterQueue] = process.argv.slice(2);
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const workers = [
    await createInterpreterWorker({ connection, definitions: [definitions], builtinCalls: true }),
    // The path before eager-calls: an interpreter worker that sends built-in calls to swflow-adapters.
    ...(queueInterpreterQueue ? [await createInterpreterWorker({ connection, definitions: [definitions], taskQueue: queueInterpreterQueue, builtinCalls: false })] : []),
    await createBuiltinAdapterWorker({ connection, baseDirs: [definitions] }),
    await Worker.create({ connection, taskQueue: handwrittenQueue, workflowsPath: require.resolve('./peer-handwritten') }),
  ];
  console.log('ready');
  await Promise.all(workers.map((w) => w.run()));
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
