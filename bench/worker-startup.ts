/**
 * The start-up of `swflow worker` (bin/swflow.js, as a user runs it) with 1 and 1,000 definitions
 * in its folder, this checkout against another (`--base-tree`): since the definitions are checked
 * in a short-lived worker thread (src/definitions/check-apart.ts), the thread's start is part of
 * the worker's; this shows what it costs. The worker checks every definition before it connects
 * (`requireSomeDefinition`), so "ready" (spawn → `serving task queue`) includes the first scan.
 *
 *   npx tsx bench/worker-startup.ts [--reps 3] [--base-tree /work/main] [--settle 5] [--uncached] [--counts 1,1000]
 *
 * `--uncached` adds a side per tree and count that bundles the workflow code on every start
 * (SWFLOW_BUNDLE_CACHE=off), beside the default that takes the cached bundle (src/worker/bundle-cache.ts).
 *
 * Per side and repetition (sides interleaved, a fresh process each): ms to ready, CPU ms at ready
 * (all threads), the first run's latency (a 0.8 inject), RSS at ready and `--settle` s later (the
 * checking thread ends 3 s after its last answer), peak RSS (VmHWM).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { freePort } from '../test/helpers/ports';
import { cpuMs, mean, option, peakRssMb, round, rssMb, waitFor } from './support';

const REPS = Number(option('reps', '3'));
const BASE_TREE = option('base-tree', '');
const SETTLE_S = Number(option('settle', '5'));
const UNCACHED = process.argv.includes('--uncached');
const COUNTS = option('counts', '1,1000').split(',').map(Number) as (1 | 1000)[];

const inject = (id: string, states = 1) => ({
  id,
  version: '1.0',
  specVersion: '0.8',
  start: 'S0',
  states: Array.from({ length: states }, (_, i) => ({ name: `S${i}`, type: 'switch', dataConditions: [{ condition: `\${ .n > ${i} }`, transition: i + 1 < states ? `S${i + 1}` : 'End' }], defaultCondition: { transition: 'End' } })).concat([{ name: 'End', type: 'inject', data: { id }, end: true } as never]),
});

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-startup-'));
  const folders = { 1: join(dir, 'one'), 1000: join(dir, 'many') };
  for (const f of Object.values(folders)) mkdirSync(f);
  for (const f of Object.values(folders)) writeFileSync(join(f, 'startup.sw.json'), JSON.stringify(inject('startup'), null, 2));
  for (let i = 1; i < 1000; i++) writeFileSync(join(folders[1000], `other-${i}.sw.json`), JSON.stringify(inject(`other${i}`, 5), null, 2));
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const trees = [{ tag: '', root: join(__dirname, '..') }, ...(BASE_TREE ? [{ tag: '-base', root: BASE_TREE }] : [])];
  const sides = trees.flatMap((t) =>
    COUNTS.flatMap((n) => [
      { name: `${n}${t.tag}`, root: t.root, folder: folders[n], env: {} },
      ...(UNCACHED ? [{ name: `${n}${t.tag}-uncached`, root: t.root, folder: folders[n], env: { SWFLOW_BUNDLE_CACHE: 'off' } }] : []),
    ]),
  );
  const rows: Record<string, Record<string, number>[]> = Object.fromEntries(sides.map((s) => [s.name, []]));
  const load = [loadavg()[0]];
  try {
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    let n = 0;
    for (let rep = 0; rep < REPS; rep++) {
      // The order rotates per repetition.
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(k + rep) % sides.length];
        const taskQueue = `startup-${side.name}-${rep}`;
        const t0 = performance.now();
        const child = spawn(process.execPath, [join(side.root, 'bin', 'swflow.js'), 'worker', '--definitions', side.folder, '--task-queue', taskQueue, '--no-schedules'], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, TEMPORAL_ADDRESS: server.address, MALLOC_ARENA_MAX: '2', ...side.env },
        });
        try {
          await waitFor(child, /serving task queue/, side.name, 180_000);
          const readyMs = performance.now() - t0;
          const row: Record<string, number> = { readyMs: Math.round(readyMs), cpuAtReadyMs: cpuMs(child.pid!), rssAtReadyMb: rssMb(child.pid!) };
          const t1 = performance.now();
          await client.workflow.execute('startup', { taskQueue, workflowId: `startup-${n++}`, args: [{ n: 0 }] });
          row.firstRunMs = Math.round(performance.now() - t1);
          await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
          row.rssSettledMb = rssMb(child.pid!);
          row.peakRssMb = peakRssMb(child.pid!);
          rows[side.name].push(row);
          console.error(`[worker-startup] rep ${rep + 1} ${side.name}: ${JSON.stringify(row)}`);
        } finally {
          child.kill('SIGTERM');
          await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
        }
      }
    }
    load.push(loadavg()[0]);
    const summary = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, Object.fromEntries(Object.keys(v[0] ?? {}).map((f) => [f, round(mean(v.map((r) => r[f])))]))]));
    console.log(JSON.stringify({ reps: REPS, loadAverage: load.map((x) => round(x, 2)), sides: rows, mean: summary }, null, 2));
  } finally {
    await server.stop?.();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
