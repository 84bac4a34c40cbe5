/**
 * Interpreter vs a hand-written Temporal workflow, same server, same activity, one run:
 *   (a) 10 sequential function calls: end-to-end latency (sequential runs, median/p90),
 *       and workflows/s with 50 runs in flight;
 *   (b) history events per run (and so per operation-state call).
 * Ratios are interpreter / hand-written. Goals: ≤ 1.10× latency, ≥ 0.90× throughput, 1.00× events.
 *
 *   npx tsx bench/interpreter.ts [--runs 30] [--throughput 300] [--without sync-expressions] [--timeline]
 *
 * `--without <features>` (comma-separated) runs the interpreter as a worker from before those
 * interpreter features (src/common/features.ts) would. `--timeline` adds, per side, the mean time
 * per run between consecutive history events by their types (where the difference sits).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker, Runtime, DefaultLogger } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { createInterpreterWorker } from '../src/worker/interpreter-worker';
import { freePort } from '../test/helpers/ports';
import { INTERPRETER_FEATURES } from '../src/common/features';
import { eventTimeMs } from './support';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 30);
const WITHOUT = (() => {
  const i = process.argv.indexOf('--without');
  return i > 0 ? process.argv[i + 1].split(',') : [];
})();
const THROUGHPUT_RUNS = arg('throughput', 300);
const TIMELINE = process.argv.includes('--timeline');
const CONCURRENCY = 50;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = await resolveTemporalCli();
  const server = await startDevServer({
    binary: cli!.path,
    port: await freePort(),
    uiPort: await freePort(),
    dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-bench-')), 'db.sqlite'),
    extraArgs: (process.env.BENCH_DEV_SERVER_ARGS ?? '').split(' ').filter(Boolean),
  });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });

  const interpreter = await createInterpreterWorker({
    connection,
    taskQueue: INTERPRETER_TASK_QUEUE,
    definitions: [join(__dirname, 'definitions')],
    features: INTERPRETER_FEATURES.filter((f) => !WITHOUT.includes(f)),
  });
  const handwritten = await Worker.create({
    connection,
    taskQueue: 'bench-handwritten',
    workflowsPath: require.resolve('./handwritten-workflow'),
  });
  // The "service": the same trivial activity for both.
  const service = await Worker.create({
    connection,
    taskQueue: ADAPTER_TASK_QUEUE,
    activities: { default: async () => ({ ok: true }) },
    maxConcurrentActivityTaskExecutions: 200,
  });

  const kinds = {
    interpreter: (id: string) => client.workflow.execute('tencalls', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: id, args: [{}] }),
    handwritten: (id: string) => client.workflow.execute('tenCallsHandwritten', { taskQueue: 'bench-handwritten', workflowId: id, args: [{}] }),
  } as const;
  type Kind = keyof typeof kinds;

  const report: Record<string, unknown> = {};
  await interpreter.runUntil(
    handwritten.runUntil(
      service.runUntil(async () => {
        // Warm-up (bundles loaded, caches filled).
        for (const kind of Object.keys(kinds) as Kind[]) for (let i = 0; i < 5; i++) await kinds[kind](`warm-${kind}-${i}`);

        // (a) latency: interleaved sequential runs.
        const latency: Record<Kind, number[]> = { interpreter: [], handwritten: [] };
        // Alternating which side goes first, so neither always runs right after the other's run (the
        // server's visibility and timer work of a run spills into the next one's time).
        for (let i = 0; i < RUNS; i++) {
          const order = Object.keys(kinds) as Kind[];
          for (const kind of i % 2 ? order.reverse() : order) {
            const t = performance.now();
            await kinds[kind](`lat-${kind}-${i}`);
            latency[kind].push(performance.now() - t);
          }
        }
        // (a) throughput: N runs, CONCURRENCY in flight.
        const throughput: Record<Kind, number> = { interpreter: 0, handwritten: 0 };
        for (const kind of Object.keys(kinds) as Kind[]) {
          let next = 0;
          const t = performance.now();
          await Promise.all(
            Array.from({ length: CONCURRENCY }, async () => {
              while (next < THROUGHPUT_RUNS) await kinds[kind](`tp-${kind}-${next++}`);
            }),
          );
          throughput[kind] = THROUGHPUT_RUNS / ((performance.now() - t) / 1000);
        }
        // (b) history events of one run each, and per call: (events of 10 calls - of 1 call) / 9.
        const events: Record<Kind, number> = { interpreter: 0, handwritten: 0 };
        const perCall: Record<Kind, number> = { interpreter: 0, handwritten: 0 };
        const oneCall = {
          interpreter: (id: string) => client.workflow.execute('onecall', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: id, args: [{}] }),
          handwritten: (id: string) => client.workflow.execute('oneCallHandwritten', { taskQueue: 'bench-handwritten', workflowId: id, args: [{}] }),
        };
        const count = async (id: string) => (await client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
        for (const kind of Object.keys(kinds) as Kind[]) {
          await oneCall[kind](`one-${kind}`);
          events[kind] = await count(`lat-${kind}-0`);
          perCall[kind] = (events[kind] - (await count(`one-${kind}`))) / 9;
        }

        // Where the latency goes, from the latency runs' histories (each fetched once): the mean time
        // a worker spent on one workflow task (WorkflowTaskStarted → WorkflowTaskCompleted) and, with
        // --timeline, the mean time per run between consecutive events by the pair of event types.
        const taskMs: Record<Kind, number> = { interpreter: 0, handwritten: 0 };
        for (const kind of Object.keys(kinds) as Kind[]) {
          const spans: number[] = [];
          const sums = new Map<string, number>();
          for (let i = 0; i < RUNS; i++) {
            let started = 0;
            let prev: { at: number; type: string } | undefined;
            for (const e of (await client.workflow.getHandle(`lat-${kind}-${i}`).fetchHistory()).events ?? []) {
              const at = eventTimeMs(e);
              if (e.workflowTaskStartedEventAttributes) started = at;
              if (e.workflowTaskCompletedEventAttributes && started) spans.push(at - started);
              const type = String(temporal.api.enums.v1.EventType[e.eventType ?? 0]).replace(/^EVENT_TYPE_/, '');
              if (prev) sums.set(`${prev.type} → ${type}`, (sums.get(`${prev.type} → ${type}`) ?? 0) + at - prev.at);
              prev = { at, type };
            }
          }
          taskMs[kind] = spans.reduce((a, b) => a + b, 0) / spans.length;
          if (TIMELINE) report[`${kind}Timeline`] = Object.fromEntries([...sums].map(([k, v]) => [k, +(v / RUNS).toFixed(2)]));
        }

        for (const kind of Object.keys(kinds) as Kind[]) {
          report[kind] = {
            workflowTaskMeanMs: +taskMs[kind].toFixed(1),
            latencyMedianMs: +quantile(latency[kind], 0.5).toFixed(1),
            latencyP90Ms: +quantile(latency[kind], 0.9).toFixed(1),
            workflowsPerSecond: +throughput[kind].toFixed(1),
            historyEvents: events[kind],
            historyEventsPerCall: perCall[kind],
          };
        }
        report.ratios = {
          latencyMedian: +(quantile(latency.interpreter, 0.5) / quantile(latency.handwritten, 0.5)).toFixed(2),
          throughput: +(throughput.interpreter / throughput.handwritten).toFixed(2),
          historyEvents: +(events.interpreter / events.handwritten).toFixed(2),
          historyEventsPerCall: +(perCall.interpreter / perCall.handwritten).toFixed(2),
        };
      }),
    ),
  );
  console.log(JSON.stringify({ runs: RUNS, throughputRuns: THROUGHPUT_RUNS, concurrency: CONCURRENCY, without: WITHOUT, ...report }, null, 2));
  await connection.close();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
