/**
 * swflow against zigflow at saturation on the PostgreSQL cluster (issue 34 item 5): bench/peer.ts's
 * 10-call workload (10 sequential GETs to a local HTTP service in its own process; `-writes`: the
 * same ten calls as POSTs) on ONE 2-process Temporal cluster on PostgreSQL (src/platform/cluster.ts,
 * what `swflow cluster` starts: its own data folder, free ports, stopped at the end), with the
 * shipped `swflow worker` command (bin/swflow.js: the interpreter worker, built-in calls on its
 * queue, reads as local activities) and zigflow's own worker, each in its own process, both
 * running all along.
 *
 * The number in flight is raised level by level (`--levels`); at each level the sides run one
 * after the other (the order rotates per level and repetition), each keeping that many runs in
 * flight for a warm-up (not counted: `--warm` s and as many runs as in flight) and then a window
 * (`--seconds` s and twice as many runs as in flight, at most `--max-window` s): runs/s (runs
 * completed in the window), p50/p99 latency of those runs (start → result, as the client sees
 * it), and the CPU of every process over the window from /proc, in cores: Temporal server
 * process a (frontend + history), b (history + matching + worker), PostgreSQL (postmaster and its
 * backends), the side's worker, the HTTP service, this process (the client) and the whole machine
 * (every user's processes: the machine is shared), and the CPU pressure (PSI). A side stops
 * rising once two levels in a row do not add 5 % to its best runs/s (saturated).
 *
 *   npx tsx bench/peer-cluster.ts --zigflow /path/to/zigflow [--reps 2] [--levels 5,10,20,40,80,160]
 *     [--seconds 12] [--warm 3] [--max-window 45] [--sides zigflow,swflow-1.0-worker,zigflow-writes,swflow-1.0-worker-writes]
 *     [--fast-disk] [--dev-dynamic-config]
 *
 * `--fast-disk`: PostgreSQL without fsync (as the cluster tests run it); default: as `swflow cluster`
 * runs it. `--dev-dynamic-config`: adds the dynamic config swflow's dev servers set
 * (src/platform/dev-server.ts: eager activities, dispatch rates) to the cluster's file and waits for
 * the servers to read it (they poll it every 10 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startCluster } from '../src/platform/cluster';
import { devServerDynamicConfig } from '../src/platform/dev-server';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { freePort } from '../test/helpers/ports';
import { option as arg, quantile, round, startEchoService, stopChild, waitFor, writePeerDocuments, zigflowSideOf } from './support';

const ZIGFLOW = arg('zigflow', process.env.ZIGFLOW_BIN ?? '');
const REPS = Number(arg('reps', '2'));
const LEVELS = arg('levels', '5,10,20,40,80,160').split(',').map(Number);
const SECONDS = Number(arg('seconds', '12'));
const WARM = Number(arg('warm', '3'));
const MAX_WINDOW_S = Number(arg('max-window', '45'));
const ONLY = arg('sides', 'zigflow,swflow-1.0-worker').split(',');
const FAST_DISK = process.argv.includes('--fast-disk');
const DEV_DYNAMIC_CONFIG = process.argv.includes('--dev-dynamic-config');

interface Side {
  name: string;
  taskQueue: string;
  type: string;
}
const SIDES: Side[] = [
  { name: 'zigflow', taskQueue: 'zigflow-bench', type: 'tencalls' },
  { name: 'swflow-1.0-worker', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls' },
  { name: 'zigflow-writes', taskQueue: 'zigflow-bench', type: 'tenposts' },
  { name: 'swflow-1.0-worker-writes', taskQueue: INTERPRETER_TASK_QUEUE, type: 'bench/tencalls-writes' },
].filter((s) => ONLY.includes(s.name));

/** A process's CPU time in ms (utime + stime, with `children`: + its reaped children's cutime + cstime). */
function cpuMsOf(pid: number, children = false): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
    return (ticks * 1000) / 100; // USER_HZ = 100
  } catch {
    return 0; // gone
  }
}

/** The whole machine's busy CPU time in ms (/proc/stat: all but idle and iowait), every process of every user. */
function machineCpuMs(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return ((f.reduce((a, b) => a + b, 0) - f[3] - f[4]) * 1000) / 100;
}

/** The share of the last 10 s some task waited for a CPU (PSI), in %: above ~50, the machine's CPU is what everything waits for. */
function cpuPressure(): number {
  try {
    return Number(/avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))![1]);
  } catch {
    return NaN;
  }
}

/** PostgreSQL's CPU: the postmaster (with its reaped backends) and its live backends. */
function postgresCpuMs(postmaster: number): number {
  let ms = cpuMsOf(postmaster, true);
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === postmaster) ms += cpuMsOf(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  return ms;
}

