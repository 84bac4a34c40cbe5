/**
 * The payload store as a Temporal external-storage driver (`@temporalio/common` ExternalStorage):
 * the SDK replaces each payload over the threshold, after the codec encoded (encrypted) it, by a
 * reference whose claim is `{ key }`, and reads it back before decoding. Content-addressed:
 * the key is the SHA-256 of the encoded payload, and the codec encrypts such payloads with a
 * synthetic nonce (../codec/aes-gcm.ts), so a retried or replayed write is the same key.
 */
import { StorageDriverClaim, type Payload, type StorageDriver, type StorageDriverRetrieveContext, type StorageDriverStoreContext } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { metrics } from '../metrics';
import { contentKey, type PayloadStore } from './store';

const PayloadProto = temporal.api.common.v1.Payload;

export class PayloadStoreDriver implements StorageDriver {
  readonly name: string;
  readonly type: string;

  constructor(readonly payloads: PayloadStore) {
    this.name = payloads.kind;
    this.type = `swflow.${payloads.kind}`;
  }

  async store(_context: StorageDriverStoreContext, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    return Promise.all(
      payloads.map(async (p) => {
        const bytes = PayloadProto.encode(p).finish();
        const key = contentKey(bytes);
        const { written } = await this.payloads.put(key, bytes);
        const m = metrics();
        m?.payloadsStored.inc({ store: this.name, outcome: written ? 'written' : 'present' });
        if (written) m?.payloadBytesStored.inc({ store: this.name }, bytes.length);
        return new StorageDriverClaim({ key });
      }),
    );
  }

  async retrieve(_context: StorageDriverRetrieveContext, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return Promise.all(
      claims.map(async (c) => {
        const key = c.claimData.key;
        if (!key) throw new Error(`a ${this.name} payload reference without a key: ${JSON.stringify(c.claimData)}`);
        const bytes = await this.payloads.get(key);
        metrics()?.payloadBytesRetrieved.inc({ store: this.name }, bytes.length);
        return PayloadProto.decode(bytes) as Payload;
      }),
    );
  }
}
