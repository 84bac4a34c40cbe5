/**
 * deploy/compose/docker-compose.yml, checked statically on every `npm test` (test/deploy/e2e/
 * compose.test.ts runs it for real, with docker-compose): it parses (anchors and merge keys
 * resolved, as Compose does), the start order waits on conditions each dependency can meet,
 * every long-running service has a health check, swflow's processes are built from the
 * repository's Dockerfile and run in the image's command form, serve the probes their health
 * checks call and get a stop grace period longer than their drain, published ports are variables
 * defaulting to the documented ones, and local-images.yml swaps images only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { assertStartOrder } from '../helpers/compose-files';
import { devServerDynamicConfig } from '../../src/platform/dev-server';

const DIR = resolve(__dirname, '..', '..', 'deploy', 'compose');
const text = readFileSync(join(DIR, 'docker-compose.yml'), 'utf8');
const compose = parse(text, { merge: true });
const services: Record<string, any> = compose.services;
const SWFLOW = ['worker', 'adapters', 'gateway'];
const ONE_SHOT = ['temporal-schema', 'swflow-setup'];
/** `${VAR:-default}` as Compose reads it with VAR unset. */
const defaults = (s: string) => s.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)![1]);

test('PostgreSQL, its schema job, Temporal on it, swflow setup, the UI, and swflow as three processes', () => {
  assert.deepEqual(Object.keys(services).sort(), ['adapters', 'gateway', 'postgresql', 'swflow-setup', 'temporal', 'temporal-schema', 'temporal-ui', 'worker']);
  assert.equal(compose.name, undefined, 'no top-level name: docker-compose 1.x rejects it (-p / COMPOSE_PROJECT_NAME)');
  const password = services.postgresql.environment.POSTGRES_PASSWORD;
  assert.equal(services.temporal.environment.DB, 'postgres12');
  assert.equal(services.temporal.environment.POSTGRES_SEEDS, 'postgresql');
  assert.equal(services.temporal.environment.POSTGRES_PWD, password);
  assert.equal(services['temporal-schema'].environment.SQL_HOST, 'postgresql');
  assert.equal(services['temporal-schema'].environment.SQL_PASSWORD, password);
  for (const [name, s] of Object.entries(services)) assert.match(s.image, /^[\w./-]+:(\d+(\.\d+)+|\$\{SWFLOW_BUILD_ID:-[\d.]+\})$/, `${name}: ${s.image} is pinned`);
});

test('the start order: PostgreSQL healthy -> schema -> Temporal healthy -> setup -> swflow', () => {
  const order: Record<string, Record<string, string>> = {
    postgresql: {},
    'temporal-schema': { postgresql: 'service_healthy' },
    temporal: { 'temporal-schema': 'service_completed_successfully' },
    'swflow-setup': { temporal: 'service_healthy' },
    'temporal-ui': { temporal: 'service_healthy' },
    ...Object.fromEntries(SWFLOW.map((name) => [name, { 'swflow-setup': 'service_completed_successfully' }])),
  };
  assertStartOrder(services, order, ONE_SHOT);
});

test('every long-running service has a health check and a restart policy', () => {
  for (const [name, s] of Object.entries(services)) {
    if (ONE_SHOT.includes(name)) continue;
    assert.ok(Array.isArray(s.healthcheck?.test) && s.healthcheck.test.length > 1, `${name} has a health check`);
    assert.equal(s.restart, 'unless-stopped', name);
  }
});

