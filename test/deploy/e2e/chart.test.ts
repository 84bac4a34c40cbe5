/**
 * The Helm chart's manifests, run: `helm template` of deploy/helm/swflow played as pods by
 * `podman kube play` (no kube-apiserver or kubelet here), on swflow's real image, against a real
 * Temporal dev server on the host that the pods reach as host.containers.internal. The probes the
 * rendered Deployments declare answer on their declared ports; a 0.8 and a 1.0 run started with the
 * real Temporal CLI complete through the pods (a REST/HTTP call served by the adapters pod, with
 * interpreter.eagerCalls off, a timer,
 * an event POSTed to the gateway pod); a release upgrade to a second image tag keeps the first
 * build's pinned run on a previous-build Deployment while new runs go to the second build; bad
 * settings (a wrong temporal.address, a codec Secret without keys) stop the processes they break.
 *
 * What podman 4.3 cannot play is changed or left out, and the test says so: Service,
 * ServiceAccount, PodDisruptionBudget (and HPA) are not played; the Secrets the chart refers to
 * (it creates none) are made with `podman secret create` in the shapes podman 4.3 reads; secret
 * volumes get `optional: false` spelled out (podman 4.3 dereferences it unset: a nil-pointer
 * panic); every containerPort gets a free hostPort (podman 4.3 publishes a containerPort on the
 * same host port otherwise, clashing between pods). Everything else is played as rendered.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parseAllDocuments, stringify } from 'yaml';
import { Client, Connection } from '@temporalio/client';
import { buildSwflowImage, dockerToPodman, imageSizeMb, must, podmanEnv, sh } from '../../helpers/containers';
import { resolveHelm } from '../../helpers/helm';
import { freePort } from '../../helpers/ports';
import { waitFor } from '../../helpers/wait';
import { startDevServer, type DevServer } from '../../../src/platform/dev-server';
import { resolveTemporalCli } from '../../../src/platform/temporal-binary';
import { dataConverter } from '../../../src/codec';

const CHART = resolve(__dirname, '..', '..', '..', 'deploy', 'helm', 'swflow');
/** Every pod, network and secret this test makes is named with it. */
const PREFIX = 'sw-k8s';
const RELEASE = PREFIX;
const NETWORK = `${PREFIX}-net`;
const IMAGE_1 = `swflow:${PREFIX}-1`;
const IMAGE_2 = `swflow:${PREFIX}-2`;
const GATEWAY_SECRET = `${PREFIX}-gateway-auth`;
const CODEC_SECRET = `${PREFIX}-codec`;
const TOKEN = randomBytes(12).toString('hex');
const CODEC_KEY = randomBytes(32).toString('base64');
const CODEC_KEY_ID = '2026-11';
/** What podman 4.3 has no kind for (or what needs a cluster: PDB, HPA): not played. */
const NOT_PLAYED = ['Service', 'ServiceAccount', 'PodDisruptionBudget', 'HorizontalPodAutoscaler'];

type Doc = Record<string, any>;
const log = (m: string) => console.log(`[chart e2e] ${m}`);
const dir = mkdtempSync(join(tmpdir(), `${PREFIX}-`));
const penv = podmanEnv();
const podman = (args: string[], timeoutMs = 5 * 60_000) => must('podman', args, { env: penv, timeoutMs });

let helm: string;
let temporalCli: string;
let server: DevServer;
let address: string;
let service: Server;
let servicePort: number;
/** Who called the REST/HTTP service: the remote address of each request (a pod's IP). */
const serviceCallers: string[] = [];
let client: Client;
const played: string[] = [];
let rendered1: Doc[];

