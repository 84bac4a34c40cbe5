/**
 * AES-256-GCM payload codec: each payload (its whole protobuf encoding, metadata included) becomes
 * one `binary/encrypted` payload whose data is nonce (12 bytes) || ciphertext || tag (16 bytes) and
 * whose metadata names the key (`encryption-key-id`). The key id is the additional authenticated
 * data, so a payload relabelled with another key id fails like any tampered one.
 *
 * Payloads the payload store will take (`syntheticNonceFrom` bytes and more) get a synthetic nonce,
 * HMAC-SHA256(key, plaintext) cut to 12 bytes (the SIV construction): the same plaintext encrypts
 * to the same bytes, so the content-addressed store writes a retried or replayed payload once. A
 * nonce repeats only with its plaintext, which reveals that two such payloads are equal and
 * nothing more. Decryption does not care how the nonce was chosen.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { CodecKeyring } from './keys';

export const ENCODING_ENCRYPTED = 'binary/encrypted';
export const METADATA_KEY_ID = 'encryption-key-id';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : '');

export interface AesGcmOptions {
  /** Plaintexts of at least this many bytes get a synthetic nonce (see above); default: none do. */
  syntheticNonceFrom?: number;
}

export class AesGcmCodec implements PayloadCodec {
  constructor(
    private readonly keys: CodecKeyring,
    private readonly options: AesGcmOptions = {},
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encrypt(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => (text(p.metadata?.encoding) === ENCODING_ENCRYPTED ? this.decrypt(p) : p));
  }

  private encrypt(payload: Payload): Payload {
    const { id, key } = this.keys.current;
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const synthetic = this.options.syntheticNonceFrom !== undefined && plain.length >= this.options.syntheticNonceFrom;
    const nonce = synthetic ? createHmac('sha256', key).update(plain).digest().subarray(0, NONCE_BYTES) : randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(id, 'utf8'));
    const data = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { encoding: utf8(ENCODING_ENCRYPTED), [METADATA_KEY_ID]: utf8(id) }, data: new Uint8Array(data) };
  }

  private decrypt(payload: Payload): Payload {
    const id = text(payload.metadata?.[METADATA_KEY_ID]);
    if (!id) throw new Error(`an encrypted payload has no ${METADATA_KEY_ID} metadata`);
    const known = this.keys.byId.get(id);
    if (!known) throw new Error(`payload encrypted with key id ${JSON.stringify(id)}, which this process does not know (known: ${[...this.keys.byId.keys()].join(', ')}); add it to SWFLOW_CODEC_KEYS or SWFLOW_CODEC_KEY_FILE`);
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < NONCE_BYTES + TAG_BYTES) throw new Error(`an encrypted payload (key id ${id}) is too short (${data.length} bytes)`);
    const decipher = createDecipheriv('aes-256-gcm', known.key, data.subarray(0, NONCE_BYTES));
    decipher.setAAD(Buffer.from(id, 'utf8'));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new Error(`an encrypted payload (key id ${id}) failed authentication: it was altered or encrypted with another key of that id`);
    }
    return temporal.api.common.v1.Payload.decode(plain) as Payload;
  }
}
