/**
 * The in-workflow event mailbox: the EVENT_SIGNAL handler puts every CloudEvent here (so an
 * event that arrives before its state is active is kept), and states take the events they
 * wait for, matched by definition (type + source) and correlation.
 */
import type { EventDef, Json } from '../../common/model';
import { consumedKey, eventMatches } from '../../common/events';
import type { CloudEventJson } from '../../common/contracts';
import { beforeBlocking } from '../host/tracker';
import { temporalEffects, type Effects } from '../effects';

export interface TakenEvent {
  name: string;
  def: EventDef;
  event: CloudEventJson;
}

/**
 * The event names awaited now. Counted, so that two parallel branches waiting for the same
 * event keep it awaited until both have it.
 */
export class AwaitedNames {
  private readonly counts = new Map<string, number>();

  add(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  delete(name: string): void {
    const n = (this.counts.get(name) ?? 0) - 1;
    if (n > 0) this.counts.set(name, n);
    else this.counts.delete(name);
  }

  /** How many distinct names are awaited. */
  get size(): number {
    return this.counts.size;
  }

  [Symbol.iterator](): IterableIterator<string> {
    return this.counts.keys();
  }
}

export class Mailbox {
  readonly events: CloudEventJson[] = [];
  /** Correlation keys fixed by the first consumed event (context attribute → value). */
  readonly correlation: Record<string, string> = {};
  /** Event names currently awaited (for the state query and the SwAwaitedEvents search attribute). */
  readonly awaited = new AwaitedNames();
  /**
   * What 1.0 listens wait for now as SwAwaitedEvents entries (../../common/awaited-events.ts:
   * types, or types qualified by correlation values); published with `v1-awaited-events`.
   */
  readonly awaitedEntries = new AwaitedNames();
  /**
   * Keys (source + id, which CloudEvents makes unique) of the events consumed so far, the latest
   * last, when duplicates are dropped (`dedupe`): brokers deliver at least once, and an event
   * delivered twice must not be consumed twice. Bounded; carried across continue-as-new.
   */
  readonly consumed: string[] = [];
  dedupe = false;
  static readonly CONSUMED_KEPT = 1000;
  /** How the mailbox waits (a fake in unit tests). */
  effects: Pick<Effects, 'condition' | 'conditionWithin'> = temporalEffects;

  constructor(public defs: EventDef[] = []) {}

  push(event: CloudEventJson): void {
    if (event && typeof event === 'object') this.events.push(event);
  }

  def(name: string): EventDef {
    const d = this.defs.find((e) => e.name === name);
    if (!d) throw new Error(`Unknown event "${name}"`);
    return d;
  }

  /** The CloudEvent types of the awaited events, sorted (the SwAwaitedEvents search attribute). */
  awaitedTypes(): string[] {
    const types = new Set<string>();
    for (const name of this.awaited) {
      const d = this.defs.find((e) => e.name === name);
      if (d) types.add(d.type);
    }
    return [...types].sort();
  }

  /** The SwAwaitedEvents value of a 1.0 run: its listens' entries, sorted. */
  sortedAwaitedEntries(): string[] {
    return [...this.awaitedEntries].sort();
  }

  /** True when a kept event matches one of `names`. */
  has(names: string[]): boolean {
    return this.find(names) !== undefined;
  }

  /** The keys (`<source>\u0000<id>`) of the last consumed events (at most CONSUMED_KEPT), oldest first. */
  consumedKeys(): string[] {
    return [...this.consumed];
  }

  private static key(e: CloudEventJson): string {
    return consumedKey(e);
  }

  private find(names: string[]): { index: number; name: string } | undefined {
    if (this.dedupe && this.consumed.length) {
      // Drop redeliveries of consumed events before matching.
      const seen = new Set(this.consumed);
      for (let i = this.events.length - 1; i >= 0; i--) if (seen.has(Mailbox.key(this.events[i]))) this.events.splice(i, 1);
    }
    for (let i = 0; i < this.events.length; i++) {
      for (const name of names) if (eventMatches(this.def(name), this.events[i], this.correlation)) return { index: i, name };
    }
    return undefined;
  }

