/**
 * Where payloads too large for Temporal's history go (the claim check, docs/large-data.md).
 * A store keeps bytes by content: the key is the SHA-256 of the bytes, so writing the same
 * payload again (a retried activity, a replayed workflow task) writes nothing new, and a key
 * never changes meaning. The stores: a directory (./file-store.ts), PostgreSQL
 * (./postgres-store.ts), an S3-compatible bucket (./s3-store.ts); ./config.ts picks one from
 * SWFLOW_PAYLOAD_STORE.
 */
import { createHash } from 'node:crypto';
import { errorClass, SwflowError } from '../common/errors';

/** One stored payload, as `list()` reports it. */
export interface StoredPayload {
  key: string;
  /** Bytes. */
  size: number;
  /** When it was last put (gc keeps payloads younger than its grace period). */
  createdAt: Date;
}

export interface PayloadStore {
  /** The driver name written into every reference (`file`, `postgresql`, `s3`): a reference is read back by the store of that kind. */
  readonly kind: 'file' | 'postgresql' | 's3';
  /** Where it is, for messages (never credentials). */
  readonly location: string;
  /**
   * Writes the bytes under their key unless that key is there already; says whether it wrote.
   * A put of a key already there refreshes its `createdAt`: a new reference to old content
   * (a new run with the same input) may reach a history only after `swflow payloads gc` read
   * it, and the gc's grace period must then cover that payload too.
   */
  put(key: string, bytes: Uint8Array): Promise<{ written: boolean }>;
  /** The bytes of a key; a missing key throws {@link PayloadMissing}. */
  get(key: string): Promise<Uint8Array>;
  /** Every stored payload (in no particular order). */
  list(): AsyncIterable<StoredPayload>;
  /**
   * Removes keys (missing ones are ignored); resolves with how many were removed. With
   * `olderThan`, a key put at or after it is kept: gc's sweep racing a put of the same content.
   */
  delete(keys: string[], olderThan?: Date): Promise<number>;
  /** A URI naming the key in this store (the lifecycle event's `outputUri`; `swflow payloads get` reads it). */
  uri(key: string): string;
  close(): Promise<void>;
}

/** A reference whose payload is not in the store (removed, or another store). */
export class PayloadMissing extends SwflowError {
  static {
    errorClass(this, 'PayloadMissing');
  }

  constructor(
    readonly key: string,
    location: string,
  ) {
    super(`payload ${key} is not in the payload store ${location} (removed by \`swflow payloads gc\`, or this process uses another store than the one that wrote it)`);
  }
}

/** A store URL for a message: its `user:password@` as `…@` (SWFLOW_PAYLOAD_STORE may hold a password). */
export const redactUrl = (url: string): string => url.replace(/\/\/[^@/]*@/, '//…@');

const KEY = /^sha256-[0-9a-f]{64}$/;

/** The content key of bytes: `sha256-<hex>`. */
export function contentKey(bytes: Uint8Array): string {
  return `sha256-${createHash('sha256').update(bytes).digest('hex')}`;
}

/** Throws unless `key` is a content key (a store never takes a path or a query from a reference). */
export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`not a payload key: ${JSON.stringify(key).slice(0, 100)} (expected sha256-<64 hex digits>)`);
  return key;
}
