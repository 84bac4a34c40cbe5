/**
 * 1.0 as its data grows (issue 44 item 3), on one dev server, one interpreter worker process per
 * side, sides interleaved rep by rep, so every ratio is measured in one run:
 * - collect: a 1.0 `for` whose `set` appends one ~110-byte record per iteration to `.acc`, and a
 *   0.8 `foreach` producing the same records (an expression function per item, outputCollection);
 * - big field: a 1.0 `for` of 100 iterations (`set` of a counter, the rest of the data kept) over
 *   data carrying a 1 MB field the iterations do not read, against the same loop without it.
 * Sides: `after` (this tree's worker) and `before` (the same worker without `expression-work`, as
 * runs recorded before it keep running). A run that does not finish within --timeout is `stuck`.
 *
 *   npx tsx bench/data-growth.ts [--sizes 1000,10000] [--before-sizes 250,500,1000] [--reps 3] [--timeout 60]
 *                                [--only <workload name part>] [--sides after,before] [--repeat 1]
 *   BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" …   profiles the worker
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { FEATURE_EXPRESSION_WORK } from '../src/common/features';
import { freePort } from '../test/helpers/ports';
import { cpuMs, mean, option, peakRssMb, round, stopChild, waitFor } from './support';

const SIZES = option('sizes', '1000,10000').split(',').map(Number);
const BEFORE_SIZES = option('before-sizes', '250,500,1000').split(',').filter(Boolean).map(Number);
const REPS = Number(option('reps', '3'));
const TIMEOUT_S = Number(option('timeout', '60'));
const ONLY = option('only', '');
/** Runs of each workload per worker and rep (the first one also warms the worker up). */
const REPEAT = Number(option('repeat', '1'));
const SIDES = option('sides', 'after,before').split(',');

const RECORD = '{ id: $index, name: ("item-" + ($item | tostring)), note: "a record of about one hundred and ten bytes, give or take" }';

const collect10 = {
  document: { dsl: '1.0.3', namespace: 'bench', name: 'collect', version: '0.1.0' },
  do: [{ loop: { for: { in: '${ [range(.n)] }' }, do: [{ add: { set: { n: '${ .n }', acc: `\${ .acc + [${RECORD}] }` } } }] } }],
};

const collect08 = {
  id: 'collect08',
  version: '1.0',
  specVersion: '0.8',
  start: 'Collect',
  functions: [{ name: 'record', type: 'expression', operation: '{ id: $item, name: ("item-" + ($item | tostring)), note: "a record of about one hundred and ten bytes, give or take" }' }],
  states: [
    {
      name: 'Collect',
      type: 'foreach',
      inputCollection: '${ [range(.n)] }',
      iterationParam: 'item',
      outputCollection: '${ .acc }',
      actions: [{ functionRef: { refName: 'record' } }],
      end: true,
    },
  ],
};

const bigField = {
  document: { dsl: '1.0.3', namespace: 'bench', name: 'bigfield', version: '0.1.0' },
  do: [{ loop: { for: { in: '${ [range($workflow.input.iterations)] }' }, do: [{ count: { set: '${ . + {count: ($index + 1)} }' } }] } }],
};

interface Workload {
  name: string;
  type: string;
  input: Record<string, unknown>;
  check(out: unknown): boolean;
}