test("swflow's processes: built from the Dockerfile, run in the image's command form, probed where they serve, stopped after their drain", () => {
  for (const name of [...SWFLOW, 'swflow-setup']) {
    const s = services[name];
    assert.ok(existsSync(join(resolve(DIR, s.build.context), s.build.dockerfile)), `${name} builds from the repository's Dockerfile`);
    assert.equal(s.image, services.worker.image, `${name}: the one swflow image`);
    assert.equal(s.environment.TEMPORAL_ADDRESS, 'temporal:7233');
  }
  // The image's ENTRYPOINT is `node /app/bin/swflow.js`: the command is swflow's subcommand.
  assert.match(readFileSync(join(DIR, '..', '..', 'Dockerfile'), 'utf8'), /^ENTRYPOINT \["node", "\/app\/bin\/swflow\.js"\]$/m);
  assert.equal(services['swflow-setup'].command[0], 'setup');
  for (const name of SWFLOW) {
    const s = services[name];
    assert.deepEqual(s.command.slice(0, 3), [name, '--definitions', '/definitions']);
    assert.equal(s.environment.MALLOC_ARENA_MAX, '2', `${name}: glibc malloc held to 2 arenas`);
    const probed = /http:\/\/127\.0\.0\.1:(\d+)\/readyz/.exec(s.healthcheck.test.join(' '))?.[1];
    const serving = name === 'gateway' ? s.command[s.command.indexOf('--port') + 1] : s.environment.SWFLOW_HEALTH_PORT;
    assert.equal(probed, serving, `${name}: the health check calls the port the process serves /readyz on`);
    assert.ok(seconds(s.stop_grace_period) > seconds(s.environment.SWFLOW_SHUTDOWN_GRACE), `${name}: stop grace period outlasts the drain`);
    const [host, inContainer] = defaults(s.volumes[0]).split(':');
    assert.equal(inContainer, '/definitions');
    assert.ok(existsSync(resolve(DIR, host)), `${name}: ${host} exists`);
  }
  assert.equal(services.worker.environment.SWFLOW_SET_CURRENT, 'true');
});

test("the schema job creates and upgrades both databases from the admin tools' schema folders", () => {
  const script = services['temporal-schema'].command.join(' ');
  assert.match(script, /set -e;/);
  assert.match(script, /temporal:temporal temporal_visibility:visibility/);
  assert.match(script, /temporal-sql-tool update-schema -d "\/etc\/temporal\/schema\/postgresql\/v12\/\$\$\{db#\*:\}\/versioned"/);
  assert.doesNotMatch(script, /update-schema[^;]*--quiet/, 'the upgrade fails the job when it fails');
});

test('published ports are variables defaulting to the documented ones', () => {
  const published = Object.values(services).flatMap((s: any) => (s.ports ?? []) as string[]);
  for (const p of published) assert.match(p, /^\$\{HOST_PORT_[A-Z]+:-\d+\}:\d+$/, p);
  const hostDefaults = published.map((p) => defaults(p).split(':')[0]).sort();
  assert.deepEqual(hostDefaults, ['7233', '8080', '8233', '9464']);
  for (const port of hostDefaults) assert.match(text, new RegExp(`#\\s+${port}\\s`), `port ${port} is documented in the header`);
  for (const variable of published.map((p) => /HOST_PORT_[A-Z]+/.exec(p)![0])) assert.match(text, new RegExp(`#.*${variable}`), `${variable} is documented`);
});

test('the Temporal server gets the same dynamic config as the embedded dev server', () => {
  const [hostPath, containerPath] = services.temporal.volumes[0].split(':');
  assert.equal(services.temporal.environment.DYNAMIC_CONFIG_FILE_PATH, containerPath);
  const file = parse(readFileSync(resolve(DIR, hostPath), 'utf8'));
  const values = Object.fromEntries(Object.entries(file).map(([key, v]: [string, any]) => [key, v[0].value]));
  assert.deepEqual(values, devServerDynamicConfig);
});

test('local-images.yml swaps images (and the bases of swflow\'s build) only, for images deploy/images builds', () => {
  const local = parse(readFileSync(join(DIR, 'local-images.yml'), 'utf8'), { merge: true });
  const script = readFileSync(join(DIR, '..', 'images', 'build-stand-ins.sh'), 'utf8');
  for (const [name, s] of Object.entries<any>(local.services)) {
    assert.ok(services[name], `${name} exists in docker-compose.yml`);
    if (s.image) {
      assert.deepEqual(Object.keys(s), ['image'], `${name}: only its image differs`);
      assert.match(s.image, /^localhost\/swflow-/);
      assert.ok(script.includes(s.image.replace(/:.*/, ':')), `${s.image} is built by build-stand-ins.sh`);
    } else {
      assert.deepEqual(Object.keys(s), ['build'], `${name}: only its build's base arguments differ`);
      assert.deepEqual(Object.keys(s.build.args).sort(), ['BASE', 'BUILD_BASE', 'TEMPORAL_CLI_IMAGE']);
      for (const arg of Object.keys(s.build.args)) assert.match(readFileSync(join(DIR, '..', '..', 'Dockerfile'), 'utf8'), new RegExp(`^ARG ${arg}=`, 'm'));
    }
  }
  const swapped = Object.keys(local.services).sort();
  const publicImages = Object.entries(services).filter(([, s]) => !s.build).map(([n]) => n);
  for (const name of publicImages) assert.ok(swapped.includes(name), `${name}'s public image has a stand-in`);
});