/** The definitions the chart ships inline (ConfigMap): a 0.8 and a 1.0 one, each a call served by the adapters, a timer and an event. */
function definitions(base: string): Record<string, string> {
  const v08 = {
    id: 'k8sorder',
    version: '1.0',
    specVersion: '0.8',
    // Not an event state first: that would make the event start a new instance rather than reach the run the CLI started.
    start: 'Received',
    events: [{ name: 'OrderPlaced', type: 'k8s.order.placed', source: 'k8s-test' }],
    functions: [{ name: 'confirm', type: 'rest', operation: `${base}/openapi.json#confirm` }],
    states: [
      { name: 'Received', type: 'inject', data: { received: true }, transition: 'Placed' },
      { name: 'Placed', type: 'event', onEvents: [{ eventRefs: ['OrderPlaced'], eventDataFilter: { toStateData: '${ .order }' } }], transition: 'Pause' },
      { name: 'Pause', type: 'sleep', duration: 'PT1S', transition: 'Confirm' },
      {
        name: 'Confirm',
        type: 'operation',
        actions: [{ functionRef: { refName: 'confirm', arguments: { item: '${ .order.item }' } }, actionDataFilter: { toStateData: '${ .confirmation }' } }],
        end: true,
      },
    ],
  };
  const v10 = {
    document: { dsl: '1.0.0', namespace: 'k8s', name: 'pay', version: '1.0.0' },
    do: [
      { paid: { listen: { to: { one: { with: { type: 'k8s.payment' } } } } } },
      { pause: { wait: { seconds: 1 } } },
      { confirm: { call: 'http', with: { method: 'get', endpoint: `${base}/confirm?item=payment` } } },
    ],
  };
  return { 'k8s-order.sw.yaml': stringify(v08), 'k8s-pay.sw.yaml': stringify(v10) };
}

async function render(values: Doc): Promise<{ text: string; docs: Doc[] }> {
  const file = join(dir, `values-${values.image.tag}.json`);
  writeFileSync(file, JSON.stringify(values));
  const text = await must(helm, ['template', RELEASE, CHART, '-f', file]);
  return { text, docs: parseAllDocuments(text).map((d) => d.toJSON()).filter(Boolean) as Doc[] };
}

function values(tag: string, previousBuilds: Doc[] = []): Doc {
  return {
    image: { repository: 'swflow', tag, pullPolicy: 'Never' },
    temporal: { address: `host.containers.internal:${address.split(':')[1]}`, namespace: 'default' },
    codec: { existingSecret: CODEC_SECRET },
    definitions: { source: 'configMap', files: definitions(`http://host.containers.internal:${servicePort}`) },
    versioning: { previousBuilds },
    // Calls go to the adapters Deployment (not made by the interpreter itself): the test sees them come from the adapters pod.
    interpreter: { replicas: 1, eagerCalls: false },
    adapters: { replicas: 1 },
    gateway: { replicas: 1, auth: { existingSecret: GATEWAY_SECRET } },
  };
}

/** The rendered documents podman 4.3 can play, changed only where it needs (see the head comment). */
async function playable(docs: Doc[]): Promise<Doc[]> {
  const out = structuredClone(docs.filter((d) => !NOT_PLAYED.includes(d.kind)));
  const kinds = new Set(out.map((d) => d.kind));
  assert.ok([...kinds].every((k) => k === 'ConfigMap' || k === 'Deployment'), `only Deployments and ConfigMaps are left to play: ${[...kinds]}`);
  for (const d of out.filter((x) => x.kind === 'Deployment')) {
    for (const v of d.spec.template.spec.volumes ?? []) if (v.secret) v.secret.optional ??= false;
    for (const c of d.spec.template.spec.containers) for (const p of c.ports ?? []) p.hostPort = await freePort();
  }
  return out;
}

async function play(docs: Doc[], name: string): Promise<void> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, (await playable(docs)).map((d) => stringify(d)).join('---\n'));
  // podman 4.3's --replace does not replace a Deployment's pods ("pod already exists"): the release played before goes down first,
  // as a rolling update would replace every pod whose template changed (the image tag is in all of them).
  const before = played.at(-1);
  if (before) await podman(['kube', 'down', before]);
  played.push(file);
  // Health checks (podman's rendering of livenessProbe) need systemd timers this sandbox lacks: podman logs it, and plays on.
  await podman(['kube', 'play', '--network', NETWORK, file]);
}

const podName = (deployment: string) => `${deployment}-pod-0`;

async function podIp(pod: string): Promise<string> {
  const infra = (await podman(['pod', 'inspect', pod, '--format', '{{.InfraContainerID}}'])).trim();
  return (await podman(['inspect', infra, '--format', `{{(index .NetworkSettings.Networks "${NETWORK}").IPAddress}}`])).trim();
}

/** The probes of a rendered Deployment's container, each with the port number it names. */
function probesOf(d: Doc): { kind: string; path: string; port: number }[] {
  const c = d.spec.template.spec.containers[0];
  const portNumber = (p: string | number) => (typeof p === 'number' ? p : c.ports.find((x: Doc) => x.name === p)?.containerPort);
  return ['startupProbe', 'livenessProbe', 'readinessProbe'].map((kind) => {
    const port = portNumber(c[kind].httpGet.port);
    assert.ok(port, `${d.metadata.name}: ${kind} names port ${c[kind].httpGet.port}, which the container does not declare`);
    return { kind, path: c[kind].httpGet.path, port };
  });
}

