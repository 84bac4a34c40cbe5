/**
 * Kafka at-least-once under failures, end to end: 10,000 CloudEvents through a topic of a
 * three-node Kafka cluster (replicas 3, min.insync.replicas 2) start and wake 0.8 runs through a
 * real `swflow gateway` process, while that gateway is killed with SIGKILL twice (a new one of
 * the same consumer group takes over) and one of the three brokers, the group's coordinator, is
 * killed.
 *
 * It can fail: N runs, each keyed by its correlation value, collect the number of each of their
 * M events and end when they have M; each run's output must be exactly 0..M-1 (an event lost
 * leaves a run waiting: the test times out naming it; an event applied twice shows as a
 * duplicate). The dead-letter topic must be empty. The gateways handle up to 4 records of
 * different keys of a partition at once (--kafka-key-concurrency 4): offsets are committed
 * contiguously behind them. SWFLOW_SOAK=1 runs 5× more events.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Admin, Consumer, Producer } from '@platformatic/kafka';
import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { deadLetterTopicOf } from '../../src/gateway/kafka';
import { recordFromEvent } from '../../src/kafka/binding';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { kafkaAvailable, startKafka, uniqueName, type KafkaCluster, startAlongside } from '../helpers/kafka-broker';
import { freePort } from '../helpers/ports';

const ROOT = resolve(__dirname, '..', '..');
const SOAK = process.env.SWFLOW_SOAK === '1';
const RUNS = SOAK ? 100 : 20;
const PER_RUN = 500; // below the mailbox's 1,000 remembered event keys
const TOTAL = RUNS * PER_RUN;
const DEFINITION_ID = 'kchaos';

const DEFINITION = {
  id: DEFINITION_ID,
  specVersion: '0.8',
  start: 'Collect',
  events: [{ name: 'Tick', type: 'chaos.tick', source: 'chaos', correlation: [{ contextAttributeName: 'runkey' }] }],
  states: [
    { name: 'Collect', type: 'event', onEvents: [{ eventRefs: ['Tick'], eventDataFilter: { data: '${ .i }', toStateData: '${ .last }' } }], stateDataFilter: { output: '${ {ids: ((.ids // []) + [.last])} }' }, transition: 'Enough' },
    { name: 'Enough', type: 'switch', dataConditions: [{ condition: `\${ (.ids | length) >= ${PER_RUN} }`, end: true }], defaultCondition: { transition: 'Collect' } },
  ],
};

let dir: string;
let kafka: KafkaCluster;
let env: TestWorkflowEnvironment;
let client: Client;
let worker: Worker;
let running: Promise<void>;
const gateways: ChildProcess[] = [];
/** The gateway process started last (its output goes into a failure's message). */
let lastGateway: { child: ChildProcess; stderr: () => string; joinedAt: Promise<number> } | undefined;

before(async () => {
  const available = kafkaAvailable();
  assert.ok(available.ok, `this test needs the Kafka broker: ${available.ok ? '' : available.why}`);
  dir = mkdtempSync(join(tmpdir(), 'swflow-kafka-chaos-'));
  writeFileSync(join(dir, 'kchaos.sw.json'), JSON.stringify(DEFINITION));
  [kafka, env] = await startAlongside(startKafka({ nodes: 3 }), startDevEnv(), (e) => e.teardown());
  client = env.client as Client;
  worker = await createInterpreterWorker({ connection: env.nativeConnection as NativeConnection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [dir], workflowBundle: await bundleInterpreter() });
  running = worker.run();
});

after(async () => {
  for (const g of gateways) if (g.exitCode === null && g.signalCode === null) g.kill('SIGKILL');
  worker?.shutdown();
  await running;
  await env?.teardown();
  await kafka?.close();
});

