/**
 * Run starts with 1,000 definitions in the worker's folder against 1 (issue 34, item 3): the
 * registry resolves a run's definition from its index (one stat), so the folder's size should not
 * show in a run start.
 *
 * One dev server; one `swflow worker` process (bin/swflow.js, as a user runs it) per side, each on
 * its own task queue, all running at once: `1` serves a folder holding only `scalestart` (a 0.8
 * inject state: the run is its definition's resolve plus one state), `1000` the same file plus
 * 999 others (half 0.8 JSON, half 1.0 YAML, 5 states or tasks each). With `--main-tree <dir>`, the
 * same two on another checkout's `swflow worker` through tsx (`1-main`, `1000-main`: the registry
 * as it was, listing the folder at every run start). With `--control`, a second worker of one
 * definition (`1-again`): its ratio to `1` is this run's noise floor.
 *
 *   npx tsx bench/definitions-scale.ts [--runs 300] [--batch 25] [--warmup 20] [--idle 10] [--main-tree /work/main] [--control]
 *
 * Runs are sequential (one in flight), in batches alternating between the sides so both see the
 * same machine. Per side: run-start latency (client `execute` → its result: the start, the
 * resolve, one state) p50 and p99; worker CPU per start (utime + stime of the worker process over
 * its own batches, /proc) — which includes the registry's periodic re-scan while the batch runs;
 * and, before the runs, the worker's idle CPU per second over `--idle` s (the re-scan's cost).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { stringify as stringifyYaml } from 'yaml';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { freePort } from '../test/helpers/ports';
import { cpuMs, mean, option, quantile, round, waitFor } from './support';

const RUNS = Number(option('runs', '300'));
const BATCH = Number(option('batch', '25'));
const WARMUP = Number(option('warmup', '20'));
const IDLE_S = Number(option('idle', '10'));
const MAIN_TREE = option('main-tree', '');
const CONTROL = process.argv.includes('--control');

const started = (id: string) => ({ id, version: '1.0', specVersion: '0.8', start: 'Start', states: [{ name: 'Start', type: 'inject', data: { started: true }, end: true }] });

/** Another definition of about the size of a real one: 5 states (0.8) or 5 tasks (1.0). */
function other(i: number): { name: string; text: string } {
  if (i % 2) {
    const states = Array.from({ length: 5 }, (_, k) => ({ name: `S${k}`, type: 'inject', data: { step: k, note: `definition ${i}` }, ...(k < 4 ? { transition: `S${k + 1}` } : { end: true }) }));
    return { name: `other-${i}.sw.json`, text: JSON.stringify({ id: `other${i}`, version: '1.0', specVersion: '0.8', start: 'S0', states }, null, 2) };
  }
  const doc = { document: { dsl: '1.0.0', namespace: 'bench', name: `other${i}`, version: '1.0.0' }, do: Array.from({ length: 5 }, (_, k) => ({ [`step${k}`]: { set: { step: k, note: `definition ${i}` } } })) };
  return { name: `other-${i}.sw.yaml`, text: stringifyYaml(doc) };
}

