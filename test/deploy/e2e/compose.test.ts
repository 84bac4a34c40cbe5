/**
 * deploy/compose run for real, as a user runs it: docker-compose (Debian's 1.29.2 on docker.io)
 * with the stand-in images of local-images.yml (this machine pulls from no registry) and swflow's
 * image built by deploy/images/build.sh. From a clean state (`down -v`): `up -d`, every service
 * healthy in its start order; a 0.8 and a 1.0 run, each with a call (HTTP GET of the gateway's
 * /healthz, across the stack's network), a timer and an event (POSTed to the gateway's published
 * port), started with the real Temporal CLI on the host; then two runs left waiting for events
 * across `down` + `up -d` (the PostgreSQL volume keeps them and the finished ones); finally a
 * stack without PostgreSQL: nothing becomes ready and the gateway takes no event.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, composeStack, buildSwflowImage, ensureDocker, imageSizeMb, must } from '../../helpers/containers';
import { freePort } from '../../helpers/ports';
import { waitFor } from '../../helpers/wait';
import { resolveTemporalCli } from '../../../src/platform/temporal-binary';

const DIR = join(ROOT, 'deploy', 'compose');
const PROJECT = 'sw-cmp-e2e';
const BUILD_ID = 'sw-cmp-e2e';
const SWFLOW = ['worker', 'adapters', 'gateway'];
const log = (m: string) => console.log(`[compose] ${m}`);

let temporal = '';
let env: NodeJS.ProcessEnv = {};
let ports: { temporal: number; gateway: number; ui: number; metrics: number };
let definitions = '';

const { run: compose, must: composeMust, logs, state } = composeStack(['docker-compose.yml', 'local-images.yml'], DIR, () => env, 15);
async function waitHealthy(services: string[], ms = 240_000): Promise<number> {
  const started = Date.now();
  await waitFor(`${services.join(', ')} healthy`, async () => {
    for (const s of services) if ((await state(s))?.health !== 'healthy') return undefined;
    return true;
  }, ms).catch(async (err) => {
    throw new Error(`${err.message}\n${await logs()}`);
  });
  return Date.now() - started;
}

const cli = (args: string[]) => must(temporal, [...args, '--address', `127.0.0.1:${ports.temporal}`, '--namespace', 'default'], { timeoutMs: 120_000 });
async function startRun(type: string, id: string, input: unknown): Promise<void> {
  await cli(['workflow', 'start', '--type', type, '--task-queue', 'swflow', '--workflow-id', id, '--input', JSON.stringify(input)]);
}
async function result(id: string): Promise<any> {
  const out = await cli(['workflow', 'result', '--workflow-id', id, '-o', 'json']);
  return JSON.parse(out).result;
}
/** Runs (by id) waiting for `type`, as the gateway finds them (visibility, SwAwaitedEvents). */
async function awaiting(type: string, ids: string[]): Promise<void> {
  await waitFor(`${ids.join(', ')} awaiting ${type}`, async () => {
    const out = await cli(['workflow', 'list', '--query', `SwAwaitedEvents = '${type}' AND ExecutionStatus = 'Running'`, '-o', 'json']);
    const listed = (JSON.parse(out || '[]') as any[]).map((w) => w.execution?.workflowId);
    return ids.every((id) => listed.includes(id)) || undefined;
  }, 60_000);
}
async function sendEvent(type: string, data: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${ports.gateway}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json' },
    body: JSON.stringify({ specversion: '1.0', id: `${type}-${Date.now()}`, type, source: 'compose-test', data }),
  });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