  /** Told when the run starts and completes correlating events (the host publishes lifecycle events). */
  onCorrelation?: (phase: 'started' | 'completed', keys?: Record<string, Json>) => void;

  /** The run starts waiting for correlated events, or has them (`keys`: the correlation values resolved). */
  correlating(phase: 'started' | 'completed', keys?: Record<string, Json>): void {
    this.onCorrelation?.(phase, keys);
  }

  /**
   * Takes the oldest kept/arriving event that `match` accepts (1.0 `listen` filters, which are
   * not event definitions); `labels` are shown as awaited meanwhile. Resolves undefined when
   * `timeoutMs` passes first. Redeliveries of consumed events are always dropped (1.0 runs have
   * no older histories to replay). It waits through `effects` (a fake drives it in unit tests);
   * `entries` are the SwAwaitedEvents entries of the wait.
   */
  async takeWhere(match: (e: CloudEventJson) => boolean, labels: string[], timeoutMs?: number, summary?: string, entries: string[] = []): Promise<CloudEventJson | undefined> {
    const find = () => {
      if (this.consumed.length) {
        const seen = new Set(this.consumed);
        for (let i = this.events.length - 1; i >= 0; i--) if (seen.has(Mailbox.key(this.events[i]))) this.events.splice(i, 1);
      }
      return this.events.findIndex(match);
    };
    let index = find();
    if (index < 0) {
      for (const n of labels) this.awaited.add(n);
      for (const n of entries) this.awaitedEntries.add(n);
      try {
        const ready = () => (index = find()) >= 0;
        if (timeoutMs !== undefined) {
          if (!(await this.effects.conditionWithin(ready, timeoutMs, summary))) return undefined;
        } else {
          beforeBlocking();
          await this.effects.condition(ready);
        }
      } finally {
        for (const n of labels) this.awaited.delete(n);
        for (const n of entries) this.awaitedEntries.delete(n);
      }
    }
    const [event] = this.events.splice(index, 1);
    this.consumed.push(Mailbox.key(event));
    if (this.consumed.length > Mailbox.CONSUMED_KEPT) this.consumed.splice(0, this.consumed.length - Mailbox.CONSUMED_KEPT);
    return event;
  }

  /**
   * Takes the first kept/arriving event matching one of `names` (the oldest first).
   * Resolves undefined when `timeoutMs` passes first.
   */
  async take(names: string[], timeoutMs?: number, summary?: string): Promise<TakenEvent | undefined> {
    const correlated = this.onCorrelation !== undefined && names.some((n) => this.def(n).correlation?.length);
    if (correlated) this.correlating('started');
    let found = this.find(names);
    if (!found) {
      for (const n of names) this.awaited.add(n);
      try {
        const ready = () => (found = this.find(names)) !== undefined;
        if (timeoutMs !== undefined) {
          const ok = await this.effects.conditionWithin(ready, timeoutMs, summary);
          if (!ok) return undefined;
        } else {
          beforeBlocking(); // a bare condition schedules no command: write the search attributes now
          await this.effects.condition(ready);
        }
      } finally {
        for (const n of names) this.awaited.delete(n);
      }
    }
    const { index, name } = found!;
    const [event] = this.events.splice(index, 1);
    if (this.dedupe) {
      this.consumed.push(Mailbox.key(event));
      if (this.consumed.length > Mailbox.CONSUMED_KEPT) this.consumed.splice(0, this.consumed.length - Mailbox.CONSUMED_KEPT);
    }
    const def = this.def(name);
    for (const c of def.correlation ?? []) {
      if (c.contextAttributeValue === undefined && this.correlation[c.contextAttributeName] === undefined) {
        this.correlation[c.contextAttributeName] = String(event[c.contextAttributeName]);
      }
    }
    if (correlated) this.correlating('completed', { ...this.correlation });
    return { name, def, event };
  }
}
