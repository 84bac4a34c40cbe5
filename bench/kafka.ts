/**
 * The Kafka inbound's throughput against the HTTP gateway's: the same CloudEvents, the same
 * routing into the same kind of runs, the same dev server, interpreter worker and Temporal
 * client, one process. Scenarios (`--scenarios`, default both):
 *
 * - `0.8-wake`: correlated wake-ups keyed by `sinkid` into `--instances` running keepActive
 *   instances (bench/definitions/event-sink.sw.json);
 * - `0.8-start`: each event starts its own instance (event-start.sw.json).
 *
 *   npx tsx bench/kafka.ts [--events 1000] [--concurrency 32] [--partitions 6] [--key-concurrency 1] [--instances 20]
 *
 * HTTP: `--concurrency` senders POST the events (structured mode, keep-alive); events/s until the
 * last 202. Kafka: the events are first written to a new topic of `--partitions` partitions
 * (structured mode, keyed by `sinkid` or id), then a Kafka inbound of a new consumer group is
 * started; events/s from its joining the group until the last record's event was taken by
 * Temporal (202). The gateway handles one record at a time per partition (or up to
 * `--key-concurrency` of different keys), partitions at once: `--partitions` × that is the Kafka
 * side's concurrency. Prints both and their ratio.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Producer } from '@platformatic/kafka';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { CloudEventJson } from '../src/common/contracts';
import { DefinitionRegistry } from '../src/definitions/registry';
import { startGateway } from '../src/gateway/server';
import { startKafkaInbound } from '../src/gateway/kafka';
import { recordFromEvent } from '../src/kafka/binding';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { bundleInterpreter, createInterpreterWorker } from '../src/worker/interpreter-worker';
import { startKafka, uniqueName } from '../test/helpers/kafka-broker';
import { freePort } from '../test/helpers/ports';

const DEFINITIONS = join(__dirname, 'definitions');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '32' },
      partitions: { type: 'string', default: '6' },
      'key-concurrency': { type: 'string', default: '1' },
      instances: { type: 'string', default: '20' },
      scenarios: { type: 'string', default: '0.8-wake,0.8-start' },
    },
  });
  const events = Number(values.events);
  const concurrency = Number(values.concurrency);
  const partitions = Number(values.partitions);
  const keyConcurrency = Number(values['key-concurrency']);
  const instances = Number(values.instances);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = await resolveTemporalCli();
  const [server, kafka] = await Promise.all([
    freePort().then(async (port) => startDevServer({ binary: cli!.path, port, uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-kafkabench-')), 'db.sqlite') })),
    startKafka(),
  ]);
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const worker = await createInterpreterWorker({ connection: native, definitions: [DEFINITIONS], workflowBundle: await bundleInterpreter() });
  const registry = new DefinitionRegistry([DEFINITIONS]);
  const definitions = () => registry.allDefinitions();
  const gateway = await startGateway({ client, definitions, port: 0 });
  const producer = new Producer({ clientId: 'bench', bootstrapBrokers: kafka.brokers, idempotent: true, acks: -1 });

  const base = (type: string, i: number, extra: Record<string, string> = {}): CloudEventJson => ({ specversion: '1.0', id: randomUUID(), type, source: 'bench', ...extra, data: { i } });
  const scenarios: Record<string, (side: string, i: number) => CloudEventJson> = {
    '0.8-wake': (side, i) => base('bench.tick', i, { sinkid: `${side}${i % instances}` }),
    '0.8-start': (_, i) => base('bench.start', i),
  };

  const viaHttp = async (count: number, make: (i: number) => CloudEventJson): Promise<number> => {
    let next = 0;
    const t = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          const e = make(next++);
          const res = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify(e) });
          const text = await res.text();
          if (res.status !== 202) throw new Error(`gateway answered ${res.status}: ${text}`);
        }
      }),
    );
    return count / ((performance.now() - t) / 1000);
  };

  const viaKafka = async (count: number, make: (i: number) => CloudEventJson): Promise<number> => {
    const topic = uniqueName('bench');
    await kafka.createTopic(topic, { partitions });
    const all = Array.from({ length: count }, (_, i) => make(i));
    for (let b = 0; b < all.length; b += 500) {
      const messages = all.slice(b, b + 500).map((e) => {
        const r = recordFromEvent(e, 'structured', String(e.sinkid ?? e.id));
        return { topic, key: r.key, value: r.value ?? undefined, headers: new Map([...r.headers].map(([k, v]) => [Buffer.from(k), Buffer.from(v)])) };
      });
      await producer.send({ messages } as never);
    }
    let taken = 0;
    let failed: string | undefined;
    let done: () => void = () => {};
    const finished = new Promise<void>((r) => (done = r));
    const inbound = await startKafkaInbound({
      client,
      definitions,
      brokers: kafka.brokers,
      topics: [topic],
      groupId: uniqueName('bench-gateway'),
      keyConcurrency,
      accessLog: (e) => {
        if (e.status === 202) taken++;
        else failed ??= `${e.status} ${e.error}`;
        if (taken + (failed ? 1 : 0) >= count || failed) done();
      },
    });
    const t = performance.now();
    await finished;
    const perSecond = count / ((performance.now() - t) / 1000);
    await inbound.close();
    if (failed) throw new Error(`a record was not taken: ${failed}`);
    return perSecond;
  };

  const results: Record<string, { kafka: number; http: number; ratio: number }> = {};
  const load = [loadavg()[0]];
  await worker.runUntil(async () => {
    for (const [k, name] of values.scenarios!.split(',').entries()) {
      const make = scenarios[name];
      if (!make) throw new Error(`--scenarios: no scenario ${name} (${Object.keys(scenarios).join(', ')})`);
      const out: Partial<Record<'kafka' | 'http', number>> = {};
      // Warm-up both ways (instances started, connections open), then the measured batches, order alternating.
      await viaHttp(Math.min(100, events), (i) => make('w', i));
      await viaKafka(Math.min(100, events), (i) => make('w', i));
      for (const side of k % 2 ? (['kafka', 'http'] as const) : (['http', 'kafka'] as const)) {
        out[side] = await (side === 'http' ? viaHttp : viaKafka)(events, (i) => make(side[0], i));
      }
      results[name] = { kafka: out.kafka!, http: out.http!, ratio: out.kafka! / out.http! };
      load.push(loadavg()[0]);
      console.error(`[kafka bench] ${name}: ${JSON.stringify(results[name])}`);
    }
  });
  console.log(`\n${events} events per side and scenario; HTTP ${concurrency} senders, Kafka ${partitions} partitions × ${keyConcurrency} keys at once; load average ${load.map((x) => x.toFixed(1)).join(', ')}\n`);
  console.log('| scenario | Kafka → runs events/s | HTTP → runs events/s | ratio Kafka/HTTP |');
  console.log('|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) console.log(`| ${name} | ${r.kafka.toFixed(0)} | ${r.http.toFixed(0)} | ${r.ratio.toFixed(2)}× |`);
  console.log(JSON.stringify({ events, concurrency, partitions, keyConcurrency, instances, loadAverage: load, results }));
  await producer.close();
  await gateway.close();
  await connection.close();
  await native.close();
  await server.stop();
  await kafka.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
