/**
 * The event gateway's overhead: CloudEvents POSTed to the gateway (structured mode, over HTTP
 * with keep-alive, `--concurrency` senders) against ONE Temporal client making the calls that
 * deliver the same events directly (`signalWithStart` on the workflow id the event names). Same
 * dev server, same interpreter worker, same definitions (bench/definitions: the gateway reads the
 * folder as `swflow start` does). Scenarios (`--scenarios`, default all four):
 *
 * - `0.8-wake`: correlated wake-ups: events keyed by `sinkid` into `--instances` running
 *   keepActive instances (event-sink.sw.json; the gateway names the instance by correlation);
 * - `0.8-start`: start events: each event starts its own instance (event-start.sw.json, named
 *   after the event: `eventstart/bench/<id>`);
 * - `1.0-start`: the same with `schedule.on` (event-start.sw.yaml);
 * - `1.0-wake`: correlated wake-ups: one running instance per event, each waiting in `listen` for
 *   the event of its key (event-wake.sw.yaml, `correlate … expect`): the gateway finds it through
 *   visibility (SwAwaitedEvents), the direct client names it.
 *
 *   npx tsx bench/gateway.ts [--events 1000] [--concurrency 32] [--instances 20] [--rounds 1] [--scenarios 0.8-wake,…]
 *
 * Per scenario: a warm-up both ways, then the direct side and the gateway side (`--events` each;
 * the order alternates per scenario). With `--rounds R` each side's events go in R rounds, the
 * sides taking turns (the first side alternating per round), so a shared machine's load drifting
 * during the run weighs on both sides alike. Prints events/s both ways (events over the time of
 * the side's rounds), their ratio (goal ≥ 0.8×) and the latency of the answers (the gateway's
 * 202, the direct call's return): p50 and p99.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { Json } from '../src/common/model';
import { EVENT_SIGNAL, INTERPRETER_TASK_QUEUE, type CloudEventJson } from '../src/common/contracts';
import { DefinitionRegistry } from '../src/definitions/registry';
import { startGateway } from '../src/gateway/server';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { bundleInterpreter, createInterpreterWorker } from '../src/worker/interpreter-worker';
import { freePort } from '../test/helpers/ports';

const DEFINITIONS = join(__dirname, 'definitions');

interface Run {
  perSecond: number;
  p50: number;
  p99: number;
}

/** One measured batch: its latencies and how long it took. */
interface Batch {
  latencies: number[];
  seconds: number;
}

