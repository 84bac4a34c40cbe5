/**
 * The event gateway's overhead: CloudEvents POSTed to the gateway (structured mode, over HTTP
 * with keep-alive) and routed into running instances, against the Temporal client making the
 * same `signalWithStart` calls directly (what the gateway does for these events). Same dev
 * server, same interpreter worker, same running instances (`bench/definitions/event-sink.sw.json`:
 * a keepActive instance per correlation key that consumes every event).
 *
 *   npx tsx bench/gateway.ts [--events 2000] [--concurrency 32] [--instances 20]
 *
 * Prints events/s both ways, their ratio (goal ≥ 0.8×) and the latency of the answers (the
 * gateway's 202, the direct call's return): p50 and p99.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { EVENT_SIGNAL, INTERPRETER_TASK_QUEUE, type CloudEventJson } from '../src/common/contracts';
import { DefinitionRegistry } from '../src/definitions/registry';
import { startGateway } from '../src/gateway/server';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { bundleInterpreter, createInterpreterWorker } from '../src/worker/interpreter-worker';
import { freePort } from '../test/helpers/ports';

const DEFINITIONS = join(__dirname, 'definitions', 'event-sink.sw.json');

interface Run {
  perSecond: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Sends `count` events with `concurrency` in flight; each send resolves when the event was taken. */
async function measure(count: number, concurrency: number, send: (i: number) => Promise<void>): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t = performance.now();
        await send(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '32' }, instances: { type: 'string', default: '20' } } });
  const events = Number(values.events);
  const concurrency = Number(values.concurrency);
  const instances = Number(values.instances);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-gwbench-')), 'db.sqlite') });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const worker = await createInterpreterWorker({ connection: native, definitions: [DEFINITIONS], workflowBundle: await bundleInterpreter() });
  const registry = new DefinitionRegistry([DEFINITIONS]);
  const gateway = await startGateway({ client, definitions: () => registry.definitions(), port: 0 });

  const event = (prefix: string, i: number): CloudEventJson => ({ specversion: '1.0', id: randomUUID(), type: 'bench.tick', source: 'bench', sinkid: `${prefix}${i % instances}`, data: { i } });
  const direct = async (prefix: string, i: number) => {
    const e = event(prefix, i);
    await client.workflow.signalWithStart('eventsink', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `eventsink/sinkid=${e.sinkid}`, args: [{}], signal: EVENT_SIGNAL, signalArgs: [e] });
  };
  const viaGateway = async (prefix: string, i: number) => {
    const res = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify(event(prefix, i)) });
    const text = await res.text();
    if (res.status !== 202) throw new Error(`gateway answered ${res.status}: ${text}`);
  };

  let result: { direct: Run; gateway: Run } | undefined;
  await worker.runUntil(async () => {
    // Start the instances (one per key, for each side) and warm both paths up.
    await measure(instances * 5, concurrency, (i) => direct('d', i));
    await measure(instances * 5, concurrency, (i) => viaGateway('g', i));
    result = { direct: await measure(events, concurrency, (i) => direct('d', i)), gateway: await measure(events, concurrency, (i) => viaGateway('g', i)) };
  });
  const { direct: d, gateway: g } = result!;
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(`\n${events} events, ${concurrency} in flight, into ${instances} running instances (signal-with-start by correlation)\n`);
  console.log('| | events/s | p50 | p99 |');
  console.log('|---|---|---|---|');
  console.log(`| gateway (HTTP 202) | ${g.perSecond.toFixed(0)} | ${ms(g.p50)} | ${ms(g.p99)} |`);
  console.log(`| Temporal client, signalWithStart | ${d.perSecond.toFixed(0)} | ${ms(d.p50)} | ${ms(d.p99)} |`);
  console.log(`| ratio (goal ≥ 0.8×) | ${(g.perSecond / d.perSecond).toFixed(2)}× | | |`);
  console.log(JSON.stringify({ events, concurrency, instances, gateway: g, direct: d, ratio: g.perSecond / d.perSecond }));
  await gateway.close();
  await connection.close();
  await native.close();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
