/**
 * The Helm chart (deploy/helm/swflow): `helm lint`, `helm template` with the default values and
 * with others (autoscaling on a Prometheus metric, existing Secrets for the API key, mTLS, codec
 * keys and call secrets, definitions from an image, a previous build kept for its pinned runs),
 * and every rendering checked by the offline validator (deploy/helm/validate: each document
 * decoded strictly into its k8s.io/api type, plus the rules the API server adds), which must
 * also refuse a broken manifest.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { buildValidator, resolveHelm } from '../helpers/helm';

const CHART = resolve(__dirname, '..', '..', 'deploy', 'helm', 'swflow');
const run = promisify(execFile);
let helm: string;
let validator: string;
const dir = mkdtempSync(join(tmpdir(), 'swflow-helm-'));

before(async () => {
  const log = (m: string) => console.error(`[helm test] ${m}`);
  [helm, validator] = await Promise.all([resolveHelm(log), buildValidator(log)]);
});

after(() => rmSync(dir, { recursive: true, force: true }));

type Doc = Record<string, any>;

async function template(values: Record<string, unknown> = {}, args: string[] = []): Promise<{ text: string; docs: Doc[] }> {
  const file = join(dir, `values-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(values));
  const { stdout } = await run(helm, ['template', 'prod', CHART, '--namespace', 'workflows', '-f', file, ...args], { maxBuffer: 16 * 1024 * 1024 });
  const docs = parseAllDocuments(stdout).map((d) => d.toJSON()).filter(Boolean) as Doc[];
  return { text: stdout, docs };
}

async function validate(text: string): Promise<{ ok: boolean; out: string }> {
  const file = join(dir, `manifest-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  try {
    const { stdout, stderr } = await run(validator, [file]);
    return { ok: true, out: stdout + stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const find = (docs: Doc[], kind: string, name: string) => {
  const d = docs.find((x) => x.kind === kind && x.metadata?.name === name);
  assert.ok(d, `no ${kind}/${name} in ${docs.map((x) => `${x.kind}/${x.metadata?.name}`).join(', ')}`);
  return d;
};
const container = (d: Doc) => d.spec.template.spec.containers[0];
const envOf = (d: Doc) => Object.fromEntries(container(d).env.map((e: Doc) => [e.name, e.value ?? e.valueFrom]));
/** `text` with `change` applied to the one document that holds both `a` and `b`. */
const inDocument = (text: string, a: string, b: string, change: (doc: string) => string) =>
  text.split('\n---\n').map((d) => (d.includes(a) && d.includes(b) ? change(d) : d)).join('\n---\n');
const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)![1]);

test('helm lint passes, with the default values and with strict linting', async () => {
  const { stdout } = await run(helm, ['lint', CHART, '--strict']);
  assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
});

