/**
 * swflow's image as users run it, for real: built from the Dockerfile (deploy/images/build.sh, on
 * Debian-made bases here), `swflow worker`, `swflow adapters` and `swflow gateway` as three
 * containers against a Temporal dev server on the host, runs of a 0.8 and a 1.0 definition started
 * with the Temporal CLI from outside and woken by a CloudEvent POSTed to the containerised gateway,
 * their calls served by the adapters container; the image's default command (`swflow start`, the
 * dev server inside); what the image holds (non-root, no dev dependencies, no tests); and what
 * each process does with bad input (wrong TEMPORAL_ADDRESS, bad codec keys, no definitions folder).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, buildSwflowImage, imageSizeMb, must, sh } from '../../helpers/containers';
import { freePort } from '../../helpers/ports';
import { waitFor } from '../../helpers/wait';
import { startDevServer, type DevServer } from '../../../src/platform/dev-server';

const IMAGE = 'swflow:sw-img';
const TEMPORAL = join(ROOT, '.cache', 'bin', 'temporal');
const HOST = 'host.docker.internal';
const ADD_HOST = `--add-host=${HOST}:host-gateway`;
const suffix = `${process.pid}`;
const containers: string[] = [];
let defs: string;
let data: string;
let server: DevServer;
let service: Server;
let servicePort: number;

/** A container of ours, removed in after() whatever happens. */
function name(role: string): string {
  const n = `sw-img-${role}-${suffix}-${containers.length}`;
  containers.push(n);
  return n;
}

async function logsOf(container: string): Promise<string> {
  const r = await sh('docker', ['logs', container]);
  return r.out + r.err;
}

/** The Temporal CLI on the host, against the dev server. */
function temporal(args: string[]) {
  return must(TEMPORAL, [...args, '--address', server.address], { timeoutMs: 120_000 });
}

/** fetch that gives up after 5 s (a published port may accept before the container listens). */
function get(url: string, init: RequestInit = {}, ms = 5_000): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(ms) });
}

/** POSTs a structured CloudEvent until a run takes it (202): a 404 means none waits for it yet. */
async function deliver(url: string, event: Record<string, unknown>): Promise<string> {
  return waitFor(
    `the gateway to deliver ${event.type}`,
    async () => {
      const res = await get(url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify({ specversion: '1.0', ...event }) });
      const body = await res.text();
      return res.status === 202 ? body : undefined;
    },
    60_000,
  );
}

