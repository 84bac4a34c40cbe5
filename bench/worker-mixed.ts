/**
 * Worker memory as shipped (issue 34, item 9): the `swflow worker` command, started as a user runs
 * it (bin/swflow.js, compiled, its V8 flags), in a FRESH process per side and repetition, over a
 * mixed run: 200 ten-GET runs at `--concurrency` (50) in flight and, at the same time, one run of
 * a 100-iteration `for` with a GET each (a long history) and one 10-way `fork` of ten GETs per
 * branch. Against the TypeScript floor doing the same work by hand (bench/worker-cost-floor.ts:
 * `tenLocalGets`, `loopGets`, `forkGets`). Measured from /proc: the worker's CPU over the
 * workload, its peak RSS (VmHWM), RSS when ready, at the end of the workload and `--after`
 * seconds later, and when the peak was reached (RSS sampled every 100 ms).
 *
 *   npx tsx bench/worker-mixed.ts [--reps 2] [--sides ts-floor,swflow-worker,swflow-worker-arena2,swflow-worker-base]
 *     [--base-tree <another checkout>] [--probe] [--after 5]
 *
 * `swflow-worker-arena2` (against `ts-floor-arena2` when both run): the same with MALLOC_ARENA_MAX=2 (as the image, the chart, compose and
 * `npm start` run it); `-base`: the command of another checkout (`--base-tree`), for a before and
 * after in one run. `--probe` loads bench/memory-probe.cjs into the swflow worker (its main
 * thread's heap every 500 ms on stderr); BENCH_WORKER_NODE_ARGS adds node flags (e.g. --trace-gc).
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
import { cpuMs, option as arg, peakRssMb, quietBundlerLogger, round, rssMb, startEchoService, waitFor, writePeerDocuments, stopChild as exit } from './support';
const { compiledExtra } = require('../bin/compiled') as { compiledExtra(file: string): Promise<string> };

const REPS = Number(arg('reps', '2'));
const RUNS = Number(arg('runs', '200'));
const CONCURRENCY = Number(arg('concurrency', '50'));
const AFTER_S = Number(arg('after', '5'));
const BASE_TREE = arg('base-tree', '');
const PROBE = process.argv.includes('--probe');
const ONLY = arg('sides', 'ts-floor,swflow-worker,swflow-worker-arena2').split(',');

interface Side {
  name: string;
  env?: Record<string, string>;
  floor?: boolean;
  tree?: string;
}
const SIDES = ([
  { name: 'ts-floor', floor: true },
  { name: 'ts-floor-arena2', floor: true, env: { MALLOC_ARENA_MAX: '2' } },
  { name: 'swflow-worker' },
  { name: 'swflow-worker-arena2', env: { MALLOC_ARENA_MAX: '2' } },
  { name: 'swflow-worker-base', tree: BASE_TREE },
  { name: 'swflow-worker-base-arena2', tree: BASE_TREE, env: { MALLOC_ARENA_MAX: '2' } },
] as Side[]).filter((s) => ONLY.includes(s.name));

/** The 1.0 documents of the long run and the fork, next to the peer benches' (same echo service). */
function writeMixedDocuments(dir: string, service: string): void {
  const get = (i: number, indent: string) => `${indent}call: http\n${indent}with:\n${indent}  method: get\n${indent}  endpoint: '${service}/echo/${i}'\n`;
  writeFileSync(join(dir, 'mixed-loop.sw.yaml'), `document: { dsl: 1.0.3, namespace: bench, name: mixedloop, version: 0.0.1 }
do:
  - loop:
      for:
        in: '\${ [range(100)] }'
      do:
        - get:
${get(1, '            ')}`);
  const branch = (b: number) => `          - b${b}:\n              do:\n${Array.from({ length: 10 }, (_, i) => `                - c${i + 1}:\n${get(b * 100 + i + 1, '                    ')}`).join('')}`;
  writeFileSync(join(dir, 'mixed-fork.sw.yaml'), `document: { dsl: 1.0.3, namespace: bench, name: mixedfork, version: 0.0.1 }
do:
  - branches:
      fork:
        branches:
${Array.from({ length: 10 }, (_, b) => branch(b + 1)).join('')}`);
}