interface Row {
  inFlight: number;
  /** Runs completed in the window, and its length. */
  runs: number;
  windowS: number;
  runsPerS: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  /** CPU over the window, in cores (1 = one core busy all the window). */
  cores: Record<string, number>;
  load1: number;
  /** /proc/pressure/cpu `some avg10` at the window's end (%). */
  cpuPressure: number;
}

async function main(): Promise<void> {
  if (!ZIGFLOW && ONLY.some((s) => s.startsWith('zigflow'))) throw new Error('give the zigflow binary: --zigflow /path/to/zigflow (bench/README.md, "Peer", says how to build it)');
  const log = (m: string) => console.error(`[peer-cluster] ${m}`);
  const dir = mkdtempSync(join(tmpdir(), 'swflow-peer-cluster-'));
  const cluster = await startCluster({ fastDisk: FAST_DISK, log });
  const children: ChildProcess[] = [];
  const stopChildren = async () => {
    await Promise.all(children.map(stopChild));
  };
  process.once('SIGINT', () => void stopChildren().then(() => cluster.stop()).finally(() => process.exit(130)));
  try {
    if (DEV_DYNAMIC_CONFIG) {
      appendFileSync(join(cluster.dir, 'dynamicconfig.yaml'), Object.entries(devServerDynamicConfig).map(([k, v]) => `${k}:\n  - value: ${v}\n`).join(''));
      log(`dev server dynamic config added (${Object.keys(devServerDynamicConfig).join(', ')}); waiting 12 s for the servers to read it`);
      await new Promise((r) => setTimeout(r, 12_000));
    }
    const postmaster = Number(readFileSync(join(cluster.dir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const servicePort = await freePort();
    const echo = startEchoService(servicePort);
    children.push(echo);
    await waitFor(echo, /ready/, 'the echo service');
    const docs = writePeerDocuments(dir, `http://127.0.0.1:${servicePort}`, 1);

    const workers = new Map<string, ChildProcess>();
    if (SIDES.some((s) => s.name.startsWith('zigflow'))) {
      const zig = spawn(
        ZIGFLOW,
        ['run', '-f', docs.zigflow, '-H', cluster.address, '--disable-telemetry', '-l', 'warn', '--health-listen-address', `127.0.0.1:${await freePort()}`, '--metrics-listen-address', `127.0.0.1:${await freePort()}`],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      children.push(zig);
      zig.stderr!.on('data', (c: Buffer) => /error|fatal/i.test(c.toString()) && process.stderr.write(`[zigflow] ${c}`));
      workers.set('zigflow', zig);
    }
    if (SIDES.some((s) => s.name.startsWith('swflow'))) {
      // The shipped command, compiled as a user runs it.
      const sw = spawn(process.execPath, [join(__dirname, '..', 'bin', 'swflow.js'), 'worker', '--definitions', docs.swflow], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TEMPORAL_ADDRESS: cluster.address },
      });
      children.push(sw);
      await waitFor(sw, /serving task queue/, 'swflow worker');
      sw.stderr!.on('data', (c: Buffer) => /error|fatal|warn/i.test(c.toString()) && process.stderr.write(`[swflow] ${c}`));
      workers.set('swflow', sw);
    }
    const workerOf = (side: Side) => workers.get(side.name.startsWith('zigflow') ? 'zigflow' : 'swflow')!;

    const client = new Client({ connection: await Connection.connect({ address: cluster.address }) });
    const execute = (side: Side, id: string) => client.workflow.execute(side.type, { taskQueue: side.taskQueue, workflowId: id, args: [{}] });
    for (const side of SIDES) for (let i = 0; i < 5; i++) await execute(side, `warm-${side.name}-${i}`); // pollers up, caches filled

    const cpuNow = (side: Side): Record<string, number> => ({
      'server a (frontend+history)': cpuMsOf(cluster.processes.get('a')!.child.pid!),
      'server b (history+matching+worker)': cpuMsOf(cluster.processes.get('b')!.child.pid!),
      postgres: postgresCpuMs(postmaster),
      worker: cpuMsOf(workerOf(side).pid!),
      'http service': cpuMsOf(echo.pid!),
      client: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
      'whole machine (all users)': machineCpuMs(),
    });

    /**
     * `inFlight` runs kept going. Warm-up (not counted): at least `WARM` s and `inFlight` runs
     * completed, so the first burst of starts is behind. Then the window: at least `SECONDS` s and
     * 2 × `inFlight` runs completed (at most `MAX_WINDOW_S`), so a window is long against one run's
     * latency. Then no new starts; the runs in flight are drained, not counted.
     */
    const measure = async (side: Side, inFlight: number, tag: string): Promise<Row> => {
      let next = 0;
      let stopping = false;
      let completed = 0;
      let inWindow = false;
      const latencies: number[] = [];
      let failed = 0;
      let onComplete = () => {};
      const loops = Array.from({ length: inFlight }, async () => {
        for (let first = true; !stopping; first = false) {
          const t = performance.now();
          try {
            await execute(side, `${tag}-${next++}`);
          } catch (err) {
            failed++;
            if (failed <= 3) log(`${side.name} run failed: ${(err as Error).message}`);
          }
          if (stopping) break;
          completed++;
          // A run of the first burst (all started at once) is counted in runs/s, not in latency.
          if (inWindow) latencies.push(first ? NaN : performance.now() - t);
          onComplete();
        }
      });
      const until = (seconds: number, runs: number, cap: number) =>
        new Promise<void>((resolve) => {
          const t0 = performance.now();
          const c0 = completed;
          const check = () => {
            const s = (performance.now() - t0) / 1000;
            if ((s >= seconds && completed - c0 >= runs) || s >= cap) (clearInterval(timer), (onComplete = () => {}), resolve());
          };
          const timer = setInterval(check, 100);
          onComplete = check;
        });
      await until(WARM, inFlight, MAX_WINDOW_S);
      const cpu0 = cpuNow(side);
      const t0 = performance.now();
      inWindow = true;
      await until(SECONDS, 2 * inFlight, MAX_WINDOW_S);
      inWindow = false;
      const windowS = (performance.now() - t0) / 1000;
      const cpu1 = cpuNow(side);
      stopping = true;
      await Promise.all(loops);
      const timed = latencies.filter((x) => !Number.isNaN(x));
      return {
        inFlight,
        runs: latencies.length,
        windowS: round(windowS, 1),
        runsPerS: round(latencies.length / windowS, 2),
        p50Ms: timed.length ? round(quantile(timed, 0.5)) : NaN,
        p99Ms: timed.length ? round(quantile(timed, 0.99)) : NaN,
        failed,
        cores: Object.fromEntries(Object.keys(cpu0).map((k) => [k, round((cpu1[k] - cpu0[k]) / (windowS * 1000), 2)])),
        load1: round(loadavg()[0], 2),
        cpuPressure: cpuPressure(),
      };
    };

    const rows: Record<string, Row[][]> = Object.fromEntries(SIDES.map((s) => [s.name, []]));
    for (let rep = 0; rep < REPS; rep++) {
      const best: Record<string, number> = {};
      const flat: Record<string, number> = {};
      for (const s of SIDES) [best[s.name], flat[s.name], rows[s.name][rep]] = [0, 0, []];
      for (const [li, level] of LEVELS.entries()) {
        const active = SIDES.filter((s) => flat[s.name] < 2);
        if (!active.length) break;
        const order = active.map((_, i) => active[(i + li + rep) % active.length]);
        for (const side of order) {
          const row = await measure(side, level, `r${rep}-${side.name}-${level}`);
          rows[side.name][rep].push(row);
          flat[side.name] = row.runsPerS >= best[side.name] * 1.05 ? 0 : flat[side.name] + 1;
          best[side.name] = Math.max(best[side.name], row.runsPerS);
          log(`rep ${rep + 1} ${side.name} ${JSON.stringify(row)}`);
        }
      }
    }

    // Per repetition and side: the level with the most runs/s, and against zigflow on the same workload.
    const peak = (name: string, rep: number) => rows[name][rep].reduce((a, b) => (b.runsPerS > a.runsPerS ? b : a));
    const peaks = Object.fromEntries(SIDES.map((s) => [s.name, Array.from({ length: REPS }, (_, rep) => peak(s.name, rep))]));
    const ratios: Record<string, unknown> = {};
    for (const s of SIDES.filter((x) => !x.name.startsWith('zigflow'))) {
      const base = zigflowSideOf(s.name.replace('-worker', ''));
      if (!peaks[base]) continue;
      ratios[s.name] = {
        peakRunsPerS: peaks[s.name].map((p, i) => round(p.runsPerS / peaks[base][i].runsPerS, 2)),
        p99AtPeak: peaks[s.name].map((p, i) => round(p.p99Ms / peaks[base][i].p99Ms, 2)),
        p50AtPeak: peaks[s.name].map((p, i) => round(p.p50Ms / peaks[base][i].p50Ms, 2)),
      };
    }
    console.log(JSON.stringify({ seconds: SECONDS, warm: WARM, fastDisk: FAST_DISK, devDynamicConfig: DEV_DYNAMIC_CONFIG, peaks, ratiosToZigflow: ratios, rows }, null, 2));
    await client.connection.close();
  } finally {
    await stopChildren();
    await cluster.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