/** A `swflow gateway` process consuming the topic; counts the records it took (its access log). */
function startGatewayProcess(topic: string, group: string, port: number, progress: { taken: number }): { child: ChildProcess; stderr: () => string; joinedAt: Promise<number> } {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'swflow.js'), 'gateway', '--definitions', dir, '--port', String(port), '--kafka-brokers', kafka.brokers.join(','), '--kafka-topics', topic, '--kafka-group', group, '--kafka-session-timeout', '6000', '--kafka-key-concurrency', '4'],
    { cwd: ROOT, env: { ...process.env, TEMPORAL_ADDRESS: env.address, TEMPORAL_NAMESPACE: 'default' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  gateways.push(child);
  let err = '';
  let partial = '';
  let onJoin: (t: number) => void = () => {};
  const joinedAt = new Promise<number>((r) => (onJoin = r));
  child.stderr!.on('data', (d) => {
    err = (err + d).slice(-20_000);
    if (/Kafka: consuming /.test(err)) onJoin(Date.now());
  });
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line.includes('"log":"kafka"') && line.includes('"status":202')) progress.taken++;
  });
  lastGateway = { child, stderr: () => err, joinedAt };
  return lastGateway;
}

/** When the gateway process joined its group, or a failure naming what it printed. */
async function joined(gw: { child: ChildProcess; stderr: () => string; joinedAt: Promise<number> }, ms: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the gateway process did not join its group within ${ms} ms (exit ${gw.child.exitCode ?? gw.child.signalCode ?? 'none'}): ${gw.stderr().slice(-3000)}`)), ms)));
  try {
    return await Promise.race([gw.joinedAt, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`gave up waiting (${ms} ms): ${what}${lastGateway ? `; the gateway said: ${lastGateway.stderr().slice(-2000)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test(`${TOTAL} events through Kafka start and wake ${RUNS} runs: 0 lost, 0 applied twice, while the gateway is SIGKILLed twice and one of three brokers is killed`, { timeout: 600_000 }, async () => {
  const started = Date.now();
  const topic = uniqueName('chaos');
  const group = uniqueName('chaos-gateway');
  await kafka.createTopic(topic, { partitions: 6, replicas: 3, config: { 'min.insync.replicas': '2' } });
  const progress = { taken: 0 };
  const ticker = setInterval(() => console.log(`kafka chaos: ${((Date.now() - started) / 1000).toFixed(0)} s, ${progress.taken} records taken`), 30_000);
  ticker.unref(); // a failing test's ticker does not hold the process
  const port = await freePort();
  let gw = startGatewayProcess(topic, group, port, progress);
  await joined(gw, 120_000);

  // Produce every event (idempotent, acks from all in-sync replicas), keyed by run: a run's events share a partition.
  const producer = new Producer({ clientId: 'chaos-producer', bootstrapBrokers: kafka.brokers, idempotent: true, acks: -1, retries: 10 });
  const producing = (async () => {
    const order = Array.from({ length: TOTAL }, (_, n) => ({ run: n % RUNS, i: Math.floor(n / RUNS) }));
    for (let b = 0; b < order.length; b += 500) {
      const messages = order.slice(b, b + 500).map(({ run, i }) => {
        const r = recordFromEvent({ specversion: '1.0', id: `e-${run}-${i}`, source: 'chaos', type: 'chaos.tick', runkey: `r${run}`, data: { i } }, b % 1000 === 0 ? 'binary' : 'structured', `r${run}`);
        return { topic, key: r.key, value: r.value ?? undefined, headers: new Map([...r.headers].map(([k, v]) => [Buffer.from(k), Buffer.from(v)])) };
      });
      await producer.send({ messages } as never);
      await new Promise((r) => setTimeout(r, 150));
    }
  })();

  const chaos: string[] = [];
  const stamp = (what: string) => chaos.push(`${((Date.now() - started) / 1000).toFixed(1)}s ${what} (taken so far ${progress.taken})`);
  // 1. The gateway killed mid-stream; another of the group takes over.
  await until('20% taken', () => progress.taken >= TOTAL * 0.2, 240_000);
  gw.child.kill('SIGKILL');
  stamp('gateway 1 SIGKILL');
  gw = startGatewayProcess(topic, group, port, progress);
  // 2. One of the three brokers killed: the group's coordinator, the hardest one to lose (the
  // running gateway's group client and the next gateway's join must both find the new one).
  await until('45% taken', () => progress.taken >= TOTAL * 0.45, 240_000);
  const admin = new Admin({ clientId: 'chaos-admin', bootstrapBrokers: kafka.brokers });
  const [coordinator] = await admin.findCoordinator({ keyType: 0, keys: [group] });
  await admin.close();
  assert.ok(coordinator && coordinator.nodeId >= 1 && coordinator.nodeId <= 3, `the group's coordinator: ${JSON.stringify(coordinator)}`);
  await kafka.stopNode(coordinator.nodeId - 1, { kill: true });
  stamp(`broker ${coordinator.nodeId} (the group's coordinator) SIGKILL`);
  // 3. The second gateway killed; a third takes over (its /readyz says ready only once it joined its group).
  await until('65% taken', () => progress.taken >= TOTAL * 0.65, 240_000);
  gw.child.kill('SIGKILL');
  stamp('gateway 2 SIGKILL');
  gw = startGatewayProcess(topic, group, port, progress);
  const readyAt = (async () => {
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);
      if (ok) return Date.now();
      await new Promise((r) => setTimeout(r, 50));
    }
    return assert.fail(`the third gateway's /readyz did not say ready within 120 s: ${gw.stderr().slice(-2000)}`);
  })();
  const [joinedTime, ready] = await Promise.all([joined(gw, 120_000), readyAt]);
  assert.ok(ready >= joinedTime, `/readyz said ready ${joinedTime - ready} ms before the consumer joined its group`);
  await producing;
  await producer.close();
  stamp('all produced');

  // Every run completes with exactly its events.
  const ids = Array.from({ length: RUNS }, (_, run) => `${DEFINITION_ID}/runkey=r${run}`);
  const outputs = new Map<string, number[]>();
  await until(
    `every run completed (${RUNS} runs)`,
    async () => {
      for (const id of ids) {
        if (outputs.has(id)) continue;
        const d = await client.workflow.getHandle(id).describe().catch(() => undefined);
        if (d?.status.name === 'COMPLETED') outputs.set(id, ((await client.workflow.getHandle(id).result()) as { ids: number[] }).ids);
      }
      return outputs.size === RUNS;
    },
    300_000,
  ).catch(async (err) => {
    const missing = ids.filter((id) => !outputs.has(id));
    const states = await Promise.all(missing.slice(0, 5).map(async (id) => `${id}: ${(await client.workflow.getHandle(id).query('state').catch(() => undefined)) ? 'running' : 'not found/unqueryable'}`));
    throw new Error(`${err.message}; ${missing.length} runs incomplete, e.g. ${states.join('; ')}; chaos: ${chaos.join(' | ')}; gateway: ${gw.stderr().slice(-2000)}`);
  });
  let lost = 0;
  let twice = 0;
  for (const [id, got] of outputs) {
    const seen = new Set(got);
    twice += got.length - seen.size;
    for (let i = 0; i < PER_RUN; i++) if (!seen.has(i)) lost++;
    assert.equal(seen.size, got.length, `${id} consumed an event twice`);
  }
  assert.equal(lost, 0);
  assert.equal(twice, 0);

  // Nothing was dead-lettered: the dead-letter topic is empty (or was never created).
  const reader = new Consumer({ groupId: uniqueName('dlq-reader'), clientId: 'chaos-dlq', bootstrapBrokers: kafka.nodes.filter((n) => n.running()).map((n) => n.broker) });
  const offsets = await reader.listOffsets({ topics: [deadLetterTopicOf(topic)] }).catch((err: Error) => (/unknown topic|does not host|UNKNOWN_TOPIC/i.test(err.message + JSON.stringify((err as { errors?: unknown }).errors ?? '')) ? new Map() : Promise.reject(err)));
  await reader.close(true);
  const deadLetters = [...offsets.values()].flat().reduce((n: number, o: bigint) => n + Number(o), 0);
  assert.equal(deadLetters, 0, 'no dead letters');
  gw.child.kill('SIGTERM');
  clearInterval(ticker);
  const seconds = (Date.now() - started) / 1000;
  console.log(`kafka chaos: ${TOTAL} events (${RUNS} runs × ${PER_RUN}), ${progress.taken} records taken across 3 gateway processes (${progress.taken - TOTAL} redelivered), 0 lost, 0 applied twice, 0 dead letters, ${seconds.toFixed(0)} s (${Math.round(TOTAL / seconds)} events/s)`);
  console.log(`kafka chaos: ${chaos.join(' | ')}`);
});