/** The definitions the stack serves: a call, a timer and an event in each DSL. */
function writeDefinitions(dir: string): void {
  writeFileSync(join(dir, 'health-api.json'), JSON.stringify({
    openapi: '3.0.3',
    info: { title: "the gateway's liveness, as a service the adapters call across the stack", version: '1' },
    servers: [{ url: 'http://gateway:8080' }],
    paths: { '/healthz': { get: { operationId: 'health', responses: { '200': { description: 'alive' } } } } },
  }));
  writeFileSync(join(dir, 'cmp-v08.sw.json'), JSON.stringify({
    id: 'cmpv08', version: '1.0', specVersion: '0.8', name: 'compose 0.8', start: 'Call',
    events: [{ name: 'Go', type: 'cmp.v08.go', source: 'compose-test' }],
    functions: [{ name: 'health', operation: 'file://health-api.json#health' }],
    states: [
      { name: 'Call', type: 'operation', actions: [{ functionRef: { refName: 'health' }, actionDataFilter: { toStateData: '${ .health }' } }], transition: 'Nap' },
      { name: 'Nap', type: 'sleep', duration: 'PT2S', transition: 'Wait' },
      { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'], eventDataFilter: { toStateData: '${ .go }' } }], end: true },
    ],
  }));
  writeFileSync(join(dir, 'cmp-v1.sw.json'), JSON.stringify({
    document: { dsl: '1.0.0', namespace: 'compose', name: 'cmpv1', version: '1.0.0' },
    do: [
      { call: { call: 'http', with: { method: 'get', endpoint: 'http://gateway:8080/healthz' }, export: { as: '$context + { health: . }' } } },
      { nap: { wait: { seconds: 2 } } },
      { go: { listen: { to: { one: { with: { type: 'cmp.v1.go' } } } }, output: { as: '{ health: $context.health, go: .[0] }' } } },
    ],
  }));
}

before(async () => {
  await ensureDocker(log);
  const cliBin = await resolveTemporalCli(log);
  assert.ok(cliBin, 'the Temporal CLI (built with Go, .cache/bin/temporal)');
  temporal = cliBin.path;
  ports = { temporal: await freePort(), gateway: await freePort(), ui: await freePort(), metrics: await freePort() };
  definitions = mkdtempSync(join(tmpdir(), 'sw-cmp-defs-'));
  // mkdtemp makes it 0700: the containers' uid 1000 must read it through the bind mount.
  chmodSync(definitions, 0o755);
  writeDefinitions(definitions);
  env = {
    ...process.env,
    COMPOSE_PROJECT_NAME: PROJECT,
    SWFLOW_BUILD_ID: BUILD_ID,
    SWFLOW_DEFINITIONS: definitions,
    HOST_PORT_TEMPORAL: String(ports.temporal),
    HOST_PORT_GATEWAY: String(ports.gateway),
    HOST_PORT_UI: String(ports.ui),
    HOST_PORT_METRICS: String(ports.metrics),
  };
  const built = await buildSwflowImage(`swflow:${BUILD_ID}`, log);
  const t = Date.now();
  await must(join(ROOT, 'deploy', 'images', 'build-stand-ins.sh'), [], { timeoutMs: 30 * 60_000 });
  log(`images: swflow:${BUILD_ID} ${await imageSizeMb(`swflow:${BUILD_ID}`)} MB (build.sh ${(built.ms / 1000).toFixed(1)} s); stand-ins postgres ${await imageSizeMb('localhost/swflow-postgres:trixie')} MB, temporal-server ${await imageSizeMb('localhost/swflow-temporal-server:1.29.1')} MB, temporal-ui ${await imageSizeMb('localhost/swflow-temporal-ui:2.42.1')} MB (build-stand-ins.sh ${((Date.now() - t) / 1000).toFixed(1)} s)`);
});

after(async () => {
  if (env.COMPOSE_PROJECT_NAME) await compose(['down', '-v', '--remove-orphans']);
  if (definitions) rmSync(definitions, { recursive: true, force: true });
});

test('compose up from a clean state; a 0.8 and a 1.0 run with a call, a timer and an event complete; runs survive down + up', { timeout: 20 * 60_000 }, async () => {
  await composeMust(['down', '-v', '--remove-orphans']);
  let t = Date.now();
  await composeMust(['up', '-d', '--no-build']);
  const upMs = Date.now() - t;
  const healthyMs = await waitHealthy([...SWFLOW, 'temporal', 'postgresql', 'temporal-ui']);
  for (const oneShot of ['temporal-schema', 'swflow-setup']) assert.deepEqual(await state(oneShot), { status: 'exited', health: undefined, exitCode: 0 }, `${oneShot} ran once and succeeded`);
  log(`up -d from a clean state (down -v first): ${(upMs / 1000).toFixed(1)} s, then every service healthy in ${(healthyMs / 1000).toFixed(1)} s; temporal-schema and swflow-setup exited 0`);
  const ui = await fetch(`http://127.0.0.1:${ports.ui}/`);
  assert.equal(ui.status, 200, 'the Temporal UI answers on its published port');
  const metrics = await (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text();
  assert.match(metrics, /^# (HELP|TYPE) /m, "the worker's Prometheus metrics on their published port");

  t = Date.now();
  await startRun('cmpv08', 'cmp-v08-a', { n: 1 });
  await startRun('compose/cmpv1', 'cmp-v1-a', { n: 1 });
  await awaiting('cmp.v08.go', ['cmp-v08-a']);
  await awaiting('cmp.v1.go', ['cmp-v1-a']);
  for (const [type, go] of [['cmp.v08.go', 'v08'], ['cmp.v1.go', 'v1']]) {
    const sent = await sendEvent(type, { go });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
  }
  const v08 = await result('cmp-v08-a');
  const v1 = await result('cmp-v1-a');
  assert.deepEqual(v08, { n: 1, health: { ok: true }, go: { go: 'v08' } });
  assert.deepEqual(v1, { health: { ok: true }, go: { go: 'v1' } });
  log(`0.8 and 1.0 runs started with the Temporal CLI on the host (127.0.0.1:${ports.temporal}): HTTP call inside the stack (GET gateway:8080/healthz), 2 s timer, event POSTed to the gateway (127.0.0.1:${ports.gateway}): both completed in ${((Date.now() - t) / 1000).toFixed(1)} s`);

  // Two runs left waiting for their events over a restart of the whole stack.
  await startRun('cmpv08', 'cmp-v08-b', { n: 2 });
  await startRun('compose/cmpv1', 'cmp-v1-b', { n: 2 });
  await awaiting('cmp.v08.go', ['cmp-v08-b']);
  await awaiting('cmp.v1.go', ['cmp-v1-b']);
  t = Date.now();
  await composeMust(['down']);
  const volumes = await must('docker', ['volume', 'ls', '-q', '--filter', `name=${PROJECT}_postgresql`]);
  assert.equal(volumes.trim(), `${PROJECT}_postgresql`, 'down (without -v) keeps the PostgreSQL volume');
  await composeMust(['up', '-d', '--no-build']);
  await waitHealthy([...SWFLOW, 'temporal']);
  log(`down (no -v) and up -d again: healthy after ${((Date.now() - t) / 1000).toFixed(1)} s, volume ${PROJECT}_postgresql kept`);
  const closed = JSON.parse(await cli(['workflow', 'list', '--query', `ExecutionStatus = 'Completed'`, '-o', 'json']) || '[]').map((w: any) => w.execution.workflowId);
  for (const id of ['cmp-v08-a', 'cmp-v1-a']) assert.ok(closed.includes(id), `${id} is still listed as completed after down + up`);
  await awaiting('cmp.v08.go', ['cmp-v08-b']);
  await awaiting('cmp.v1.go', ['cmp-v1-b']);
  for (const [type, go] of [['cmp.v08.go', 'later'], ['cmp.v1.go', 'later']]) {
    const sent = await sendEvent(type, { go });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
  }
  assert.deepEqual(await result('cmp-v08-b'), { n: 2, health: { ok: true }, go: { go: 'later' } });
  assert.deepEqual(await result('cmp-v1-b'), { health: { ok: true }, go: { go: 'later' } });
  log('after down + up: the 2 completed runs still listed; the 2 runs waiting across the restart completed on their events');

  await composeMust(['down', '-v']);
  assert.equal((await must('docker', ['volume', 'ls', '-q', '--filter', `name=${PROJECT}_postgresql`])).trim(), '', 'down -v removes the volume');
  log('down -v: containers, network and volume removed');
});

test('without PostgreSQL nothing becomes ready and the gateway takes no event; each process names what it waits for', { timeout: 10 * 60_000 }, async () => {
  await composeMust(['down', '-v', '--remove-orphans']);

  // As a user would start it, minus PostgreSQL: the start order stops at the schema job.
  let t = Date.now();
  const up = await compose(['up', '-d', '--no-build', '--no-deps', 'temporal-schema', 'temporal', 'swflow-setup', ...SWFLOW]);
  assert.notEqual(up.code, 0, 'up fails');
  assert.equal((await state('temporal-schema'))?.exitCode, 1, 'the schema job failed');
  const schemaLog = (await compose(['logs', '--no-color', 'temporal-schema'])).out;
  assert.match(schemaLog, /lookup postgresql/, 'the schema job names the PostgreSQL host it cannot reach');
  for (const s of ['temporal', 'swflow-setup', ...SWFLOW]) assert.notEqual((await state(s))?.status, 'running', `${s} is not running`);
  await assert.rejects(fetch(`http://127.0.0.1:${ports.gateway}/`, { method: 'POST', body: '{}' }), 'nothing listens on the gateway port');
  log(`up without PostgreSQL: compose stopped at temporal-schema (exit 1, "lookup postgresql") in ${((Date.now() - t) / 1000).toFixed(1)} s; temporal, swflow-setup, worker, adapters, gateway not started; gateway port closed`);

  // The start order bypassed (--no-deps): each process on its own, with nothing to talk to.
  await composeMust(['rm', '-f', '-s']);
  t = Date.now();
  await composeMust(['up', '-d', '--no-build', '--no-deps', 'temporal', ...SWFLOW]);
  const named = async (service: string, pattern: RegExp) =>
    waitFor(`${service}'s log matching ${pattern}`, async () => pattern.test((await compose(['logs', '--no-color', service])).out) || undefined, 90_000);
  await named('temporal', /persistence postgres12 on postgresql:5432 \(POSTGRES_SEEDS, DB_PORT\)/);
  await named('temporal', /no usable database connection found/);
  await named('worker', /The Temporal server at TEMPORAL_ADDRESS=temporal:7233 does not answer/);
  await named('adapters', /The Temporal server at TEMPORAL_ADDRESS=temporal:7233 does not answer/);
  const readyz = await fetch(`http://127.0.0.1:${ports.gateway}/readyz`);
  const why = (await readyz.json()) as any;
  assert.equal(readyz.status, 503);
  assert.match(why.error, /The Temporal server at TEMPORAL_ADDRESS=temporal:7233 does not answer/);
  const sent = await sendEvent('cmp.v08.go', { go: 'nowhere' });
  assert.equal(sent.status, 503, JSON.stringify(sent.body));
  await sleep(15_000);
  for (const s of ['temporal', ...SWFLOW]) assert.notEqual((await state(s))?.health, 'healthy', `${s} is not healthy`);
  log(`order bypassed (--no-deps), after ${((Date.now() - t) / 1000).toFixed(1)} s: temporal exits naming POSTGRES_SEEDS (restarting), worker and adapters exit naming TEMPORAL_ADDRESS (restarting), gateway /readyz 503 naming TEMPORAL_ADDRESS, an event POSTed: 503; none healthy`);
  await composeMust(['down', '-v']);
});
