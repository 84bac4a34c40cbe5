/**
 * Function calls in flight on this worker, by kind (a local activity, or an activity): how many,
 * and how long the oldest has been running. A call stuck on a service that never answers shows as
 * an age that keeps growing (docs/stuck-calls.md). Counted by the metrics interceptor
 * (./interceptor.ts), read when the endpoint is scraped.
 */
import type { Gauge, Registry } from 'prom-client';

export type CallKind = 'local' | 'activity';

/** Start times (hrtime, ns) of the calls in flight, by kind. */
const inFlight: Record<CallKind, Set<{ started: bigint }>> = { local: new Set(), activity: new Set() };

/** A call started; the returned function says it ended. */
export function callStarted(kind: CallKind): () => void {
  const call = { started: process.hrtime.bigint() };
  inFlight[kind].add(call);
  return () => void inFlight[kind].delete(call);
}

/** The two gauges, computed at each scrape. */
export function registerCallsInFlight(registry: Registry, GaugeClass: typeof Gauge): void {
  const kinds: CallKind[] = ['local', 'activity'];
  new GaugeClass({
    name: 'swflow_calls_in_flight',
    help: 'Function calls running on this worker now, by kind (local: a local activity, activity: a regular one)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      for (const kind of kinds) this.set({ kind }, inFlight[kind].size);
    },
  });
  new GaugeClass({
    name: 'swflow_call_oldest_in_flight_seconds',
    help: 'How long the oldest function call running on this worker has been running, by kind (0: none)',
    labelNames: ['kind'],
    registers: [registry],
    collect() {
      const now = process.hrtime.bigint();
      for (const kind of kinds) {
        let oldest = now;
        for (const c of inFlight[kind]) if (c.started < oldest) oldest = c.started;
        this.set({ kind }, Number(now - oldest) / 1e9);
      }
    },
  });
}
