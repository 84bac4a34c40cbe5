/**
 * Events in by other ways than curl, through the same routing code as the HTTP gateway:
 * CloudEvents from an MQTT topic (a real broker: embedded aedes, MQTT 3.1.1, structured mode)
 * and `swflow event send` (the real CLI process) to the gateway, straight to Temporal, and to
 * MQTT — on the dev server with the real interpreter.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { MQTT, type CloudEventV1 } from 'cloudevents';
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { DefinitionRegistry } from '../../src/definitions/registry';
import { startGateway, type Gateway } from '../../src/gateway/server';
import { enableMetrics } from '../../src/metrics';
import { eventFromMqtt, startMqttInbound, type MqttInbound, type MqttLogEntry } from '../../src/gateway/mqtt';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { startMqttBroker, type MqttBroker } from '../helpers/mqtt-broker';
import { runSwflow } from '../helpers/cli';

const TOKEN = 'inbound-token';

const DEFINITIONS = {
  greeter: {
    id: 'greeter',
    specVersion: '0.8',
    start: 'Greet',
    events: [{ name: 'GreetRequest', type: 'greet.request', source: 'web' }],
    states: [{ name: 'Greet', type: 'event', onEvents: [{ eventRefs: ['GreetRequest'], eventDataFilter: { toStateData: '${ .request }' } }], end: true }],
  },
  approval: {
    id: 'approval',
    specVersion: '0.8',
    start: 'Wait',
    events: [{ name: 'Decision', type: 'approval.decision', source: 'boss' }],
    states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Decision'], eventDataFilter: { toStateData: '${ .decision }' } }], end: true }],
  },
};

let dir: string;
let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;
let broker: MqttBroker;
let inbound: MqttInbound;
let publisher: MqttClient;
let gateway: Gateway;
const mqttLog: MqttLogEntry[] = [];

before(async () => {
  enableMetrics();
  dir = mkdtempSync(join(tmpdir(), 'swflow-inbound-'));
  for (const [name, doc] of Object.entries(DEFINITIONS)) writeFileSync(join(dir, `${name}.sw.json`), JSON.stringify(doc));
  env = await startDevEnv();
  client = env.client as Client;
  worker = await createInterpreterWorker({ connection: env.nativeConnection as NativeConnection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [dir], workflowBundle: await bundleInterpreter() });
  running = worker.run();
  const registry = new DefinitionRegistry([dir]);
  broker = await startMqttBroker();
  inbound = await startMqttInbound({ client, definitions: () => registry.definitions(), url: broker.url, topics: ['cloudevents/#'], clientId: 'swflow-test-inbound', accessLog: (e) => mqttLog.push(e) });
  publisher = await mqtt.connectAsync(broker.url, { clientId: 'test-publisher' });
  gateway = await startGateway({ client, definitions: () => registry.definitions(), port: 0, auth: { token: TOKEN }, allowAnonymous: true });
});

after(async () => {
  await publisher?.endAsync();
  await inbound?.close();
  await broker?.close();
  await gateway?.close();
  worker?.shutdown();
  await running;
  await env?.teardown();
});

async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  return assert.fail(`gave up waiting: ${what}`);
}

/** The cloudevents SDK's MQTT binding, structured mode (the only mode of MQTT 3.1.1). */
const publish = (topic: string, event: Record<string, unknown>) => publisher.publishAsync(topic, JSON.stringify(MQTT.structured(event as unknown as CloudEventV1<unknown>).body), { qos: 1 });

test('MQTT: a structured CloudEvent on a subscribed topic starts the instance its start state consumes', { timeout: 60_000 }, async () => {
  await publish('cloudevents/greetings', { specversion: '1.0', id: 'm-1', type: 'greet.request', source: 'web', data: { name: 'Mia' } });
  const entry = await waitFor('the MQTT message handled', () => mqttLog.find((e) => e.id === 'm-1'));
  assert.equal(entry.status, 202, entry.error);
  assert.deepEqual(entry.workflowIds, ['greeter/web/m-1']);
  assert.deepEqual(await client.workflow.getHandle('greeter/web/m-1').result(), { request: { name: 'Mia' } });
});

test('MQTT: a malformed message is dropped (logged with the reason), later messages still flow; swflowworkflowid needs a trusted broker', { timeout: 60_000 }, async () => {
  await publisher.publishAsync('cloudevents/greetings', '{not json', { qos: 1 });
  await publish('cloudevents/greetings', { specversion: '1.0', id: 'm-bad', source: 'web' });
  const handle = await client.workflow.start('approval', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `approval-mqtt-${Date.now()}`, args: [{}] });
  await publish('cloudevents/x', { specversion: '1.0', id: 'm-direct', type: 'approval.decision', source: 'boss', swflowworkflowid: handle.workflowId, data: { ok: true } });
  await publish('cloudevents/greetings', { specversion: '1.0', id: 'm-2', type: 'greet.request', source: 'web', data: { name: 'Max' } });
  const ok = await waitFor('m-2 handled', () => mqttLog.find((e) => e.id === 'm-2'));
  assert.equal(ok.status, 202);
  const notJson = mqttLog.find((e) => e.status === 400 && /not valid JSON/.test(e.error ?? ''));
  assert.ok(notJson, JSON.stringify(mqttLog));
  assert.match(mqttLog.find((e) => e.id === 'm-bad')?.error ?? '', /'type' is missing/);
  assert.equal(mqttLog.find((e) => e.id === 'm-direct')?.status, 403);
  assert.deepEqual(await client.workflow.getHandle('greeter/web/m-2').result(), { request: { name: 'Max' } });
  await handle.terminate('test over');
  // Prometheus: each MQTT message counted by the status it got (metrics are on in this process).
  const counted = async (outcome: string, status: string) =>
    ((await enableMetrics().registry.getSingleMetric('swflow_gateway_events_total')!.get()).values.find((v) => v.labels.transport === 'mqtt' && v.labels.outcome === outcome && v.labels.status === status)?.value ?? 0);
  assert.equal(await counted('rejected', '403'), 1);
  assert.ok((await counted('rejected', '400')) >= 2, 'the two malformed messages');
  assert.ok((await counted('accepted', '202')) >= 2, 'm-1 and m-2');
});

