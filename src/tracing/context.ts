/**
 * The trace context as it leaves and enters a process, for code that must not load OpenTelemetry
 * when tracing is off (the adapters, the gateway, the produce activity): each hook is one
 * `undefined` check until ./index.ts turns tracing on.
 *
 * W3C trace context: `traceparent` (and `tracestate`) HTTP headers and gRPC metadata; on a
 * CloudEvent, the distributed-tracing extension attributes of the same names.
 */
import type { Context, Span, SpanKind } from '@opentelemetry/api';
import type { CloudEventJson } from '../common/contracts';

let api: typeof import('@opentelemetry/api') | undefined;

/** Set by startTracingIf (./index.ts). */
export function setTraceApi(a: typeof import('@opentelemetry/api')): void {
  api = a;
}

/** The active trace context as headers (`traceparent`, `tracestate`); none when tracing is off or no span is active. */
export function traceHeaders(): Record<string, string> {
  if (!api) return {};
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  return carrier;
}

/** The event with the active trace context as its `traceparent`/`tracestate` extension attributes (an event that has them keeps its own). */
export function withTraceContext<E extends CloudEventJson>(event: E): E {
  if (!api || typeof event.traceparent === 'string') return event;
  const headers = traceHeaders();
  if (!headers.traceparent) return event;
  return { ...event, traceparent: headers.traceparent, ...(headers.tracestate ? { tracestate: headers.tracestate } : {}) };
}

/**
 * Runs `fn` in a new span (a child of `parent`'s trace context when given: the `traceparent` of
 * an incoming event or request, else of the active span), active while it runs; ends it with
 * `fn`'s outcome. Without tracing, just `fn()`.
 */
export async function inSpan<T>(
  name: string,
  opts: { kind?: 'server' | 'client' | 'producer' | 'consumer' | 'internal'; attributes?: Record<string, string | number | boolean | undefined>; parent?: { traceparent?: unknown; tracestate?: unknown } },
  fn: (span?: Span) => Promise<T>,
): Promise<T> {
  const a = api;
  if (!a) return fn();
  let ctx: Context = a.context.active();
  if (typeof opts.parent?.traceparent === 'string') {
    const carrier: Record<string, string> = { traceparent: opts.parent.traceparent };
    if (typeof opts.parent.tracestate === 'string') carrier.tracestate = opts.parent.tracestate;
    ctx = a.propagation.extract(a.ROOT_CONTEXT, carrier);
  }
  const attributes = Object.fromEntries(Object.entries(opts.attributes ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string | number | boolean>;
  const span = a.trace.getTracer('swflow').startSpan(name, { kind: kindOf(a, opts.kind), attributes }, ctx);
  try {
    const out = await a.context.with(a.trace.setSpan(ctx, span), () => fn(span));
    span.setStatus({ code: a.SpanStatusCode.OK });
    return out;
  } catch (err) {
    // The message (an error code and what failed) only: never the data the error may carry.
    span.setStatus({ code: a.SpanStatusCode.ERROR, message: String((err as Error)?.message ?? err).slice(0, 300) });
    span.setAttribute('error.type', String((err as { type?: unknown; name?: unknown })?.type ?? (err as Error)?.name ?? 'Error'));
    throw err;
  } finally {
    span.end();
  }
}

function kindOf(a: typeof import('@opentelemetry/api'), kind?: string): SpanKind {
  switch (kind) {
    case 'server': return a.SpanKind.SERVER;
    case 'client': return a.SpanKind.CLIENT;
    case 'producer': return a.SpanKind.PRODUCER;
    case 'consumer': return a.SpanKind.CONSUMER;
    default: return a.SpanKind.INTERNAL;
  }
}

/** The ids of the active span (for log lines), if any. */
export function activeSpanIds(): { trace_id: string; span_id: string } | undefined {
  if (!api) return undefined;
  const sc = api.trace.getSpan(api.context.active())?.spanContext();
  return sc && api.isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : undefined;
}
