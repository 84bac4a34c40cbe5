/**
 * The run's spans in the spec's vocabulary (docs/tracing.md): `run <definition>` under Temporal's
 * RunWorkflow span, `state <name>` (0.8) or `task <pointer>` (1.0) under the run (a nested 1.0
 * task under the task whose pointer starts its own), and `action <name>` (0.8) around a call's
 * activity. Made here, in the sandbox, with the tracer Temporal's OpenTelemetry workflow
 * interceptors register (in the bundle only when the worker traces): their ids come from the
 * sandbox's seeded random and their times from workflow time, so a replay makes the same spans,
 * and the interceptors' `exporter` sink is skipped during replay. No command is issued.
 *
 * Only runs whose resolve result says the worker traces (ResolveResult.tracing, recorded) make
 * spans; without the interceptors in the bundle the tracer is OpenTelemetry's no-op.
 */
import type * as OtelApi from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import type { Step } from './tracker';
import { runSlot } from './run-local';

/**
 * OpenTelemetry's API, loaded on first use by a traced run. Not imported: this module is preloaded
 * (evaluated once per workflow thread and frozen by the SDK), and the API sets its singletons
 * lazily, which a frozen module refuses; required here, it lands in the run's own module cache.
 */
function otel(): typeof OtelApi {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('@opentelemetry/api');
}

/** The run's trace (the run's own: ./run-local.ts). */
const activeTrace = runSlot<RunTrace>('trace');

export class RunTrace {
  private readonly tracer = otel().trace.getTracer('swflow');
  private readonly run: Span;
  private readonly runContext: Context;
  /** Open step spans, in the order entered. */
  private readonly open: { step: Step; span: Span; context: Context }[] = [];

  constructor(
    definition: { id: string; version?: string; stepHeading: 'State' | 'Task' },
    private readonly now: () => number,
  ) {
    const parent = otel().context.active();
    this.run = this.tracer.startSpan(`run ${definition.id}`, {
      startTime: now(),
      attributes: { 'swflow.definition.id': definition.id, ...(definition.version ? { 'swflow.definition.version': definition.version } : {}), 'swflow.dsl': definition.stepHeading === 'Task' ? '1.0' : '0.8' },
    }, parent);
    this.runContext = otel().trace.setSpan(parent, this.run);
    this.kind = definition.stepHeading === 'Task' ? 'task' : 'state';
    activeTrace.set(this);
  }

  private readonly kind: 'task' | 'state';

  /** A state or task began: its span, under the innermost open task that contains it (1.0 pointers), else the run. */
  enter(step: Step): void {
    const parent = this.kind === 'task' ? this.innermost(step.state) : undefined;
    const span = this.tracer.startSpan(`${this.kind} ${step.state}`, {
      startTime: this.now(),
      attributes: { [`swflow.${this.kind}`]: step.state, [`swflow.${this.kind}.type`]: step.type, ...(step.status === 'compensating' ? { 'swflow.compensating': true } : {}) },
    }, parent?.context ?? this.runContext);
    this.open.push({ step, span, context: otel().trace.setSpan(parent?.context ?? this.runContext, span) });
  }

  leave(step: Step): void {
    const i = this.open.findIndex((o) => o.step === step);
    if (i < 0) return;
    const [{ span }] = this.open.splice(i, 1);
    span.setAttribute('swflow.status', step.status);
    span.setStatus({ code: step.status === 'failed' ? otel().SpanStatusCode.ERROR : otel().SpanStatusCode.OK });
    span.end(this.now());
  }

  /** The run ended (completed, failed, cancelled, or continued as new). */
  end(status: string): void {
    for (const o of this.open.splice(0)) o.span.end(this.now());
    this.run.setAttribute('swflow.status', status);
    this.run.setStatus({ code: status === 'failed' ? otel().SpanStatusCode.ERROR : otel().SpanStatusCode.OK });
    this.run.end(this.now());
    if (activeTrace.get() === this) activeTrace.set(undefined);
  }

  /**
   * The context an activity of `state` (0.8 name, 1.0 pointer) goes out in: that step's span, else
   * the run's. An activity that names no step (a produced event, a lifecycle event) goes out in the
   * step entered last that is still open (exact when the run does one thing at a time).
   */
  contextOf(state: string | undefined): Context {
    if (state === undefined) return this.open.length ? this.open[this.open.length - 1].context : this.runContext;
    for (let i = this.open.length - 1; i >= 0; i--) if (this.open[i].step.state === state) return this.open[i].context;
    return this.runContext;
  }

  /** Runs `fn` (which schedules a call's activity) with a span `action <name>` (0.8) or the step's span (1.0) active. */
  around<T>(state: string | undefined, action: string | undefined, fn: () => Promise<T>): Promise<T> {
    const ctx = this.contextOf(state);
    if (this.kind === 'task' || action === undefined) return otel().context.with(ctx, fn);
    const span = this.tracer.startSpan(`action ${action}`, { startTime: this.now(), attributes: { 'swflow.state': state ?? '', 'swflow.action': action } }, ctx);
    const end = (ok: boolean) => {
      span.setStatus({ code: ok ? otel().SpanStatusCode.OK : otel().SpanStatusCode.ERROR });
      span.end(this.now());
    };
    const out = otel().context.with(otel().trace.setSpan(ctx, span), fn);
    out.then(() => end(true), () => end(false));
    return out;
  }

  private innermost(pointer: string): { context: Context } | undefined {
    for (let i = this.open.length - 1; i >= 0; i--) {
      const p = this.open[i].step.state;
      if (pointer !== p && pointer.startsWith(`${p}/`)) return this.open[i];
    }
    return undefined;
  }
}

/** Runs `fn` within the traced run's context for a call of `state`/`action` (see RunTrace.around); just `fn()` when the run is not traced. */
export function aroundCall<T>(state: string | undefined, action: string | undefined, fn: () => Promise<T>): Promise<T> {
  const active = activeTrace.get();
  return active ? active.around(state, action, fn) : fn();
}
