/**
 * The run's link to the `swflow.metrics` sink for code below the host (retries): set by the run
 * host when the worker has metrics on (module state is per run in the sandbox); a no-op otherwise
 * and outside the sandbox (unit tests with fake effects). Sink calls are not commands.
 */
import type { MetricsSink } from '../../common/metrics-sink';

let active: { sink: MetricsSink; id: string; version: string } | undefined;

export function setRunMetrics(m: { sink: MetricsSink; id: string; version: string } | undefined): void {
  active = m;
}

/** The interpreter retries `target` (a 0.8 action's function or subflow, a 1.0 `try` task) after a timer. */
export function countRetry(target: string): void {
  active?.sink.retried(active.id, active.version, target);
}
