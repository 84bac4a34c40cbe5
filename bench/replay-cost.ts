/**
 * The workflow side's CPU per run, measured by replay: what a worker spends inside the workflow
 * sandbox (activations, the SDK's promise hook and vm calls, the interpreter) for one run of the
 * peer benches' 10-call documents, against the hand-written TypeScript workflow of the same 10
 * calls (bench/peer-handwritten.ts). Replay needs no server and no network, so the figure moves
 * far less with the machine's load than an end-to-end run does: an A/B tool for changes to the
 * workflow code.
 *
 * Once: a dev server, the echo service and in-process workers record one history of each
 * workload (1.0 and 0.8 GETs: local reads on the default path; 1.0 POSTs: eager activities; the
 * hand-written 10 activities). Then each history is replayed `--times` times per round, for
 * `--rounds` rounds, the bundles interleaved (the worker's way: a worker thread, one reused V8
 * context); process CPU (all threads) per replayed run. A replay has a fixed cost of its own (the
 * replay worker's history feeding), so compare sides, not absolute figures with live runs. Also
 * counted: promises the workflow code creates per run.
 * `--tree <checkout>` adds that checkout's interpreter bundle as side B (e.g. main before a change:
 * `git worktree add /tmp/base main && ln -s $PWD/node_modules /tmp/base/`).
 *
 *   npx tsx bench/replay-cost.ts [--times 100] [--rounds 4] [--tree <dir>] [--save <dir>] [--sites 40]
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import v8 from 'node:v8';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker, type WorkflowBundle } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { bundleInterpreter, createInterpreterWorker } from '../src/worker/interpreter-worker';
import { createBuiltinAdapterWorker } from '../src/worker/adapter-worker';
import { historyToFixture } from '../src/testing/history';
import { freePort } from '../test/helpers/ports';
import { option as arg, mean, quietBundlerLogger, round, startEchoService, waitFor, writePeerDocuments } from './support';

const TIMES = Number(arg('times', '100'));
const ROUNDS = Number(arg('rounds', '4'));
const TREE = arg('tree', '');
/** Print the N places that make the most promises per replayed run (0: none). */
const SITES = Number(arg('sites', '0'));
/** Where to write the recorded histories (fixture format, src/testing/history.ts), to replay or inspect them. */
const SAVE = arg('save', '');
const HANDWRITTEN_QUEUE = 'bench-replay-handwritten';
/** Replay as a worker runs workflows (a worker thread, one reused context), not in this thread (the replayer's debugMode default). */
const AS_A_WORKER = { debugMode: false, reuseV8Context: true } as object;