test('the default rendering: three Deployments with probes, grace periods longer than the drain, PDBs, a Service, the definitions ConfigMap; valid', async () => {
  const { text, docs } = await template();
  const result = await validate(text);
  assert.ok(result.ok, result.out);
  assert.match(result.out, /9 document\(s\) valid/);
  assert.deepEqual(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort(), [
    'ConfigMap/prod-swflow-definitions',
    'Deployment/prod-swflow-adapters',
    'Deployment/prod-swflow-gateway',
    'Deployment/prod-swflow-interpreter',
    'PodDisruptionBudget/prod-swflow-adapters',
    'PodDisruptionBudget/prod-swflow-gateway',
    'PodDisruptionBudget/prod-swflow-interpreter',
    'Service/prod-swflow-gateway',
    'ServiceAccount/prod-swflow',
  ]);
  for (const name of ['interpreter', 'adapters']) {
    const d = find(docs, 'Deployment', `prod-swflow-${name}`);
    const c = container(d);
    assert.equal(c.command, undefined, 'the image\'s ENTRYPOINT (node /app/bin/swflow.js) runs; args are its subcommand');
    assert.equal(c.args[0], name === 'interpreter' ? 'worker' : 'adapters');
    assert.equal(c.livenessProbe.httpGet.path, '/healthz');
    assert.equal(c.readinessProbe.httpGet.path, '/readyz');
    assert.equal(c.readinessProbe.httpGet.port, 'health');
    const env = envOf(d);
    assert.equal(env.SWFLOW_HEALTH_PORT, '8081');
    assert.equal(env.SWFLOW_HEALTH_HOST, '0.0.0.0');
    assert.equal(env.SWFLOW_METRICS_PORT, '9464');
    assert.equal(env.MALLOC_ARENA_MAX, '2', 'glibc malloc held to 2 arenas, whatever the image');
    // Kubernetes kills the pod at the end of its grace period: the worker's drain must end first.
    assert.ok(d.spec.template.spec.terminationGracePeriodSeconds > seconds(env.SWFLOW_SHUTDOWN_GRACE), `${name}: grace ${d.spec.template.spec.terminationGracePeriodSeconds} s vs drain ${env.SWFLOW_SHUTDOWN_GRACE}`);
    assert.equal(d.spec.template.spec.securityContext.runAsNonRoot, true);
    assert.equal(c.securityContext.readOnlyRootFilesystem, true);
  }
  const interpreter = envOf(find(docs, 'Deployment', 'prod-swflow-interpreter'));
  assert.equal(interpreter.SWFLOW_BUILD_ID, '0.1.0', 'the build id defaults to the image tag');
  assert.equal(interpreter.SWFLOW_VERSIONING_BEHAVIOR, 'pinned');
  assert.equal(interpreter.TEMPORAL_API_KEY, undefined);
  const gateway = find(docs, 'Deployment', 'prod-swflow-gateway');
  assert.deepEqual(container(gateway).args, ['gateway', '--definitions', '/etc/swflow/definitions', '--host', '0.0.0.0', '--port', '8080']);
  assert.equal(container(gateway).readinessProbe.httpGet.port, 'http');
  assert.deepEqual(find(docs, 'Service', 'prod-swflow-gateway').spec.selector, gateway.spec.selector.matchLabels);
  assert.match(find(docs, 'ConfigMap', 'prod-swflow-definitions').data['hello-world.sw.yaml'], /id: helloworld/);
});

