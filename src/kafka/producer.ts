/**
 * An idempotent @platformatic/kafka producer that never has two `send` calls in flight.
 *
 * Why: the client (1.35; platformatic/kafka issue #326) numbers an idempotent producer's records per partition from a counter it
 * advances only when a send is answered, so two concurrent sends to one partition carry the same
 * sequence numbers, and the broker acknowledges the second as a duplicate without writing it: a
 * record is lost with no error (seen with a run's lifecycle events and an `emit` racing). Records
 * given while a send is in flight wait and go out together in the next one (a batch keeps their
 * order), so concurrency costs no extra round trips.
 */
import type { Producer } from '@platformatic/kafka';

export interface OutgoingRecord {
  topic: string;
  key?: Buffer;
  value?: Buffer;
  headers: Map<Buffer, Buffer>;
}

interface Pending {
  record: OutgoingRecord;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** At most this many records per send. */
const MAX_BATCH = 500;

export class SerialProducer {
  private queue: Pending[] = [];
  private flushing = false;
  private producer: Producer | undefined;

  constructor(private readonly create: () => Producer) {}

  /** Resolves once the brokers acknowledged the record (acks as the producer was created with); rejects with the client's error. */
  send(record: OutgoingRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, MAX_BATCH);
        let producer: Producer;
        try {
          producer = this.producer ??= this.create();
        } catch (err) {
          for (const p of batch) p.reject(err);
          continue;
        }
        try {
          await producer.send({ messages: batch.map((p) => p.record) });
          for (const p of batch) p.resolve();
        } catch (err) {
          // A fresh producer for the next records: this one's connections and metadata may be stale.
          this.producer = undefined;
          producer.close(true, () => undefined);
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer && !producer.closed) await producer.close().catch(() => undefined);
  }
}