interface Side {
  name: string;
  folder: string;
  taskQueue: string;
  main?: boolean;
  worker?: ChildProcess;
  latencies: number[];
  cpu: number;
  idleCpuPerS?: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-defscale-'));
  const one = join(dir, 'one');
  const many = join(dir, 'many');
  mkdirSync(one);
  mkdirSync(many);
  for (const folder of [one, many]) writeFileSync(join(folder, 'scalestart.sw.json'), JSON.stringify(started('scalestart'), null, 2));
  for (let i = 1; i < 1000; i++) {
    const { name, text } = other(i);
    writeFileSync(join(many, name), text);
  }
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const sides: Side[] = [
    { name: '1', folder: one, taskQueue: 'defscale-1', latencies: [], cpu: 0 },
    { name: '1000', folder: many, taskQueue: 'defscale-1000', latencies: [], cpu: 0 },
    ...(CONTROL ? [{ name: '1-again', folder: one, taskQueue: 'defscale-1-again', latencies: [], cpu: 0 }] : []),
    ...(MAIN_TREE
      ? [
          { name: '1-main', folder: one, taskQueue: 'defscale-1-main', main: true, latencies: [], cpu: 0 },
          { name: '1000-main', folder: many, taskQueue: 'defscale-1000-main', main: true, latencies: [], cpu: 0 },
        ]
      : []),
  ];
  try {
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    for (const side of sides) {
      const entry = side.main ? ['--import', 'tsx', join(MAIN_TREE, 'src', 'cli', 'main.ts')] : [join(__dirname, '..', 'bin', 'swflow.js')];
      const child = spawn(process.execPath, [...entry, 'worker', '--definitions', side.folder, '--task-queue', side.taskQueue, '--no-schedules'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TEMPORAL_ADDRESS: server.address },
      });
      side.worker = child;
      await waitFor(child, /serving task queue/, `the ${side.name} worker`, 180_000);
      child.stderr!.on('data', (c: Buffer) => process.stderr.write(`[${side.name}] ${c}`));
    }
    let n = 0;
    const start = async (side: Side): Promise<number> => {
      const t = performance.now();
      await client.workflow.execute('scalestart', { taskQueue: side.taskQueue, workflowId: `scalestart-${side.name}-${n++}`, args: [{}] });
      return performance.now() - t;
    };
    // Warm-up: the first start waits for the registry's first scan; code paths get compiled.
    for (const side of sides) for (let i = 0; i < WARMUP; i++) await start(side);
    for (const side of sides) {
      const c0 = cpuMs(side.worker!.pid!);
      await new Promise((r) => setTimeout(r, IDLE_S * 1000));
      side.idleCpuPerS = (cpuMs(side.worker!.pid!) - c0) / IDLE_S;
    }
    const load0 = loadavg()[0];
    for (let done = 0; done < RUNS; done += BATCH) {
      const count = Math.min(BATCH, RUNS - done);
      // The sides' order rotates per batch.
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(k + done / BATCH) % sides.length];
        const c0 = cpuMs(side.worker!.pid!);
        for (let i = 0; i < count; i++) side.latencies.push(await start(side));
        side.cpu += cpuMs(side.worker!.pid!) - c0;
      }
    }
    const rows = sides.map((s) => ({
      side: s.name,
      definitions: s.folder === one ? 1 : 1000,
      p50ms: round(quantile(s.latencies, 0.5), 2),
      p99ms: round(quantile(s.latencies, 0.99), 2),
      meanMs: round(mean(s.latencies), 2),
      cpuMsPerStart: round(s.cpu / s.latencies.length, 2),
      idleCpuMsPerS: round(s.idleCpuPerS ?? 0, 2),
    }));
    console.table(rows);
    const ratio = (a: string, b: string) => {
      const x = rows.find((r) => r.side === a)!;
      const y = rows.find((r) => r.side === b)!;
      return { p50: round(x.p50ms / y.p50ms, 3), p99: round(x.p99ms / y.p99ms, 3), mean: round(x.meanMs / y.meanMs, 3), cpuPerStart: round(x.cpuMsPerStart / y.cpuMsPerStart, 3) };
    };
    console.log(`1000 vs 1 (goal ≤ 1.05×): ${JSON.stringify(ratio('1000', '1'))}`);
    if (CONTROL) console.log(`1-again vs 1 (the noise floor: the same worker twice): ${JSON.stringify(ratio('1-again', '1'))}`);
    if (MAIN_TREE) console.log(`1000-main vs 1-main: ${JSON.stringify(ratio('1000-main', '1-main'))}`);
    console.log(`runs per side ${RUNS} (batches of ${BATCH}, one in flight), warm-up ${WARMUP}, idle ${IDLE_S} s; load average ${round(load0, 2)} → ${round(loadavg()[0], 2)}`);
  } finally {
    for (const s of sides) s.worker?.kill('SIGTERM');
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