async function httpStatus(url: string): Promise<number> {
  const r = await fetch(url, { signal: AbortSignal.timeout(3000) });
  await r.arrayBuffer();
  return r.status;
}

async function temporal(args: string[]): Promise<string> {
  return must(temporalCli, [...args, '--address', address, '--namespace', 'default']);
}

async function startRun(type: string, id: string): Promise<void> {
  await temporal(['workflow', 'start', '--type', type, '--task-queue', 'swflow', '--workflow-id', id, '--input', '{}']);
}

/** POSTs a CloudEvent (binary mode, bearer token) to the gateway pod until it is taken (202): a run's listen is found through visibility, a moment after it starts. */
async function sendEvent(gatewayUrl: string, type: string, data: unknown): Promise<void> {
  let last = '';
  await waitFor(
    `the gateway to take ${type} (last answer: ${last})`,
    async () => {
      const r = await fetch(gatewayUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'ce-specversion': '1.0',
          'ce-type': type,
          'ce-source': 'k8s-test',
          'ce-id': randomBytes(8).toString('hex'),
        },
        body: JSON.stringify(data),
      });
      last = `${r.status} ${await r.text()}`;
      return r.status === 202 ? true : undefined;
    },
    60_000,
  );
}

async function describe(id: string): Promise<Doc> {
  return JSON.parse(await temporal(['workflow', 'describe', '--workflow-id', id, '--output', 'json']));
}

