/**
 * Writes (issue 34 item 7): what a write costs as an activity (the default) against the same
 * write as a local activity (`swflow.local: true`), and how often a write lost with its worker
 * (kill -9) reaches the service twice, with and without call ids (feature `call-ids`: the
 * `Idempotency-Key` derived from the logical call, not from the activity).
 *
 * (a) Cost: bench/peer's ten sequential POSTs (`bench/tencalls-writes`) against the same with every
 *     call `swflow.local: true` (`-local`), on one dev server and one worker process
 *     (bench/writes-worker.ts: the interpreter worker serving built-in calls, as `swflow worker`),
 *     the echo service in its own process. `--rounds` rounds, each side in turn (the order
 *     rotating), `--runs` runs at `--concurrency`: run latency p50/p99, runs/s, worker CPU per run.
 * (b) The repeat window on kill -9: per trial, a fresh worker; `--writes` runs, each three sequential
 *     POSTs (`/w/<run>/1`, `/2`, `/3`) to a service in this process that performs the third and holds
 *     its answer; once every run's third reached it, the worker is SIGKILLed and a new one started;
 *     the runs complete. The service honours the key (a key seen again gets the first answer, not a
 *     second write). Counted per write: requests beyond the first (repeats: what a service that
 *     ignores the key performs again), repeats with another key, and writes performed twice despite
 *     the key (duplicates). Sides: activity or local activity × call-ids on, or off
 *     (BENCH_FEATURES_WITHOUT=call-ids: the key of the activity, as before).
 *
 *   npx tsx bench/writes.ts [--rounds 3] [--runs 60] [--concurrency 10] [--trials 2] [--writes 5] [--parts cost,kill]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { freePort } from '../test/helpers/ports';
import { cpuMs, option as arg, quantile, round, startEchoService, waitFor, writePeerDocuments, stopChild as exit } from './support';

const ROUNDS = Number(arg('rounds', '3'));
const RUNS = Number(arg('runs', '60'));
const CONCURRENCY = Number(arg('concurrency', '10'));
const TRIALS = Number(arg('trials', '2'));
const WRITES = Number(arg('writes', '5'));
const PARTS = arg('parts', 'cost,kill').split(',');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-writes-'));
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const children: ChildProcess[] = [];
  const load: number[] = [loadavg()[0]];
  const report: Record<string, unknown> = {};
  try {
    const echoPort = await freePort();
    const echo = startEchoService(echoPort);
    children.push(echo);
    await waitFor(echo, /ready/, 'the echo service');
    const docs = writePeerDocuments(dir, `http://127.0.0.1:${echoPort}`, 1);
    // The ten POSTs as local activities.
    const writes = parseYaml(readFileSync(join(docs.swflow, 'ten-calls-writes.sw.yaml'), 'utf8'));
    writes.document.name += '-local';
    for (const entry of writes.do) for (const task of Object.values(entry) as Record<string, unknown>[]) task.metadata = { 'swflow.local': true };
    writeFileSync(join(docs.swflow, 'ten-calls-writes-local.sw.yaml'), stringifyYaml(writes));

    // (b)'s service: performs a write on its key's first request, answers repeats from it; holds the first answers.
    const killPort = await freePort();
    const byPath = new Map<string, { keys: (string | undefined)[]; performed: number }>();
    const answers = new Map<string, unknown>();
    const held: ServerResponse[] = [];
    let holding = true;
    const service = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = new URL(req.url!, 'http://x').pathname;
        const header = req.headers['idempotency-key'];
        const key = Array.isArray(header) ? header.join(',') : header;
        const seen = byPath.get(path) ?? { keys: [], performed: 0 };
        byPath.set(path, seen);
        seen.keys.push(key);
        let answer = key ? answers.get(key) : undefined;
        if (answer === undefined) {
          answer = { performed: ++seen.performed };
          if (key) answers.set(key, answer);
        }
        if (holding && path.endsWith('/3')) return void held.push(res);
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => service.listen(killPort, '127.0.0.1', r));
    const killDoc = (name: string, metadata: Record<string, unknown>) => ({
      document: { dsl: '1.0.3', namespace: 'bench', name, version: '1.0.0' },
      do: [1, 2, 3].map((n) => ({ [`place${n}`]: { call: 'http', metadata, with: { method: 'post', endpoint: `\${ "http://127.0.0.1:${killPort}/w/" + $workflow.input.id + "/${n}" }`, body: { item: n } } } })),
    });
    // The activity's heartbeat timeout short (a lost write is noticed in 2 s; the default is 30 s).
    writeFileSync(join(docs.swflow, 'kill-activity.sw.json'), JSON.stringify(killDoc('kill-activity', { 'swflow.heartbeat': 'PT2S' })));
    writeFileSync(join(docs.swflow, 'kill-local.sw.json'), JSON.stringify(killDoc('kill-local', { 'swflow.local': true })));

    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const startWorker = async (env: Record<string, string> = {}): Promise<ChildProcess> => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'writes-worker.ts'), docs.swflow], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, TEMPORAL_ADDRESS: server.address } });
      children.push(child);
      await waitFor(child, /^ready$/m, 'the swflow worker');
      return child;
    };

    if (PARTS.includes('cost')) {
      const sides = [
        { name: 'writes (activities)', type: 'bench/tencalls-writes' },
        { name: 'writes-local (local activities)', type: 'bench/tencalls-writes-local' },
      ];
      const worker = await startWorker();
      const rows: Record<string, { p50: number; p99: number; runsPerS: number; cpuMsPerRun: number }[]> = {};
      let id = 0;
      const runMany = async (type: string, count: number) => {
        const latencies: number[] = [];
        let next = 0;
        await Promise.all(
          Array.from({ length: Math.min(CONCURRENCY, count) }, async () => {
            while (next++ < count) {
              const t = performance.now();
              await client.workflow.execute(type, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `cost-${id++}`, args: [{}] });
              latencies.push(performance.now() - t);
            }
          }),
        );
        return latencies;
      };
      for (const s of sides) await runMany(s.type, 20); // warm-up
      for (let r = 0; r < ROUNDS; r++) {
        for (const s of r % 2 ? [...sides].reverse() : sides) {
          const cpu0 = cpuMs(worker.pid!);
          const t = performance.now();
          const latencies = await runMany(s.type, RUNS);
          const wall = (performance.now() - t) / 1000;
          const row = { p50: round1(quantile(latencies, 0.5)), p99: round1(quantile(latencies, 0.99)), runsPerS: round(RUNS / wall, 1), cpuMsPerRun: round((cpuMs(worker.pid!) - cpu0) / RUNS, 1) };
          (rows[s.name] ??= []).push(row);
          load.push(loadavg()[0]);
          console.error(`[writes] cost round ${r + 1} ${s.name}: ${JSON.stringify(row)}`);
        }
      }
      const [a, l] = sides.map((s) => rows[s.name]);
      report.cost = {
        runs: RUNS,
        concurrency: CONCURRENCY,
        sides: rows,
        localToActivity: {
          p50: a.map((r, i) => round(l[i].p50 / r.p50, 2)),
          p99: a.map((r, i) => round(l[i].p99 / r.p99, 2)),
          runsPerS: a.map((r, i) => round(l[i].runsPerS / r.runsPerS, 2)),
          cpuPerRun: a.map((r, i) => round(l[i].cpuMsPerRun / r.cpuMsPerRun, 2)),
        },
      };
      await exit(worker);
    }

    if (PARTS.includes('kill')) {
      const kill: Record<string, { writes: number; requests: number; repeats: number; repeatsWithAnotherKey: number; duplicatesPerformed: number; secondsToComplete: number[] }> = {};
      let trialId = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        for (const callIds of [true, false]) {
          for (const local of [false, true]) {
            const name = `${local ? 'local activity' : 'activity'}, ${callIds ? 'call-ids' : 'without call-ids (key of the activity)'}`;
            const env: Record<string, string> = callIds ? {} : { BENCH_FEATURES_WITHOUT: 'call-ids' };
            holding = true;
            const first = await startWorker(env);
            const ids = Array.from({ length: WRITES }, (_, i) => `t${trialId}-${i}`);
            trialId++;
            const handles = await Promise.all(ids.map((id) => client.workflow.start(local ? 'bench/kill-local' : 'bench/kill-activity', { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `kill-${id}`, args: [{ id }], workflowExecutionTimeout: '3 minutes' })));
            const deadline = Date.now() + 120_000;
            while (ids.some((id) => !byPath.has(`/w/${id}/3`))) {
              if (Date.now() > deadline) throw new Error(`the writes did not reach the service: ${name}`);
              await new Promise((r) => setTimeout(r, 20));
            }
            first.kill('SIGKILL');
            await new Promise((r) => first.once('exit', r));
            for (const res of held.splice(0)) res.destroy();
            holding = false;
            const t = performance.now();
            const second = await startWorker(env);
            const done = await Promise.all(handles.map((h) => h.result().then(() => (performance.now() - t) / 1000)));
            await exit(second);
            const row = (kill[name] ??= { writes: 0, requests: 0, repeats: 0, repeatsWithAnotherKey: 0, duplicatesPerformed: 0, secondsToComplete: [] });
            for (const path of ids.flatMap((id) => [1, 2, 3].map((n) => `/w/${id}/${n}`))) {
              const seen = byPath.get(path)!;
              row.writes++;
              row.requests += seen.keys.length;
              row.repeats += seen.keys.length - 1;
              row.repeatsWithAnotherKey += new Set(seen.keys).size - 1;
              row.duplicatesPerformed += seen.performed - 1;
            }
            row.secondsToComplete.push(round(Math.max(...done), 1));
            load.push(loadavg()[0]);
            console.error(`[writes] kill trial ${trial + 1} ${name}: ${JSON.stringify(row)}`);
          }
        }
      }
      report.kill = kill;
    }
    report.loadAverage = load.map((x) => round(x, 2));
    console.log(JSON.stringify(report, null, 2));
    service.closeAllConnections();
    service.close();
    await client.connection.close();
  } finally {
    await Promise.all(children.map(exit));
    await server.stop();
  }
}

const round1 = (x: number) => round(x, 1);

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
