/**
 * Payloads in an S3-compatible bucket (AWS S3, SeaweedFS, MinIO, Ceph…): object storage that every
 * swflow process of a deployment reaches, for payloads too many or too large for a database.
 * One object per content key, `<prefix>/<key>`. URL (SWFLOW_PAYLOAD_STORE):
 *
 *   s3://bucket/prefix?endpoint=http://127.0.0.1:8333&region=us-east-1&forcePathStyle=true
 *
 * endpoint, region and forcePathStyle are optional (AWS's defaults otherwise: AWS_REGION, the
 * bucket's virtual host). Credentials come from the AWS SDK's default chain
 * (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, a role…), never from the URL.
 */
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type DeleteObjectsCommandOutput,
  type ListObjectsV2CommandOutput,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { checkKey, PayloadMissing, redactUrl, type PayloadStore, type StoredPayload } from './store';

/** DeleteObjects takes at most 1000 keys a request. */
const DELETE_BATCH = 1000;
/** HeadObject requests in flight at once while deleting (below the SDK's 50 sockets). */
const HEAD_CONCURRENCY = 32;

export class S3PayloadStore implements PayloadStore {
  readonly kind = 's3' as const;
  readonly location: string;
  private readonly bucket: string;
  /** '' or `prefix/`. */
  private readonly prefix: string;
  private readonly client: S3Client;

