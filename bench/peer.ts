/**
 * swflow against its peer on the same engine: zigflow (Go, Serverless Workflow 1.0 on Temporal,
 * https://github.com/zigflow/zigflow), on ONE dev server (swflow's dynamic config), calling ONE
 * local HTTP service (a separate process), every side's worker in its own process, runs
 * interleaved. Sides: zigflow; swflow running the same 1.0 document; swflow running the 0.8
 * equivalent (REST function on an OpenAPI document; the loop as a switch back-edge); the same two
 * with `swflow.local` (`-local`); a hand-written workflow; on request (`--sides`), the same two on
 * an interpreter worker without `eager-calls` (`-queue`: calls on `swflow-adapters`, the default
 * path before 2026-11-25); `-writes` sides run the ten calls as POSTs (zigflow-writes,
 * swflow-1.0-writes, swflow-0.8-writes: writes stay activities on swflow's default path, reads
 * run as local activities since `local-reads`).
 *
 * Per repetition (default 3):
 *   - latency: `--runs` sequential runs of 10 sequential GETs, the sides interleaved run by run
 *     (p50/p90 per side);
 *   - throughput: `--throughput` runs of the same workflow with `--concurrency` in flight, one
 *     side after the other (the order rotates per repetition), workflows/s;
 *   - a `--loop`-iteration data loop (wall time of one run);
 * and once: history events of one run of each workload (zigflow's loop runs one child workflow
 * per iteration: its children are counted apart).
 *
 * zigflow is not part of swflow: build it yourself (bench/README.md, "Peer"), then
 *   npx tsx bench/peer.ts --zigflow /path/to/zigflow [--reps 3] [--runs 20] [--throughput 200]
 * The swflow worker process (bench/peer-worker.ts) gets node flags from BENCH_WORKER_NODE_ARGS
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { freePort } from '../test/helpers/ports';
import { eventTimeMs, mean, option as arg, quantile, round, startEchoService, waitFor, writePeerDocuments, zigflowSideOf } from './support';

const ZIGFLOW = arg('zigflow', process.env.ZIGFLOW_BIN ?? '');
const REPS = Number(arg('reps', '3'));
const RUNS = Number(arg('runs', '20'));
const THROUGHPUT_RUNS = Number(arg('throughput', '200'));
const CONCURRENCY = Number(arg('concurrency', '50'));
const LOOP = Number(arg('loop', '100'));
const ONLY = arg('sides', 'zigflow,swflow-1.0,swflow-0.8,swflow-1.0-local,swflow-0.8-local,handwritten').split(',');

/** The queue of an interpreter worker that does not serve built-in calls (`builtinCalls: false`): the path before `eager-calls`. */
const QUEUE_INTERPRETER_TASK_QUEUE = 'bench-swflow-queue';

/** The queue of the hand-written baseline (bench/peer-handwritten.ts), served by bench/peer-worker.ts. */
const HANDWRITTEN_TASK_QUEUE = 'bench-handwritten';

/** One side: a worker process and how its three workloads are started. */
interface Side {
  name: string;
  taskQueue: string;
  types: { tenCalls: string; oneCall: string; loop: string };
  /** The workflow input (the hand-written baseline takes the service URL and loop count). */
  input?: (service: string) => unknown;
}