/** Rounds of one side as one run: events over the time of its rounds, percentiles of all answers. */
function combine(batches: Batch[]): Run {
  const latencies = batches.flatMap((b) => b.latencies).sort((a, b) => a - b);
  const seconds = batches.reduce((a, b) => a + b.seconds, 0);
  return { perSecond: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Sends `count` events with `concurrency` in flight; each send resolves when the event was taken. */
async function measure(count: number, concurrency: number, send: (i: number) => Promise<void>): Promise<Batch> {
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
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

/** How one scenario's events are made and delivered directly; `prepare` starts what they go to. */
interface Scenario {
  name: string;
  event(side: string, i: number): CloudEventJson;
  /** The direct delivery: the signal-with-start the gateway would make. */
  direct(e: CloudEventJson, side: string, i: number): Promise<void>;
  /** Before a measured batch of `count` events (warm-up or not) of one side. */
  prepare?(side: string, count: number): Promise<void>;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '32' },
      instances: { type: 'string', default: '20' },
      rounds: { type: 'string', default: '1' },
      scenarios: { type: 'string', default: '0.8-wake,0.8-start,1.0-start,1.0-wake' },
    },
  });
  const events = Number(values.events);
  const concurrency = Number(values.concurrency);
  const instances = Number(values.instances);
  const rounds = Number(values.rounds);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-gwbench-')), 'db.sqlite') });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const worker = await createInterpreterWorker({ connection: native, definitions: [DEFINITIONS], workflowBundle: await bundleInterpreter() });
  const registry = new DefinitionRegistry([DEFINITIONS]);
  const gateway = await startGateway({ client, definitions: () => registry.allDefinitions(), port: 0 });

  const base = (type: string, data: Json, extra: Record<string, string> = {}): CloudEventJson => ({ specversion: '1.0', id: randomUUID(), type, source: 'bench', ...extra, data });
  const swsArgs = { taskQueue: INTERPRETER_TASK_QUEUE, signal: EVENT_SIGNAL };
  let batch = 0;
  const all: Scenario[] = [
    {
      name: '0.8-wake',
      event: (side, i) => base('bench.tick', { i }, { sinkid: `${side}${i % instances}` }),
      direct: async (e) => void (await client.workflow.signalWithStart('eventsink', { ...swsArgs, workflowId: `eventsink/sinkid=${e.sinkid}`, args: [{}], signalArgs: [e] })),
    },
    {
      name: '0.8-start',
      event: (_, i) => base('bench.start', { i }),
      direct: async (e) => void (await client.workflow.signalWithStart('eventstart', { ...swsArgs, workflowId: `eventstart/bench/${e.id}`, workflowIdReusePolicy: 'REJECT_DUPLICATE', args: [{}], signalArgs: [e] })),
    },
    {
      name: '1.0-start',
      event: (_, i) => base('bench.start10', { i }),
      direct: async (e) => void (await client.workflow.signalWithStart('bench/eventstart10', { ...swsArgs, workflowId: `bench/eventstart10/bench/${e.id}`, workflowIdReusePolicy: 'REJECT_DUPLICATE', args: [{}], signalArgs: [e] })),
    },
    {
      name: '1.0-wake',
      // Batch `batch` of a side: instances <side>-<batch>-<i>, each waiting for its own key.
      event: (side, i) => base('bench.wake10', { i }, { sinkid: `${side}-${batch}-${i}` }),
      direct: async (e) => void (await client.workflow.signalWithStart('bench/eventwake10', { ...swsArgs, workflowId: `wake-${e.sinkid}`, args: [{ sinkid: e.sinkid }], signalArgs: [e] })),
      prepare: async (side, count) => {
        batch++;
        const query = `WorkflowType = 'bench/eventwake10' AND WorkflowId STARTS_WITH 'wake-${side}-${batch}-' AND SwAwaitedEvents IS NOT NULL`;
        await measure(count, concurrency, async (i) => void (await client.workflow.start('bench/eventwake10', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `wake-${side}-${batch}-${i}`, args: [{ sinkid: `${side}-${batch}-${i}` }] })));
        // Until visibility shows every instance waiting (the gateway finds them there).
        for (let t = 0; t < 600; t++) {
          const { count: n } = await client.workflow.count(query);
          if (n >= count) return;
          await new Promise((r) => setTimeout(r, 500));
        }
        throw new Error(`the ${count} instances of ${side} batch ${batch} did not all wait within 5 minutes`);
      },
    },
  ];
  const SCENARIOS = all.filter((s) => values.scenarios!.split(',').includes(s.name));

  const viaGateway = async (e: CloudEventJson) => {
    const res = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify(e) });
    const text = await res.text();
    if (res.status !== 202) throw new Error(`gateway answered ${res.status}: ${text}`);
  };

  const results: Record<string, { direct: Run; gateway: Run; ratio: number }> = {};
  const load: number[] = [loadavg()[0]];
  await worker.runUntil(async () => {
    for (const [k, s] of SCENARIOS.entries()) {
      const sides = {
        direct: (n: number) => measure(n, concurrency, (i) => s.direct(s.event('d', i), 'd', i)),
        gateway: (n: number) => measure(n, concurrency, (i) => viaGateway(s.event('g', i))),
      };
      const order = k % 2 ? (['gateway', 'direct'] as const) : (['direct', 'gateway'] as const);
      const batches: Record<'direct' | 'gateway', Batch[]> = { direct: [], gateway: [] };
      for (const side of order) {
        const warm = s.name === '0.8-wake' ? instances * 5 : 50;
        await s.prepare?.(side[0], warm);
        await sides[side](warm);
      }
      for (let r = 0; r < rounds; r++) {
        const n = Math.floor(events / rounds) + (r < events % rounds ? 1 : 0);
        for (const side of r % 2 ? [...order].reverse() : order) {
          await s.prepare?.(side[0], n);
          batches[side].push(await sides[side](n));
        }
      }
      const out = { direct: combine(batches.direct), gateway: combine(batches.gateway) };
      results[s.name] = { direct: out.direct, gateway: out.gateway, ratio: out.gateway.perSecond / out.direct.perSecond };
      load.push(loadavg()[0]);
      console.error(`[gateway] ${s.name}: ${JSON.stringify(results[s.name])}`);
    }
  });
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(`\n${events} events per side and scenario (${rounds} round${rounds > 1 ? 's' : ''} each), ${concurrency} in flight; load average ${load.map((x) => x.toFixed(1)).join(', ')}\n`);
  console.log('| scenario | gateway events/s (p50, p99) | direct signalWithStart events/s (p50, p99) | ratio (goal ≥ 0.8×) |');
  console.log('|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    console.log(`| ${name} | ${r.gateway.perSecond.toFixed(0)} (${ms(r.gateway.p50)}, ${ms(r.gateway.p99)}) | ${r.direct.perSecond.toFixed(0)} (${ms(r.direct.p50)}, ${ms(r.direct.p99)}) | ${r.ratio.toFixed(2)}× |`);
  }
  console.log(JSON.stringify({ events, concurrency, instances, rounds, loadAverage: load, results }));
  await gateway.close();
  await connection.close();
  await native.close();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
