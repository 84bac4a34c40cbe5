/**
 * Fan-outs with a call per item (issue 34, item 4): a 0.8 `foreach` (parallel, batchSize 100) and
 * a 1.0 `for` (sequential) with one GET each to a local HTTP service, against the same two written
 * by hand as Temporal workflows (bench/fanout-handwritten.ts), for growing N. One dev server, one
 * service process, each side's worker in its own process (bench/fanout-worker.ts); per N the two
 * sides run one after the other, their order alternating from one N to the next.
 *
 *   npx tsx bench/fanout.ts [--sizes 1000,10000,100000] [--for-sizes 1000,10000] [--handwritten-chunks 1]
 *
 * Per run: wall time, the worker's CPU, its RSS after the run and its peak so far (VmHWM: sizes
 * grow, so a flat peak is flat memory), and from the histories of the run's chain and children:
 * runs, children, the longest history, the most activities / children pending at once in one run.
 * Wall time per item is fitted (least squares, wall = a + b·N) per side; sizes not run are
 * extrapolated from the fit, and said so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { freePort } from '../test/helpers/ports';
import { fanoutDocuments, runsOf } from './fanout-documents';
import { cpuMs, option, peakRssMb, round, rssMb, startEchoService, waitFor } from './support';

const SIZES = option('sizes', '1000,10000,100000').split(',').filter(Boolean).map(Number);
const FOR_SIZES = option('for-sizes', '1000,10000').split(',').filter(Boolean).map(Number);
const HANDWRITTEN_QUEUE = 'fanout-handwritten';
/**
 * The hand-written foreach's chunk children at once: by default as many as swflow runs for
 * batchSize 100 (one: 100 calls at once in all); 8 lets it run 800 calls at once.
 */
const HANDWRITTEN_CHUNKS = Number(option('handwritten-chunks', '1'));

interface Row {
  kind: 'foreach' | 'for';
  side: 'swflow' | 'handwritten';
  n: number;
  wallS: number;
  cpuS: number;
  rssMb: number;
  peakMb: number;
  runs: number;
  children: number;
  largestHistory: number;
  largestHistoryBytes: number;
  maxPendingActivities: number;
  maxPendingChildren: number;
  load: number;
}

function spawnWorker(side: string, arg: string, address: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'fanout-worker.ts'), side, arg], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TEMPORAL_ADDRESS: address } });
  child.stderr!.on('data', (c: Buffer) => process.stderr.write(`[${side}] ${c}`));
  return child;
}