before(async () => {
  const { ms } = await buildSwflowImage(IMAGE, (m) => console.log(`image: ${m}`));
  console.log(`image: ${IMAGE} built in ${(ms / 1000).toFixed(1)} s (deploy/images/build.sh, layers cached)`);
  data = mkdtempSync(join(tmpdir(), 'sw-img-data-'));
  // Containers reach it through the docker bridge: every interface, a free port.
  server = await startDevServer({ binary: TEMPORAL, ip: '0.0.0.0', port: await freePort(), uiPort: await freePort(), dbFile: join(data, 'temporal.sqlite') });

  // The service the definitions call, on the host: reached from the adapters container.
  servicePort = await freePort();
  service = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const payment = /^\/orders\/([^/]+)\/payment$/.exec(url.pathname);
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET' && url.pathname === '/greeting') return res.end(JSON.stringify({ greeting: `Hello ${url.searchParams.get('name')}` }));
      if (req.method === 'POST' && payment) return res.end(JSON.stringify({ orderId: payment[1], amount: JSON.parse(body).amount, status: 'paid', receipt: `R-${payment[1]}` }));
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((r) => service.listen(servicePort, '0.0.0.0', r));

  // The definitions volume: world-readable, the containers run as uid 1000.
  defs = mkdtempSync(join(tmpdir(), 'sw-img-defs-'));
  chmodSync(defs, 0o755);
  const api = JSON.parse(readFileSync(join(ROOT, 'examples', 'myapis', 'greetingapis.json'), 'utf8'));
  api.servers = [{ url: `http://${HOST}:${servicePort}` }];
  writeFileSync(join(defs, 'greetingapis.json'), JSON.stringify(api));
  writeFileSync(
    join(defs, 'approval.sw.json'),
    JSON.stringify({
      id: 'imageapproval',
      version: '1.0',
      specVersion: '0.8',
      start: 'Greet',
      events: [{ name: 'Approved', type: 'image.approved', source: 'swflow.image-test' }],
      functions: [{ name: 'greetingFunction', operation: 'file://greetingapis.json#greeting' }],
      states: [
        {
          name: 'Greet',
          type: 'operation',
          actions: [{ functionRef: { refName: 'greetingFunction', arguments: { name: '${ .person.name }' } }, actionDataFilter: { results: '${ .greeting }', toStateData: '${ .greeting }' } }],
          transition: 'AwaitApproval',
        },
        { name: 'AwaitApproval', type: 'event', onEvents: [{ eventRefs: ['Approved'], eventDataFilter: { toStateData: '${ .approval }' } }], end: true },
      ],
    }),
  );
  writeFileSync(
    join(defs, 'order-payment.sw.yaml'),
    `document: { dsl: '1.0.3', namespace: image, name: order-payment, version: '1.0.0' }
do:
  - waitForPayment:
      listen:
        to:
          one:
            with: { type: com.example.payment.received }
            correlate:
              orderId: { from: '\${ .data.orderId }', expect: '\${ .orderId }' }
      output: { as: '\${ .[0] }' }
  - recordPayment:
      call: http
      with:
        method: post
        endpoint: http://${HOST}:${servicePort}/orders/{orderId}/payment
        body: { amount: '\${ .amount }' }
`,
  );
  for (const f of ['greetingapis.json', 'approval.sw.json', 'order-payment.sw.yaml']) chmodSync(join(defs, f), 0o644);
});