async function waitCompleted(id: string): Promise<Doc> {
  let last: Doc = {};
  try {
    await waitFor(
      `${id} to end`,
      async () => {
        last = await describe(id);
        return /RUNNING/.test(String(last.workflowExecutionInfo?.status)) ? undefined : last;
      },
      90_000,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}: ${JSON.stringify(last).slice(0, 3000)}\n${await podLogs()}`);
  }
  assert.match(String(last.workflowExecutionInfo?.status), /COMPLETED/, `${id}: ${JSON.stringify(last).slice(0, 3000)}\n${await podLogs()}`);
  return last;
}

/** The last lines of every container of ours, for a failure's message. */
async function podLogs(): Promise<string> {
  const names = (await sh('podman', ['ps', '-a', '--format', '{{.Names}}', '--filter', `name=^${PREFIX}-`], { env: penv })).out.split('\n').filter((n) => n && !n.endsWith('-infra'));
  const logs = await Promise.all(names.map(async (n) => { const r = await sh('podman', ['logs', '--tail', '15', n], { env: penv }); return `--- ${n}\n${r.out}${r.err}`; }));
  return logs.join('\n');
}

/** The build ids and worker identities of a run's completed workflow tasks, from its history (the Temporal CLI's JSON). */
async function workflowTasks(id: string): Promise<{ buildIds: string[]; identities: string[] }> {
  const history = JSON.parse(await temporal(['workflow', 'show', '--workflow-id', id, '--output', 'json']));
  const completed = (history.events as Doc[]).map((e) => e.workflowTaskCompletedEventAttributes).filter(Boolean);
  const buildIdOf = (a: Doc) => a.deploymentVersion?.buildId ?? a.workerDeploymentVersion?.split('.').slice(1).join('.') ?? a.workerVersion?.buildId ?? '';
  return { buildIds: completed.map(buildIdOf), identities: completed.map((a) => String(a.identity)) };
}

/** Every value under a key saying "current" in the CLI's JSON of a worker deployment (its routing config's current version, however the CLI version spells it). */
function currentBuildIds(v: unknown, underCurrent = false): string[] {
  if (typeof v === 'string') return underCurrent ? [v, v.split('.').slice(1).join('.')] : [];
  if (!v || typeof v !== 'object') return [];
  return Object.entries(v).flatMap(([k, x]) => currentBuildIds(x, underCurrent || /^current/i.test(k)));
}

before(async () => {
  helm = await resolveHelm(log);
  const cli = await resolveTemporalCli(log);
  assert.ok(cli, 'the Temporal CLI');
  temporalCli = cli.path;

  const built = await buildSwflowImage(IMAGE_1, log);
  // The second build: the same image with one label more, so its image id differs (a new tag users roll out).
  const secondStarted = Date.now();
  await must('docker', ['build', '-q', '-t', IMAGE_2, '-'], { input: `FROM ${IMAGE_1}\nLABEL io.swflow.test-build="${PREFIX}-2"\n` });
  const [id1, id2] = await Promise.all([IMAGE_1, IMAGE_2].map((i) => must('docker', ['image', 'inspect', i, '--format', '{{.Id}}'])));
  assert.notEqual(id1.trim(), id2.trim(), 'the two builds are different images');
  log(`images: ${IMAGE_1} built in ${Math.round(built.ms / 1000)} s (${await imageSizeMb(IMAGE_1)} MB), ${IMAGE_2} in ${Math.round((Date.now() - secondStarted) / 1000)} s; ids ${id1.trim().slice(7, 19)} / ${id2.trim().slice(7, 19)}`);
  const copyStarted = Date.now();
  for (const image of [IMAGE_1, IMAGE_2]) await dockerToPodman(image);
  log(`copied both into podman's store in ${Math.round((Date.now() - copyStarted) / 1000)} s`);

  // A dev server the pods reach through the podman network's gateway (host.containers.internal), with swflow's search attributes.
  const port = await freePort();
  server = await startDevServer({ binary: temporalCli, ip: '0.0.0.0', port, uiPort: await freePort(), dbFile: join(dir, 'temporal.sqlite') });
  address = `127.0.0.1:${port}`;
  client = new Client({
    connection: await Connection.connect({ address }),
    namespace: 'default',
    dataConverter: dataConverter({ SWFLOW_CODEC_KEYS: `${CODEC_KEY_ID}:${CODEC_KEY}` }),
  });

  // The service the definitions call (through the adapters pod): its OpenAPI document and one operation.
  servicePort = await freePort();
  service = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname === '/openapi.json') {
      res.end(JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'k8s test service', version: '1' },
        servers: [{ url: `http://host.containers.internal:${servicePort}` }],
        paths: { '/confirm': { get: { operationId: 'confirm', parameters: [{ name: 'item', in: 'query', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } } },
      }));
      return;
    }
    serviceCallers.push(String(req.socket.remoteAddress).replace(/^::ffff:/, ''));
    res.end(JSON.stringify({ confirmed: true, item: url.searchParams.get('item') }));
  });
  await new Promise<void>((r) => service.listen(servicePort, '0.0.0.0', r));

  // The Secrets the chart refers to, as podman 4.3 reads them: secretKeyRef env from a JSON map of base64 values, secret volumes from a Secret's `data` (written as is).
  await sh('podman', ['secret', 'rm', GATEWAY_SECRET, CODEC_SECRET], { env: penv });
  const secret = async (name: string, content: unknown) => {
    // From a file: podman reads `-` only from a real pipe, and node gives children a socket.
    writeFileSync(join(dir, name), JSON.stringify(content), { mode: 0o600 });
    await podman(['secret', 'create', name, join(dir, name)]);
  };
  await secret(GATEWAY_SECRET, { token: Buffer.from(TOKEN).toString('base64') });
  await secret(CODEC_SECRET, { data: { [`${CODEC_KEY_ID}.key`]: CODEC_KEY } });
  if ((await sh('podman', ['network', 'exists', NETWORK], { env: penv })).code !== 0) await podman(['network', 'create', NETWORK]);
});

after(async () => {
  for (const file of played.reverse()) await sh('podman', ['kube', 'down', file], { env: penv, timeoutMs: 120_000 });
  const pods = (await sh('podman', ['pod', 'ps', '--format', '{{.Name}}', '--filter', `name=^${PREFIX}-`], { env: penv })).out.split('\n').filter((n) => n.startsWith(`${PREFIX}-`));
  for (const pod of pods) await sh('podman', ['pod', 'rm', '-f', pod], { env: penv });
  await sh('podman', ['secret', 'rm', GATEWAY_SECRET, CODEC_SECRET], { env: penv });
  await sh('podman', ['network', 'rm', NETWORK], { env: penv });
  // The podman copies and the second tag; swflow:sw-k8s-1 stays in docker's store as the next build's cache.
  await sh('podman', ['rmi', `localhost/${IMAGE_1}`, `localhost/${IMAGE_2}`], { env: penv });
  await sh('docker', ['rmi', IMAGE_2]);
  await client?.connection.close().catch(() => {});
  await server?.stop();
  service?.close();
  rmSync(dir, { recursive: true, force: true });
  log(`cleaned up: ${pods.length} pod(s), network ${NETWORK}, secrets, the podman copies of both images and ${IMAGE_2}`);
});

