/**
 * Encrypted payloads: the data converter every swflow client and worker uses. With keys configured
 * (see ./keys) inputs, results, call arguments, signals, queries, memos and failures' details
 * reach the server as AES-256-GCM ciphertext; search attributes stay readable (docs/encryption.md).
 * Without keys nothing changes. The codec runs in the worker's main thread, outside the sandbox.
 */
import type { DataConverter } from '@temporalio/common';
import { AesGcmCodec } from './aes-gcm';
import { keyringFromEnv, type CodecKeyring } from './keys';
import { externalStorage, payloadSettings } from '../payloads/config';

export { AesGcmCodec, ENCODING_ENCRYPTED, METADATA_KEY_ID } from './aes-gcm';
export { keyring, keyringFromEnv, parseKey, parseKeyList, type CodecKey, type CodecKeyring } from './keys';

/** The codec of a keyring, or of the environment's keys; undefined when none is configured. */
export function payloadCodec(keys: CodecKeyring | undefined = keyringFromEnv()): AesGcmCodec | undefined {
  return keys ? new AesGcmCodec(keys) : undefined;
}

/**
 * `{ dataConverter }` to spread into Client / Worker options: the encrypting codec when keys are
 * configured, the payload store (../payloads) when one is, else nothing (the SDK's default).
 * The SDK stores a payload over the threshold after the codec encrypted it.
 */
export function dataConverterOptions(env: NodeJS.ProcessEnv = process.env): { dataConverter?: DataConverter } {
  // Not payloadCodec(keyringFromEnv(env)): an env without keys would fall back to process.env's.
  const keys = keyringFromEnv(env);
  const payloads = payloadSettings(env);
  // Payloads that will be stored are encrypted deterministically (content addressing); the
  // margin covers the encrypted payload's envelope (nonce, tag, metadata).
  const codec = keys ? new AesGcmCodec(keys, payloads.store ? { syntheticNonceFrom: Math.max(0, payloads.threshold - 256) } : {}) : undefined;
  const storage = externalStorage(payloads);
  if (!codec && !storage) return {};
  return { dataConverter: { ...(codec ? { payloadCodecs: [codec] } : {}), ...(storage ? { externalStorage: storage } : {}) } };
}

/** The encrypting data converter when keys are configured, else undefined. */
export function dataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  return dataConverterOptions(env).dataConverter;
}
