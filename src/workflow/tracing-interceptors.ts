/**
 * Temporal's OpenTelemetry workflow interceptors (RunWorkflow, StartActivity, StartChildWorkflow,
 * HandleSignal… spans, the trace context carried in headers, spans exported through the
 * `exporter` sink, skipped on replay), with one change: span and trace ids do not come from
 * Math.random. The package's tracer draws them from the sandbox's seeded random, which shifts every
 * later `uuid4()` and retry jitter of the run, so a history recorded without tracing would not
 * replay with it (child workflow ids differ) and the reverse. Here the ids are a hash of the run id
 * and a per-run counter: the same on every replay, and the run's own random sequence is untouched.
 *
 * In the interpreter's bundle only when the worker traces (src/tracing: workflowInterceptorModules),
 * after ./interceptors.ts. The tracer registered here is also the one host/tracing.ts uses.
 */
// First: the package's patch of the sandbox (a `performance` clock), which OpenTelemetry needs as it loads.
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime';
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Tracer } from '@opentelemetry/api';
import { workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { OpenTelemetryInboundInterceptor, OpenTelemetryInternalsInterceptor, OpenTelemetryOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { ContextManager } from '@temporalio/interceptors-opentelemetry/lib/workflow/context-manager';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter';

/** Ids made so far by run id (removed when the run's workflow is disposed). */
const counters = new Map<string, number>();

/** 32 bits of a string (FNV-1a, then a murmur3 finalizer), `seed` picking one of several. */
function hash32(s: string, seed: number): string {
  let h = (0x811c9dc5 ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0).toString(16).padStart(8, '0');
}

function nextKey(): string {
  const runId = workflowInfo().runId;
  const n = (counters.get(runId) ?? 0) + 1;
  counters.set(runId, n);
  return `${runId}/${n}`;
}

const runIds: IdGenerator = {
  generateTraceId: () => {
    const k = nextKey();
    return hash32(k, 1) + hash32(k, 2) + hash32(k, 3) + hash32(k, 4);
  },
  generateSpanId: () => {
    const k = nextKey();
    return hash32(k, 5) + hash32(k, 6);
  },
};

let tracer: Tracer | undefined;
let contextManager: ContextManager | undefined;

/** As the package's getTracer (one provider, its sink exporter, the sandbox's context manager), with the run's ids; registered before the package's own. */
function getTracer(): Tracer {
  contextManager ??= new ContextManager();
  if (tracer === undefined) {
    const provider = new BasicTracerProvider({ idGenerator: runIds });
    provider.addSpanProcessor(new SimpleSpanProcessor(new SpanExporter()));
    provider.register({ contextManager });
    tracer = provider.getTracer('@temporalio/interceptor-workflow');
  }
  return tracer;
}

function withTracer<T extends object>(interceptor: T, t: Tracer): T {
  (interceptor as unknown as { tracer: Tracer }).tracer = t;
  return interceptor;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  const t = getTracer();
  return {
    inbound: [withTracer(new OpenTelemetryInboundInterceptor(), t)],
    outbound: [withTracer(new OpenTelemetryOutboundInterceptor(), t)],
    internals: [
      new OpenTelemetryInternalsInterceptor(),
      {
        dispose(input, next) {
          try {
            counters.delete(workflowInfo().runId);
          } catch {
            // no workflow context left: nothing to forget
          }
          contextManager?.disable();
          next(input);
        },
      },
    ],
  };
};
