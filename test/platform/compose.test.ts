/**
 * temporal-dev.yml cannot be run here (no Docker engine), so this checks what can be checked:
 * it parses, every image is pinned, services reference each other correctly, ports are the
 * documented ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { devServerDynamicConfig } from '../../src/platform/dev-server';

const ROOT = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(ROOT, 'temporal-dev.yml'), 'utf8'));
const services: Record<string, any> = compose.services;

test('has the Temporal server on PostgreSQL, the UI and swflow', () => {
  assert.deepEqual(Object.keys(services).sort(), ['postgresql', 'swflow', 'temporal', 'temporal-ui']);
  assert.equal(services.temporal.environment.DB, 'postgres12');
  assert.equal(services.temporal.environment.POSTGRES_SEEDS, 'postgresql');
});

test('every image is pinned to an exact version', () => {
  for (const [name, service] of Object.entries(services)) {
    assert.ok(service.image, `${name} has an image`);
    assert.match(service.image, /^[\w./-]+:\d+(\.\d+)+$/, `${name}: ${service.image} is pinned`);
  }
});

test('depends_on and addresses name services that exist', () => {
  for (const [name, service] of Object.entries(services)) {
    for (const dep of Object.keys(service.depends_on ?? {})) {
      assert.ok(services[dep], `${name} depends on ${dep}, which exists`);
    }
    const address = service.environment?.TEMPORAL_ADDRESS;
    if (address) assert.equal(address, 'temporal:7233', `${name} reaches the frontend by service name`);
  }
  assert.ok(services['temporal-ui'].depends_on.temporal);
  assert.ok(services.swflow.depends_on.temporal);
});

test('ports are the documented ones', () => {
  const text = readFileSync(join(ROOT, 'temporal-dev.yml'), 'utf8');
  const published = Object.values(services).flatMap((s: any) => (s.ports ?? []).map((p: string) => p.split(':')[0]));
  assert.deepEqual(published.sort(), ['5432', '7233', '8080', '8090']);
  for (const port of published) assert.match(text, new RegExp(`#\\s+${port}\\s`), `port ${port} is documented in the header`);
});

test('swflow is built from the Dockerfile and mounts the examples it serves', () => {
  assert.equal(services.swflow.build, '.');
  assert.ok(existsSync(join(ROOT, 'Dockerfile')));
  assert.ok(services.swflow.volumes.some((v: string) => v.startsWith('./examples:')));
  assert.ok(existsSync(join(ROOT, 'examples')));
});

test('the Temporal server gets the same dynamic config as the embedded dev server', () => {
  const mount = services.temporal.volumes.find((v: string) => v.includes('dynamicconfig'));
  const [hostPath, containerPath] = mount.split(':');
  assert.equal(services.temporal.environment.DYNAMIC_CONFIG_FILE_PATH, containerPath);
  const file = parse(readFileSync(join(ROOT, hostPath), 'utf8'));
  const values = Object.fromEntries(Object.entries(file).map(([key, v]: [string, any]) => [key, v[0].value]));
  assert.deepEqual(values, devServerDynamicConfig);
});
