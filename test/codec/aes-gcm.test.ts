/** The payload codec and its keys, without a server: round trip, tampering, unknown keys, key sources. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { AesGcmCodec, dataConverterOptions, ENCODING_ENCRYPTED, keyring, keyringFromEnv, METADATA_KEY_ID, parseKey } from '../../src/codec';

const b64 = () => randomBytes(32).toString('base64');
const keyA = parseKey('a', b64(), 'test');
const keyB = parseKey('b', b64(), 'test');
const text = (b?: Uint8Array | null) => Buffer.from(b ?? new Uint8Array()).toString('utf8');
const payload = (v: unknown): Payload => defaultPayloadConverter.toPayload(v)!;

test('round trip: encrypted with the current key, metadata names it, decoded back exactly', async () => {
  const codec = new AesGcmCodec(keyring([keyA, keyB]));
  const plain = [payload({ secret: 'plain-marker-1', n: 3 }), payload(null), payload('x'.repeat(100_000))];
  const enc = await codec.encode(plain);
  assert.equal(enc.length, 3);
  for (const p of enc) {
    assert.equal(text(p.metadata?.encoding), ENCODING_ENCRYPTED);
    assert.equal(text(p.metadata?.[METADATA_KEY_ID]), 'a');
    assert.ok(!Buffer.from(p.data!).includes('plain-marker-1'));
  }
  // A fresh nonce each time: the same plaintext never gives the same ciphertext.
  const again = await codec.encode([plain[0]]);
  assert.ok(!Buffer.from(again[0].data!).equals(Buffer.from(enc[0].data!)));
  const dec = await codec.decode(enc);
  assert.deepEqual(dec.map((p) => defaultPayloadConverter.fromPayload(p)), [{ secret: 'plain-marker-1', n: 3 }, null, 'x'.repeat(100_000)]);
  assert.equal(text(dec[0].metadata?.encoding), 'json/plain');
  // Payloads that were never encrypted pass through decode unchanged (histories from before the keys).
  assert.deepEqual(await codec.decode([plain[0]]), [plain[0]]);
});

test('rotation: a payload encrypted with an old key decodes with [new, old]; the new key encrypts', async () => {
  const [old] = await new AesGcmCodec(keyring([keyA])).encode([payload({ v: 1 })]);
  const rotated = new AesGcmCodec(keyring([keyB, keyA]));
  assert.deepEqual(defaultPayloadConverter.fromPayload((await rotated.decode([old]))[0]), { v: 1 });
  assert.equal(text((await rotated.encode([payload(1)]))[0].metadata?.[METADATA_KEY_ID]), 'b');
});

test('tampering is detected: a flipped bit, a cut tag, a relabelled key id', async () => {
  const keys = keyring([keyA, parseKey('a2', keyA.key.toString('base64'), 'test')]);
  const codec = new AesGcmCodec(keys);
  const [enc] = await codec.encode([payload({ amount: 10 })]);
  const flipped = Buffer.from(enc.data!);
  flipped[20] ^= 1;
  await assert.rejects(codec.decode([{ ...enc, data: flipped }]), /key id a\) failed authentication/);
  await assert.rejects(codec.decode([{ ...enc, data: enc.data!.subarray(0, enc.data!.length - 1) }]), /failed authentication/);
  await assert.rejects(codec.decode([{ ...enc, data: enc.data!.subarray(0, 10) }]), /too short/);
  // Same key bytes under another id: the key id is authenticated data, so relabelling fails.
  await assert.rejects(codec.decode([{ ...enc, metadata: { ...enc.metadata, [METADATA_KEY_ID]: Buffer.from('a2') } }]), /key id a2\) failed authentication/);
});

test('an unknown key id is an error that names it and the known ones', async () => {
  const [enc] = await new AesGcmCodec(keyring([keyB])).encode([payload(1)]);
  await assert.rejects(new AesGcmCodec(keyring([keyA])).decode([enc]), (err: Error) => {
    assert.match(err.message, /key id "b", which this process does not know \(known: a\)/);
    return true;
  });
  await assert.rejects(new AesGcmCodec(keyring([keyA])).decode([{ metadata: { encoding: Buffer.from(ENCODING_ENCRYPTED) }, data: new Uint8Array(40) }]), /no encryption-key-id metadata/);
});

test('keys from the environment: list, file, directory, current key; bad keys say where and why', () => {
  assert.equal(keyringFromEnv({}), undefined);
  assert.deepEqual(dataConverterOptions({}), {});
  // An explicit env without keys means none, even when this process has some.
  const saved = process.env.SWFLOW_CODEC_KEYS;
  process.env.SWFLOW_CODEC_KEYS = `k0:${b64()}`;
  try {
    assert.deepEqual(dataConverterOptions({}), {});
  } finally {
    if (saved === undefined) delete process.env.SWFLOW_CODEC_KEYS;
    else process.env.SWFLOW_CODEC_KEYS = saved;
  }
  assert.ok(dataConverterOptions({ SWFLOW_CODEC_KEYS: `k1:${b64()}` }).dataConverter?.payloadCodecs?.[0] instanceof AesGcmCodec);
  const listed = keyringFromEnv({ SWFLOW_CODEC_KEYS: `new:${b64()}, old:${b64()}` })!;
  assert.equal(listed.current.id, 'new');
  assert.deepEqual([...listed.byId.keys()], ['new', 'old']);
  assert.equal(keyringFromEnv({ SWFLOW_CODEC_KEYS: `new:${b64()},old:${b64()}`, SWFLOW_CODEC_CURRENT_KEY: 'old' })!.current.id, 'old');

  const dir = mkdtempSync(join(tmpdir(), 'swflow-keys-'));
  writeFileSync(join(dir, 'keys.txt'), `# rotated 2026-11\nk2:${b64()}\nk1:${b64()}\n`);
  const fromFile = keyringFromEnv({ SWFLOW_CODEC_KEY_FILE: join(dir, 'keys.txt') })!;
  assert.deepEqual([fromFile.current.id, ...fromFile.byId.keys()], ['k2', 'k2', 'k1']);
  mkdirSync(join(dir, 'd'));
  writeFileSync(join(dir, 'd', '2026-05.key'), b64());
  writeFileSync(join(dir, 'd', '2026-11.key'), `${b64()}\n`);
  writeFileSync(join(dir, 'd', 'README'), 'not a key');
  const fromDir = keyringFromEnv({ SWFLOW_CODEC_KEY_FILE: join(dir, 'd') })!;
  assert.equal(fromDir.current.id, '2026-11');
  assert.deepEqual([...fromDir.byId.keys()].sort(), ['2026-05', '2026-11']);

  assert.throws(() => keyringFromEnv({ SWFLOW_CODEC_KEYS: `short:${randomBytes(16).toString('base64')}` }), /SWFLOW_CODEC_KEYS: key short is 16 bytes; AES-256 needs 32/);
  assert.throws(() => keyringFromEnv({ SWFLOW_CODEC_KEYS: b64() }), /SWFLOW_CODEC_KEYS: entry 1 is not <id>:<base64 key>/);
  assert.throws(() => keyringFromEnv({ SWFLOW_CODEC_KEYS: `a b:${b64()}` }), /key id "a b" must be/);
  assert.throws(() => keyringFromEnv({ SWFLOW_CODEC_KEYS: `x:${b64()}`, SWFLOW_CODEC_CURRENT_KEY: 'y' }), /SWFLOW_CODEC_CURRENT_KEY=y names no known key \(known: x\)/);
  assert.throws(() => keyringFromEnv({ SWFLOW_CODEC_KEYS: `x:${b64()},x:${b64()}` }), /codec key id x is given twice/);
  assert.throws(() => keyringFromEnv({ SWFLOW_CODEC_KEY_FILE: join(dir, 'missing') }), /SWFLOW_CODEC_KEY_FILE=.*missing cannot be read/);
  mkdirSync(join(dir, 'empty'));
  assert.throws(() => keyringFromEnv({ SWFLOW_CODEC_KEY_FILE: join(dir, 'empty') }), /SWFLOW_CODEC_KEY_FILE=.*empty holds no key/);
});
