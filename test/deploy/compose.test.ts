/**
 * deploy/compose/docker-compose.yml cannot be run here (no container engine daemon, no image
 * registry), so this checks what can be: it parses (anchors and merge keys resolved, as Compose
 * does), depends_on names services that exist and waits on conditions they can meet, every
 * long-running service has a health check, swflow's processes are built from the repository's
 * Dockerfile, serve the probes their health checks call and get a stop grace period longer than
 * their drain, the setup registers exactly swflow's search attributes, and mounted files exist.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTES } from '../../src/common/contracts';

const DIR = resolve(__dirname, '..', '..', 'deploy', 'compose');
const compose = parse(readFileSync(join(DIR, 'docker-compose.yml'), 'utf8'), { merge: true });
const services: Record<string, any> = compose.services;
const SWFLOW = ['worker', 'adapters', 'gateway'];
/** `${VAR:-default}` as Compose reads it with VAR unset. */
const defaults = (s: string) => s.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)![1]);

test('PostgreSQL, Temporal on it, its setup, the UI, and swflow as three processes', () => {
  assert.deepEqual(Object.keys(services).sort(), ['adapters', 'gateway', 'postgresql', 'temporal', 'temporal-setup', 'temporal-ui', 'worker']);
  assert.equal(services.temporal.environment.DB, 'postgres12');
  assert.equal(services.temporal.environment.POSTGRES_SEEDS, 'postgresql');
  assert.equal(services.temporal.environment.POSTGRES_PWD, services.postgresql.environment.POSTGRES_PASSWORD);
  for (const [name, s] of Object.entries(services)) assert.match(s.image, /^[\w./-]+:(\d+(\.\d+)+|\$\{SWFLOW_BUILD_ID:-[\d.]+\})$/, `${name}: ${s.image} is pinned`);
});

test('depends_on names existing services with conditions they can meet', () => {
  for (const [name, s] of Object.entries(services)) {
    for (const [dep, { condition }] of Object.entries<any>(s.depends_on ?? {})) {
      assert.ok(services[dep], `${name} depends on ${dep}, which exists`);
      if (condition === 'service_healthy') assert.ok(services[dep].healthcheck, `${name} waits for ${dep} to be healthy: it needs a health check`);
      else assert.equal(condition, 'service_completed_successfully', `${name} -> ${dep}`);
      if (condition === 'service_completed_successfully') assert.equal(services[dep].restart, undefined, `${dep} is one-shot`);
    }
  }
  for (const name of SWFLOW) assert.deepEqual(services[name].depends_on, { 'temporal-setup': { condition: 'service_completed_successfully' } });
});

test('every long-running service has a health check and a restart policy', () => {
  for (const [name, s] of Object.entries(services)) {
    if (name === 'temporal-setup') continue;
    assert.ok(Array.isArray(s.healthcheck?.test) && s.healthcheck.test.length > 1, `${name} has a health check`);
    assert.equal(s.restart, 'unless-stopped', name);
  }
});

test("swflow's processes: built from the Dockerfile, probed where they serve, stopped after their drain", () => {
  for (const name of SWFLOW) {
    const s = services[name];
    assert.ok(existsSync(join(resolve(DIR, s.build.context), s.build.dockerfile)), `${name} builds from the repository's Dockerfile`);
    assert.deepEqual(s.command.slice(0, 2), ['node', 'bin/swflow.js']);
    assert.equal(s.command[2], name);
    assert.equal(s.environment.TEMPORAL_ADDRESS, 'temporal:7233');
    assert.equal(s.environment.MALLOC_ARENA_MAX, '2', `${name}: glibc malloc held to 2 arenas`);
    const probed = /http:\/\/127\.0\.0\.1:(\d+)\/readyz/.exec(s.healthcheck.test.join(' '))?.[1];
    const serving = name === 'gateway' ? s.command[s.command.indexOf('--port') + 1] : s.environment.SWFLOW_HEALTH_PORT;
    assert.equal(probed, serving, `${name}: the health check calls the port the process serves /readyz on`);
    assert.ok(seconds(s.stop_grace_period) > seconds(s.environment.SWFLOW_SHUTDOWN_GRACE), `${name}: stop grace period outlasts the drain`);
    const [host] = defaults(s.volumes[0]).split(':');
    assert.ok(existsSync(resolve(DIR, host)), `${name}: ${host} exists`);
  }
  assert.equal(services.worker.environment.SWFLOW_SET_CURRENT, 'true');
});

test("the setup registers exactly swflow's search attributes", () => {
  const script = services['temporal-setup'].command.join(' ');
  const registered = Object.fromEntries([...script.matchAll(/(Sw\w+)=(\w+)/g)].map((m) => [m[1], m[2]]));
  assert.deepEqual(registered, SEARCH_ATTRIBUTES);
});

test('mounted configuration files exist and published ports are documented', () => {
  const text = readFileSync(join(DIR, 'docker-compose.yml'), 'utf8');
  const [config] = services.temporal.volumes[0].split(':');
  assert.ok(existsSync(resolve(DIR, config)), config);
  const published = Object.values(services).flatMap((s: any) => (s.ports ?? []).map((p: string) => p.split(':')[0]));
  assert.deepEqual(published.sort(), ['7233', '8080', '8233', '9464']);
  for (const port of published) assert.match(text, new RegExp(`#\\s+${port}\\s`), `port ${port} is documented in the header`);
});
