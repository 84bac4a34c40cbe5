/**
 * The Node side of the `swflow.metrics` workflow sink (common/metrics-sink.ts): every interpreter
 * worker registers it (a run recorded with metrics on may replay on a worker without them), and it
 * records only when this process has metrics on. Never called during replay.
 */
import type { InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import { METRICS_SINK, type MetricsSinks } from '../common/metrics-sink';
import { metrics } from './index';

function scheduledBy(info: WorkflowInfo): boolean {
  const v = (info.searchAttributes as Record<string, unknown> | undefined)?.TemporalScheduledById;
  return Array.isArray(v) ? v.length > 0 : Boolean(v);
}

export function metricsSinks(): InjectedSinks<MetricsSinks> {
  return {
    [METRICS_SINK]: {
      runStarted: {
        fn: (info, definition, version) => {
          const m = metrics();
          m?.runsStarted.inc({ definition, version });
          // The server marks the runs a Schedule starts (TemporalScheduledById).
          if (m && scheduledBy(info)) m.scheduleTriggers.inc({ definition, version });
        },
        callDuringReplay: false,
      },
      runEnded: { fn: (_info, definition, version, status) => metrics()?.runsEnded.inc({ definition, version, status }), callDuringReplay: false },
      retried: { fn: (_info, definition, version, target) => metrics()?.retries.inc({ definition, version, target }), callDuringReplay: false },
      stepEnded: {
        fn: (_info, definition, version, type, status, seconds) => metrics()?.stepDuration.observe({ definition, version, type, status }, seconds),
        callDuringReplay: false,
      },
    },
  } as InjectedSinks<MetricsSinks>;
}