test('helm template output plays as pods: Deployments (as rendered, bar hostPorts and explicit optional: false) and the definitions ConfigMap; the rest is not played', async () => {
  const { docs } = await render(values(`${PREFIX}-1`));
  rendered1 = docs;
  const kinds = docs.map((d) => `${d.kind}/${d.metadata.name}`).sort();
  const started = Date.now();
  await play(docs, 'release-1');
  const pods = (await podman(['pod', 'ps', '--format', '{{.Name}} {{.Status}}', '--filter', `name=^${PREFIX}-`])).trim().split('\n').sort();
  const deployments = docs.filter((d) => d.kind === 'Deployment').map((d) => d.metadata.name);
  for (const d of deployments) assert.ok(pods.some((p) => p.startsWith(`${podName(d)} Running`)), `${podName(d)} runs: ${pods.join('; ')}`);
  // Each container runs as the chart says: uid 1000, read-only root, /tmp writable, the definitions and codec keys mounted.
  for (const d of deployments) {
    const container = `${podName(d)}-${docs.find((x) => x.kind === 'Deployment' && x.metadata.name === d)!.spec.template.spec.containers[0].name}`;
    const inside = await podman(['exec', container, 'sh', '-c', 'id -u; touch /app/x 2>/dev/null && echo writable-root || echo read-only-root; touch /tmp/x && echo tmp-writable; ls /etc/swflow/definitions /etc/swflow/codec | tr "\\n" " "']);
    assert.match(inside, /^1000\nread-only-root\ntmp-writable\n/, `${container}: ${inside}`);
    assert.match(inside, /k8s-order\.sw\.yaml k8s-pay\.sw\.yaml/);
    assert.match(inside, new RegExp(`${CODEC_KEY_ID}\\.key`));
  }
  log(`rendered: ${kinds.join(', ')}`);
  log(`played with podman kube play in ${Math.round((Date.now() - started) / 1000)} s: ${pods.join('; ')}; not played: ${docs.filter((d) => NOT_PLAYED.includes(d.kind)).map((d) => `${d.kind}/${d.metadata.name}`).join(', ')}`);
  log('each container: uid 1000, read-only root file system, writable /tmp (emptyDir), ConfigMap and Secret volumes mounted');
});

test('every probe the rendered Deployments declare answers 200 on its declared port, from the host, once ready', async () => {
  const lines: string[] = [];
  for (const d of rendered1.filter((x) => x.kind === 'Deployment')) {
    const ip = await podIp(podName(d.metadata.name));
    for (const probe of probesOf(d)) {
      const url = `http://${ip}:${probe.port}${probe.path}`;
      await waitFor(`${d.metadata.name} ${probe.kind} ${url} to answer 200`, async () => ((await httpStatus(url)) === 200 ? true : undefined), 120_000);
      lines.push(`${d.metadata.name.replace(`${RELEASE}-swflow-`, '')} ${probe.kind} :${probe.port}${probe.path}`);
    }
  }
  log(`probes answered 200 (pod IPs on ${NETWORK}): ${lines.join(', ')}`);
  log('not exercised: podman runs none of these probes itself (readiness and startup are ignored; liveness becomes a health check that needs systemd timers)');
});

async function gatewayUrl(docs: Doc[]): Promise<string> {
  const gateway = docs.find((d) => d.kind === 'Deployment' && d.metadata.labels['app.kubernetes.io/component'] === 'gateway')!;
  const port = gateway.spec.template.spec.containers[0].ports.find((p: Doc) => p.name === 'http').containerPort;
  return `http://${await podIp(podName(gateway.metadata.name))}:${port}/`;
}