/** wall = a + b·N by least squares. */
function fit(points: { n: number; wallS: number }[]): { a: number; b: number } {
  const k = points.length;
  const mx = points.reduce((s, p) => s + p.n, 0) / k;
  const my = points.reduce((s, p) => s + p.wallS, 0) / k;
  const sxx = points.reduce((s, p) => s + (p.n - mx) ** 2, 0);
  const b = sxx ? points.reduce((s, p) => s + (p.n - mx) * (p.wallS - my), 0) / sxx : my / mx;
  return { a: my - b * mx, b };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-fanout-'));
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const servicePort = await freePort();
  const echo = startEchoService(servicePort); // GET /ok/<i> → { ok: true, i }
  const service = `http://127.0.0.1:${servicePort}`;
  const defs = join(dir, 'defs');
  mkdirSync(defs);
  for (const [file, text] of Object.entries(fanoutDocuments(service))) writeFileSync(join(defs, file), text);
  const workers = { swflow: spawnWorker('swflow', defs, server.address), handwritten: spawnWorker('handwritten', HANDWRITTEN_QUEUE, server.address) };
  // A page of a long run's history can pass grpc-js's default 4 MB (the runs carry the N items).
  const connection = await Connection.connect({ address: server.address, channelArgs: { 'grpc.max_receive_message_length': 128 * 2 ** 20 } });
  const client = new Client({ connection });
  const rows: Row[] = [];
  try {
    await waitFor(echo, /ready/, 'the service');
    await Promise.all(Object.entries(workers).map(([side, w]) => waitFor(w, /^ready$/m, side)));
    // Smallest first (peaks so far then show growth), the two kinds alternating.
    const plan = [...SIZES.map((n) => ['foreach', n] as const), ...FOR_SIZES.map((n) => ['for', n] as const)].sort((a, b) => a[1] - b[1]);
    for (const [round_, [kind, n]] of plan.entries()) {
      const sides = round_ % 2 === 0 ? (['swflow', 'handwritten'] as const) : (['handwritten', 'swflow'] as const);
      for (const side of sides) {
        const items = Array.from({ length: n }, (_, i) => i);
        const pid = workers[side].pid!;
        const type = side === 'swflow' ? (kind === 'foreach' ? 'fanout08' : 'bench/fanout10') : kind === 'foreach' ? 'foreachHandwritten' : 'forHandwritten';
        const input = side === 'swflow' ? (kind === 'foreach' ? { items, mode: 'ok' } : { items, mode: 'ok', sum: 0, count: 0 }) : { base: service, items, mode: 'ok', sum: 0, count: 0, chunksInFlight: HANDWRITTEN_CHUNKS };
        const cpu0 = cpuMs(pid);
        const t0 = performance.now();
        const handle = await client.workflow.start(type, { taskQueue: side === 'swflow' ? INTERPRETER_TASK_QUEUE : HANDWRITTEN_QUEUE, workflowId: `${kind}-${side}-${n}-${Date.now()}`, args: [input] });
        const out = (await handle.result()) as { count: number; sum: number };
        const wallS = (performance.now() - t0) / 1000;
        const cpuS = (cpuMs(pid) - cpu0) / 1000;
        if (out.count !== n || out.sum !== (n * (n - 1)) / 2) throw new Error(`${kind} ${side} ${n}: got ${JSON.stringify(out)}`);
        const chain = await runsOf(client, handle.workflowId, handle.firstExecutionRunId);
        const row: Row = { kind, side, n, wallS: round(wallS, 2), cpuS: round(cpuS, 1), rssMb: rssMb(pid), peakMb: peakRssMb(pid), ...chain, load: round(loadavg()[0], 1) };
        console.log(JSON.stringify(row));
        rows.push(row);
      }
    }
  } finally {
    for (const w of Object.values(workers)) w.kill('SIGINT');
    echo.kill();
    await connection.close();
    await server.stop();
  }
  console.log('\n| run | side | N | wall | ms per item | wall / hand-written | worker CPU | RSS after | peak RSS so far | runs | children | longest history | largest history | max pending activities / children per run | load |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const hw = rows.find((o) => o.kind === r.kind && o.n === r.n && o.side === 'handwritten')!;
    console.log(
      `| ${r.kind} | ${r.side} | ${r.n.toLocaleString('en')} | ${r.wallS} s | ${round((r.wallS * 1000) / r.n, 2)} | ${r.side === 'swflow' ? `**${round(r.wallS / hw.wallS, 2)}×**` : '1'} | ${r.cpuS} s | ${r.rssMb} MB | ${r.peakMb} MB | ${r.runs} | ${r.children} | ${r.largestHistory} | ${round(r.largestHistoryBytes / 2 ** 20, 1)} MB | ${r.maxPendingActivities} / ${r.maxPendingChildren} | ${r.load} |`,
    );
  }
  for (const kind of ['foreach', 'for'] as const) {
    for (const side of ['swflow', 'handwritten'] as const) {
      const pts = rows.filter((r) => r.kind === kind && r.side === side);
      if (pts.length < 2) continue;
      const { a, b } = fit(pts);
      const missing = [100_000].filter((n) => !pts.some((p) => p.n === n));
      console.log(`fit ${kind} ${side}: wall = ${round(a, 2)} s + ${round(b * 1000, 3)} ms × N${missing.map((n) => `; extrapolated to ${n.toLocaleString('en')}: ${round(a + b * n, 0)} s`).join('')}`);
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
