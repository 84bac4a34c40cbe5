/**
 * Waiting runs and the sticky cache (issue 34, item 2): `swflow worker` started from the CLI as a
 * user runs it, with --max-cached-workflows at each size asked for, holds N runs waiting for an
 * event (half 0.8 event states correlated by a context attribute, half 1.0 `listen` correlated
 * by `expect`). Per size: the worker's RSS idle, once all N wait, and its peak; then an event's
 * latency (signal sent → run completed) to a run still cached (the most recently started) and to
 * an evicted one (the first started: it replays).
 *
 *   npx tsx bench/waiting-runs.ts [--runs 1000] [--caches 100,1000,default] [--samples 20]
 *   npx tsx bench/waiting-runs.ts --large        (10,000 runs)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { EVENT_SIGNAL } from '../src/common/contracts';
import { loadAnyDefinition } from '../src/dsl';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../src/worker/interpreter-worker';
import { freePort } from '../test/helpers/ports';
import { option, peakRssMb, quantile, round, rssMb, waitFor } from './support';

const RUNS = process.argv.includes('--large') ? 10_000 : Number(option('runs', '1000'));
const CACHES = option('caches', '100,1000,default').split(',');
const SAMPLES = Number(option('samples', '20'));

const V08 = {
  id: 'waiting-v08', version: '1.0', specVersion: '0.8', start: 'Wait',
  events: [{ name: 'Vitals', type: 'vitals', source: 'bench', correlation: [{ contextAttributeName: 'patientid' }] }],
  states: [{ name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Vitals'], eventDataFilter: { toStateData: '${ .got }' } }], end: true }],
};
const V10 = {
  document: { dsl: '1.0.3', namespace: 'bench', name: 'waiting-v10', version: '0.1.0' },
  do: [{ wait: { listen: { to: { one: { with: { type: 'com.x.reading' }, correlate: { room: { from: '${ .data.room }', expect: '${ .room }' } } } } } } }],
};

const event = (type: string, data: unknown, extra: Record<string, string> = {}) => ({ specversion: '1.0', id: randomUUID(), source: 'bench', type, data, ...extra });

/** Up to `width` at once. */
async function pool<T>(items: T[], width: number, fn: (t: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => { while (next < items.length) await fn(items[next++]); }));
}

/** Until the run has finished its first workflow tasks and waits (no task or activity pending). */
async function waiting(h: WorkflowHandle): Promise<void> {
  for (const until = Date.now() + 600_000; ; ) {
    const d = await h.describe();
    if (d.historyLength >= 4 && !d.raw.pendingWorkflowTask && !(d.raw.pendingActivities?.length ?? 0)) return;
    if (Date.now() > until) throw new Error(`${h.workflowId} not waiting after 600 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-waiting-'));
  const defs = join(dir, 'defs');
  mkdirSync(defs);
  writeFileSync(join(defs, 'waiting-v08.sw.json'), JSON.stringify(V08));
  writeFileSync(join(defs, 'waiting-v10.sw.json'), JSON.stringify(V10));
  const id10 = (await loadAnyDefinition(V10, {})).definition!.id;
  const cli = await resolveTemporalCli();
  console.log(`waiting runs: ${RUNS} per cache size (${CACHES.join(', ')}; default = ${DEFAULT_MAX_CACHED_WORKFLOWS}), ${SAMPLES} events each; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const rows: string[] = [];
  for (const cache of CACHES) {
    // A dev server per size: the previous size's runs do not weigh on this one.
    const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, `db-${cache}.sqlite`) });
    let worker: ChildProcess | undefined;
    try {
      const client = new Client({ connection: await Connection.connect({ address: server.address }) });
      worker = spawn(process.execPath, [join(__dirname, '..', 'bin', 'swflow.js'), 'worker', '--definitions', defs, '--no-schedules', '--no-eager-calls', ...(cache === 'default' ? [] : ['--max-cached-workflows', cache])], {
        stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TEMPORAL_ADDRESS: server.address },
      });
      await waitFor(worker, /serving task queue/, 'swflow worker');
      await new Promise((r) => setTimeout(r, 2000));
      const idle = rssMb(worker.pid!);
      const t0 = Date.now();
      const handles: WorkflowHandle[] = new Array(RUNS);
      await pool([...Array(RUNS).keys()], 50, async (i) => {
        handles[i] = i % 2 === 0
          ? await client.workflow.start('waiting-v08', { taskQueue: 'swflow', workflowId: `w-${i}`, args: [{}] })
          : await client.workflow.start(id10, { taskQueue: 'swflow', workflowId: `w-${i}`, args: [{ room: `r${i}` }] });
      });
      await pool(handles, 20, waiting);
      const startS = (Date.now() - t0) / 1000;
      const size = cache === 'default' ? DEFAULT_MAX_CACHED_WORKFLOWS : Number(cache);
      await new Promise((r) => setTimeout(r, 3000));
      const waitingRss = rssMb(worker.pid!);
      const peak = peakRssMb(worker.pid!);
      // An event to one run, sequentially: signal sent → the run completed.
      const latency = async (i: number) => {
        const h = handles[i];
        const t = performance.now();
        await h.signal(EVENT_SIGNAL, i % 2 === 0 ? event('vitals', i, { patientid: `P${i}` }) : event('com.x.reading', { room: `r${i}` }));
        await h.result();
        return performance.now() - t;
      };
      const cached: number[] = [];
      if (size > 0) for (let k = 0; k < SAMPLES; k++) cached.push(await latency(RUNS - 1 - k));
      const evicted: number[] = [];
      if (size < RUNS - SAMPLES) for (let k = 0; k < SAMPLES; k++) evicted.push(await latency(k));
      const fmt = (xs: number[], none: string) => (xs.length ? `${round(quantile(xs, 0.5))} ms (p90 ${round(quantile(xs, 0.9))})` : none);
      const row = `| ${cache === 'default' ? `default (${size})` : size} | ${RUNS} | ${idle} MB | ${waitingRss} MB | ${peak} MB | ${size ? `${round(((waitingRss - idle) / Math.min(size, RUNS)) * 1024, 0)} kB` : '–'} | ${fmt(cached, '– (no cache)')} | ${fmt(evicted, '– (all cached)')} | ${round(startS)} s |`;
      console.log(row);
      rows.push(row);
    } finally {
      worker?.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 1000));
      await server.stop();
    }
  }
  console.log('\n| cache | runs waiting | worker RSS idle | RSS, all waiting | peak RSS | (RSS − idle) per cached run | event → done, cached run: median | evicted run (replay): median | starting all |\n|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  rmSync(dir, { recursive: true, force: true });
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