async function main(): Promise<void> {
  if (!BASE_TREE && SIDES.some((s) => s.tree !== undefined)) throw new Error('the -base sides need --base-tree <another checkout with node_modules>');
  const dir = mkdtempSync(join(tmpdir(), 'swflow-worker-mixed-'));
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const children: ChildProcess[] = [];
  try {
    const servicePort = await freePort();
    const service = `http://127.0.0.1:${servicePort}`;
    const echo = startEchoService(servicePort);
    children.push(echo);
    await waitFor(echo, /ready/, 'the echo service');
    const docs = writePeerDocuments(dir, service, 1);
    writeMixedDocuments(docs.swflow, service);
    const floorBundle = join(dir, 'floor-bundle.js');
    writeFileSync(floorBundle, (await bundleWorkflowCode({ workflowsPath: join(__dirname, 'worker-cost-floor-workflow.ts'), logger: quietBundlerLogger })).code);
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });

    const startWorker = async (side: Side): Promise<ChildProcess> => {
      // The floor is compiled on its own into the compiled tree, and so is the bench module it imports.
      const entry = side.floor
        ? [(await compiledExtra(join(__dirname, 'worker-cost-pin.ts')), await compiledExtra(join(__dirname, 'worker-cost-floor.ts')))]
        : [...(PROBE ? ['--require', join(__dirname, 'memory-probe.cjs')] : []), join(side.tree ?? join(__dirname, '..'), 'bin', 'swflow.js'), 'worker', '--definitions', docs.swflow];
      const child = spawn(process.execPath, [...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean), ...entry], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...side.env, TEMPORAL_ADDRESS: server.address, BENCH_SERVICE: service, BENCH_FLOOR_BUNDLE: floorBundle },
      });
      children.push(child);
      await waitFor(child, side.floor ? /^ready$/m : /serving task queue/, side.name);
      child.stderr!.on('data', (c: Buffer) => process.stderr.write(`[${side.name}] ${c}`));
      if (process.env.BENCH_WORKER_STDOUT) child.stdout!.on('data', (c: Buffer) => process.stderr.write(`[${side.name}] ${c}`));
      return child;
    };

    /** The mixed workload on one side: the long run and the fork started first, then the 200 short runs; resolves when all are done. */
    const workload = async (side: Side, prefix: string): Promise<{ tenGetsS: number }> => {
      const taskQueue = side.floor ? 'bench-floor' : INTERPRETER_TASK_QUEUE;
      const [ten, loop, fork] = side.floor
        ? [{ type: 'tenLocalGets', args: [] }, { type: 'loopGets', args: [100] }, { type: 'forkGets', args: [10, 10] }]
        : [{ type: 'bench/tencalls', args: [{}] }, { type: 'bench/mixedloop', args: [{}] }, { type: 'bench/mixedfork', args: [{}] }];
      const t = performance.now();
      const long = [loop, fork].map((w, i) => client.workflow.execute(w.type, { taskQueue, workflowId: `${prefix}-long-${i}`, args: w.args as never }));
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(CONCURRENCY, RUNS) }, async () => {
          while (next < RUNS) await client.workflow.execute(ten.type, { taskQueue, workflowId: `${prefix}-${next++}`, args: ten.args as never });
        }),
      );
      const tenGetsS = (performance.now() - t) / 1000;
      await Promise.all(long);
      return { tenGetsS };
    };

    const rows: Record<string, Record<string, number>[]> = {};
    for (const s of SIDES) rows[s.name] = [];
    const load: number[] = [loadavg()[0]];
    for (let rep = 0; rep < REPS; rep++) {
      const order = SIDES.map((_, i) => SIDES[(i + rep) % SIDES.length]);
      for (const side of order) {
        const worker = await startWorker(side);
        const pid = worker.pid!;
        await new Promise((r) => setTimeout(r, 1000));
        const readyRss = rssMb(pid);
        // RSS every 100 ms: when the peak came (s after the workload's start).
        let peak = { mb: 0, atS: 0 };
        const t0 = performance.now();
        const sampler = setInterval(() => {
          const mb = rssMb(pid);
          if (mb > peak.mb) peak = { mb, atS: round((performance.now() - t0) / 1000, 1) };
        }, 100);
        const cpu0 = cpuMs(pid);
        const { tenGetsS } = await workload(side, `${side.name}-${rep}`);
        const wallS = (performance.now() - t0) / 1000;
        const cpu = cpuMs(pid) - cpu0;
        const endRss = rssMb(pid);
        await new Promise((r) => setTimeout(r, AFTER_S * 1000));
        clearInterval(sampler);
        const row = { cpuMs: Math.round(cpu), peakRssMb: peakRssMb(pid), peakAtS: peak.atS, readyRssMb: readyRss, endRssMb: endRss, afterRssMb: rssMb(pid), tenGetsS: round(tenGetsS, 1), wallS: round(wallS, 1) };
        rows[side.name].push(row);
        await exit(worker);
        load.push(loadavg()[0]);
        console.error(`[worker-mixed] rep ${rep + 1} ${side.name}: ${JSON.stringify(row)}`);
      }
    }
    const toFloor: Record<string, unknown> = {};
    for (const s of SIDES.filter((x) => !x.floor)) {
      const base = rows[s.name.endsWith('-arena2') && rows['ts-floor-arena2']?.length ? 'ts-floor-arena2' : 'ts-floor'];
      if (!base?.length) continue;
      toFloor[s.name] = {
        cpu: rows[s.name].map((r, i) => round(r.cpuMs / base[i].cpuMs, 2)),
        peakRssOverMb: rows[s.name].map((r, i) => r.peakRssMb - base[i].peakRssMb),
      };
    }
    console.log(JSON.stringify({ runs: RUNS, concurrency: CONCURRENCY, reps: REPS, loadAverage: load.map((x) => round(x, 2)), sides: rows, toFloor }, null, 2));
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