const swflow = (args: string[], extraEnv: Record<string, string> = {}) => runSwflow(env.address, args, extraEnv);

test('swflow event send: from flags to the gateway, from a file straight to Temporal, to an MQTT topic; prints where it went', { timeout: 120_000 }, async () => {
  const data = join(dir, 'data.json');
  writeFileSync(data, JSON.stringify({ name: 'Flag' }));
  const viaGateway = await swflow(['event', 'send', '--type', 'greet.request', '--source', 'web', '--id', 'cli-1', '--data', `@${data}`, '--gateway', gateway.url]);
  assert.equal(viaGateway.code, 0, viaGateway.err);
  assert.match(viaGateway.out, new RegExp(`greet.request cli-1 → greeter/web/cli-1 \\(started\\) via the gateway ${gateway.url.replace(/[.]/g, '\\.')}`));
  assert.deepEqual(await client.workflow.getHandle('greeter/web/cli-1').result(), { request: { name: 'Flag' } });

  // Direct addressing through the gateway needs the token (here from the environment).
  const handle = await client.workflow.start('approval', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `approval-cli-${Date.now()}`, args: [{}] });
  const args = ['event', 'send', '--type', 'approval.decision', '--source', 'boss', '--data', '{"ok":1}', '--workflow-id', handle.workflowId, '--gateway', gateway.url];
  const refused = await swflow(args);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /not taken by the gateway .*: 403 addressing an instance directly/);
  const allowed = await swflow(args, { SWFLOW_GATEWAY_TOKEN: TOKEN });
  assert.equal(allowed.code, 0, allowed.err);
  assert.match(allowed.out, new RegExp(`→ ${handle.workflowId} \\(delivered\\)`));
  assert.deepEqual(await handle.result(), { decision: { ok: 1 } });

  const file = join(dir, 'event.json');
  writeFileSync(file, JSON.stringify({ specversion: '1.0', id: 'cli-2', type: 'greet.request', source: 'web', data: { name: 'File' } }));
  const direct = await swflow(['event', 'send', file, '--temporal', '--definitions', dir]);
  assert.equal(direct.code, 0, direct.err);
  assert.match(direct.out, /greet.request cli-2 → greeter\/web\/cli-2 \(started\) via Temporal /);
  assert.deepEqual(await client.workflow.getHandle('greeter/web/cli-2').result(), { request: { name: 'File' } });

  const viaMqtt = await swflow(['event', 'send', '--type', 'greet.request', '--source', 'web', '--id', 'cli-3', '--data', '{"name":"Topic"}', '--mqtt', broker.url, '--topic', 'cloudevents/cli']);
  assert.equal(viaMqtt.code, 0, viaMqtt.err);
  assert.match(viaMqtt.out, /cli-3 → published to cloudevents\/cli/);
  await waitFor('the instance started from MQTT', () => client.workflow.getHandle('greeter/web/cli-3').describe().then(() => true, () => undefined));
  assert.deepEqual(await client.workflow.getHandle('greeter/web/cli-3').result(), { request: { name: 'Topic' } });

  const bad = await swflow(['event', 'send', '--source', 'web', '--gateway', gateway.url]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.err, /the event needs a type/);
});

test('MQTT 5 binary mode (attributes in User Properties, Content Type as datacontenttype) reads as the binding says', () => {
  // The embedded broker speaks MQTT 3.1.1 only, so this checks the mapping on the packet fields MQTT.js delivers.
  const e = eventFromMqtt(Buffer.from('{"name":"Five"}'), { contentType: 'application/json', userProperties: { specversion: '1.0', id: 'm5-1', source: 'web', type: 'greet.request', orderid: '42' } });
  assert.deepEqual(e, { specversion: '1.0', id: 'm5-1', source: 'web', type: 'greet.request', orderid: '42', datacontenttype: 'application/json', data: { name: 'Five' } });
  assert.throws(() => eventFromMqtt(Buffer.from('{}'), { contentType: 'application/json', userProperties: { id: 'm5-2', source: 'web', type: 't' } }), /'specversion' is missing/);
  assert.throws(() => eventFromMqtt(Buffer.from('<x/>'), { contentType: 'application/xml' }), /not a CloudEvent/);
});
