/**
 * Lifecycle CloudEvents of a run (1.0 spec "Lifecycle Events"), for both DSLs:
 * `io.serverlessworkflow.workflow.{started,suspended,resumed,correlation-started,
 * correlation-completed,cancelled,faulted,completed,status-changed}.v1` and
 * `io.serverlessworkflow.task.{created,started,suspended,resumed,retried,faulted,completed}.v1`, with the
 * data the DSL reference gives them (a 0.8 state is a task whose pointer is `/states/<index>`).
 * Published — when the interpreter worker opted in (ResolveResult.lifecycleEvents, recorded in
 * history) — through the same `swflow.produceEvent` activity as `emit`, to the worker's event
 * sinks. Each is one activity: they are chained (each scheduled once the previous one was
 * delivered, so sinks receive them in order) without holding the run up, and awaited before it
 * closes or continues as new.
 */
import type { Json } from '../../common/model';
import { formatBytes, jsonBytes } from '../../common/payload-limit';
import { scheduleProduceEvent } from '../events/produce';
import { summary } from './tracker';
import type { Effects } from '../effects';

export type LifecycleType =
  | 'workflow.started'
  | 'workflow.suspended'
  | 'workflow.resumed'
  | 'workflow.correlation-started'
  | 'workflow.correlation-completed'
  | 'workflow.cancelled'
  | 'workflow.completed'
  | 'workflow.faulted'
  | 'workflow.status-changed'
  | 'task.created'
  | 'task.started'
  | 'task.suspended'
  | 'task.resumed'
  | 'task.completed'
  | 'task.faulted'
  | 'task.retried';

/** Types published only by runs with the `host-lifecycle` feature (runs recorded before it published the others only, and only for 1.0). */
export const HOST_LIFECYCLE_TYPES: ReadonlySet<LifecycleType> = new Set<LifecycleType>([
  'workflow.suspended',
  'workflow.resumed',
  'workflow.correlation-started',
  'workflow.correlation-completed',
  'workflow.cancelled',
  'workflow.status-changed',
  'task.created',
  'task.suspended',
  'task.resumed',
]);

export class Lifecycle {
  /** The last event's delivery: the next one is scheduled after it (sinks see them in order). */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    /** `swflow/<definition id>`. */
    private readonly source: string,
    private readonly taskQueue: string,
    /** The qualified name of this instance: `<workflow id>.<namespace>` (0.8: `<workflow id>.<definition id>`). */
    readonly instance: string,
    private readonly effects: Pick<Effects, 'uuid4' | 'now'>,
    /** Without a payload store (ResolveResult.payloadLimit): an event over it leaves its large data out. */
    private readonly payloadLimit?: number,
  ) {}

  /** Publishes one event (not awaited: see {@link settle}). */
  publish(type: LifecycleType, data: Record<string, Json>, subject?: string): void {
    const now = new Date(this.effects.now()).toISOString();
    const ce = {
      specversion: '1.0',
      id: this.effects.uuid4(),
      source: this.source,
      type: `io.serverlessworkflow.${type}.v1`,
      time: now,
      ...(subject ? { subject } : {}),
      datacontenttype: 'application/json',
      data: type.startsWith('workflow.') ? { name: this.instance, ...data } : { workflow: this.instance, ...data },
    };
    // Over the limit, Temporal would refuse the activity and the run would be stuck: the event goes
    // without its `input`/`output`, saying how large they were (with a store, the SDK stores them).
    if (this.payloadLimit && jsonBytes(ce, this.payloadLimit) > this.payloadLimit) {
      const d = ce.data as Record<string, Json>;
      for (const field of ['input', 'output']) {
        if (d[field] !== undefined) d[field] = { swflowOmitted: `${formatBytes(jsonBytes(d[field]))}, over the ${formatBytes(this.payloadLimit)} payload limit without a payload store` };
      }
    }
    const label = summary(subject ?? '/', undefined, `lifecycle ${type}`);
    // A sink that keeps failing loses this event, not the run.
    this.tail = this.tail.then(() => scheduleProduceEvent(this.taskQueue, ce, label)).catch(() => undefined);
  }

  /** Waits until every event published so far was handed to the sinks. */
  async settle(): Promise<void> {
    await this.tail;
  }
}