test('a 0.8 and a 1.0 run started with the Temporal CLI complete through the pods: an event through the gateway pod, a timer, a call served by the adapters pod', async () => {
  const gateway = await gatewayUrl(rendered1);
  const adaptersIp = await podIp(podName(`${RELEASE}-swflow-adapters`));
  const started = Date.now();
  await startRun('k8sorder', 'k8s-order-1');
  await startRun('k8s/pay', 'k8s-pay-1');
  await sendEvent(gateway, 'k8s.order.placed', { item: 'apple' });
  await sendEvent(gateway, 'k8s.payment', { amount: 42 });
  for (const id of ['k8s-order-1', 'k8s-pay-1']) await waitCompleted(id);
  const order = await client.workflow.getHandle('k8s-order-1').result();
  const pay = await client.workflow.getHandle('k8s-pay-1').result();
  for (const id of ['k8s-order-1', 'k8s-pay-1']) {
    // As the server stores it: encrypted by the interpreter pod with the key of the Secret volume.
    const history = JSON.parse(await temporal(['workflow', 'show', '--workflow-id', id, '--output', 'json']));
    const result = (history.events as Doc[]).find((e) => e.workflowExecutionCompletedEventAttributes)!.workflowExecutionCompletedEventAttributes.result.payloads[0];
    assert.equal(Buffer.from(result.metadata.encoding, 'base64').toString(), 'binary/encrypted', `${id}'s result is encrypted`);
  }
  assert.deepEqual(order.confirmation, { confirmed: true, item: 'apple' });
  assert.deepEqual(pay, { confirmed: true, item: 'payment' });
  assert.deepEqual([...new Set(serviceCallers)], [adaptersIp], 'every call reached the service from the adapters pod');
  for (const id of ['k8s-order-1', 'k8s-pay-1']) {
    const tasks = await workflowTasks(id);
    assert.ok(tasks.identities.every((i) => i.includes(podName(`${RELEASE}-swflow-interpreter`))), `${id}: workflow tasks by ${tasks.identities}`);
  }
  log(`0.8 k8sorder and 1.0 k8s/pay: started with the Temporal CLI, events POSTed to the gateway pod (bearer token from a Secret), completed in ${Math.round((Date.now() - started) / 1000)} s; results encrypted with the codec key from a Secret volume (decrypted here)`);
  log(`calls: ${serviceCallers.length} request(s) to the service, all from the adapters pod (${adaptersIp}); workflow tasks all by the interpreter pod`);
});

test('upgrade to a second image tag: the waiting run of build 1 stays on it (previous-build Deployment) and completes; a new run goes to build 2', async () => {
  const build1 = `${PREFIX}-1`;
  const build2 = `${PREFIX}-2`;
  await startRun('k8s/pay', 'k8s-pay-old');
  await waitFor('k8s-pay-old to start on build 1', async () => ((await workflowTasks('k8s-pay-old')).buildIds.includes(build1) ? true : undefined), 30_000);

  const { docs } = await render(values(build2, [{ buildId: build1, tag: build1, replicas: 1 }]));
  const previous = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === `${RELEASE}-swflow-interpreter-${build1}`);
  assert.ok(previous, 'the previous build has its own Deployment');
  assert.equal(previous.spec.template.spec.containers[0].image, `swflow:${build1}`);
  const started = Date.now();
  await play(docs, 'release-2');
  const pods = (await podman(['pod', 'ps', '--format', '{{.Name}}', '--filter', `name=^${PREFIX}-`])).trim().split('\n').sort();
  for (const d of docs.filter((x) => x.kind === 'Deployment')) assert.ok(pods.includes(podName(d.metadata.name)), `${podName(d.metadata.name)} in ${pods}`);
  const images = await podman(['ps', '--format', '{{.Names}} {{.Image}}', '--filter', `name=^${PREFIX}-swflow-interpreter`]);

  // The second build's pods make it current once they poll.
  await waitFor(
    `${build2} to become the current version`,
    async () => {
      const d = JSON.parse(await temporal(['worker', 'deployment', 'describe', '--name', 'swflow', '--output', 'json']));
      return currentBuildIds(d).includes(build2) ? true : undefined;
    },
    120_000,
  );
  await startRun('k8s/pay', 'k8s-pay-new');
  await waitFor('k8s-pay-new to start on build 2', async () => ((await workflowTasks('k8s-pay-new')).buildIds.includes(build2) ? true : undefined), 60_000);
  // One event: every running instance of k8s/pay takes it (the old run on build 1, the new on build 2).
  await sendEvent(await gatewayUrl(docs), 'k8s.payment', { amount: 7 });
  for (const id of ['k8s-pay-old', 'k8s-pay-new']) await waitCompleted(id);

  const old = await workflowTasks('k8s-pay-old');
  const fresh = await workflowTasks('k8s-pay-new');
  const previousPod = podName(`${RELEASE}-swflow-interpreter-${build1}`);
  const currentPod = podName(`${RELEASE}-swflow-interpreter`);
  assert.deepEqual([...new Set(old.buildIds)], [build1], `k8s-pay-old's workflow tasks: ${old.buildIds}`);
  assert.ok(old.identities.at(-1)!.includes(previousPod), `k8s-pay-old finished on the previous-build pod: ${old.identities}`);
  assert.deepEqual([...new Set(fresh.buildIds)], [build2], `k8s-pay-new's workflow tasks: ${fresh.buildIds}`);
  assert.ok(fresh.identities.every((i) => i.includes(currentPod)), `k8s-pay-new by the current pod: ${fresh.identities}`);
  const versioning = JSON.stringify((await describe('k8s-pay-old')).workflowExecutionInfo?.versioningInfo);
  assert.match(versioning, new RegExp(`PINNED.*${build1}|${build1}.*PINNED`), `temporal workflow describe shows the run pinned to build 1: ${versioning}`);
  log(`upgrade: re-rendered with image.tag=${build2}, versioning.previousBuilds=[${build1}], played (kube down release 1, kube play release 2) in ${Math.round((Date.now() - started) / 1000)} s; interpreter pods: ${images.trim().split('\n').join('; ')}`);
  log(`temporal workflow describe k8s-pay-old: versioningInfo ${versioning}`);
  log(`k8s-pay-old: every workflow task on build ${build1} (the last by ${previousPod}); k8s-pay-new: every workflow task on build ${build2} (${currentPod}); both completed after one event through the gateway pod`);
});