  constructor(url: string) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new Error(`SWFLOW_PAYLOAD_STORE: ${JSON.stringify(url.slice(0, 200))} is not a URL (s3://bucket/prefix?endpoint=…&region=…)`);
    }
    if (u.protocol !== 's3:' || !u.hostname) throw new Error(`SWFLOW_PAYLOAD_STORE: ${u.protocol}//${u.host}${u.pathname} is not an s3://bucket/prefix URL`);
    if (u.username || u.password) throw new Error(`SWFLOW_PAYLOAD_STORE: s3://…@${u.host}${u.pathname}: credentials do not go in the URL (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, or another source of the AWS SDK's default chain)`);
    this.bucket = u.hostname;
    const prefix = decodeURIComponent(u.pathname).replace(/^\/+|\/+$/g, '');
    this.prefix = prefix ? `${prefix}/` : '';
    const known = new Set(['endpoint', 'region', 'forcePathStyle']);
    for (const name of u.searchParams.keys()) {
      if (!known.has(name)) throw new Error(`SWFLOW_PAYLOAD_STORE: s3://${this.bucket}/${prefix}: unknown parameter ${JSON.stringify(name)} (endpoint, region, forcePathStyle)`);
    }
    const endpoint = u.searchParams.get('endpoint') ?? undefined;
    const pathStyle = u.searchParams.get('forcePathStyle');
    if (pathStyle !== null && !/^(true|false)$/.test(pathStyle)) throw new Error(`SWFLOW_PAYLOAD_STORE: s3://${this.bucket}/${prefix}: forcePathStyle=${JSON.stringify(pathStyle)} is not true or false`);
    if (endpoint) {
      try {
        const e = new URL(endpoint);
        if (e.username || e.password) throw new Error('credentials');
      } catch {
        throw new Error(`SWFLOW_PAYLOAD_STORE: s3://${this.bucket}/${prefix}: endpoint ${JSON.stringify(redactUrl(endpoint))} is not an http(s):// URL without credentials`);
      }
    }
    const region = u.searchParams.get('region') ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? (endpoint ? 'us-east-1' : undefined);
    this.location = `s3://${this.bucket}/${prefix}${endpoint ? ` (endpoint ${endpoint})` : ''}`;
    const config: S3ClientConfig = {
      ...(region ? { region } : {}),
      ...(endpoint ? { endpoint } : {}),
      ...(pathStyle !== null ? { forcePathStyle: pathStyle === 'true' } : {}),
      // Bounded waits: a server that stops answering fails the call (the SDK retries it) instead of hanging a workflow task.
      requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
      // Only the checksums S3 requires: S3-compatible servers differ in the optional ones they accept.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    this.client = new S3Client(config);
  }

  private objectKey(key: string): string {
    return `${this.prefix}${checkKey(key)}`;
  }

  /**
   * HeadObject first (the common case, a payload written before, costs no upload), then a
   * conditional PutObject (`If-None-Match: *`): a server that honours it lets exactly one of two
   * racing writers write; one that ignores it takes both, and both wrote the same bytes.
   */
  async put(key: string, bytes: Uint8Array): Promise<{ written: boolean }> {
    const Key = this.objectKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      // Already there: made young again (PayloadStore.put) by a copy onto itself, server-side, which renews LastModified.
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key, CopySource: `${this.bucket}/${encodeURIComponent(Key).replace(/%2F/g, '/')}`, MetadataDirective: 'REPLACE', Metadata: { 'swflow-put': new Date().toISOString() }, ContentType: 'application/octet-stream' }));
      return { written: false };
    } catch (err) {
      if (!notFound(err)) throw this.error(`write ${key}`, err);
    }
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body: bytes, ContentLength: bytes.byteLength, ContentType: 'application/octet-stream', IfNoneMatch: '*' }));
      return { written: true };
    } catch (err) {
      // 412: the object is there (written since the HeadObject); 409: a concurrent conditional write of it is under way.
      const status = httpStatus(err);
      if (status === 412 || status === 409) return { written: false };
      throw this.error(`write ${key}`, err);
    }
  }

  async get(key: string): Promise<Uint8Array> {
    const Key = this.objectKey(key);
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      return await res.Body!.transformToByteArray();
    } catch (err) {
      if (notFound(err)) throw new PayloadMissing(key, this.location);
      throw this.error(`read ${key}`, err);
    }
  }

  async *list(): AsyncIterable<StoredPayload> {
    let token: string | undefined;
    do {
      let res: ListObjectsV2CommandOutput;
      try {
        res = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, ContinuationToken: token }));
      } catch (err) {
        throw this.error('list', err);
      }
      for (const o of res.Contents ?? []) {
        const key = o.Key!.slice(this.prefix.length);
        // Only this store's objects: a prefix shared with other files, or a deeper "folder", is not ours.
        if (key.includes('/')) continue;
        yield { key, size: o.Size ?? 0, createdAt: o.LastModified ?? new Date(0) };
      }
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(keys: string[], olderThan?: Date): Promise<number> {
    let n = 0;
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH).map((k) => this.objectKey(k));
      // DeleteObjects reports a missing key as deleted: count only the keys that were there.
      const present: string[] = [];
      for (let j = 0; j < batch.length; j += HEAD_CONCURRENCY) {
        // With olderThan, one put since (its LastModified renewed) is kept; a put between this check and the delete is not seen (best effort: the gc's grace period is the margin).
        const found = await Promise.all(batch.slice(j, j + HEAD_CONCURRENCY).map((Key) => this.exists(Key, olderThan)));
        present.push(...found.filter((x): x is string => x !== undefined));
      }
      if (!present.length) continue;
      let res: DeleteObjectsCommandOutput;
      try {
        res = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: present.map((Key) => ({ Key })), Quiet: true } }));
      } catch (err) {
        throw this.error(`delete ${present.length} payloads`, err);
      }
      if (res.Errors?.length) {
        const e = res.Errors[0];
        throw new Error(`payload store ${this.location}: delete failed for ${res.Errors.length} of ${present.length} payloads, e.g. ${e.Key}: ${e.Code} ${e.Message ?? ''}`.trim());
      }
      n += present.length;
    }
    return n;
  }

  /** `s3://bucket/prefix/<key>`. */
  uri(key: string): string {
    return `s3://${this.bucket}/${this.objectKey(key)}`;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private async exists(Key: string, olderThan?: Date): Promise<string | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      if (olderThan && head.LastModified && head.LastModified >= olderThan) return undefined;
      return Key;
    } catch (err) {
      if (notFound(err)) return undefined;
      throw this.error(`delete ${Key}`, err);
    }
  }

  // The SDK's messages name no credentials; the store's location says which store failed.
  private error(what: string, err: unknown): Error {
    const e = err as Error & { Code?: string };
    const status = httpStatus(err);
    let code = e.name && e.name !== 'Error' ? e.name : e.Code;
    let message = e.message || 'no message';
    // A HEAD answer has no body: the SDK knows only the status; say what it means.
    if (!code || code === 'Unknown' || message === 'UnknownError') {
      code = undefined;
      message = status === 403 ? 'forbidden: wrong or missing AWS credentials, or a policy that does not allow it' : status === 301 ? 'the bucket is in another region (set ?region=)' : message;
    }
    return new Error(`payload store ${this.location}: ${what} failed: ${code ? `${code}: ` : ''}${message}${status ? ` (HTTP ${status})` : ''}`, { cause: err });
  }
}

function httpStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function notFound(err: unknown): boolean {
  const name = (err as Error).name;
  // A missing bucket is a wrong setting, not a missing payload.
  return name !== 'NoSuchBucket' && (name === 'NoSuchKey' || name === 'NotFound' || httpStatus(err) === 404);
}