const SIDES: Side[] = [
  { name: 'zigflow', taskQueue: 'zigflow-bench', types: { tenCalls: 'tencalls', oneCall: 'onecall', loop: 'dataloop' } },
  { name: 'swflow-1.0', taskQueue: INTERPRETER_TASK_QUEUE, types: { tenCalls: 'bench/tencalls', oneCall: 'bench/onecall', loop: 'bench/dataloop' } },
  { name: 'swflow-0.8', taskQueue: INTERPRETER_TASK_QUEUE, types: { tenCalls: 'tencalls08', oneCall: 'onecall08', loop: 'dataloop08' } },
  // The same documents on an interpreter worker without `eager-calls`: every call an activity on `swflow-adapters`.
  { name: 'swflow-1.0-queue', taskQueue: QUEUE_INTERPRETER_TASK_QUEUE, types: { tenCalls: 'bench/tencalls', oneCall: 'bench/onecall', loop: 'bench/dataloop' } },
  { name: 'swflow-0.8-queue', taskQueue: QUEUE_INTERPRETER_TASK_QUEUE, types: { tenCalls: 'tencalls08', oneCall: 'onecall08', loop: 'dataloop08' } },
  // The same documents with `swflow.local: true` on their calls: local activities on the interpreter worker.
  { name: 'swflow-1.0-local', taskQueue: INTERPRETER_TASK_QUEUE, types: { tenCalls: 'bench/tencalls-local', oneCall: 'bench/onecall-local', loop: 'bench/dataloop' } },
  { name: 'swflow-0.8-local', taskQueue: INTERPRETER_TASK_QUEUE, types: { tenCalls: 'tencalls08-local', oneCall: 'onecall08-local', loop: 'dataloop08' } },
  // The ten calls as POSTs (writes: activities on the default path, not local-reads), against zigflow's `tenposts`.
  { name: 'zigflow-writes', taskQueue: 'zigflow-bench', types: { tenCalls: 'tenposts', oneCall: 'onecall', loop: 'dataloop' } },
  { name: 'swflow-1.0-writes', taskQueue: INTERPRETER_TASK_QUEUE, types: { tenCalls: 'bench/tencalls-writes', oneCall: 'bench/onecall', loop: 'bench/dataloop' } },
  { name: 'swflow-0.8-writes', taskQueue: INTERPRETER_TASK_QUEUE, types: { tenCalls: 'tencalls08-writes', oneCall: 'onecall08', loop: 'dataloop08' } },
  {
    name: 'handwritten',
    taskQueue: HANDWRITTEN_TASK_QUEUE,
    types: { tenCalls: 'tenCallsHandwritten', oneCall: 'oneCallHandwritten', loop: 'dataLoopHandwritten' },
    input: (service: string) => ({ service, loop: LOOP }),
  },
].filter((s) => ONLY.includes(s.name));