test('production values: Temporal Cloud secrets, codec keys, autoscaling on a Prometheus metric, definitions from an image, a previous build; valid', async () => {
  const { text, docs } = await template({
    image: { repository: 'registry.example/swflow', tag: '1.4.0' },
    temporal: { address: 'orders.a1b2c.tmprl.cloud:7233', namespace: 'orders.a1b2c', apiKey: { existingSecret: 'temporal-cloud' }, mtls: { existingSecret: 'temporal-mtls', caKey: 'ca.crt' } },
    codec: { existingSecret: 'codec-keys', currentKey: '2026-11' },
    callSecrets: { existingSecret: 'call-secrets' },
    definitions: { source: 'image', image: { repository: 'registry.example/order-workflows', tag: '7', path: '/workflows' } },
    versioning: { behavior: 'auto-upgrade', previousBuilds: [{ buildId: '1.3.2', replicas: 2 }] },
    interpreter: { autoscaling: { enabled: true, metric: { name: 'temporal_worker_task_slots_used', averageValue: '50' } } },
    adapters: { autoscaling: { enabled: true } },
    gateway: { auth: { existingSecret: 'gateway-auth' }, pdb: { minAvailable: 1 } },
  });
  const result = await validate(text);
  assert.ok(result.ok, result.out);

  const current = find(docs, 'Deployment', 'prod-swflow-interpreter');
  assert.equal(current.spec.replicas, undefined, 'the HPA owns the replica count');
  assert.equal(container(current).image, 'registry.example/swflow:1.4.0');
  const env = envOf(current);
  assert.deepEqual(env.TEMPORAL_API_KEY, { secretKeyRef: { name: 'temporal-cloud', key: 'api-key' } });
  assert.equal(env.TEMPORAL_TLS_CERT, '/etc/swflow/tls/tls.crt');
  assert.equal(env.TEMPORAL_TLS_CA, '/etc/swflow/tls/ca.crt');
  assert.equal(env.SWFLOW_CODEC_KEY_FILE, '/etc/swflow/codec');
  assert.equal(env.SWFLOW_CODEC_CURRENT_KEY, '2026-11');
  assert.equal(env.SWFLOW_BUILD_ID, '1.4.0');
  assert.equal(env.SWFLOW_VERSIONING_BEHAVIOR, 'auto-upgrade');
  assert.deepEqual(container(current).envFrom, [{ secretRef: { name: 'call-secrets' } }]);
  const volumes = Object.fromEntries(current.spec.template.spec.volumes.map((v: Doc) => [v.name, v]));
  assert.equal(volumes['temporal-tls'].secret.secretName, 'temporal-mtls');
  assert.equal(volumes['codec-keys'].secret.secretName, 'codec-keys');
  assert.deepEqual(volumes.definitions.emptyDir, {});
  const init = current.spec.template.spec.initContainers[0];
  assert.equal(init.image, 'registry.example/order-workflows:7');
  assert.match(init.command.join(' '), /cp -R \/workflows\/\. \/etc\/swflow\/definitions\//);

  const previous = find(docs, 'Deployment', 'prod-swflow-interpreter-1-3-2');
  assert.equal(container(previous).image, 'registry.example/swflow:1.3.2');
  assert.equal(previous.spec.replicas, 2);
  assert.equal(envOf(previous).SWFLOW_BUILD_ID, '1.3.2');
  assert.equal(envOf(previous).SWFLOW_SET_CURRENT, 'false');
  assert.ok(container(previous).args.includes('--no-schedules'));
  assert.ok(!container(previous).args.includes('--no-eager-calls'), 'eager calls stay on by default');
  // The two builds' selectors must not overlap, nor the PDB take the previous build's pods.
  assert.notDeepEqual(previous.spec.selector.matchLabels, current.spec.selector.matchLabels);
  assert.deepEqual(find(docs, 'PodDisruptionBudget', 'prod-swflow-interpreter').spec.selector.matchLabels, current.spec.selector.matchLabels);

  const hpa = find(docs, 'HorizontalPodAutoscaler', 'prod-swflow-interpreter');
  assert.equal(hpa.apiVersion, 'autoscaling/v2');
  assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'prod-swflow-interpreter' });
  assert.deepEqual(hpa.spec.metrics.map((m: Doc) => m.type), ['Resource', 'Pods']);
  assert.deepEqual(hpa.spec.metrics[1].pods, { metric: { name: 'temporal_worker_task_slots_used' }, target: { type: 'AverageValue', averageValue: '50' } });
  assert.deepEqual(find(docs, 'HorizontalPodAutoscaler', 'prod-swflow-adapters').spec.metrics.map((m: Doc) => m.type), ['Resource']);
  assert.ok(!docs.some((d) => d.kind === 'HorizontalPodAutoscaler' && d.metadata.name === 'prod-swflow-gateway'));
  assert.equal(find(docs, 'PodDisruptionBudget', 'prod-swflow-gateway').spec.minAvailable, 1);

  const gatewayEnv = envOf(find(docs, 'Deployment', 'prod-swflow-gateway'));
  assert.deepEqual(gatewayEnv.SWFLOW_GATEWAY_TOKEN, { secretKeyRef: { name: 'gateway-auth', key: 'token', optional: true } });
  assert.equal(container(find(docs, 'Deployment', 'prod-swflow-gateway')).envFrom, undefined, 'call secrets stay off the gateway');
  assert.ok(!text.includes('kind: ConfigMap'), 'no definitions ConfigMap when they come from an image');
});

test('definitions from the swflow image itself, or from an existing ConfigMap; versioning off', async () => {
  const inImage = await template({ definitions: { source: 'image', image: { path: '/app/workflows' } }, versioning: { enabled: false } });
  assert.ok((await validate(inImage.text)).ok);
  const d = find(inImage.docs, 'Deployment', 'prod-swflow-interpreter');
  assert.deepEqual(container(d).args.slice(0, 3), ['worker', '--definitions', '/app/workflows']);
  assert.equal(d.spec.template.spec.initContainers, undefined);
  assert.equal(envOf(d).SWFLOW_BUILD_ID, undefined);
  const existing = await template({ definitions: { source: 'existingConfigMap', existingConfigMap: 'order-workflows' } });
  assert.ok((await validate(existing.text)).ok);
  const volume = find(existing.docs, 'Deployment', 'prod-swflow-adapters').spec.template.spec.volumes.find((v: Doc) => v.name === 'definitions');
  assert.deepEqual(volume.configMap, { name: 'order-workflows' });
});

