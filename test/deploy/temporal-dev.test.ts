/**
 * temporal-dev.yml (the repository's root), checked statically on every `npm test` (test/deploy/e2e/
 * temporal-dev.test.ts runs it for real): the Temporal part of deploy/compose and nothing else —
 * PostgreSQL, its schema job, Temporal, the UI as deploy/compose defines them (so the images,
 * health checks and dynamic config cannot drift apart), and a setup one-shot that needs no swflow
 * image yet registers exactly swflow's search attributes; the start order waits on conditions each
 * dependency can meet, published ports are variables defaulting to 7233 and 8233, the header says
 * how to run it, and deploy/compose/temporal-dev.local-images.yml swaps images only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { assertStartOrder } from '../helpers/compose-files';
import { SEARCH_ATTRIBUTES } from '../../src/common/contracts';
import { devServerDynamicConfig } from '../../src/platform/dev-server';

const ROOT = resolve(__dirname, '..', '..');
const FILE = join(ROOT, 'temporal-dev.yml');
const COMPOSE_DIR = join(ROOT, 'deploy', 'compose');
const text = readFileSync(FILE, 'utf8');
const dev = parse(text, { merge: true });
const services: Record<string, any> = dev.services;
const stack: Record<string, any> = parse(readFileSync(join(COMPOSE_DIR, 'docker-compose.yml'), 'utf8'), { merge: true }).services;
const SHARED = ['postgresql', 'temporal-schema', 'temporal', 'temporal-ui'];
const ONE_SHOT = ['temporal-schema', 'swflow-setup'];
/** `${VAR:-default}` as Compose reads it with VAR unset. */
const defaults = (s: string) => s.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
/** A service with its bind mounts' host paths made absolute (each file resolves them from its own folder). */
const absolute = (s: any, dir: string) => ({
  ...s,
  ...(s.volumes && { volumes: s.volumes.map((v: string) => (/^\.\.?\//.test(v) ? `${resolve(dir, v.split(':')[0])}:${v.split(':').slice(1).join(':')}` : v)) }),
});

test('PostgreSQL, its schema job, Temporal, the setup one-shot and the UI: no swflow process, nothing built', () => {
  assert.deepEqual(Object.keys(services).sort(), ['postgresql', 'swflow-setup', 'temporal', 'temporal-schema', 'temporal-ui']);
  assert.equal(dev.name, undefined, 'no top-level name: docker-compose 1.x rejects it (-p / COMPOSE_PROJECT_NAME)');
  for (const [name, s] of Object.entries(services)) {
    assert.equal(s.build, undefined, `${name} builds nothing`);
    assert.match(s.image, /^[\w./-]+:\d+(\.\d+)+$/, `${name}: ${s.image} is pinned`);
  }
  assert.deepEqual(Object.keys(dev.volumes), ['postgresql'], 'a named volume for PostgreSQL');
  assert.equal(services.postgresql.volumes[0], 'postgresql:/var/lib/postgresql/data');
});

test("deploy/compose's Temporal services as they are there: images, environment, health checks, dynamic config", () => {
  for (const name of SHARED) assert.deepEqual(absolute(services[name], ROOT), absolute(stack[name], COMPOSE_DIR), `${name} is deploy/compose's`);
});

test('the start order: PostgreSQL healthy -> schema -> Temporal healthy -> setup and the UI', () => {
  const order: Record<string, Record<string, string>> = {
    postgresql: {},
    'temporal-schema': { postgresql: 'service_healthy' },
    temporal: { 'temporal-schema': 'service_completed_successfully' },
    'swflow-setup': { temporal: 'service_healthy' },
    'temporal-ui': { temporal: 'service_healthy' },
  };
  assertStartOrder(services, order, ONE_SHOT);
  for (const [name, s] of Object.entries(services)) {
    if (ONE_SHOT.includes(name)) {
      assert.equal(s.restart, undefined, `${name} runs once`);
      continue;
    }
    assert.ok(Array.isArray(s.healthcheck?.test) && s.healthcheck.test.length > 1, `${name} has a health check`);
    assert.equal(s.restart, 'unless-stopped', name);
  }
});

test("the setup one-shot: swflow setup's namespace and search attributes with the admin tools' Temporal CLI", () => {
  const s = services['swflow-setup'];
  assert.equal(s.image, services['temporal-schema'].image, 'the admin tools image the schema job pulls already');
  assert.equal(s.environment.TEMPORAL_ADDRESS, 'temporal:7233');
  assert.equal(s.environment.TEMPORAL_NAMESPACE, stack['swflow-setup'].environment.TEMPORAL_NAMESPACE);
  assert.deepEqual(s.entrypoint, ['sh', '-c']);
  const script: string = s.command.join(' ');
  assert.match(script, /^set -e;/);
  // As deploy/compose's `swflow setup --retention-days 3`.
  const days = Number(stack['swflow-setup'].command[stack['swflow-setup'].command.indexOf('--retention-days') + 1]);
  assert.match(script, new RegExp(`temporal operator namespace describe -n "\\$\\$ns" [^;]*\\|\\| temporal operator namespace create -n "\\$\\$ns" --retention ${days * 24}h;`));
  const create = /temporal operator search-attribute create -n "\$\$ns" ((?:--name \w+ --type \w+ ?)+)/.exec(script);
  assert.ok(create, script);
  const created = Object.fromEntries([...create[1].matchAll(/--name (\w+) --type (\w+)/g)].map((m) => [m[1], m[2]]));
  assert.deepEqual(created, SEARCH_ATTRIBUTES, "exactly swflow's search attributes (src/common/contracts.ts), with their types");
  const query = /temporal workflow list -n "\$\$ns" --limit 1 --query "([^"]+)"/.exec(script)?.[1];
  assert.ok(query, 'it waits until a query naming the attributes is accepted');
  assert.deepEqual([...query.matchAll(/(\w+) = 'p'/g)].map((m) => m[1]).sort(), Object.keys(SEARCH_ATTRIBUTES).sort());
  assert.match(script, /until [^;]*; do tries=\$\$\(\(tries \+ 1\)\); \[ "\$\$tries" -lt \d+ \] \|\| exit 1; sleep \d+; done;/, 'bounded retries');
});

test('published ports are variables defaulting to 7233 and 8233, documented in the header', () => {
  const published = Object.values(services).flatMap((s: any) => (s.ports ?? []) as string[]);
  for (const p of published) assert.match(p, /^\$\{HOST_PORT_[A-Z]+:-\d+\}:\d+$/, p);
  assert.deepEqual(published.map((p) => defaults(p).split(':')[0]).sort(), ['7233', '8233']);
  for (const port of ['7233', '8233']) assert.match(text, new RegExp(`#\\s+${port}\\s`), `port ${port} is documented in the header`);
  for (const variable of published.map((p) => /HOST_PORT_[A-Z]+/.exec(p)![0])) assert.match(text, new RegExp(`#.*${variable}`), `${variable} is documented`);
});

test('the Temporal server gets the same dynamic config as deploy/compose and the embedded dev server', () => {
  const [hostPath, containerPath] = services.temporal.volumes[0].split(':');
  assert.equal(services.temporal.environment.DYNAMIC_CONFIG_FILE_PATH, containerPath);
  assert.equal(resolve(ROOT, hostPath), resolve(COMPOSE_DIR, stack.temporal.volumes[0].split(':')[0]), "deploy/compose's file, not a copy");
  const file = parse(readFileSync(resolve(ROOT, hostPath), 'utf8'));
  const values = Object.fromEntries(Object.entries(file).map(([key, v]: [string, any]) => [key, v[0].value]));
  assert.deepEqual(values, devServerDynamicConfig);
});

test('the header tells how to run it, with swflow from the checkout, and where the local images are', () => {
  const header = text.slice(0, text.indexOf('\nservices:'));
  assert.match(header, /^#\s+docker compose -f temporal-dev\.yml up -d\b/m);
  assert.match(header, /^#\s+TEMPORAL_ADDRESS=localhost:7233 npm start\b/m);
  const override = /docker compose -f temporal-dev\.yml -f (\S+) up -d/.exec(header)?.[1];
  assert.equal(override, 'deploy/compose/temporal-dev.local-images.yml');
  assert.ok(existsSync(join(ROOT, override)));
  assert.match(header, /deploy\/images\/build-stand-ins\.sh/);
});

test('temporal-dev.local-images.yml swaps images only, for the stand-ins deploy/compose uses', () => {
  const local = parse(readFileSync(join(COMPOSE_DIR, 'temporal-dev.local-images.yml'), 'utf8'));
  const stackLocal = parse(readFileSync(join(COMPOSE_DIR, 'local-images.yml'), 'utf8'), { merge: true }).services;
  const script = readFileSync(join(ROOT, 'deploy', 'images', 'build-stand-ins.sh'), 'utf8');
  assert.deepEqual(Object.keys(local.services).sort(), Object.keys(services).sort(), 'every public image has a stand-in');
  for (const [name, s] of Object.entries<any>(local.services)) {
    assert.deepEqual(Object.keys(s), ['image'], `${name}: only its image differs`);
    assert.match(s.image, /^localhost\/swflow-/);
    assert.ok(script.includes(s.image.replace(/:.*/, ':')), `${s.image} is built by build-stand-ins.sh`);
    const same = name === 'swflow-setup' ? 'temporal-schema' : name;
    assert.equal(s.image, stackLocal[same].image, `${name}: the stand-in local-images.yml gives ${same}`);
  }
});

test('not in swflow\'s image or npm package: the Dockerfile and package.json name what they ship', () => {
  const copied = [...readFileSync(join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1].split(/\s+/));
  assert.ok(!copied.includes('.') && !copied.includes('temporal-dev.yml'), copied.join(' '));
  const files: string[] = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).files;
  assert.ok(!files.includes('temporal-dev.yml'), files.join(' '));
});