/** Plays a release of its own, waits for `ready(logs, containers)` over its containers' logs and states, then takes it down. */
async function playBad(release: string, change: (v: Doc) => void, check: (pods: Record<string, { log: string; restarts: number; running: boolean; ip: string }>) => Promise<boolean | undefined>): Promise<void> {
  const v = values(`${PREFIX}-1`);
  change(v);
  const file = join(dir, `values-${release}.json`);
  writeFileSync(file, JSON.stringify(v));
  const docs = (parseAllDocuments(await must(helm, ['template', release, CHART, '-f', file])).map((d) => d.toJSON()).filter(Boolean) as Doc[]);
  const manifest = join(dir, `${release}.yaml`);
  writeFileSync(manifest, (await playable(docs)).map((d) => stringify(d)).join('---\n'));
  played.push(manifest);
  // Containers that exit at once can make `kube play` itself report a failed start: what counts is what they log and do.
  // and podman then leaves the pods after the failing one created, not started: start each (as a kubelet would).
  await sh('podman', ['kube', 'play', '--network', NETWORK, manifest], { env: penv, timeoutMs: 120_000 });
  for (const d of docs.filter((x) => x.kind === 'Deployment')) await sh('podman', ['pod', 'start', podName(d.metadata.name)], { env: penv });
  const state = async () => {
    const out: Record<string, { log: string; restarts: number; running: boolean; ip: string }> = {};
    for (const component of ['interpreter', 'adapters', 'gateway']) {
      const pod = podName(`${release}-swflow-${component}`);
      const container = `${pod}-${component}`;
      const r = await sh('podman', ['logs', container], { env: penv });
      const inspect = (await sh('podman', ['inspect', container, '--format', '{{.RestartCount}} {{.State.Running}}'], { env: penv })).out.trim().split(' ');
      out[component] = { log: r.out + r.err, restarts: Number(inspect[0]), running: inspect[1] === 'true', ip: await podIp(pod).catch(() => '') };
    }
    return out;
  };
  let last: Awaited<ReturnType<typeof state>> = {};
  try {
    await waitFor(`${release} to show its bad setting`, async () => ((await check((last = await state()))) ? true : undefined), 90_000);
  } catch (err) {
    const seen = Object.entries(last).map(([c, x]) => `--- ${c}: running ${x.running}, ${x.restarts} restart(s), ip ${x.ip}\n${x.log.slice(-1500)}`);
    throw new Error(`${(err as Error).message}\n${seen.join('\n')}`);
  } finally {
    await sh('podman', ['kube', 'down', manifest], { env: penv, timeoutMs: 120_000 });
  }
  for (const [component, s] of Object.entries(last)) log(`${release} ${component}: ${s.running ? 'running' : 'exited'}, ${s.restarts} restart(s); says: ${s.log.trim().split('\n').filter((l) => /TEMPORAL|SWFLOW_|connect|refused/i.test(l))[0]?.slice(0, 200) ?? '(nothing)'}`);
}

