/**
 * The payload store of a process, from its environment (the same in every swflow client, worker
 * and gateway of a deployment):
 *
 *   SWFLOW_PAYLOAD_STORE      where payloads over the threshold go:
 *                               file:///dir (or a path)               a directory (one machine)
 *                               postgresql://user:pass@host:5432/db   a table (`?table=`, default swflow_payloads)
 *                               s3://bucket/prefix?endpoint=…&region=…  an S3-compatible bucket (AWS credentials from the environment)
 *                               none                                  no store (the default, except `swflow start`'s <data>/payloads)
 *   SWFLOW_PAYLOAD_THRESHOLD  size from which a payload is stored (bytes, or 256KiB / 1MiB / 1MB); default 256 KiB
 *   SWFLOW_PAYLOAD_LIMIT      without a store, the largest value swflow hands to Temporal before
 *                             failing the run with its own message; default 2 MiB (the server's
 *                             limit.blobSize.error)
 */
import { fileURLToPath } from 'node:url';
import { ExternalStorage } from '@temporalio/common';
import { FilePayloadStore } from './file-store';
import { PayloadStoreDriver } from './driver';
import { redactUrl, type PayloadStore } from './store';

export const DEFAULT_THRESHOLD = 256 * 1024;
export const DEFAULT_LIMIT = 2 * 1024 * 1024;

/** `12345`, `256KiB`, `1MiB`, `2MB`, `512kb` → bytes; `what` names the setting in errors. */
export function parseSize(text: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib)?\s*$/i.exec(text);
  if (!m) throw new Error(`${what}: ${JSON.stringify(text)} is not a size (e.g. 262144, 256KiB, 1MiB)`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const factor = { b: 1, kb: 1e3, kib: 1024, mb: 1e6, mib: 1024 ** 2, gb: 1e9, gib: 1024 ** 3 }[unit]!;
  return Math.floor(Number(m[1]) * factor);
}

/** A store from its URL (see the module comment); `undefined` for `none` or ''. */
export function storeFromUrl(url: string, what = 'SWFLOW_PAYLOAD_STORE'): PayloadStore | undefined {
  const text = url.trim();
  if (!text || text === 'none') return undefined;
  if (text.startsWith('file:')) return new FilePayloadStore(fileURLToPath(text));
  if (/^postgres(ql)?:\/\//.test(text)) return postgresStore(text);
  if (text.startsWith('s3://')) return s3Store(text);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw new Error(`${what}: ${redactUrl(text)} is not a payload store (file:///dir, postgresql://…, s3://bucket/prefix, or none)`);
  return new FilePayloadStore(text);
}

// Loaded on first use: a process with a file store (or none) never loads pg or the AWS SDK.
function postgresStore(url: string): PayloadStore {
  return new (require('./postgres-store') as typeof import('./postgres-store')).PostgresPayloadStore(url);
}
function s3Store(url: string): PayloadStore {
  return new (require('./s3-store') as typeof import('./s3-store')).S3PayloadStore(url);
}

export interface PayloadSettings {
  store?: PayloadStore;
  /** Payloads of at least this many bytes (encoded) are stored. */
  threshold: number;
  /** Without a store: the largest value handed to Temporal. */
  limit: number;
}

const cache = new Map<string, PayloadSettings>();

/** This process's payload settings (one store per distinct setting, shared by every client and worker of the process). */
export function payloadSettings(env: NodeJS.ProcessEnv = process.env): PayloadSettings {
  const id = `${env.SWFLOW_PAYLOAD_STORE ?? ''}\n${env.SWFLOW_PAYLOAD_THRESHOLD ?? ''}\n${env.SWFLOW_PAYLOAD_LIMIT ?? ''}`;
  let s = cache.get(id);
  if (!s) {
    const threshold = env.SWFLOW_PAYLOAD_THRESHOLD ? parseSize(env.SWFLOW_PAYLOAD_THRESHOLD, 'SWFLOW_PAYLOAD_THRESHOLD') : DEFAULT_THRESHOLD;
    const limit = env.SWFLOW_PAYLOAD_LIMIT ? parseSize(env.SWFLOW_PAYLOAD_LIMIT, 'SWFLOW_PAYLOAD_LIMIT') : DEFAULT_LIMIT;
    s = { store: storeFromUrl(env.SWFLOW_PAYLOAD_STORE ?? ''), threshold, limit };
    cache.set(id, s);
  }
  return s;
}

/** The SDK's external storage over this process's store; undefined without one. */
export function externalStorage(settings: PayloadSettings = payloadSettings()): ExternalStorage | undefined {
  if (!settings.store) return undefined;
  return new ExternalStorage({ drivers: [new PayloadStoreDriver(settings.store)], payloadSizeThreshold: settings.threshold });
}
