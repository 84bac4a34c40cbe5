/**
 * Large runs in flat memory: a foreach over N items and a loop of N transitions (0.8), each run
 * alone on a fresh interpreter worker process, for growing N. Per run: wall time, the worker's
 * peak RSS (VmHWM), the runs in the chain (continue-as-new) and chunk children. Memory is flat
 * when the peak does not grow with N beyond the chunk in flight.
 *
 *   npx tsx bench/large-runs.ts [--sizes 10000,100000] [--without foreach-chunk-slices]
 *
 * The foreach doubles each element with an expression function (no activity: the interpreter and
 * the chunk children are what is measured); the loop increments a counter through an expression
 * function and a switch back-edge, so every iteration is two state transitions.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { freePort } from '../test/helpers/ports';
import { option, peakRssMb, round, waitFor } from './support';

const SIZES = option('sizes', '10000,100000').split(',').map(Number);
const WITHOUT = option('without', '');

const foreachDef = {
  id: 'bigforeach',
  version: '1.0',
  specVersion: '0.8',
  start: 'Double',
  functions: [{ name: 'double', type: 'expression', operation: '. * 2' }],
  states: [
    {
      name: 'Double',
      type: 'foreach',
      inputCollection: '${ .items }',
      iterationParam: 'item',
      outputCollection: '${ .doubled }',
      actions: [{ functionRef: { refName: 'double', arguments: {} }, actionDataFilter: { fromStateData: '${ $item }' } }],
      stateDataFilter: { output: '${ { count: (.doubled | length), sum: (.doubled | add) } }' },
      end: true,
    },
  ],
};

const loopDef = {
  id: 'bigloop',
  version: '1.0',
  specVersion: '0.8',
  start: 'Step',
  functions: [{ name: 'next', type: 'expression', operation: '.count + 1' }],
  states: [
    { name: 'Step', type: 'operation', actions: [{ functionRef: { refName: 'next' }, actionDataFilter: { toStateData: '${ .count }' } }], transition: 'Check' },
    { name: 'Check', type: 'switch', dataConditions: [{ condition: '${ .count < $CONST.N }', transition: 'Step' }], defaultCondition: { end: true } },
  ],
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-large-'));
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const rows: string[] = [];
  try {
    for (const n of SIZES) {
      for (const [name, def, input] of [
        ['foreach', foreachDef, { items: Array.from({ length: n }, (_, i) => i) }],
        ['loop', { ...loopDef, constants: { N: n } }, { count: 0 }],
      ] as const) {
        const defs = mkdtempSync(join(dir, 'defs-'));
        writeFileSync(join(defs, `${def.id}.sw.json`), JSON.stringify(def));
        const worker = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'large-runs-worker.ts'), defs, WITHOUT], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, TEMPORAL_ADDRESS: server.address },
        });
        worker.stderr!.on('data', (c: Buffer) => process.stderr.write(`[worker] ${c}`));
        try {
          await waitFor(worker, /^ready$/m, 'the interpreter worker');
          const base = peakRssMb(worker.pid!);
          const t0 = performance.now();
          const id = `${name}-${n}-${Date.now()}`;
          const handle = await client.workflow.start(def.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: id, args: [input] });
          const out = (await handle.result()) as Record<string, number>;
          const ms = performance.now() - t0;
          const expect = name === 'foreach' ? { count: n, sum: n * (n - 1) } : { count: n };
          if (JSON.stringify(out) !== JSON.stringify(expect)) throw new Error(`${name} ${n}: got ${JSON.stringify(out)}, expected ${JSON.stringify(expect)}`);
          const runs = await countRuns(client, id);
          const children = name === 'foreach' ? await countChildren(client, id) : 0;
          const row = `| ${name} | ${n.toLocaleString('en')} | ${round(ms / 1000, 1)} s | ${peakRssMb(worker.pid!)} MB | ${base} MB | ${runs} | ${children} |`;
          console.log(row);
          rows.push(row);
        } finally {
          worker.kill('SIGINT');
        }
      }
    }
  } finally {
    await connection.close();
    await server.stop();
  }
  console.log(`\n| run | N | wall | worker peak RSS | RSS when ready | runs (continue-as-new) | chunk children |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}`);
}

/** The runs of a chain of continue-as-new with this workflow id. */
async function countRuns(client: Client, id: string): Promise<number> {
  let n = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = '${id}'` })) n++;
  return n;
}

/** The chunk child workflows a run started (across its continue-as-new chain). */
async function countChildren(client: Client, id: string): Promise<number> {
  let n = 0;
  for await (const _ of client.workflow.list({ query: `ParentWorkflowId = '${id}'` })) n++;
  return n;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
