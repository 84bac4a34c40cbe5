/**
 * Admission control at the gateway's HTTP intake. Without it a burst beyond what Temporal takes
 * (the dev server: ~124 wake-ups/s on 2 cores) piled up inside Temporal's client and server, each
 * event's deadline ran out while it waited, it was answered 503 after 5 s, and its resends added
 * to the pile (bench/README.md, "events into 1,000 waiting runs": 10,608 resends in one run).
 *
 * Now at most `maxInFlight` requests deliver to Temporal at once and at most `maxQueued` more wait
 * for their turn in arrival order; a request beyond both is refused at once with 503 and a
 * `Retry-After`, before any Temporal call: nothing was accepted, so nothing is lost and the
 * sender knows to send it again. A request's Temporal deadline starts at its turn (dispatch.ts
 * starts it when delivery begins), so time spent queued here never turns into a 503 after the fact.
 */
import type { Counter, Gauge, Registry } from 'prom-client';

/**
 * Deliveries in flight by default. The dev server saturates at ~10 in flight (~124/s × 30–80 ms
 * each); more at once lets concurrent 1.0 wake-ups share one visibility lookup (up to 100
 * entries, dispatch.ts) and leaves room for a cluster that takes more, while what waits inside
 * Temporal's client and server (where no deadline can tell queueing from an outage) stays bounded.
 */
export const DEFAULT_MAX_IN_FLIGHT = 64;
/**
 * Requests waiting for a turn by default: about 2–4 s of work at the dev server's pace, so a
 * queued event still gets its answer well within a sender's usual 10–30 s timeout.
 */
export const DEFAULT_MAX_QUEUED = 512;
/**
 * Longest expected wait for a turn by default: a request that would wait longer (the requests
 * ahead at the measured pace of a turn) is refused at once instead, so a queued event is answered
 * within a sender's usual 10–30 s timeout even when Temporal slows down (the count alone let
 * requests wait 19 s at a loaded dev server's 27 events/s).
 */
export const DEFAULT_MAX_QUEUE_WAIT_MS = 10_000;

export interface AdmissionOptions {
  /** Requests delivering to Temporal at once. Default $SWFLOW_GATEWAY_MAX_IN_FLIGHT or 64. */
  maxInFlight?: number;
  /** Requests waiting for a turn; 0 refuses at once when all turns are taken. Default $SWFLOW_GATEWAY_MAX_QUEUED or 512. */
  maxQueued?: number;
  /** Longest expected wait for a turn (ms); 0: no bound but the count. Default $SWFLOW_GATEWAY_MAX_QUEUE_WAIT_MS or 10,000. */
  maxQueueWaitMs?: number;
}

/** The bounds from the options, else the environment, else the defaults; a bad value says where it came from. */
export function admissionBounds(opts: AdmissionOptions = {}): { maxInFlight: number; maxQueued: number; maxQueueWaitMs: number } {
  const pick = (value: number | undefined, variable: string, fallback: number, min: number): number => {
    const flag = `--${variable.replace('SWFLOW_GATEWAY_', '').replace(/_MS$/, '').toLowerCase().replace(/_/g, '-')}`;
    const [raw, where] = value !== undefined ? [String(value), 'the gateway option'] : [process.env[variable], variable];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`${where === variable ? variable : `${flag} (${where})`} must be a whole number ≥ ${min}, not ${JSON.stringify(raw)}`);
    return n;
  };
  return {
    maxInFlight: pick(opts.maxInFlight, 'SWFLOW_GATEWAY_MAX_IN_FLIGHT', DEFAULT_MAX_IN_FLIGHT, 1),
    maxQueued: pick(opts.maxQueued, 'SWFLOW_GATEWAY_MAX_QUEUED', DEFAULT_MAX_QUEUED, 0),
    maxQueueWaitMs: pick(opts.maxQueueWaitMs, 'SWFLOW_GATEWAY_MAX_QUEUE_WAIT_MS', DEFAULT_MAX_QUEUE_WAIT_MS, 0),
  };
}

/** Says a turn is over. */
export type Release = () => void;

export class Admission {
  readonly maxInFlight: number;
  readonly maxQueued: number;
  readonly maxQueueWaitMs: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  /** Requests refused because every turn and queue place was taken. */
  refused = 0;
  /** Mean time of a turn (ms, exponentially weighted), for Retry-After. */
  private turnMs = 50;

  constructor(opts: AdmissionOptions = {}) {
    ({ maxInFlight: this.maxInFlight, maxQueued: this.maxQueued, maxQueueWaitMs: this.maxQueueWaitMs } = admissionBounds(opts));
    admissions.add(this);
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * A turn: a promise of it (at once when one is free, else when the requests queued before have
   * had theirs), or undefined when the queue is full too (refuse the request: see retryAfterSeconds).
   */
  enter(): Promise<Release> | undefined {
    if (this.active < this.maxInFlight) return Promise.resolve(this.begin());
    if (this.waiting.length >= this.maxQueued || (this.maxQueueWaitMs > 0 && this.expectedWaitMs() > this.maxQueueWaitMs)) {
      this.refused++;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(() => resolve(this.begin())));
  }

  /** How long a request queued now would wait for its turn: the turns ahead of it at the measured pace. */
  expectedWaitMs(): number {
    return Math.ceil((this.waiting.length + 1) / this.maxInFlight) * this.turnMs;
  }

  /**
   * Seconds a refused sender should wait: the time the requests ahead take at the measured pace
   * of a turn, at least 1, at most 60.
   */
  retryAfterSeconds(): number {
    const ahead = this.active + this.waiting.length;
    return Math.min(60, Math.max(1, Math.ceil((ahead * this.turnMs) / this.maxInFlight / 1000)));
  }

  /** Stops counting this admission in the metrics (the gateway closed). */
  close(): void {
    if (admissions.delete(this)) refusedBefore += this.refused;
  }

  private begin(): Release {
    this.active++;
    const started = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.turnMs = 0.9 * this.turnMs + 0.1 * (performance.now() - started);
      this.active--;
      // The next in line takes the turn just freed.
      this.waiting.shift()?.();
    };
  }
}

/** The admissions of this process (one per HTTP gateway), summed by the metrics. */
const admissions = new Set<Admission>();
/** Refusals of admissions already closed, so the counter never goes down. */
let refusedBefore = 0;

/** Prometheus: requests delivering and waiting now, and refusals (computed at each scrape). */
export function registerAdmissionMetrics(registry: Registry, GaugeClass: typeof Gauge, CounterClass: typeof Counter): void {
  const sum = (f: (a: Admission) => number) => [...admissions].reduce((n, a) => n + f(a), 0);
  new GaugeClass({
    name: 'swflow_gateway_requests_in_flight',
    help: 'HTTP event requests the gateway is delivering to Temporal now (at most --max-in-flight)',
    registers: [registry],
    collect() {
      this.set(sum((a) => a.inFlight));
    },
  });
  new GaugeClass({
    name: 'swflow_gateway_requests_queued',
    help: 'HTTP event requests waiting for a delivery turn now (at most --max-queued)',
    registers: [registry],
    collect() {
      this.set(sum((a) => a.queued));
    },
  });
  new CounterClass({
    name: 'swflow_gateway_requests_refused_busy_total',
    help: 'HTTP event requests answered 503 with Retry-After at once because every delivery turn and queue place was taken (nothing was delivered)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(refusedBefore + sum((a) => a.refused));
    },
  });
}