type History = temporal.api.history.v1.IHistory;
interface Workload {
  name: string;
  type: string;
  taskQueue: string;
  /** Which bundles replay it: the interpreter's (A, B) or the hand-written one. */
  handwritten?: boolean;
  history?: History;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const quiet = quietBundlerLogger;
  const cli = await resolveTemporalCli(() => {});
  if (!cli) throw new Error('no Temporal CLI');
  const port = await freePort();
  const server = await startDevServer({ binary: cli.path, port, uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'replay-cost-')), 'db.sqlite') });
  const servicePort = await freePort();
  const service = startEchoService(servicePort);
  await waitFor(service, /ready/, 'echo service');
  const docs = writePeerDocuments(mkdtempSync(join(tmpdir(), 'replay-cost-docs-')), `http://127.0.0.1:${servicePort}`, 10);

  const workloads: Workload[] = [
    { name: '1.0, 10 GETs (local reads)', type: 'bench/tencalls', taskQueue: INTERPRETER_TASK_QUEUE },
    { name: '0.8, 10 GETs (local reads)', type: 'tencalls08', taskQueue: INTERPRETER_TASK_QUEUE },
    { name: '1.0, 10 POSTs (eager activities)', type: 'bench/tencalls-writes', taskQueue: INTERPRETER_TASK_QUEUE },
    { name: 'hand-written, 10 activities', type: 'tenCallsHandwritten', taskQueue: HANDWRITTEN_QUEUE, handwritten: true },
  ];

  const interpreterA = await bundleInterpreter({ logger: quiet });
  const handwritten = await bundleWorkflowCode({ workflowsPath: require.resolve('./peer-handwritten'), logger: quiet });
  // Side B: another checkout's interpreter bundle, made by that checkout's own code.
  const interpreterB = TREE ? ((await (require(join(resolve(TREE), 'src/worker/interpreter-worker')) as typeof import('../src/worker/interpreter-worker')).bundleInterpreter({ logger: quiet })) as WorkflowBundle) : undefined;

  // Record one history of each workload.
  const connection = await NativeConnection.connect({ address: `127.0.0.1:${port}` });
  const workers = [
    await createInterpreterWorker({ connection, definitions: [docs.swflow], builtinCalls: true, workflowBundle: interpreterA }),
    await createBuiltinAdapterWorker({ connection, baseDirs: [docs.swflow] }),
    await Worker.create({ connection, taskQueue: HANDWRITTEN_QUEUE, workflowBundle: handwritten }),
  ];
  const running = Promise.all(workers.map((w) => w.run()));
  const client = new Client({ connection: await Connection.connect({ address: `127.0.0.1:${port}` }) });
  for (const w of workloads) {
    const id = `replay-cost-${w.type.replace('/', '-')}`;
    await client.workflow.execute(w.type, { taskQueue: w.taskQueue, workflowId: id, args: [{ service: `http://127.0.0.1:${servicePort}`, count: 0 }] });
    w.history = await client.workflow.getHandle(id).fetchHistory();
    if (SAVE) writeFileSync(join(SAVE, `${id}.json`), historyToFixture(w.history as never));
  }
  for (const w of workers) w.shutdown();
  await running;
  await connection.close();
  service.kill();
  await server.stop();

  const sides: { name: string; bundle: WorkflowBundle; handwritten: boolean }[] = [
    { name: 'A (this tree)', bundle: interpreterA, handwritten: false },
    ...(interpreterB ? [{ name: `B (${TREE})`, bundle: interpreterB, handwritten: false }] : []),
    { name: 'hand-written', bundle: handwritten, handwritten: true },
  ];
  const cpu: Record<string, number[]> = {};
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate the order of the sides per round.
    const order = sides.map((_, i) => sides[(i + r) % sides.length]);
    for (const side of order) {
      for (const w of workloads.filter((x) => !!x.handwritten === side.handwritten)) {
        async function* copies() {
          for (let i = 0; i < TIMES; i++) yield { workflowId: `${w.type}-${r}-${i}`, history: w.history! };
        }
        const before = process.cpuUsage();
        let failures = 0;
        for await (const result of Worker.runReplayHistories({ workflowBundle: side.bundle, replayName: 'replay-cost', ...AS_A_WORKER }, copies())) if (result.error) failures++;
        const used = process.cpuUsage(before);
        if (failures) throw new Error(`${side.name}: ${failures} replays of ${w.name} failed`);
        (cpu[`${w.name} | ${side.name}`] ??= []).push((used.user + used.system) / 1000 / TIMES);
      }
    }
  }
  // Promises the workflow code creates per run (the SDK's hook captures a stack for each): one
  // replay per workload in this thread (debugMode), counting promises of the sandbox's realm.
  const promises: Record<string, number> = {};
  let counted = 0;
  let counting = false;
  let counterKey = '';
  // --sites N: where they are made (the first function of the workflow bundle up each one's stack; `?`: none, the SDK's own).
  const sites = new Map<string, number>();
  const stop = v8.promiseHooks.onInit((p: Promise<unknown>) => {
    if (!counting || p.constructor === Promise) return;
    counted++;
    if (SITES) {
      const frames = (new Error().stack ?? '').split('\n').slice(2).map((l) => l.trim().replace(/^at /, ''));
      const own = frames.find((f) => /workflow-bundle|\/src\/workflow\//.test(f) && !/node_modules/.test(f.split('(')[1] ?? f));
      const key = `${counterKey} | ${(own ?? '?').split(' (')[0]}`;
      sites.set(key, (sites.get(key) ?? 0) + 1);
    }
  });
  for (const side of sides) {
    for (const w of workloads.filter((x) => !!x.handwritten === side.handwritten)) {
      counted = 0;
      counterKey = `${w.name} | ${side.name}`;
      counting = true;
      for await (const result of Worker.runReplayHistories({ workflowBundle: side.bundle, replayName: 'replay-count' }, [{ workflowId: `${w.type}-count`, history: w.history! }])) if (result.error) throw result.error;
      counting = false;
      promises[`${w.name} | ${side.name}`] = counted;
    }
  }
  stop();
  const rows = Object.entries(cpu).map(([key, xs]) => ({ key, cpuMsPerRun: round(mean(xs), 2), promisesPerRun: promises[key], perRound: xs.map((x) => round(x, 2)) }));
  const events = Object.fromEntries(workloads.map((w) => [w.name, w.history!.events!.length]));
  console.log(JSON.stringify({ times: TIMES, rounds: ROUNDS, historyEvents: events, rows }, null, 2));
  if (SITES) for (const [site, n] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, SITES)) console.log(`${String(n).padStart(5)}  ${site}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
