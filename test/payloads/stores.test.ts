/**
 * One conformance suite for every payload store (src/payloads): the same cases against the
 * directory store, PostgreSQL (a real Debian server, test/helpers/postgres.ts) and an
 * S3-compatible bucket (a real SeaweedFS, test/helpers/s3-server.ts). Then, per store, the claim
 * check end to end on a real Temporal dev server: a Client with swflow's data converter starts a
 * run with a 3 MiB input; the raw history holds a small reference of that store's driver, the
 * store holds the (encrypted) payload, and the SDK's retrieval path gives the input back.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { decodeArrayFromPayloads, decodeReferencePayload, ExternalStorageRunner, isReferencePayload, loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { dataConverterOptions } from '../../src/codec';
import { PayloadStoreDriver } from '../../src/payloads/driver';
import { FilePayloadStore } from '../../src/payloads/file-store';
import { storeFromUrl } from '../../src/payloads/config';
import { contentKey, PayloadMissing, type PayloadStore } from '../../src/payloads/store';
import { freePort } from '../helpers/ports';
import { startPostgres, type TestPostgres } from '../helpers/postgres';
import { startS3Server, type TestS3Server } from '../helpers/s3-server';
import { startDevEnv } from '../helpers/temporal';

const MiB = 1024 * 1024;
const BUCKET = 'swflow-payloads';

let dir = '';
let pg: TestPostgres | undefined;
let s3: TestS3Server | undefined;
const opened: PayloadStore[] = [];

/** Each store kind, by the URL a deployment would set in SWFLOW_PAYLOAD_STORE. */
const kinds = {
  file: (name = 'conformance') => `file://${join(dir, name)}`,
  postgresql: (name = 'conformance') => `${pg!.url('postgres')}?table=${name}_payloads`,
  s3: (name = 'conformance') => s3!.url(BUCKET, name),
} as const;
type Kind = keyof typeof kinds;

function open(kind: Kind, url = kinds[kind]()): PayloadStore {
  const store = storeFromUrl(url)!;
  opened.push(store);
  return store;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swflow-stores-'));
  const t0 = Date.now();
  pg = await startPostgres();
  const t1 = Date.now();
  s3 = await startS3Server({ log: (m) => console.log(m) });
  await s3.createBucket(BUCKET);
  // The S3 store reads credentials through the AWS SDK's default chain, as in a deployment.
  Object.assign(process.env, s3.env);
  console.log(`servers: PostgreSQL on ${pg.port} in ${t1 - t0} ms, moto S3 on ${s3.endpoint} in ${Date.now() - t1} ms`);
});

