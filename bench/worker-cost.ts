/**
 * What a worker costs: CPU per run and peak resident memory of the worker process, swflow's
 * against zigflow's, on bench/peer.ts's 10-call workload (10 sequential GETs to a local HTTP
 * service in its own process) on ONE dev server.
 *
 * Per repetition (default 2) and side, in a rotating order: a FRESH worker process (so its peak
 * RSS is its own), `--warmup` runs, then `--runs` runs (default 200) with `--concurrency` in flight
 * (default 50). Before the runs, `--idle` seconds (default 10) with nothing to do. Measured from /proc: the worker's CPU (utime + stime, all threads) over the
 * measured runs divided by their number, its peak RSS (VmHWM) at the end, its RSS when ready and
 * at the end (VmRSS), its CPU per second while idle. Sides: zigflow; swflow running the 1.0 document
 * (GETs: local activities by default) on what `swflow start` runs (bench/worker-cost-worker.ts:
 * the interpreter worker and the built-in adapter worker in one process); `ts-floor`: the same
 * calls written by hand (bench/worker-cost-floor.ts), `ts-floor-pinned` the same plus a pin of the
 * document and a search attribute upsert, as any run of a document resolved at its start makes,
 * `ts-floor-adapter` that with swflow's `call: http` adapter serving its GETs (bench/worker-cost-floor-adapter.ts);
 * `-writes`: the same ten calls as POSTs (eager activities), against zigflow's `zigflow-writes`; `swflow-1.0-worker` and
 * `swflow-1.0-worker-writes`: the same on the `swflow worker` command itself (bin/swflow.js: the
 * interpreter worker alone); the same with `swflow.local: true` on every call (`-local`);
 * `-before` variants on a worker that bundles its workflow code as before 2026-11-25 (webpack in
 * the worker process, full source map). bench/worker-cost-worker.ts runs compiled to JavaScript as
 * the `swflow` command runs (bin/compiled.js); `-tsx` variants run it through tsx, `-main` variants
 * run another checkout's (`--main-tree <dir>`) through tsx, as the command did before 2026-11-25.
 *
 *   npx tsx bench/worker-cost.ts --zigflow /path/to/zigflow [--reps 2] [--runs 200] [--concurrency 50]
 *     [--sides zigflow,swflow-1.0,zigflow-writes,swflow-1.0-writes,swflow-1.0-worker,swflow-1.0-worker-writes,swflow-1.0-local,…]
 *     [--main-tree <dir>]
 *
 * The swflow worker gets node flags from BENCH_WORKER_NODE_ARGS
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=/tmp/heap`);
 * with `--snapshot` the bench sends SIGUSR2 to it after the measured runs (a heap snapshot of its main thread).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { freePort } from '../test/helpers/ports';
// The swflow worker runs compiled, as the swflow command does (bin/compiled.js).
const { compiledExtra } = require('../bin/compiled') as { compiledExtra(file: string): Promise<string> };
import { cpuMs, option as arg, peakRssMb, quietBundlerLogger, round, rssMb, startEchoService, waitFor, writePeerDocuments, zigflowSideOf, stopChild as exit } from './support';

const ZIGFLOW = arg('zigflow', process.env.ZIGFLOW_BIN ?? '');
const REPS = Number(arg('reps', '2'));
const RUNS = Number(arg('runs', '200'));
const WARMUP = Number(arg('warmup', '20'));
const CONCURRENCY = Number(arg('concurrency', '50'));
const IDLE_S = Number(arg('idle', '10'));
const SNAPSHOT = process.argv.includes('--snapshot');
const ONLY = arg('sides', 'zigflow,swflow-1.0,swflow-1.0-local').split(',');
const MAIN_TREE = arg('main-tree', '');
const BASE_TREE = arg('base-tree', '');

interface Side {
  name: string;
  taskQueue: string;
  type: string;
  bundleInProcess?: boolean;
  /** Its environment beyond the bench's. */
  env?: Record<string, string>;
  /**
   * How the swflow worker runs: bench/worker-cost-worker.ts (what `swflow start` runs) compiled to
   * JavaScript as bin/swflow.js runs it (default), the sources through tsx, another tree's sources
   * (--main-tree) through tsx; or `cli`: the `swflow worker` command itself (bin/swflow.js).
   */
  launch?: 'compiled' | 'tsx' | 'main' | 'cli' | 'cli-base';
  /** Another worker program than swflow's (bench/worker-cost-floor.ts: the TypeScript floor). */
  entry?: string;
}
const SIDES = ([
  { name: 'zigflow', taskQueue: 'zigflow-bench', type: 'tencalls' },
  { name: 'swflow-1.0', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls' },
  { name: 'swflow-1.0-local', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls-local' },
  // The ten calls as POSTs (writes: activities on the default path), and zigflow's same POSTs.
  { name: 'zigflow-writes', taskQueue: 'zigflow-bench', type: 'tenposts' },
  { name: 'swflow-1.0-writes', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls-writes' },
  // What `swflow worker` runs (the interpreter worker alone, built-in calls on its queue, schedules kept in sync): the command itself.
  { name: 'swflow-1.0-worker', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls', launch: 'cli' as const },
  { name: 'swflow-1.0-worker-writes', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls-writes', launch: 'cli' as const },
  // The same command from another checkout (`--base-tree <dir>`: a before, interleaved with the after).
  { name: 'swflow-1.0-worker-base', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls', launch: 'cli-base' as const },
  { name: 'swflow-1.0-worker-writes-base', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls-writes', launch: 'cli-base' as const },
  // The same two on a worker that bundles as it did before 2026-11-25 (in process, full source map).
  { name: 'swflow-1.0-before', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls', bundleInProcess: true },
  { name: 'swflow-1.0-local-before', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls-local', bundleInProcess: true },
  // Through tsx, as bin/swflow.js ran it before 2026-11-25.
  { name: 'swflow-1.0-tsx', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls', launch: 'tsx' as const },
  { name: 'swflow-1.0-local-tsx', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls-local', launch: 'tsx' as const },
  // Another checkout's worker (--main-tree <dir>, e.g. `git archive main | tar -x -C <dir>` with node_modules linked) through tsx.
  { name: 'swflow-1.0-main', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls', launch: 'main' as const },
  { name: 'swflow-1.0-local-main', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls-local', launch: 'main' as const },
  // Compiled, without the worker commands' V8 heap settings (bin/heap.js), and with glibc's malloc held to 2 arenas.
  { name: 'swflow-1.0-v8default', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls', env: { SWFLOW_V8_FLAGS: '' } },
  { name: 'swflow-1.0-arena2', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls', env: { MALLOC_ARENA_MAX: '2' } },
  { name: 'swflow-1.0-local-arena2', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls-local', env: { MALLOC_ARENA_MAX: '2' } },
  // The TypeScript floor: the same calls written by hand on the SDK, no swflow code (bench/worker-cost-floor.ts).
  { name: 'ts-floor', taskQueue: 'bench-floor', type: 'tenLocalGets', entry: 'worker-cost-floor.ts' },
  { name: 'ts-floor-writes', taskQueue: 'bench-floor', type: 'tenPosts', entry: 'worker-cost-floor.ts' },
  // The floor plus what running a document resolved at start adds by hand: its pin (a local activity returning it) and a search attribute upsert.
  { name: 'ts-floor-pinned', taskQueue: 'bench-floor', type: 'tenLocalGetsPinned', entry: 'worker-cost-floor.ts' },
  // The pinned floor whose GETs are swflow's `call: http` adapter through the adapter SDK (bench/worker-cost-floor-adapter.ts): what is left to swflow is the interpreter's.
  { name: 'ts-floor-adapter', taskQueue: 'bench-floor', type: 'tenLocalGetsPinnedAdapter', entry: 'worker-cost-floor-adapter.ts' },
  { name: 'ts-floor-adapter-writes', taskQueue: 'bench-floor', type: 'tenPostsPinnedAdapter', entry: 'worker-cost-floor-adapter.ts' },
] as Side[]).filter((s) => ONLY.includes(s.name));

/** The floor's workflow bundle, made once in this process and written to `dir` (its worker loads it by path). */
let floorBundle: Promise<string> | undefined;
function floorBundlePath(dir: string): Promise<string> {
  return (floorBundle ??= (async () => {
    const { code } = await bundleWorkflowCode({ workflowsPath: join(__dirname, 'worker-cost-floor-workflow.ts'), logger: quietBundlerLogger });
    const file = join(dir, 'floor-bundle.js');
    writeFileSync(file, code);
    return file;
  })());
}

async function main(): Promise<void> {
  if (!BASE_TREE && SIDES.some((s) => s.launch === 'cli-base')) throw new Error('the -base sides need --base-tree <another checkout with node_modules>');
  if (!MAIN_TREE && SIDES.some((s) => s.launch === 'main')) throw new Error('the -main sides need --main-tree <checkout of main with node_modules>');
  if (!ZIGFLOW && ONLY.some((s) => s.startsWith('zigflow'))) throw new Error('give the zigflow binary: --zigflow /path/to/zigflow (bench/README.md, "Peer")');
  const dir = mkdtempSync(join(tmpdir(), 'swflow-worker-cost-'));
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const children: ChildProcess[] = [];
  try {
    const servicePort = await freePort();
    const echo = startEchoService(servicePort);
    children.push(echo);
    await waitFor(echo, /ready/, 'the echo service');
    const docs = writePeerDocuments(dir, `http://127.0.0.1:${servicePort}`, 1);
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });

    const startWorker = async (side: Side): Promise<ChildProcess> => {
      let child: ChildProcess;
      if (side.name.startsWith('zigflow')) {
        child = spawn(
          ZIGFLOW,
          ['run', '-f', docs.zigflow, '-H', server.address, '--disable-telemetry', '-l', 'warn', '--health-listen-address', `127.0.0.1:${await freePort()}`, '--metrics-listen-address', `127.0.0.1:${await freePort()}`],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        child.stderr!.on('data', (c: Buffer) => /error|fatal/i.test(c.toString()) && process.stderr.write(`[zigflow] ${c}`));
      } else {
        // A floor's entry is compiled on its own (into the compiled tree, beside src/): so is the bench module it imports.
        if (side.entry) await compiledExtra(join(__dirname, 'worker-cost-pin.ts'));
        const entry =
          side.entry ? [await compiledExtra(join(__dirname, side.entry)), docs.swflow]
          : side.launch === 'tsx' ? ['--import', 'tsx', join(__dirname, 'worker-cost-worker.ts'), docs.swflow]
          : side.launch === 'main' ? ['--import', 'tsx', join(MAIN_TREE, 'bench', 'worker-cost-worker.ts'), docs.swflow]
          : side.launch === 'cli' ? [join(__dirname, '..', 'bin', 'swflow.js'), 'worker', '--definitions', docs.swflow]
          : side.launch === 'cli-base' ? [join(BASE_TREE, 'bin', 'swflow.js'), 'worker', '--definitions', docs.swflow]
          : [await compiledExtra(join(__dirname, 'worker-cost-worker.ts')), docs.swflow];
        child = spawn(process.execPath, [...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean), ...entry], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, ...side.env, TEMPORAL_ADDRESS: server.address, BENCH_SERVICE: `http://127.0.0.1:${servicePort}`, ...(side.entry ? { BENCH_FLOOR_BUNDLE: await floorBundlePath(dir) } : {}), ...(side.bundleInProcess ? { BENCH_BUNDLE_IN_PROCESS: '1' } : {}) },
        });
        // `swflow worker` says it serves its queue once its worker is created.
        await waitFor(child, side.launch === 'cli' || side.launch === 'cli-base' ? /serving task queue/ : /^ready$/m, 'the swflow worker');
        child.stderr!.on('data', (c: Buffer) => process.stderr.write(`[swflow] ${c}`));
        // BENCH_WORKER_STDOUT=1: its standard output too (e.g. BENCH_WORKER_NODE_ARGS=--trace-gc).
        if (process.env.BENCH_WORKER_STDOUT) child.stdout!.on('data', (c: Buffer) => process.stderr.write(`[swflow] ${c}`));
      }
      children.push(child);
      return child;
    };
    const runMany = async (side: Side, prefix: string, count: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, count) }, async () => {
          while (next < count) await client.workflow.execute(side.type, { taskQueue: side.taskQueue, workflowId: `${prefix}-${next++}`, args: [{}] });
        }),
      );
    };

    const rows: Record<string, { idleCpuMsPerS: number; cpuMsPerRun: number; peakRssMb: number; readyRssMb: number; endRssMb: number; wallS: number }[]> = {};
    for (const s of SIDES) rows[s.name] = [];
    const load: number[] = [loadavg()[0]];
    for (let rep = 0; rep < REPS; rep++) {
      const order = SIDES.map((_, i) => SIDES[(i + rep) % SIDES.length]);
      for (const side of order) {
        const worker = await startWorker(side);
        await runMany(side, `warm-${side.name}-${rep}`, WARMUP); // zigflow: the first run waits for its poller
        const readyRss = rssMb(worker.pid!);
        // Idle: CPU with nothing to do (pollers, timers), which a slow run pays per second of its wall.
        const idle0 = cpuMs(worker.pid!);
        await new Promise((r) => setTimeout(r, IDLE_S * 1000));
        const idleMsPerS = round((cpuMs(worker.pid!) - idle0) / IDLE_S, 2);
        const cpu0 = cpuMs(worker.pid!);
        const t = performance.now();
        await runMany(side, `run-${side.name}-${rep}`, RUNS);
        const wall = (performance.now() - t) / 1000;
        const row = { idleCpuMsPerS: idleMsPerS, cpuMsPerRun: round((cpuMs(worker.pid!) - cpu0) / RUNS, 2), peakRssMb: peakRssMb(worker.pid!), readyRssMb: readyRss, endRssMb: rssMb(worker.pid!), wallS: round(wall, 1) };
        if (SNAPSHOT && !side.name.startsWith('zigflow')) {
          worker.kill('SIGUSR2');
          await new Promise((r) => setTimeout(r, 20_000));
        }
        rows[side.name].push(row);
        await exit(worker);
        load.push(loadavg()[0]);
        console.error(`[worker-cost] rep ${rep + 1} ${side.name}: ${JSON.stringify(row)}`);
      }
    }
    const ratios: Record<string, unknown> = {};
    // Against zigflow on the same workload.
    for (const s of SIDES.filter((x) => !x.name.startsWith('zigflow'))) {
      const base = rows[zigflowSideOf(s.name)];
      if (!base) continue;
      ratios[s.name] = {
        cpuPerRun: rows[s.name].map((r, i) => round(r.cpuMsPerRun / base[i].cpuMsPerRun, 2)),
        peakRss: rows[s.name].map((r, i) => round(r.peakRssMb / base[i].peakRssMb, 2)),
      };
    }
    // Against the TypeScript floor on the same workload (the interpreter's own cost).
    const toFloor: Record<string, unknown> = {};
    for (const s of SIDES.filter((x) => x.name.startsWith('swflow'))) {
      const base = rows[s.name.includes('-writes') ? 'ts-floor-writes' : 'ts-floor'];
      if (!base?.length) continue;
      const pinned = s.name.includes('-writes') ? undefined : rows['ts-floor-pinned'];
      const adapter = rows[s.name.includes('-writes') ? 'ts-floor-adapter-writes' : 'ts-floor-adapter'];
      toFloor[s.name] = {
        cpuPerRun: rows[s.name].map((r, i) => round(r.cpuMsPerRun / base[i].cpuMsPerRun, 2)),
        peakRssOverMb: rows[s.name].map((r, i) => r.peakRssMb - base[i].peakRssMb),
        // Against the floor that also pins its document and upserts its search attributes.
        ...(pinned?.length ? { cpuPerRunToPinned: rows[s.name].map((r, i) => round(r.cpuMsPerRun / pinned[i].cpuMsPerRun, 2)) } : {}),
        // …and whose calls are swflow's http adapter: the interpreter's own cost.
        ...(adapter?.length ? { cpuPerRunToAdapter: rows[s.name].map((r, i) => round(r.cpuMsPerRun / adapter[i].cpuMsPerRun, 2)) } : {}),
      };
    }
    for (const f of ['ts-floor-pinned', 'ts-floor-adapter', 'ts-floor-adapter-writes']) {
      const floor = rows[f.includes('-writes') ? 'ts-floor-writes' : 'ts-floor'];
      if (rows[f]?.length && floor?.length) toFloor[f] = { cpuPerRun: rows[f].map((r, i) => round(r.cpuMsPerRun / floor[i].cpuMsPerRun, 2)) };
    }
    if (rows['ts-floor-adapter']?.length && rows['ts-floor-pinned']?.length) {
      (toFloor['ts-floor-adapter'] as Record<string, unknown>).cpuPerRunToPinned = rows['ts-floor-adapter'].map((r, i) => round(r.cpuMsPerRun / rows['ts-floor-pinned'][i].cpuMsPerRun, 2));
    }
    console.log(JSON.stringify({ runs: RUNS, concurrency: CONCURRENCY, reps: REPS, loadAverage: load.map((x) => round(x, 2)), sides: rows, ratiosToZigflow: ratios, ratiosToFloor: toFloor }, null, 2));
    await client.connection.close();
  } finally {
    await Promise.all(children.map(exit));
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
