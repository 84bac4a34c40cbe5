import type { Worker } from '@temporalio/worker';

/** Shuts workers down (ignoring ones that never ran or already stopped) and waits for their runs. */
export async function stopWorkers(workers: Worker[], runs: Promise<unknown>[]): Promise<void> {
  for (const w of workers) {
    try {
      w.shutdown();
    } catch {
      // not running
    }
  }
  await Promise.allSettled(runs);
}