test('bad settings: a wrong temporal.address (workers exit naming TEMPORAL_ADDRESS, the gateway stays not ready and refuses events), a codec Secret without keys (every process exits naming SWFLOW_CODEC_KEY_FILE) and a missing definitions ConfigMap (nothing starts)', async () => {
  const closed = await freePort();
  const wrong = `host.containers.internal:${closed}`;
  await playBad(`${PREFIX}-badaddr`, (v) => (v.temporal.address = wrong), async (pods) => {
    // Each worker says which server does not answer, and the setting that named it.
    const workersDown = ['interpreter', 'adapters'].every((c) => pods[c]!.log.includes(`TEMPORAL_ADDRESS=${wrong} does not answer`) && (pods[c]!.restarts > 0 || !pods[c]!.running));
    if (!workersDown || !pods.gateway!.ip) return undefined;
    const base = `http://${pods.gateway!.ip}:8080`;
    const [healthz, readyz] = [await httpStatus(`${base}/healthz`), await httpStatus(`${base}/readyz`)];
    const event = await fetch(`${base}/`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'ce-specversion': '1.0', 'ce-type': 'k8s.payment', 'ce-source': 'k8s-test', 'ce-id': 'bad-1' }, body: '{}' });
    await event.arrayBuffer();
    return healthz === 200 && readyz === 503 && event.status === 503 ? true : undefined;
  });
  log(`wrong temporal.address ${wrong}: interpreter and adapters exit (restarted by the pod) naming TEMPORAL_ADDRESS=${wrong}; the gateway is alive (/healthz 200), not ready (/readyz 503) and answers events 503`);

  writeFileSync(join(dir, 'empty-secret.json'), JSON.stringify({ data: {} }));
  await sh('podman', ['secret', 'rm', `${CODEC_SECRET}-empty`], { env: penv });
  await podman(['secret', 'create', `${CODEC_SECRET}-empty`, join(dir, 'empty-secret.json')]);
  try {
    await playBad(`${PREFIX}-nokeys`, (v) => (v.codec.existingSecret = `${CODEC_SECRET}-empty`), async (pods) =>
      Object.values(pods).every((p) => /SWFLOW_CODEC_KEY_FILE=\/etc\/swflow\/codec holds no key/.test(p.log) && (p.restarts > 0 || !p.running)) ? true : undefined,
    );
  } finally {
    await sh('podman', ['secret', 'rm', `${CODEC_SECRET}-empty`], { env: penv });
  }
  log('codec Secret without <id>.key entries: interpreter, adapters and gateway each exit naming SWFLOW_CODEC_KEY_FILE (none runs unencrypted)');

  // definitions.existingConfigMap naming no ConfigMap: nothing starts (kubelet would hold the pods in ContainerCreating; podman refuses the play).
  const missing = `${PREFIX}-missing-definitions`;
  const v = values(`${PREFIX}-1`);
  v.definitions = { source: 'existingConfigMap', existingConfigMap: missing };
  writeFileSync(join(dir, 'values-nodefs.json'), JSON.stringify(v));
  const docs = parseAllDocuments(await must(helm, ['template', `${PREFIX}-nodefs`, CHART, '-f', join(dir, 'values-nodefs.json')])).map((d) => d.toJSON()).filter(Boolean) as Doc[];
  const manifest = join(dir, 'nodefs.yaml');
  writeFileSync(manifest, (await playable(docs)).map((d) => stringify(d)).join('---\n'));
  played.push(manifest);
  const refused = await sh('podman', ['kube', 'play', '--network', NETWORK, manifest], { env: penv, timeoutMs: 120_000 });
  const running = (await podman(['ps', '--format', '{{.Names}}', '--filter', `name=^${PREFIX}-nodefs-`])).trim();
  await sh('podman', ['kube', 'down', manifest], { env: penv, timeoutMs: 120_000 });
  assert.notEqual(refused.code, 0, 'podman kube play refuses a missing definitions ConfigMap');
  assert.match(refused.err, new RegExp(missing));
  assert.equal(running, '', 'no container of that release runs');
  log(`definitions.existingConfigMap=${missing} (no such ConfigMap): podman kube play refuses (${refused.err.trim().split('\n').at(-1)?.slice(0, 160)}); no container runs`);
});
