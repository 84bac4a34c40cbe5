/**
 * bench/large-runs.ts's worker process: the interpreter worker alone, with the definitions of a
 * folder, optionally as a worker from before some features. Prints `ready`.
 *
 *   TEMPORAL_ADDRESS=host:port npx tsx bench/large-runs-worker.ts <definitions folder> [feature,feature]
 */
import { NativeConnection } from '@temporalio/worker';
import { createInterpreterWorker } from '../src/worker/interpreter-worker';
import { INTERPRETER_FEATURES } from '../src/common/features';

async function main(): Promise<void> {
  const [definitions, without = ''] = process.argv.slice(2);
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const off = without.split(',').filter(Boolean);
  const worker = await createInterpreterWorker({ connection, definitions: [definitions], features: INTERPRETER_FEATURES.filter((f) => !off.includes(f)) });
  console.log('ready');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