function workloads(before: boolean): Workload[] {
  const out: Workload[] = [];
  for (const n of before ? BEFORE_SIZES : SIZES) {
    out.push({ name: `1.0 for collect ${n}`, type: 'bench/collect', input: { n, acc: [] }, check: (o) => (o as { acc: unknown[] }).acc.length === n });
    out.push({ name: `0.8 foreach collect ${n}`, type: 'collect08', input: { n, acc: [] }, check: (o) => (o as { acc: unknown[] }).acc.length === n });
  }
  const mb = 'x'.repeat(1024 * 1024);
  // Before, 1,000 iterations over 1 MB never end (jq reads the 1 MB at every one): 100 only.
  for (const iterations of before ? [100] : [100, 1000]) {
    out.push({ name: `1.0 for ${iterations}, 1 MB field`, type: 'bench/bigfield', input: { iterations, big: mb }, check: (o) => (o as { count: number }).count === iterations });
    out.push({ name: `1.0 for ${iterations}, no field`, type: 'bench/bigfield', input: { iterations }, check: (o) => (o as { count: number }).count === iterations });
  }
  return out.filter((w) => w.name.includes(ONLY));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-growth-'));
  const defs = join(dir, 'defs');
  mkdirSync(defs);
  writeFileSync(join(defs, 'collect.sw.json'), JSON.stringify(collect10));
  writeFileSync(join(defs, 'collect08.sw.json'), JSON.stringify(collect08));
  writeFileSync(join(defs, 'bigfield.sw.json'), JSON.stringify(bigField));
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const results = new Map<string, { ms: number[]; cpu: number[]; stuck: number }>();
  const peaks: Record<string, number[]> = {};
  try {
    for (let rep = 0; rep < REPS; rep++) {
      for (const side of SIDES) {
        const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
        const worker: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(__dirname, 'large-runs-worker.ts'), defs, side === 'before' ? FEATURE_EXPRESSION_WORK : ''], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, TEMPORAL_ADDRESS: server.address },
        });
        worker.stdout!.on('data', (c: Buffer) => process.env.BENCH_VERBOSE && process.stderr.write(`[worker] ${c}`));
        worker.stderr!.on('data', (c: Buffer) => process.env.BENCH_VERBOSE && process.stderr.write(`[worker] ${c}`));
        try {
          await waitFor(worker, /^ready$/m, 'the interpreter worker');
          for (const w of workloads(side === 'before').flatMap((w) => Array.from({ length: REPEAT }, () => w))) {
            const key = `${side} | ${w.name}`;
            const r = results.get(key) ?? { ms: [], cpu: [], stuck: 0 };
            results.set(key, r);
            const id = `${w.type.replace('/', '-')}-${side}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;
            const cpu0 = cpuMs(worker.pid!);
            const t0 = performance.now();
            const handle = await client.workflow.start(w.type, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: id, args: [w.input] });
            const out = await Promise.race([handle.result(), new Promise((res) => setTimeout(() => res('stuck'), TIMEOUT_S * 1000))]);
            if (out === 'stuck') {
              r.stuck++;
              await handle.terminate('bench: stuck').catch(() => undefined);
              console.log(`${key}: stuck past ${TIMEOUT_S} s`);
              continue;
            }
            const ms = performance.now() - t0;
            if (!w.check(out)) throw new Error(`${key}: unexpected output`);
            r.ms.push(ms);
            r.cpu.push(cpuMs(worker.pid!) - cpu0);
            const chain = await runsOf(client, id);
            console.log(`${key}: ${round(ms)} ms, worker CPU ${round(cpuMs(worker.pid!) - cpu0)} ms, ${chain.runs} run(s), ${chain.events} events, ${chain.timers} yields`);
          }
          (peaks[side] ??= []).push(peakRssMb(worker.pid!));
        } finally {
          await stopChild(worker);
        }
      }
    }
  } finally {
    await connection.close();
    await server.stop();
  }
  console.log('\n| side | workload | wall (mean of reps) | worker CPU | stuck |\n|---|---|---|---|---|');
  for (const [key, r] of results) console.log(`| ${key} | ${r.ms.length ? `${round(mean(r.ms) / 1000, 2)} s` : '—'} | ${r.cpu.length ? `${round(mean(r.cpu) / 1000, 2)} s` : '—'} | ${r.stuck}/${r.stuck + r.ms.length} |`);
  const m = (k: string) => mean(results.get(k)?.ms ?? []);
  console.log('\nRatios (after):');
  for (const n of SIZES) console.log(`- 1.0 for / 0.8 foreach at ${n}: ${round(m(`after | 1.0 for collect ${n}`) / m(`after | 0.8 foreach collect ${n}`), 2)}×`);
  if (SIZES.length > 1) console.log(`- 1.0 for ${SIZES.at(-1)} / ${SIZES[0]}: ${round(m(`after | 1.0 for collect ${SIZES.at(-1)}`) / m(`after | 1.0 for collect ${SIZES[0]}`), 2)}×`);
  console.log(`- 1 MB field / none, 100 iterations: ${round(m('after | 1.0 for 100, 1 MB field') / m('after | 1.0 for 100, no field'), 2)}× (before: ${round(m('before | 1.0 for 100, 1 MB field') / m('before | 1.0 for 100, no field'), 2)}×)`);
  // What an iteration costs, the run's fixed costs (its input and output through Temporal) left out.
  const perIteration = (field: string) => (m(`after | 1.0 for 1000, ${field}`) - m(`after | 1.0 for 100, ${field}`)) / 900;
  console.log(`- per iteration, 1 MB field / none: ${round(perIteration('1 MB field') / perIteration('no field'), 2)}× (${round(perIteration('1 MB field') * 1000)} µs vs ${round(perIteration('no field') * 1000)} µs)`);
  console.log(`Worker peak RSS per rep: after ${peaks.after?.join(', ')} MB; before ${peaks.before?.join(', ')} MB`);
}

/** The runs of a chain of continue-as-new with this workflow id, their events and timers (the walk's yields). */
async function runsOf(client: Client, id: string): Promise<{ runs: number; events: number; timers: number }> {
  let runs = 0;
  let events = 0;
  let timers = 0;
  for await (const r of client.workflow.list({ query: `WorkflowId = '${id}'` })) {
    runs++;
    const h = await client.workflow.getHandle(id, r.runId).fetchHistory();
    if (process.env.BENCH_EVENTS) for (const e of h.events ?? []) console.log(`  ${e.eventId} ${e.eventType} ${JSON.stringify(e).length} B ${new Date(Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6).toISOString()}`);
    events += h.events?.length ?? 0;
    timers += h.events?.filter((e) => e.timerStartedEventAttributes).length ?? 0;
  }
  return { runs, events, timers };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