test('the gateway consumes Kafka: gateway.kafka.* become its SWFLOW_KAFKA_* environment, the SASL password from a Secret; valid', async () => {
  const { text, docs } = await template({
    gateway: { kafka: { brokers: 'kafka-0.kafka:9092,kafka-1.kafka:9092', topics: ['orders', 'payments'], group: 'swflow-prod', deadLetterTopic: 'swflow-dlq', sessionTimeoutMs: 20000, keyConcurrency: 4, trusted: true, tls: true, sasl: { mechanism: 'SCRAM-SHA-512', username: 'swflow', existingSecret: 'kafka-creds' } } },
  });
  const result = await validate(text);
  assert.ok(result.ok, result.out);
  const gateway = find(docs, 'Deployment', 'prod-swflow-gateway');
  const env = envOf(gateway);
  assert.equal(env.SWFLOW_KAFKA_BROKERS, 'kafka-0.kafka:9092,kafka-1.kafka:9092');
  assert.equal(env.SWFLOW_KAFKA_TOPICS, 'orders,payments');
  assert.equal(env.SWFLOW_KAFKA_GROUP, 'swflow-prod');
  assert.equal(env.SWFLOW_KAFKA_DEAD_LETTER_TOPIC, 'swflow-dlq');
  assert.equal(env.SWFLOW_KAFKA_SESSION_TIMEOUT, '20000');
  assert.equal(env.SWFLOW_KAFKA_KEY_CONCURRENCY, '4');
  assert.equal(env.SWFLOW_KAFKA_TLS, '1');
  assert.equal(env.SWFLOW_KAFKA_SASL_MECHANISM, 'SCRAM-SHA-512');
  assert.equal(env.SWFLOW_KAFKA_USERNAME, 'swflow');
  assert.deepEqual(env.SWFLOW_KAFKA_PASSWORD, { secretKeyRef: { name: 'kafka-creds', key: 'password' } });
  assert.ok(container(gateway).args.includes('--kafka-trusted'));
  for (const name of ['prod-swflow-interpreter', 'prod-swflow-adapters']) assert.equal(envOf(find(docs, 'Deployment', name)).SWFLOW_KAFKA_BROKERS, undefined, `${name} does not consume`);
  const plain = envOf(find((await template()).docs, 'Deployment', 'prod-swflow-gateway'));
  assert.ok(!Object.keys(plain).some((k) => k.startsWith('SWFLOW_KAFKA_')), 'no Kafka by default');
  console.log('helm: gateway.kafka.* rendered as 10 SWFLOW_KAFKA_* variables (password from a Secret) and --kafka-trusted; none by default');
});

test('bad values fail the rendering with a message saying which', async () => {
  const fails = async (values: Record<string, unknown>, message: RegExp) => {
    await assert.rejects(template(values), (err: { stderr?: string }) => (assert.match(err.stderr ?? '', message), true));
  };
  await fails({ definitions: { source: 'git' } }, /definitions.source must be configMap, existingConfigMap or image, not "git"/);
  await fails({ definitions: { source: 'existingConfigMap' } }, /definitions.existingConfigMap is required/);
  await fails({ interpreter: { autoscaling: { enabled: true, metric: { name: 'x' } } } }, /interpreter.autoscaling.metric.averageValue is required/);
  await fails({ versioning: { previousBuilds: [{ buildId: '0.1.0' }] } }, /previousBuilds names "0.1.0", the current build/);
  await fails({ gateway: { kafka: { brokers: 'k:9092' } } }, /gateway.kafka.brokers is set but gateway.kafka.topics is empty/);
  await fails({ gateway: { kafka: { brokers: 'k:9092', topics: ['a'], sasl: { mechanism: 'PLAIN', username: 'u' } } } }, /gateway.kafka.sasl.mechanism needs gateway.kafka.sasl.existingSecret/);
});

test('the validator refuses broken manifests: unknown fields, wrong types, unknown kinds, mismatched selectors, missing ports', async () => {
  const { text } = await template();
  const broken: [string, string, RegExp][] = [
    ['a misspelt field', text.replace('containerPort: 8081', 'contanerPort: 8081'), /unknown field "spec.template.spec.containers\[0\].ports\[0\].contanerPort"/],
    ['a string for a number', text.replace(/terminationGracePeriodSeconds: 45/, 'terminationGracePeriodSeconds: "soon"'), /Deployment.*terminationGracePeriodSeconds|cannot unmarshal string/],
    ['an unknown kind', `${text}\n---\napiVersion: apps/v1\nkind: Deploiement\nmetadata:\n  name: x\n`, /no kind "Deploiement" is registered/],
    ['a selector that matches no pod', inDocument(text, 'kind: Deployment', 'name: prod-swflow-gateway\n', (d) => d.replace('      app.kubernetes.io/component: gateway', '      app.kubernetes.io/component: gatewey')), /Deployment\/prod-swflow-gateway: spec.selector does not match/],
    ['a probe on a missing port', text.replace(/port: health/, 'port: healthz'), /httpGet.port "healthz" names no container port/],
  ];
  for (const [what, manifest, message] of broken) {
    assert.notEqual(manifest, text, `${what}: the replacement did not apply`);
    const result = await validate(manifest);
    assert.equal(result.ok, false, `${what} passed the validator`);
    assert.match(result.out, message, what);
  }
});

