/**
 * bench/writes.ts's worker process: the interpreter worker serving built-in calls (what `swflow
 * worker` runs) on the bench's definitions, so the bench can SIGKILL it mid-write.
 * BENCH_FEATURES_WITHOUT (comma-separated) leaves interpreter features out of the runs it starts,
 * as an older worker would (e.g. `call-ids`: the Idempotency-Key from the activity id). Prints `ready`.
 *
 *   TEMPORAL_ADDRESS=host:port npx tsx bench/writes-worker.ts <definitions folder>
 */
import { NativeConnection } from '@temporalio/worker';
import { createInterpreterWorker } from '../src/worker/interpreter-worker';
import { INTERPRETER_FEATURES } from '../src/common/features';

async function main(): Promise<void> {
  const [definitions] = process.argv.slice(2);
  const without = (process.env.BENCH_FEATURES_WITHOUT ?? '').split(',').filter(Boolean);
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await createInterpreterWorker({ connection, definitions: [definitions], builtinCalls: true, ...(without.length ? { features: INTERPRETER_FEATURES.filter((f) => !without.includes(f)) } : {}) });
  console.log('ready');
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