after(async () => {
  if (containers.length) await sh('docker', ['rm', '-f', '-v', ...containers]);
  await new Promise((r) => (service ? service.close(r) : r(undefined)));
  await server?.stop();
  for (const dir of [defs, data]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const LIMIT = { timeout: 5 * 60_000 };

test('the image: runs as uid 1000, holds no dev dependency, test, benchmark or docs; its size', LIMIT, async () => {
  assert.equal((await must('docker', ['image', 'inspect', IMAGE, '--format', '{{.Config.User}}'])).trim(), '1000:1000');
  const inside = (script: string) => must('docker', ['run', '--rm', '--entrypoint', 'sh', IMAGE, '-c', script]);
  const top = (await inside('ls -A /app')).split('\n').filter(Boolean);
  for (const banned of ['test', 'bench', 'docs', '.data', '.git', 'tsconfig.json', 'temporal-dev.yml', 'wasm']) assert.ok(!top.includes(banned), `/app has no ${banned} (it has ${top.join(' ')})`);
  assert.equal((await inside("find /app -path /app/node_modules -prune -o \\( -name '*.test.ts' -o -name '*.test.js' \\) -print")).trim(), '', 'no test files');

  // Every package in /app/node_modules is one `npm ci --omit=dev` installs: in the lock file, not dev-only.
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages as Record<string, { dev?: boolean }>;
  const listed = (await inside("cd /app && find node_modules -name package.json -not -path '*/node_modules/*/node_modules/*/*/package.json' | sed 's#/package.json$##'"))
    .split('\n')
    .filter((p) => p && lock[p]);
  assert.ok(listed.length > 100, `the image's node_modules lists ${listed.length} packages of the lock file`);
  const dev = listed.filter((p) => lock[p].dev === true);
  assert.deepEqual(dev, [], 'no dev-only package in the image');
  const devDeps = Object.keys(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies).filter((d) => lock[`node_modules/${d}`]?.dev === true);
  const present = (await inside(devDeps.map((d) => `test -e /app/node_modules/${d} && echo ${d}`).join('; ') + '; true')).trim();
  assert.equal(present, '', `devDependencies absent (${devDeps.join(', ')})`);

  // The interpreter's workflow bundle is built into the image and holds there (as its user): a worker starts without webpack.
  const bundles = await must('docker', ['run', '--rm', IMAGE, 'bundle', '--all']);
  assert.match(bundles, /plain bundle: \/app\/\.cache\/bundles\/\S+ \(up to date\)/, bundles);
  assert.match(bundles, /traced bundle: \/app\/\.cache\/bundles\/\S+ \(up to date\)/, bundles);

  // du counts a folder once: /app after /app/node_modules is the rest of /app.
  const [modules, rest, cli] = (await inside('du -sm /app/node_modules /app /usr/local/bin/temporal | cut -f1')).trim().split('\n').map(Number);
  const total = await imageSizeMb(IMAGE);
  const base = await imageSizeMb('localhost/swflow-node:24-trixie').catch(() => NaN);
  console.log(`image size: ${total} MB = base (node) ${base} MB + node_modules ${modules} MB + swflow (sources, compiled JS, examples) ${rest} MB + Temporal CLI ${cli} MB (+ layers' rest)`);
  console.log(`image contents: ${listed.length} production packages, 0 dev-only (of ${devDeps.length} dev-only devDependencies), no test/bench/docs; user 1000:1000`);
});

test('worker, adapters and gateway containers serve a 0.8 and a 1.0 run started with the Temporal CLI and woken by an event', LIMIT, async () => {
  const started = Date.now();
  const env = ['-e', `TEMPORAL_ADDRESS=${HOST}:${server.address.split(':')[1]}`];
  const mount = ['-v', `${defs}:/definitions:ro`];
  const gatewayPort = await freePort();
  const healthPort = await freePort();
  const worker = name('worker');
  const adapters = name('adapters');
  const gateway = name('gateway');
  // --no-eager-calls: the interpreter sends the calls to swflow-adapters, the adapters container's queue.
  await must('docker', ['run', '-d', '--name', worker, ADD_HOST, ...env, ...mount, '-p', `127.0.0.1:${healthPort}:8080`, IMAGE, 'worker', '--definitions', '/definitions', '--no-eager-calls', '--no-schedules', '--health-port', '8080']);
  await must('docker', ['run', '-d', '--name', adapters, ADD_HOST, ...env, ...mount, IMAGE, 'adapters', '--definitions', '/definitions']);
  await must('docker', ['run', '-d', '--name', gateway, ADD_HOST, ...env, ...mount, '-p', `127.0.0.1:${gatewayPort}:8090`, IMAGE, 'gateway', '--definitions', '/definitions']);
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  await waitFor('the worker to be ready (/readyz)', async () => ((await get(`http://127.0.0.1:${healthPort}/readyz`)).ok ? true : undefined), 90_000).catch(async (err) => {
    throw new Error(`${err.message}\n${await logsOf(worker)}`);
  });
  console.log(`containers: worker ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  await waitFor('the adapters container to serve', async () => ((await logsOf(adapters)).includes('serving task queue swflow-adapters') ? true : undefined), 90_000);
  await waitFor('the gateway to be ready (/readyz)', async () => ((await get(`${gatewayUrl}/readyz`)).ok ? true : undefined), 90_000);
  console.log(`containers: worker, adapters, gateway ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // Every process runs as uid 1000, not root.
  for (const c of [worker, adapters, gateway]) {
    const status = await must('docker', ['exec', c, 'cat', '/proc/1/status']);
    assert.match(status, /^Uid:\s+1000\s+1000\s+1000\s+1000$/m, `${c} runs as uid 1000`);
  }

  const runStarted = Date.now();
  const id08 = `sw-img-approval-${suffix}`;
  const id10 = `sw-img-order-${suffix}`;
  await temporal(['workflow', 'start', '--type', 'imageapproval', '--task-queue', 'swflow', '--workflow-id', id08, '--input', '{"person":{"name":"Ada"}}']);
  await temporal(['workflow', 'start', '--type', 'image/order-payment', '--task-queue', 'swflow', '--workflow-id', id10, '--input', '{"orderId":"42"}']);
  console.log('runs: started with the Temporal CLI');
  const took08 = await deliver(gatewayUrl, { id: `approval-${suffix}`, type: 'image.approved', source: 'swflow.image-test', datacontenttype: 'application/json', data: { by: 'ops' } });
  assert.match(took08, new RegExp(id08));
  const took10 = await deliver(gatewayUrl, { id: `payment-${suffix}`, type: 'com.example.payment.received', source: 'https://payments.example', datacontenttype: 'application/json', data: { orderId: '42', amount: 25 } });
  assert.match(took10, new RegExp(id10));

  console.log('runs: events delivered');
  const result = async (id: string) => JSON.parse(await temporal(['workflow', 'result', '--workflow-id', id, '--output', 'json']));
  const r08 = await result(id08);
  const r10 = await result(id10);
  assert.equal(r08.status, 'COMPLETED', JSON.stringify(r08));
  assert.deepEqual(r08.result, { person: { name: 'Ada' }, greeting: 'Hello Ada', approval: { by: 'ops' } });
  assert.equal(r10.status, 'COMPLETED', JSON.stringify(r10));
  assert.deepEqual(r10.result, { orderId: '42', amount: 25, status: 'paid', receipt: 'R-42' });
  console.log(`runs: 0.8 imageapproval (REST call via adapters container, event via gateway) and 1.0 image/order-payment (listen + call http) completed in ${((Date.now() - runStarted) / 1000).toFixed(1)} s; started and read with the Temporal CLI`);
});

test('an adapter module of the user\'s, mounted into a container (not built into the image), imports swflow/adapter and serves a custom call', LIMIT, async () => {
  const env = ['-e', `TEMPORAL_ADDRESS=${HOST}:${server.address.split(':')[1]}`];
  const own = mkdtempSync(join(tmpdir(), 'sw-img-own-'));
  chmodSync(own, 0o755);
  for (const d of ['definitions', 'adapters']) mkdirSync(join(own, d), { mode: 0o755 });
  writeFileSync(
    join(own, 'adapters', 'inventory.js'),
    `const { defineAdapter, AdapterError } = require('swflow/adapter');
module.exports = defineAdapter({
  name: 'inventory',
  activities: {
    reserve({ item, count }) {
      if (item !== 'apple') throw new AdapterError('OutOfStock', 'no ' + item);
      return { item, reserved: count };
    },
  },
});
`,
  );
  writeFileSync(
    join(own, 'definitions', 'reserve.sw.json'),
    JSON.stringify({
      id: 'imagereserve',
      version: '1.0',
      specVersion: '0.8',
      start: 'Reserve',
      functions: [{ name: 'reserve', type: 'custom', operation: 'inventory.reserve', metadata: { worker: 'inventory' } }],
      states: [{ name: 'Reserve', type: 'operation', actions: [{ functionRef: { refName: 'reserve', arguments: { item: '${ .item }', count: 2 } }, actionDataFilter: { toStateData: '${ .reservation }' } }], end: true }],
    }),
  );
  for (const f of ['adapters/inventory.js', 'definitions/reserve.sw.json']) chmodSync(join(own, f), 0o644);
  try {
    const worker = name('own-worker');
    const adapter = name('own-adapter');
    // The interpreter on its own queue, so only this folder's definition is served there.
    await must('docker', ['run', '-d', '--name', worker, ADD_HOST, ...env, '-v', `${own}/definitions:/definitions:ro`, IMAGE, 'worker', '--definitions', '/definitions', '--task-queue', 'sw-img-own', '--no-schedules']);
    await must('docker', ['run', '-d', '--name', adapter, ADD_HOST, ...env, '-v', `${own}/adapters:/adapters:ro`, IMAGE, 'worker', '--adapter', '/adapters/inventory.js', '--task-queue', 'inventory']);
    await waitFor('the adapter container to serve inventory.reserve', async () => {
      const logs = await logsOf(adapter);
      if (/could not be loaded|Cannot find module/.test(logs)) throw new Error(logs);
      return logs.includes('inventory.reserve') ? true : undefined;
    }, 90_000);
    const id = `sw-img-reserve-${suffix}`;
    const r = JSON.parse(await temporal(['workflow', 'execute', '--type', 'imagereserve', '--task-queue', 'sw-img-own', '--workflow-id', id, '--input', '{"item":"apple"}', '--output', 'json']));
    assert.equal(r.status, 'COMPLETED', JSON.stringify(r));
    assert.deepEqual(r.result, { item: 'apple', reservation: { item: 'apple', reserved: 2 } });
    console.log('own adapter: /adapters/inventory.js (require("swflow/adapter"), mounted read-only) served inventory.reserve from its container; the 0.8 run completed with its result');
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
});

test('the default command, swflow start: the dev server inside (SQLite on /data), examples run through published ports', LIMIT, async () => {
  const started = Date.now();
  const grpc = await freePort();
  const gatewayPort = await freePort();
  const c = name('start');
  await must('docker', ['run', '-d', '--name', c, '-p', `127.0.0.1:${grpc}:7233`, '-p', `127.0.0.1:${gatewayPort}:8090`, IMAGE]);
  const address = `127.0.0.1:${grpc}`;
  await waitFor('swflow start to print its banner', async () => ((await logsOf(c)).includes('swflow is running') ? true : undefined), 120_000).catch(async (err) => {
    throw new Error(`${err.message}\n${await logsOf(c)}`);
  });
  const ready = Date.now();
  const out = await must(TEMPORAL, ['workflow', 'execute', '--type', 'greeting', '--task-queue', 'swflow', '--input', '{"person":{"name":"John"}}', '--address', address, '--output', 'json'], { timeoutMs: 120_000 });
  assert.match(out, /Welcome to Serverless Workflow, John!/);
  const gw = await get(`http://127.0.0.1:${gatewayPort}/readyz`);
  assert.equal(gw.status, 200, 'the gateway answers through its published port');
  assert.match(await must('docker', ['exec', c, 'ls', '-ln', '/data']), /1000\s+1000\s+\d+.*temporal\.sqlite/);
  console.log(`swflow start in the image: ready in ${((ready - started) / 1000).toFixed(1)} s; examples' greeting run completed via the Temporal CLI on the published port in ${((Date.now() - ready) / 1000).toFixed(1)} s; SQLite at /data/temporal.sqlite (uid 1000); gateway /readyz 200`);
});

test('a wrong TEMPORAL_ADDRESS: worker and adapters exit naming it; the gateway is not ready and refuses events with 503', LIMIT, async () => {
  const closed = await freePort();
  for (const address of [`${HOST}:${closed}`, 'swflow-no-such-host.invalid:7233']) {
    for (const command of ['worker', 'adapters']) {
      const r = await sh('docker', ['run', '--rm', '--name', name(`bad-address-${command}`), ADD_HOST, '-e', `TEMPORAL_ADDRESS=${address}`, IMAGE, command], { timeoutMs: 90_000 });
      assert.notEqual(r.code, 0, `${command} exits`);
      assert.match(r.err, new RegExp(`TEMPORAL_ADDRESS=${address.replace(/\./g, '\\.')} does not answer`), `${command}: ${r.err}`);
    }
  }
  const gatewayPort = await freePort();
  const gateway = name('bad-address-gateway');
  await must('docker', ['run', '-d', '--name', gateway, ADD_HOST, '-e', `TEMPORAL_ADDRESS=${HOST}:${closed}`, '-v', `${defs}:/definitions:ro`, '-p', `127.0.0.1:${gatewayPort}:8090`, IMAGE, 'gateway', '--definitions', '/definitions']);
  const readyz = await waitFor('the gateway to answer /readyz', async () => {
    const res = await get(`http://127.0.0.1:${gatewayPort}/readyz`);
    return { status: res.status, body: await res.text() };
  }, 60_000);
  assert.equal(readyz.status, 503);
  assert.match(readyz.body, new RegExp(`TEMPORAL_ADDRESS=${HOST}:${closed}`));
  const event = await get(`http://127.0.0.1:${gatewayPort}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json' },
    body: JSON.stringify({ specversion: '1.0', id: 'x1', type: 'com.example.payment.received', source: 'https://payments.example', data: { orderId: '1' } }),
  }, 30_000); // the gateway gives Temporal --temporal-timeout (5 s) first
  const body = await event.text();
  assert.equal(event.status, 503, body);
  assert.match(body, /TEMPORAL_ADDRESS=/);
  console.log(`bad TEMPORAL_ADDRESS (closed port, unresolvable host): worker and adapters exit non-zero naming it; gateway /readyz 503 and an event 503, both naming TEMPORAL_ADDRESS`);
});

test('bad codec keys and a missing definitions folder: each process exits naming the setting', LIMIT, async () => {
  const env = ['-e', `TEMPORAL_ADDRESS=${HOST}:${server.address.split(':')[1]}`];
  const cases: { what: string; args: string[]; expect: RegExp }[] = [];
  for (const command of ['worker', 'adapters', 'gateway']) {
    cases.push({ what: `${command} SWFLOW_CODEC_KEYS=not-a-key`, args: ['-e', 'SWFLOW_CODEC_KEYS=not-a-key', IMAGE, command], expect: /SWFLOW_CODEC_KEYS: entry 1 is not <id>:<base64 key>/ });
    cases.push({ what: `${command} SWFLOW_CODEC_KEY_FILE missing`, args: ['-e', 'SWFLOW_CODEC_KEY_FILE=/run/secrets/codec-keys', IMAGE, command], expect: /SWFLOW_CODEC_KEY_FILE=\/run\/secrets\/codec-keys cannot be read/ });
    cases.push({ what: `${command} --definitions /nope`, args: [IMAGE, command, '--definitions', '/nope'], expect: /--definitions \/nope: no such folder or file/ });
  }
  // A compose-style bind mount of a host folder that is not there: docker creates it, empty.
  const missing = join(tmpdir(), `sw-img-missing-${suffix}`);
  rmSync(missing, { recursive: true, force: true });
  for (const command of ['worker', 'gateway']) {
    cases.push({ what: `${command} with a definitions volume that did not exist`, args: ['-v', `${missing}:/definitions:ro`, IMAGE, command, '--definitions', '/definitions'], expect: /--definitions \/definitions: no workflow definition found/ });
  }
  cases.push({ what: 'start --definitions /nope', args: [IMAGE, 'start', '--definitions', '/nope'], expect: /--definitions \/nope: no such folder or file/ });
  // A host folder uid 1000 cannot read (mkdtemp's 0700, owned by root): it would look empty.
  const unreadable = mkdtempSync(join(tmpdir(), `sw-img-unreadable-${suffix}-`));
  writeFileSync(join(unreadable, 'hello.sw.json'), JSON.stringify({ id: 'hello', version: '1.0', specVersion: '0.8', start: 'S', states: [{ name: 'S', type: 'inject', data: {}, end: true }] }));
  chmodSync(unreadable, 0o700);
  for (const command of ['worker', 'adapters', 'gateway']) {
    cases.push({ what: `${command} with a definitions volume uid 1000 cannot read`, args: ['-v', `${unreadable}:/definitions:ro`, IMAGE, command, '--definitions', '/definitions'], expect: /--definitions \/definitions: cannot be read by this process \(uid 1000\)/ });
  }
  for (const c of cases) {
    const r = await sh('docker', ['run', '--rm', '--name', name('bad-input'), ADD_HOST, ...env, ...c.args], { timeoutMs: 90_000 });
    assert.notEqual(r.code, 0, `${c.what}: exits non-zero`);
    assert.match(r.err, c.expect, `${c.what}: ${r.err}`);
    // Refused before connecting: nothing polled or listened.
    assert.doesNotMatch(r.out, /serving task queue|listening on/, c.what);
  }
  rmSync(missing, { recursive: true, force: true });
  rmSync(unreadable, { recursive: true, force: true });
  console.log(`bad input: ${cases.length} cases (malformed SWFLOW_CODEC_KEYS, missing SWFLOW_CODEC_KEY_FILE, --definitions /nope for worker/adapters/gateway/start, an empty definitions volume docker created for worker/gateway, a volume uid 1000 cannot read for worker/adapters/gateway) each exit non-zero naming the setting, before serving`);
});
