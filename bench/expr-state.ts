/**
 * Worker CPU per workflow task of a state walk that evaluates 20 expression sites per task,
 * before and after the `sync-expressions` feature (expressions evaluated without awaits).
 *
 * bench/definitions/twenty-expressions.sw.json (0.8: an operation state with state filters,
 * an action condition, fromStateData, arguments, results, toStateData, then a switch of 13
 * conditions, looping 50 times) and twenty-expressions.sw.yaml (1.0: a for loop of a switch task
 * and a call task, 20 expression sites per iteration). Each iteration makes one call, so each is
 * one workflow task. Two interpreter worker processes on one dev server, one with the feature
 * (`now`), one without (`before`); the call is served by this process. Runs alternate between
 * the two; per side: the worker process's CPU time (user + system, all threads, /proc) over the
 * runs divided by their workflow tasks, and the mean time a task was held (started → completed
 * in history). Ratios now / before.
 *
 *   npx tsx bench/expr-state.ts [--runs 10] [--reps 5]
 *
 * The worker processes get node flags from BENCH_WORKER_NODE_ARGS (e.g. `--cpu-prof`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE } from '../src/common/contracts';
import { isFunctionCall } from '../src/adapter-sdk/call';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { freePort } from '../test/helpers/ports';
import { cpuMs, mean, option, round, waitFor, workflowTasks } from './support';

const RUNS = Number(option('runs', '10'));
const REPS = Number(option('reps', '5'));
const MODES = ['before', 'now'] as const;
const WORKLOADS = { '0.8': 'twentyexpressions', '1.0': 'bench/twentyexpressions' } as const;
type Mode = (typeof MODES)[number];
type Workload = keyof typeof WORKLOADS;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-bench-')), 'db.sqlite') });
  const workers: Record<Mode, ChildProcess> = {} as never;
  try {
    for (const mode of MODES) {
      workers[mode] = spawn(process.execPath, [...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', join(__dirname, 'expr-state-worker.ts'), `bench-${mode}`, mode], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TEMPORAL_ADDRESS: server.address } });
      await waitFor(workers[mode], /^ready$/m, `the ${mode} worker`);
    }
    // The call: echoes its arguments (so the data moves on), on the adapters' queue. (0.8 calls send
    // the arguments alone, 1.0 calls the whole FunctionCall.)
    const connection = await NativeConnection.connect({ address: server.address });
    const service = await Worker.create({ connection, taskQueue: ADAPTER_TASK_QUEUE, activities: { 'bench.echo': async (args: unknown) => (isFunctionCall(args) ? args.arguments : args) } });
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const input = { i: 0, items: [1, 2, 3, 4, 5].map((n) => ({ n })), name: 'bench' };
    const run = (mode: Mode, w: Workload, id: string) => client.workflow.execute(WORKLOADS[w], { taskQueue: `bench-${mode}`, workflowId: id, args: [input] });

    const cpu: Record<string, number> = {};
    const tasks: Record<string, number> = {};
    const spans: Record<string, number[]> = {};
    await service.runUntil(async () => {
      for (const mode of MODES) for (const w of Object.keys(WORKLOADS) as Workload[]) await run(mode, w, `warm-${mode}-${w}`); // bundles, jq compiles
      for (let rep = 0; rep < REPS; rep++) {
        for (const w of Object.keys(WORKLOADS) as Workload[]) {
          for (const mode of rep % 2 ? [...MODES].reverse() : MODES) {
            const key = `${w} ${mode}`;
            const before = cpuMs(workers[mode].pid!);
            const ids = Array.from({ length: RUNS }, (_, i) => `${mode}-${w.replace('.', '')}-${rep}-${i}`);
            for (const id of ids) await run(mode, w, id);
            cpu[key] = (cpu[key] ?? 0) + cpuMs(workers[mode].pid!) - before;
            for (const id of ids) {
              const t = await workflowTasks(client, id);
              tasks[key] = (tasks[key] ?? 0) + t.count;
              (spans[key] ??= []).push(...t.spans);
            }
          }
        }
      }
    });
    const report: Record<string, unknown> = {};
    for (const w of Object.keys(WORKLOADS) as Workload[]) {
      const side = (mode: Mode) => ({ cpuMsPerWorkflowTask: round(cpu[`${w} ${mode}`] / tasks[`${w} ${mode}`], 2), workflowTaskHeldMs: round(mean(spans[`${w} ${mode}`]), 2), workflowTasks: tasks[`${w} ${mode}`] });
      const [b, n] = [side('before'), side('now')];
      report[w] = { before: b, now: n, ratio: { cpu: round(n.cpuMsPerWorkflowTask / b.cpuMsPerWorkflowTask, 2), held: round(n.workflowTaskHeldMs / b.workflowTaskHeldMs, 2) } };
    }
    console.log(JSON.stringify({ runs: RUNS, reps: REPS, ...report }, null, 2));
    await client.connection.close();
    await connection.close();
  } finally {
    for (const w of Object.values(workers)) w.kill('SIGINT');
    await Promise.all(Object.values(workers).map((w) => (w.exitCode !== null ? undefined : new Promise((r) => w.once('exit', r)))));
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
