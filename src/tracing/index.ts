/**
 * OpenTelemetry tracing of a swflow process (docs/tracing.md). On when the standard OTEL_*
 * variables ask for an exporter (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
 * or OTEL_TRACES_EXPORTER=otlp/console), off when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
 * Off costs nothing: the SDK is never loaded, no interceptor is added, the hooks are single
 * `undefined` checks (./context.ts).
 *
 * On, every swflow process calls {@link startTracingIf} once, first; then
 * - clients (gateway, `swflow start`/`run`/`event`) carry the active context into the headers of
 *   the workflows they start and signal (Temporal's OpenTelemetryWorkflowClientInterceptor);
 * - the interpreter worker's bundle holds Temporal's workflow interceptors (workflow and
 *   StartActivity spans, made in the sandbox, exported through a sink skipped on replay) and the
 *   run makes its spans in the spec's vocabulary there too (src/workflow/host/tracing.ts: a run,
 *   each 0.8 state and action, each 1.0 task), deterministically;
 * - workers run Temporal's activity interceptor (RunActivity spans) and ./interceptor.ts (a span per
 *   function call), and the adapters put `traceparent` on every request they send (./context.ts);
 * - produced CloudEvents carry `traceparent`/`tracestate` (CloudEvents distributed tracing), and
 *   the gateway continues the trace of the events it receives (src/gateway/server.ts).
 *
 * Span attributes name definitions, pointers, functions and attempts — never data or secrets.
 */
import type { Tracer } from '@opentelemetry/api';
import type { BatchSpanProcessor, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { IResource } from '@opentelemetry/resources';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { setTraceApi } from './context';

export interface Tracing {
  readonly tracer: Tracer;
  readonly processor: SpanProcessor;
  readonly resource: IResource;
  /** Sends the spans ended so far (tests, before a process exits). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let current: Tracing | undefined;

/** The process's tracing, when it is on. */
export function tracing(): Tracing | undefined {
  return current;
}

/** Whether the OTEL_* variables ask for traces (see the header). */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (String(env.OTEL_SDK_DISABLED).toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (exporters.includes('none')) return false;
  if (exporters.some((e) => e !== 'otlp' && e !== 'console')) throw new Error(`OTEL_TRACES_EXPORTER: swflow exports traces with "otlp" (OTLP over HTTP) or "console", not "${env.OTEL_TRACES_EXPORTER}"`);
  return exporters.length > 0 || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Turns tracing on when the environment asks for it (once per process; later calls return the
 * same): a Node tracer provider registered globally (W3C trace context and baggage propagation,
 * async-hooks context), spans batched to the OTLP/HTTP exporter. `serviceName` is the default of
 * OTEL_SERVICE_NAME (`swflow-worker`, `swflow-gateway`, ...).
 */
export function startTracingIf(serviceName: string, env: NodeJS.ProcessEnv = process.env): Tracing | undefined {
  if (current) return current;
  if (!tracingWanted(env)) return undefined;
  // Loaded only when tracing is on.
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor, SimpleSpanProcessor, ConsoleSpanExporter } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { Resource, detectResourcesSync, envDetectorSync } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': serviceName }))
    .merge(detectResourcesSync({ detectors: [envDetectorSync] }));
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((s) => s.trim());
  const processors: SpanProcessor[] = [];
  if (exporters.includes('otlp') || !env.OTEL_TRACES_EXPORTER) {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter()) as BatchSpanProcessor);
  }
  if (exporters.includes('console')) processors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
  const provider = new NodeTracerProvider({ resource, spanProcessors: processors });
  provider.register();
  const processor: SpanProcessor = processors.length === 1 ? processors[0] : {
    onStart: (s, c) => processors.forEach((p) => p.onStart(s, c)),
    onEnd: (s) => processors.forEach((p) => p.onEnd(s)),
    forceFlush: async () => void (await Promise.all(processors.map((p) => p.forceFlush()))),
    shutdown: async () => void (await Promise.all(processors.map((p) => p.shutdown()))),
  };
  setTraceApi(api);
  current = {
    tracer: api.trace.getTracer('swflow'),
    processor,
    resource,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
  return current;
}

/** The interceptors a Temporal client gets: the active trace goes into the headers of what it starts and signals. */
export function clientInterceptors(): { interceptors?: { workflow: WorkflowClientInterceptor[] } } {
  if (!current) return {};
  const { OpenTelemetryWorkflowClientInterceptor } = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  return { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } };
}

/**
 * The workflow interceptor module for the interpreter's bundle when tracing is on: Temporal's
 * OpenTelemetry workflow interceptors with ids that leave the run's random sequence alone
 * (src/workflow/tracing-interceptors.ts).
 */
export function workflowInterceptorModules(): string[] {
  return current ? [require.resolve('../workflow/tracing-interceptors')] : [];
}

/** What workflow code learns of its run in each span: ids and names, never memo, search attributes or input. */
function runAttributes(info: { workflowId: string; runId: string; workflowType: string; namespace: string; taskQueue: string }): Record<string, string> {
  return { temporalWorkflowId: info.workflowId, run_id: info.runId, temporalWorkflowType: info.workflowType, temporalNamespace: info.namespace, temporalTaskQueue: info.taskQueue };
}

/**
 * The `exporter` sink the workflow interceptors send their spans to (Temporal's
 * makeWorkflowExporter into this process's batch processor), or none when tracing is off. Skipped
 * during replay. (makeWorkflowExporter copies the whole WorkflowInfo into the attributes: only the
 * ids and names are passed on.)
 */
export function tracingSinks(): InjectedSinks<any> {
  const t = current;
  if (!t) return {};
  const { makeWorkflowExporter } = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  const exporter = makeWorkflowExporter(t.processor as any, t.resource as any);
  return {
    exporter: {
      export: { fn: (info: any, spans: any) => exporter.export.fn(runAttributes(info) as any, spans), callDuringReplay: false },
    },
  };
}

/** The activity interceptors of tracing (Temporal's RunActivity span, then the call span), first in the list; none when off. */
export function tracingActivityInterceptors(): ActivityInterceptorsFactory[] {
  if (!current) return [];
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = require('@temporalio/interceptors-opentelemetry') as typeof import('@temporalio/interceptors-opentelemetry');
  return [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })];
}