test('interpreter.eagerCalls false: the interpreter, current and previous builds, sends every call to the adapters (--no-eager-calls); valid', async () => {
  const { text, docs } = await template({ image: { tag: '1.4.0' }, interpreter: { eagerCalls: false }, versioning: { previousBuilds: [{ buildId: '1.3.2' }] } });
  const result = await validate(text);
  assert.ok(result.ok, result.out);
  for (const name of ['prod-swflow-interpreter', 'prod-swflow-interpreter-1-3-2']) assert.ok(container(find(docs, 'Deployment', name)).args.includes('--no-eager-calls'), name);
  assert.ok(!container(find(docs, 'Deployment', 'prod-swflow-adapters')).args.includes('--no-eager-calls'));
});

test('interpreter.eventSinks and lifecycleEvents: SWFLOW_EVENT_SINKS and SWFLOW_LIFECYCLE_EVENTS on the interpreter, current and previous builds, Kafka SASL from a Secret; none by default; valid', async () => {
  const sinks = ['kafka://kafka-0.kafka:9092,kafka-1.kafka:9092/workflow-events?mode=structured', 'https://broker-ingress.knative-eventing/default/default'];
  const { text, docs } = await template({
    image: { tag: '1.4.0' },
    interpreter: {
      eventSinks: sinks,
      lifecycleEvents: true,
      extraEnv: [
        { name: 'SWFLOW_KAFKA_SASL_MECHANISM', value: 'SCRAM-SHA-512' },
        { name: 'SWFLOW_KAFKA_USERNAME', value: 'swflow' },
        { name: 'SWFLOW_KAFKA_PASSWORD', valueFrom: { secretKeyRef: { name: 'kafka-credentials', key: 'password' } } },
      ],
    },
    versioning: { previousBuilds: [{ buildId: '1.3.2' }] },
  });
  const result = await validate(text);
  assert.ok(result.ok, result.out);
  for (const name of ['prod-swflow-interpreter', 'prod-swflow-interpreter-1-3-2']) {
    const env = envOf(find(docs, 'Deployment', name));
    assert.equal(env.SWFLOW_EVENT_SINKS, sinks.join(','), name);
    assert.equal(env.SWFLOW_LIFECYCLE_EVENTS, 'true', name);
  }
  const current = envOf(find(docs, 'Deployment', 'prod-swflow-interpreter'));
  assert.deepEqual(current.SWFLOW_KAFKA_PASSWORD, { secretKeyRef: { name: 'kafka-credentials', key: 'password' } });
  for (const name of ['prod-swflow-adapters', 'prod-swflow-gateway']) assert.equal(envOf(find(docs, 'Deployment', name)).SWFLOW_EVENT_SINKS, undefined, name);
  const plain = envOf(find((await template()).docs, 'Deployment', 'prod-swflow-interpreter'));
  assert.equal(plain.SWFLOW_EVENT_SINKS, undefined, 'no sink by default');
  assert.equal(plain.SWFLOW_LIFECYCLE_EVENTS, undefined, 'no lifecycle events by default');
  await assert.rejects(template({ interpreter: { eventSinks: ['amqp://u:pw@rabbit/x'] } }), (err: { stderr?: string }) => {
    assert.match(err.stderr ?? '', /interpreter.eventSinks: "amqp:\/\/\*\*\*@rabbit\/x" is not an event sink/);
    assert.doesNotMatch(err.stderr ?? '', /u:pw/);
    return true;
  });
  console.log(`helm: interpreter.eventSinks (${sinks.length}) and lifecycleEvents reach both interpreter builds as env; a bad sink fails the rendering, redacted`);
});
