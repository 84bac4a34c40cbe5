/**
 * Payloads read or written outside the SDK's own client and worker paths: the codec server and
 * the run page read payloads straight from a history (references resolved through the store,
 * then decoded by the codecs), and the lifecycle `completed` event stores a large output itself
 * to carry its `outputUri`. The same steps and order as the SDK: encode → store; retrieve → decode.
 */
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { decodeReferencePayload, isReferencePayload } from '@temporalio/common/lib/internal-non-workflow';
import { PayloadStoreDriver } from './driver';
import { checkKey, type PayloadStore } from './store';

/** A payload as read from a history, after resolving and decoding. */
export interface ReadPayload {
  payload: Payload;
  /** Set when the history held a reference: the stored payload's key. */
  key?: string;
}

export class PayloadValues {
  private readonly driver?: PayloadStoreDriver;

  constructor(
    readonly store: PayloadStore | undefined,
    /** In the data converter's order: encoding applies them first to last, decoding last to first. */
    private readonly codecs: readonly PayloadCodec[] = [],
  ) {
    this.driver = store ? new PayloadStoreDriver(store) : undefined;
  }

  /** Reads payloads from a history: a reference is read back from the store, every payload decoded. */
  async read(payloads: Payload[]): Promise<ReadPayload[]> {
    const refs = payloads.map((p) => (isReferencePayload(p) ? decodeReferencePayload(p) : undefined));
    const resolved = await Promise.all(payloads.map((p, i) => (refs[i] ? this.retrieve(refs[i].driverName, refs[i].claimData.key) : p)));
    const decoded = await this.decode(resolved);
    return decoded.map((payload, i) => ({ payload, key: refs[i]?.claimData.key }));
  }

  /** The decoded payload stored under `key` (checked: a content key, never a path). */
  async get(key: string): Promise<Payload> {
    return (await this.decode([await this.retrieve(this.store?.kind ?? '?', checkKey(key))]))[0];
  }

  /**
   * Stores a value as the SDK would (the default payload converter, then the codecs, then the
   * store: encrypted when keys are set, and the same key for the same value); returns its key.
   */
  async put(value: unknown): Promise<string> {
    if (!this.driver) throw new Error('no payload store is configured (SWFLOW_PAYLOAD_STORE)');
    let payloads = [defaultPayloadConverter.toPayload(value)];
    for (const c of this.codecs) payloads = await c.encode(payloads);
    const [claim] = await this.driver.store({}, payloads);
    return claim.claimData.key;
  }

  private async retrieve(driverName: string, key: string | undefined): Promise<Payload> {
    if (!this.driver || !this.store) throw new Error(`the payload is in a ${driverName} payload store and this process has none (set SWFLOW_PAYLOAD_STORE to the store the workers use)`);
    if (driverName !== this.store.kind) throw new Error(`the payload is in a ${driverName} payload store; this process uses ${this.store.location}`);
    if (!key) throw new Error(`a ${driverName} payload reference without a key`);
    const [p] = await this.driver.retrieve({}, [{ claimData: { key: checkKey(key) } }]);
    return p;
  }

  private async decode(payloads: Payload[]): Promise<Payload[]> {
    let out = payloads;
    for (const c of [...this.codecs].reverse()) out = await c.decode(out);
    return out;
  }
}

const decoder = new TextDecoder();

/** The JSON text of a decoded payload (json/plain as is; other encodings through the default converter). */
export function jsonText(p: Payload): string {
  const enc = p.metadata?.encoding ? decoder.decode(p.metadata.encoding) : '';
  if (enc === 'json/plain') return decoder.decode(p.data ?? new Uint8Array());
  return JSON.stringify(defaultPayloadConverter.fromPayload(p) ?? null);
}