after(async () => {
  await Promise.all(opened.map((s) => s.close().catch(() => {})));
  await pg?.close();
  await s3?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const bytesOf = (n: number) => randomBytes(n);

for (const kind of Object.keys(kinds) as Kind[]) {
  describe(`${kind} store`, () => {
    test('put/get round trip of 1 byte, 3 MiB and 20 MiB', async () => {
      const store = open(kind);
      for (const size of [1, 3 * MiB, 20 * MiB]) {
        const bytes = bytesOf(size);
        const key = contentKey(bytes);
        const t0 = Date.now();
        assert.deepEqual(await store.put(key, bytes), { written: true });
        const t1 = Date.now();
        const back = await store.get(key);
        const t2 = Date.now();
        assert.equal(back.length, size);
        assert.ok(Buffer.from(back).equals(bytes), `${kind}: ${size} bytes came back different`);
        console.log(`${kind}: round trip of ${size} bytes: put ${t1 - t0} ms, get ${t2 - t1} ms`);
      }
    });

    test('put twice: the second writes nothing', async () => {
      const store = open(kind);
      const bytes = bytesOf(1000);
      const key = contentKey(bytes);
      assert.deepEqual(await store.put(key, bytes), { written: true });
      assert.deepEqual(await store.put(key, bytes), { written: false });
      console.log(`${kind}: second put of one key wrote nothing`);
    });

    test('a put of a key already there makes it young again; delete(keys, olderThan) keeps a key put since', async () => {
      const store = open(kind);
      const bytes = bytesOf(500);
      const key = contentKey(bytes);
      await store.put(key, bytes);
      const createdAt = async () => {
        for await (const p of store.list()) if (p.key === key) return p.createdAt.getTime();
        return assert.fail(`${kind}: ${key} not listed`);
      };
      const first = await createdAt();
      // S3's LastModified has whole seconds.
      await new Promise((r) => setTimeout(r, 1_100));
      const cutoff = new Date();
      await new Promise((r) => setTimeout(r, 1_100));
      assert.deepEqual(await store.put(key, bytes), { written: false });
      const second = await createdAt();
      assert.ok(second > first, `${kind}: createdAt ${second} after the second put is not later than ${first}`);
      assert.equal(await store.delete([key], cutoff), 0, `${kind}: a key put after the cutoff was removed`);
      assert.ok(Buffer.from(await store.get(key)).equals(bytes));
      assert.equal(await store.delete([key], new Date(Date.now() + 1_000)), 1);
      await assert.rejects(store.get(key), PayloadMissing);
      console.log(`${kind}: a second put renewed createdAt (+${second - first} ms); delete with olderThan kept it, without removed it`);
    });

    test('concurrent puts of one key: one object, the same bytes', async () => {
      const store = open(kind);
      const bytes = bytesOf(2 * MiB);
      const key = contentKey(bytes);
      const results = await Promise.all(Array.from({ length: 8 }, () => store.put(key, bytes)));
      const written = results.filter((r) => r.written).length;
      assert.ok(written >= 1, 'no put said it wrote');
      // PostgreSQL's INSERT … ON CONFLICT, and an S3 server honouring If-None-Match: * (moto does),
      // let exactly one writer write; the directory store's racing renames each write the same bytes.
      if (kind !== 'file') assert.equal(written, 1);
      assert.ok(Buffer.from(await store.get(key)).equals(bytes));
      const listed = [];
      for await (const p of store.list()) if (p.key.startsWith(key)) listed.push(p);
      assert.deepEqual(listed.map((p) => [p.key, p.size]), [[key, bytes.length]]);
      console.log(`${kind}: 8 concurrent puts of one 2 MiB key: ${written} wrote, 1 object listed`);
    });

    test('a missing key throws PayloadMissing naming the key and the store', async () => {
      const store = open(kind);
      const key = contentKey(bytesOf(16));
      const err = await store.get(key).then(
        () => assert.fail('got a payload never written'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof PayloadMissing, `${kind}: ${String(err)}`);
      assert.equal(err.key, key);
      assert.match(err.message, new RegExp(`${key}.*${escapeRegExp(store.location)}`));
      console.log(`${kind}: missing key → ${err.message.slice(0, 120)}…`);
    });

    test('list sees every payload with its size (1,200 payloads: past one page); delete removes only the keys given', async () => {
      const store = open(kind, kinds[kind]('listing'));
      // Distinct by construction (a 1-byte random payload would repeat): the index, then random bytes.
      const payloads = Array.from({ length: 1200 }, (_, i) => Buffer.concat([Buffer.from(`${i}:`), bytesOf((i % 50) * 7)]));
      const keys = payloads.map(contentKey);
      const t0 = Date.now();
      for (let i = 0; i < payloads.length; i += 16) await Promise.all(payloads.slice(i, i + 16).map((b, j) => store.put(keys[i + j], b)));
      const t1 = Date.now();
      const listed = new Map<string, number>();
      for await (const p of store.list()) {
        assert.ok(!listed.has(p.key), `${kind}: ${p.key} listed twice`);
        assert.ok(p.createdAt instanceof Date && Math.abs(p.createdAt.getTime() - Date.now()) < 10 * 60_000, `${kind}: createdAt ${String(p.createdAt)}`);
        listed.set(p.key, p.size);
      }
      const t2 = Date.now();
      assert.equal(listed.size, payloads.length);
      payloads.forEach((b, i) => assert.equal(listed.get(keys[i]), b.length, `${kind}: size of ${keys[i]}`));

      // Delete 1,100 of them (more than one DeleteObjects / DELETE batch) plus a key never written.
      const gone = keys.slice(0, 1100);
      const never = contentKey(bytesOf(8));
      assert.equal(await store.delete([...gone, never]), gone.length);
      const t3 = Date.now();
      assert.equal(await store.delete(gone.slice(0, 10)), 0);
      const left = [];
      for await (const p of store.list()) left.push(p.key);
      assert.deepEqual(left.sort(), keys.slice(1100).sort());
      await assert.rejects(store.get(gone[0]), PayloadMissing);
      assert.ok(Buffer.from(await store.get(keys[1100])).equals(payloads[1100]));
      console.log(`${kind}: 1200 puts ${t1 - t0} ms, list ${t2 - t1} ms, delete 1100 ${t3 - t2} ms; 100 left`);
    });

    test('a path-like or malformed key is refused before any I/O', async () => {
      const store = open(kind);
      for (const bad of ['../../etc/passwd', 'sha256-../x', `sha256-${'a'.repeat(63)}/`, `sha256-${'A'.repeat(64)}`, '']) {
        await assert.rejects(store.put(bad, new Uint8Array([1])), /not a payload key/);
        await assert.rejects(store.get(bad), /not a payload key/);
        await assert.rejects(store.delete([bad]), /not a payload key/);
        assert.throws(() => store.uri(bad), /not a payload key/);
      }
      console.log(`${kind}: 5 malformed keys refused by put, get, delete and uri`);
    });

    test('uri() names the key in this store, without credentials', async () => {
      const store = open(kind);
      const bytes = bytesOf(100);
      const key = contentKey(bytes);
      await store.put(key, bytes);
      const uri = store.uri(key);
      if (kind === 'file') assert.ok(existsSync(fileURLToPath(uri)) && uri.endsWith(`/${key}`), uri);
      if (kind === 'postgresql') assert.equal(uri, `postgresql://${pg!.user}@127.0.0.1:${pg!.port}/postgres?table=conformance_payloads#${key}`);
      if (kind === 's3') assert.equal(uri, `s3://${BUCKET}/conformance/${key}`);
      for (const secret of [pg!.password, s3!.secretAccessKey, s3!.accessKeyId]) {
        assert.ok(!uri.includes(secret) && !store.location.includes(secret), `${kind}: a credential in ${uri}`);
      }
      console.log(`${kind}: uri ${uri}`);
    });

    test('PayloadStoreDriver: a Temporal payload stored and retrieved through the store', async () => {
      const store = open(kind);
      const driver = new PayloadStoreDriver(store);
      assert.equal(driver.name, kind);
      const payload: Payload = defaultPayloadConverter.toPayload({ big: 'x'.repeat(300_000), n: 42 })!;
      payload.metadata!.extra = new TextEncoder().encode('kept');
      const [claim, again] = await driver.store({}, [payload, payload]);
      assert.match(claim.claimData.key, /^sha256-[0-9a-f]{64}$/);
      assert.deepEqual(again.claimData, claim.claimData);
      const [back] = await driver.retrieve({}, [claim]);
      assert.deepEqual(defaultPayloadConverter.fromPayload(back), { big: 'x'.repeat(300_000), n: 42 });
      assert.equal(new TextDecoder().decode(back.metadata!.extra), 'kept');
      console.log(`${kind}: driver round trip of a ${payload.data!.length}-byte payload as ${claim.claimData.key.slice(0, 20)}…`);
    });
  });
}

test('PostgreSQL: six processes\' stores meeting a missing table at once all create-or-find it and write', async () => {
  const url = `${pg!.url('postgres')}?table=raced_payloads`;
  const stores = Array.from({ length: 6 }, () => open('postgresql', url));
  const payloads = stores.map((_, i) => Buffer.from(`payload ${i} ${randomBytes(8).toString('hex')}`));
  const results = await Promise.all(stores.map((s, i) => s.put(contentKey(payloads[i]), payloads[i])));
  assert.deepEqual(results, payloads.map(() => ({ written: true })));
  assert.equal((await pg!.sql('SELECT count(*) FROM raced_payloads')).trim(), '6');
  console.log('postgresql: 6 stores (one pool each) created-or-found one missing table at once; 6 rows');
});

describe('errors name the store, never the secret', () => {
  test('PostgreSQL: a wrong password, an unreachable server', async () => {
    const wrong = `wrongpw${randomBytes(6).toString('hex')}`;
    const bad = open('postgresql', pg!.url('postgres').replace(`:${pg!.password}@`, `:${wrong}@`));
    const key = contentKey(bytesOf(4));
    const e1 = await bad.get(key).then(() => assert.fail('read with a wrong password'), (e: Error) => e);
    assert.match(e1.message, new RegExp(`^payload store postgresql://${pg!.user}@127\\.0\\.0\\.1:${pg!.port}/postgres\\?table=swflow_payloads: read ${key} failed: .*password authentication failed`));
    const port = await freePort();
    const down = open('postgresql', `postgresql://${pg!.user}:${pg!.password}@127.0.0.1:${port}/payloads?table=p`);
    const e2 = await down.put(key, new Uint8Array([1])).then(() => assert.fail('wrote to a closed port'), (e: Error) => e);
    assert.match(e2.message, new RegExp(`^payload store postgresql://${pg!.user}@127\\.0\\.0\\.1:${port}/payloads\\?table=p: write ${key} failed: .*ECONNREFUSED`));
    for (const m of [e1.message, e2.message, String(e1.stack), String(e2.stack)]) {
      assert.ok(!m.includes(wrong) && !m.includes(pg!.password), `a password in: ${m}`);
    }
    console.log(`postgresql: wrong password → ${e1.message.slice(-90)}`);
    console.log(`postgresql: closed port → ${e2.message.slice(-90)}`);
  });

  test('S3: a wrong secret key, an unreachable endpoint, a missing bucket', async () => {
    const key = contentKey(bytesOf(4));
    const wrong = `wrongsecret${randomBytes(8).toString('hex')}`;
    const saved = process.env.AWS_SECRET_ACCESS_KEY;
    let e1!: Error;
    try {
      process.env.AWS_SECRET_ACCESS_KEY = wrong;
      const bad = open('s3', s3!.url(BUCKET, 'wrong'));
      e1 = await bad.put(key, new Uint8Array([1])).then(() => assert.fail('wrote with a wrong secret'), (e: Error) => e);
    } finally {
      process.env.AWS_SECRET_ACCESS_KEY = saved;
    }
    assert.match(e1.message, new RegExp(`^payload store s3://${BUCKET}/wrong \\(endpoint ${escapeRegExp(s3!.endpoint)}\\): write ${key} failed: forbidden: wrong or missing AWS credentials.*\\(HTTP 403\\)`));
    const port = await freePort();
    const down = open('s3', `s3://b/p?endpoint=http://127.0.0.1:${port}&forcePathStyle=true`);
    const e2 = await down.get(key).then(() => assert.fail('read from a closed port'), (e: Error) => e);
    assert.match(e2.message, new RegExp(`^payload store s3://b/p \\(endpoint http://127\\.0\\.0\\.1:${port}\\): read ${key} failed: .*ECONNREFUSED`));
    const nobucket = open('s3', s3!.url('no-such-bucket', 'p'));
    const e3 = await nobucket.get(key).then(() => assert.fail('read from a missing bucket'), (e: Error) => e);
    assert.ok(!(e3 instanceof PayloadMissing), `a missing bucket is not a missing payload: ${e3.message}`);
    assert.match(e3.message, /^payload store s3:\/\/no-such-bucket\/p .*NoSuchBucket/);
    for (const m of [e1.message, e2.message, e3.message, String(e1.stack)]) {
      assert.ok(!m.includes(wrong) && !m.includes(s3!.secretAccessKey), `a secret in: ${m}`);
    }
    console.log(`s3: wrong secret → ${e1.message.slice(-100)}`);
    console.log(`s3: closed port → ${e2.message.slice(-90)}`);
    console.log(`s3: missing bucket → ${e3.message.slice(-90)}`);
  });

  test('URLs: credentials in an s3:// URL and a bad table name are refused, redacted', () => {
    assert.throws(() => storeFromUrl('s3://AKIA:topsecret@bucket/p'), (e: Error) => /credentials do not go in the URL/.test(e.message) && !e.message.includes('topsecret'));
    assert.throws(() => storeFromUrl('postgresql://u:topsecret@h/db?table=x;drop'), (e: Error) => /is not a table name/.test(e.message) && !e.message.includes('topsecret'));
    assert.throws(() => storeFromUrl('s3://bucket/p?endpont=http://x'), /unknown parameter "endpont"/);
    console.log('urls: s3 credentials in URL, a bad table name and an unknown parameter refused without the secret');
  });
});

describe('end to end: a 3 MiB run input through each store on a Temporal dev server', () => {
  let env: TestWorkflowEnvironment | undefined;
  before(async () => {
    env = await startDevEnv();
  });
  after(async () => {
    await env?.teardown();
  });

  for (const kind of Object.keys(kinds) as Kind[]) {
    test(`${kind}: the history holds a reference, the store the encrypted payload, the SDK reads it back`, async () => {
      const url = kinds[kind]('e2e');
      const codecKey = randomBytes(32).toString('base64');
      const options = dataConverterOptions({ ...process.env, SWFLOW_PAYLOAD_STORE: url, SWFLOW_CODEC_KEYS: `k1:${codecKey}` });
      const client = new Client({ connection: env!.connection, namespace: 'default', ...options });
      const marker = `plaintext-marker-${randomBytes(6).toString('hex')}`;
      const input = { marker, blob: randomBytes(3 * MiB).toString('base64').slice(0, 3 * MiB) };
      const taskQueue = `stores-e2e-${kind}`; // nobody polls it: the run stays open with its input in the history
      const workflowId = `stores-e2e-${kind}-${randomBytes(4).toString('hex')}`;
      const t0 = Date.now();
      await client.workflow.start('nobodyRunsThis', { taskQueue, workflowId, args: [input] });
      const t1 = Date.now();
      try {
        const raw = await client.connection.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId } });
        const started = raw.history!.events![0].workflowExecutionStartedEventAttributes!;
        const stored = started.input!.payloads![0] as Payload;
        assert.ok(isReferencePayload(stored), `${kind}: the input is not a reference`);
        const ref = decodeReferencePayload(stored);
        assert.equal(ref.driverName, kind);
        const rawSize = temporalPayloadSize(stored);
        assert.ok(rawSize < 1024, `${kind}: the reference is ${rawSize} bytes`);
        // The store holds the encoded (encrypted) payload: the marker is not in its bytes.
        const store = open(kind, url);
        const bytes = Buffer.from(await store.get(ref.claimData.key));
        assert.ok(bytes.length > 3 * MiB && !bytes.includes(marker), `${kind}: stored ${bytes.length} bytes, plaintext ${bytes.includes(marker)}`);
        // The SDK's inbound path: references resolved, then the codec, then the converter.
        const dc = options.dataConverter!;
        const resolved = await new ExternalStorageRunner(dc.externalStorage!).retrieve(started.input!.payloads! as Payload[]);
        const [back] = await decodeArrayFromPayloads(loadDataConverter(dc), resolved);
        assert.deepEqual(back, input);
        // Content-addressed and deterministically encrypted: the same input again writes nothing new.
        let before = 0;
        for await (const _ of store.list()) before++;
        await client.workflow.start('nobodyRunsThis', { taskQueue, workflowId: `${workflowId}-again`, args: [input] });
        let after = 0;
        for await (const _ of store.list()) after++;
        assert.equal(after, before, `${kind}: a second start of the same input stored a new payload`);
        console.log(`${kind}: 3 MiB input started in ${t1 - t0} ms; history holds a ${rawSize}-byte ${ref.driverName} reference; store holds ${bytes.length} encrypted bytes; read back equal; same input again: ${after} payload(s), unchanged`);
      } finally {
        for (const id of [workflowId, `${workflowId}-again`]) await client.workflow.getHandle(id).terminate('test over').catch(() => {});
      }
    });
  }
});

function temporalPayloadSize(p: Payload): number {
  return (p.data?.length ?? 0) + Object.entries(p.metadata ?? {}).reduce((n, [k, v]) => n + k.length + (v?.length ?? 0), 0);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