async function main(): Promise<void> {
  if (!ZIGFLOW && ONLY.some((s) => s.startsWith('zigflow'))) throw new Error('give the zigflow binary: --zigflow /path/to/zigflow (bench/README.md, "Peer", says how to build it)');
  const dir = mkdtempSync(join(tmpdir(), 'swflow-peer-'));
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const children: ChildProcess[] = [];
  const stop = () => children.forEach((c) => c.exitCode === null && c.kill('SIGINT'));
  process.once('SIGINT', () => (stop(), process.exit(130)));
  try {
    const servicePort = await freePort();
    const echo = startEchoService(servicePort);
    children.push(echo);
    await waitFor(echo, /ready/, 'the echo service');
    const service = `http://127.0.0.1:${servicePort}`;
    const docs = writePeerDocuments(dir, service, LOOP);

    if (ONLY.some((s) => s.startsWith('zigflow'))) {
      const zig = spawn(
        ZIGFLOW,
        ['run', '-f', docs.zigflow, '-H', server.address, '--disable-telemetry', '-l', 'warn', '--health-listen-address', `127.0.0.1:${await freePort()}`, '--metrics-listen-address', `127.0.0.1:${await freePort()}`],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      children.push(zig);
      zig.stderr!.on('data', (c: Buffer) => /error|fatal/i.test(c.toString()) && process.stderr.write(`[zigflow] ${c}`));
    }
    if (ONLY.some((s) => !s.startsWith('zigflow'))) {
      const sw = spawn(process.execPath, [...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', join(__dirname, 'peer-worker.ts'), docs.swflow, HANDWRITTEN_TASK_QUEUE, ...(ONLY.some((s) => s.endsWith('-queue')) ? [QUEUE_INTERPRETER_TASK_QUEUE] : [])], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TEMPORAL_ADDRESS: server.address },
      });
      children.push(sw);
      await waitFor(sw, /^ready$/m, 'the swflow workers');
      sw.stderr!.on('data', (c: Buffer) => process.stderr.write(`[swflow] ${c}`));
    }

    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const execute = (side: Side, type: string, id: string) => client.workflow.execute(type, { taskQueue: side.taskQueue, workflowId: id, args: [side.input?.(service) ?? { count: 0 }] });

    // Warm-up: every workload of every side (workers polling, caches filled). A run started before
    // its worker polls waits for it.
    for (const side of SIDES) {
      for (let i = 0; i < 3; i++) for (const type of Object.values(side.types)) await execute(side, type, `warm-${side.name}-${type.replace('/', '-')}-${i}`);
    }

    const latency: Record<string, number[]> = {};
    const throughput: Record<string, number[]> = {};
    const loopMs: Record<string, number[]> = {};
    for (const s of SIDES) [latency[s.name], throughput[s.name], loopMs[s.name]] = [[], [], []];
    for (let rep = 0; rep < REPS; rep++) {
      const order = SIDES.map((_, i) => SIDES[(i + rep) % SIDES.length]);
      for (let i = 0; i < RUNS; i++) {
        for (const side of order) {
          const t = performance.now();
          await execute(side, side.types.tenCalls, `lat-${side.name}-${rep}-${i}`);
          latency[side.name].push(performance.now() - t);
        }
      }
      for (const side of order) {
        let next = 0;
        const t = performance.now();
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < THROUGHPUT_RUNS) await execute(side, side.types.tenCalls, `tp-${side.name}-${rep}-${next++}`);
          }),
        );
        throughput[side.name].push(THROUGHPUT_RUNS / ((performance.now() - t) / 1000));
      }
      for (const side of order) {
        const t = performance.now();
        await execute(side, side.types.loop, `loop-${side.name}-${rep}`);
        loopMs[side.name].push(performance.now() - t);
      }
      console.error(`[peer] repetition ${rep + 1}/${REPS} done`);
    }

    // History events of one run per workload; zigflow's loop iterations are child workflows.
    const events = async (id: string) => (await client.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
    const childRuns = async (side: Side, prefix: string) => {
      let n = 0;
      let total = 0;
      for await (const wf of client.workflow.list({ query: `TaskQueue = '${side.taskQueue}' AND WorkflowId STARTS_WITH '${prefix}'` })) {
        n++;
        total += wf.historyLength;
      }
      return { runs: n, events: total };
    };
    const report: Record<string, unknown> = {};
    for (const side of SIDES) {
      await execute(side, side.types.oneCall, `one-${side.name}`);
      const ten = await events(`lat-${side.name}-0-0`);
      const one = await events(`one-${side.name}`);
      const loopChildren = side.name.startsWith('zigflow') ? await childRuns(side, `loop-${side.name}-0_`) : { runs: 0, events: 0 };
      const phases = await phasesOf(client, Array.from({ length: RUNS * REPS }, (_, i) => `lat-${side.name}-${Math.floor(i / RUNS)}-${i % RUNS}`));
      report[side.name] = {
        phasesMs: phases,
        latencyMs: { p50: round(quantile(latency[side.name], 0.5)), p90: round(quantile(latency[side.name], 0.9)), perRepetitionP50: chunks(latency[side.name], RUNS).map((c) => round(quantile(c, 0.5))) },
        workflowsPerSecond: throughput[side.name].map((x) => round(x, 2)),
        loopMs: loopMs[side.name].map((x) => round(x)),
        historyEvents: { tenCalls: ten, oneCall: one, perCall: round((ten - one) / 9, 2), loop: await events(`loop-${side.name}-0`), loopChildRuns: loopChildren.runs, loopChildEvents: loopChildren.events },
      };
    }
    // Each side against zigflow on the same workload.
    if (SIDES.some((s) => s.name.startsWith('zigflow'))) {
      const ratios: Record<string, unknown> = {};
      for (const side of SIDES.filter((s) => !s.name.startsWith('zigflow') && latency[zigflowSideOf(s.name)])) {
        const base = zigflowSideOf(side.name);
        ratios[side.name] = {
          latencyP50: round(quantile(latency[side.name], 0.5) / quantile(latency[base], 0.5), 2),
          latencyP90: round(quantile(latency[side.name], 0.9) / quantile(latency[base], 0.9), 2),
          latencyP50PerRepetition: chunks(latency[side.name], RUNS).map((c, i) => round(quantile(c, 0.5) / quantile(chunks(latency[base], RUNS)[i], 0.5), 2)),
          throughputPerRepetition: throughput[side.name].map((x, i) => round(x / throughput[base][i], 2)),
          loopPerRepetition: loopMs[side.name].map((x, i) => round(x / loopMs[base][i], 3)),
        };
      }
      report.ratiosToZigflow = ratios;
    }
    console.log(JSON.stringify({ reps: REPS, runs: RUNS, throughputRuns: THROUGHPUT_RUNS, concurrency: CONCURRENCY, loop: LOOP, ...report }, null, 2));
    await client.connection.close();
  } finally {
    stop();
    await Promise.all(children.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
    await server.stop();
  }
}

