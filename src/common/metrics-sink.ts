/**
 * The `swflow.metrics` workflow sink: how the interpreter (deterministic sandbox code, which
 * cannot call prom-client) tells the worker's Node side about runs and steps. A sink call is not
 * a command: it leaves history unchanged, and the worker skips it during replay
 * (`callDuringReplay: false`, src/metrics/sink.ts). Runs call it only when their resolve result
 * says the worker has metrics on (ResolveResult.metrics, recorded with the result).
 */
import type { Sink, Sinks } from '@temporalio/workflow';

export const METRICS_SINK = 'swflow.metrics';

export interface MetricsSink extends Sink {
  /** The first run of a chain started (continue-as-new does not start a new one). */
  runStarted(definition: string, version: string): void;
  /** The run ended: completed, failed or cancelled. */
  runEnded(definition: string, version: string, status: string): void;
  /** A state (0.8) or task (1.0) of `type` ended with `status` after `seconds` (workflow time). */
  stepEnded(definition: string, version: string, type: string, status: string, seconds: number): void;
  /** The interpreter retries `target` (a 0.8 action's function or subflow, a 1.0 `try` task) after a timer. */
  retried(definition: string, version: string, target: string): void;
}

export interface MetricsSinks extends Sinks {
  [METRICS_SINK]: MetricsSink;
}
