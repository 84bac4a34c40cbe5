/**
 * The run's link to the `swflow.metrics` sink for code below the host (retries): set by the run
 * host when the worker has metrics on (the run's own state: ./run-local.ts); a no-op otherwise
 * and outside the sandbox (unit tests with fake effects). Sink calls are not commands.
 */
import type { MetricsSink } from '../../common/metrics-sink';
import { runSlot } from './run-local';

/** The run's own (./run-local.ts). */
const active = runSlot<{ sink: MetricsSink; id: string; version: string }>('metrics');

export function setRunMetrics(m: { sink: MetricsSink; id: string; version: string } | undefined): void {
  active.set(m);
}

/** The interpreter retries `target` (a 0.8 action's function or subflow, a 1.0 `try` task) after a timer. */
export function countRetry(target: string): void {
  const m = active.get();
  m?.sink.retried(m.id, m.version, target);
}
