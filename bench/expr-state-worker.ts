/**
 * bench/expr-state.ts's interpreter worker process: the bench definitions on `<task queue>`,
 * with every interpreter feature (`now`) or all but `sync-expressions` (`before`: what runs
 * recorded before it do). Prints `ready`.
 *
 *   TEMPORAL_ADDRESS=host:port npx tsx bench/expr-state-worker.ts <task queue> now|before
 */
import { join } from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { createInterpreterWorker } from '../src/worker/interpreter-worker';
import { FEATURE_SYNC_EXPRESSIONS, INTERPRETER_FEATURES } from '../src/common/features';

async function main(): Promise<void> {
  const [taskQueue, mode] = process.argv.slice(2);
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await createInterpreterWorker({
    connection,
    taskQueue,
    definitions: [join(__dirname, 'definitions')],
    features: mode === 'before' ? INTERPRETER_FEATURES.filter((f) => f !== FEATURE_SYNC_EXPRESSIONS) : INTERPRETER_FEATURES,
  });
  console.log('ready');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
