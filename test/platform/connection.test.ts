import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionOptions, targetFromEnv } from '../../src/client/connection';

test('no TEMPORAL_ADDRESS means: start the embedded dev server', () => {
  assert.equal(targetFromEnv({}), undefined);
});

test('a plain address uses no TLS and the default namespace', () => {
  const target = targetFromEnv({ TEMPORAL_ADDRESS: 'temporal.internal:7233' })!;
  assert.deepEqual(target, { address: 'temporal.internal:7233', namespace: 'default', apiKey: undefined });
  assert.equal(connectionOptions(target).tls, false);
});

test('an API key (Temporal Cloud) implies TLS', () => {
  const target = targetFromEnv({
    TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233',
    TEMPORAL_NAMESPACE: 'ns.acct',
    TEMPORAL_API_KEY: 'key-123',
  })!;
  assert.equal(target.namespace, 'ns.acct');
  assert.equal(connectionOptions(target).apiKey, 'key-123');
  assert.ok(connectionOptions(target).tls);
});

test('mTLS reads the certificate files and insists on both', () => {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-tls-'));
  writeFileSync(join(dir, 'c.pem'), 'CERT');
  writeFileSync(join(dir, 'k.pem'), 'KEY');
  const target = targetFromEnv({
    TEMPORAL_ADDRESS: 'x:7233',
    TEMPORAL_TLS_CERT: join(dir, 'c.pem'),
    TEMPORAL_TLS_KEY: join(dir, 'k.pem'),
  })!;
  assert.equal(target.tls!.clientCertPair!.crt.toString(), 'CERT');
  assert.equal(target.tls!.clientCertPair!.key.toString(), 'KEY');
  assert.throws(() => targetFromEnv({ TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS_CERT: 'a' }), /must be given together/);
  assert.throws(
    () => targetFromEnv({ TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS_CA: join(dir, 'missing.pem') }),
    /TEMPORAL_TLS_CA=.*cannot be read/,
  );
});