/**
 * Where a run's time goes, from its history's event times (means over the runs, ms): the first
 * workflow task (swflow pins the definition there) and the others on the worker (started → completed), a workflow task's dispatch (scheduled → started), an
 * activity's dispatch (scheduled → started: ~0 when the worker ran it eagerly), an activity's
 * execution (started → completed, the HTTP call included) and the step from an activity's
 * completion to the next workflow task's start.
 */
async function phasesOf(client: Client, ids: string[]): Promise<Record<string, number>> {
  const sums: Record<string, number[]> = { firstWorkflowTask: [], workflowTask: [], workflowTaskDispatch: [], activityDispatch: [], activityExecution: [], completionToNextTask: [], upserts: [] };
  for (const id of ids) {
    const evs = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    let wftScheduled = 0;
    let wftStarted = 0;
    let activityCompleted = 0;
    const scheduled = new Map<number, number>();
    let upserts = 0;
    let first = true;
    for (const e of evs) {
      const t = eventTimeMs(e);
      const eid = Number(e.eventId);
      if (e.workflowTaskScheduledEventAttributes) wftScheduled = t;
      if (e.workflowTaskStartedEventAttributes) {
        wftStarted = t;
        sums.workflowTaskDispatch.push(t - wftScheduled);
        if (activityCompleted) sums.completionToNextTask.push(t - activityCompleted);
        activityCompleted = 0;
      }
      if (e.workflowTaskCompletedEventAttributes) {
        (first ? sums.firstWorkflowTask : sums.workflowTask).push(t - wftStarted);
        first = false;
      }
      if (e.activityTaskScheduledEventAttributes) scheduled.set(eid, t);
      if (e.activityTaskStartedEventAttributes) sums.activityDispatch.push(t - scheduled.get(Number(e.activityTaskStartedEventAttributes.scheduledEventId))!);
      if (e.activityTaskCompletedEventAttributes) {
        activityCompleted = t;
        const started = evs.find((x) => Number(x.eventId) === Number(e.activityTaskCompletedEventAttributes!.startedEventId));
        if (started) sums.activityExecution.push(t - eventTimeMs(started));
      }
      if (e.upsertWorkflowSearchAttributesEventAttributes) upserts++;
    }
    sums.upserts.push(upserts);
  }
  return Object.fromEntries(Object.entries(sums).map(([k, xs]) => [k, round(mean(xs), 2)]));
}

const chunks = <T>(xs: T[], n: number): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
