/**
 * Lifecycle CloudEvents of a 1.0 run (spec "Lifecycle Events"): `io.serverlessworkflow.workflow.
 * {started,completed,faulted}.v1` and `io.serverlessworkflow.task.{started,completed,faulted,
 * retried}.v1`, with the data the DSL reference gives them. Published — when the interpreter
 * worker opted in (ResolveResult.lifecycleEvents, recorded in history) — through the same
 * `swflow.produceEvent` activity as `emit`, to the worker's event sinks. Each is one activity:
 * they are chained (each scheduled once the previous one was delivered, so sinks receive them in
 * order) without holding the run up, and awaited before it closes or continues as new.
 */
import { uuid4 } from '@temporalio/workflow';
import type { Json } from '../../dsl/model';
import type { V1Definition } from '../../dsl/v1/model';
import { scheduleProduceEvent } from '../events/produce';
import { summary } from '../ui';

export type LifecycleType =
  | 'workflow.started'
  | 'workflow.completed'
  | 'workflow.faulted'
  | 'task.started'
  | 'task.completed'
  | 'task.faulted'
  | 'task.retried';

export class Lifecycle {
  /** The last event's delivery: the next one is scheduled after it (sinks see them in order). */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly def: V1Definition,
    private readonly taskQueue: string,
    /** The qualified name of this instance: `<workflow id>.<namespace>`. */
    readonly instance: string,
  ) {}

  /** Publishes one event (not awaited: see {@link settle}). */
  publish(type: LifecycleType, data: Record<string, Json>, subject?: string): void {
    const now = new Date().toISOString();
    const ce = {
      specversion: '1.0',
      id: uuid4(),
      source: `swflow/${this.def.id}`,
      type: `io.serverlessworkflow.${type}.v1`,
      time: now,
      ...(subject ? { subject } : {}),
      datacontenttype: 'application/json',
      data: type.startsWith('workflow.') ? { name: this.instance, ...data } : { workflow: this.instance, ...data },
    };
    const label = summary(subject ?? '/', undefined, `lifecycle ${type}`);
    // A sink that keeps failing loses this event, not the run.
    this.tail = this.tail.then(() => scheduleProduceEvent(this.taskQueue, ce, label)).catch(() => undefined);
  }

  /** Waits until every event published so far was handed to the sinks. */
  async settle(): Promise<void> {
    await this.tail;
  }
}
