/**
 * What tracing and metrics cost the interpreter: the interpreter bench's run (bench/definitions/
 * ten-calls.sw.json, 10 sequential function calls) on two interpreter workers, each in its own
 * process on the same dev server — one with OpenTelemetry tracing (OTLP/HTTP to a local receiver
 * that accepts and discards) and Prometheus metrics on, one with both off — end-to-end latency of
 * sequential runs, interleaved (on, off, on, off…). Goal: median latency on/off ≤ 1.05.
 * The calls are served by one trivial activity worker in this process (as bench/interpreter.ts).
 *
 *   npx tsx bench/telemetry-overhead.ts [--runs 40]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, Runtime, DefaultLogger } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE } from '../src/common/contracts';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { freePort } from '../test/helpers/ports';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/** Child mode: one interpreter worker on `--queue`, tracing and metrics on when the environment says so. */
async function worker(): Promise<void> {
  const { startTracingIf } = await import('../src/tracing');
  const { installCoreMetrics, startMetricsServer } = await import('../src/metrics');
  const on = process.env.BENCH_TELEMETRY === 'on';
  if (on) {
    if (!startTracingIf('swflow-bench')) throw new Error('tracing did not start: OTEL_EXPORTER_OTLP_ENDPOINT unset?');
    // As --metrics-port does: Core's exporter in the runtime, swflow's metrics and the endpoint.
    const core = await installCoreMetrics({ logger: new DefaultLogger('WARN') });
    await startMetricsServer({ port: 0, corePort: core.port });
  } else {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  }
  const { createInterpreterWorker } = await import('../src/worker/interpreter-worker');
  const connection = await NativeConnection.connect({ address: arg('address', '') });
  const w = await createInterpreterWorker({ connection, taskQueue: arg('queue', ''), definitions: [join(__dirname, 'definitions')] });
  process.stdout.write('ready\n');
  await w.run();
}

async function main(): Promise<void> {
  const runs = Number(arg('runs', '40'));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // The OTLP receiver: accepts and discards.
  let exported = 0;
  const otlp = createServer((req, res) => {
    req.on('data', (c: Buffer) => (exported += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => otlp.listen(0, '127.0.0.1', r));
  const cli = await resolveTemporalCli();
  const server = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-bench-')), 'db.sqlite') });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const connection = await NativeConnection.connect({ address: server.address });
  const service = await Worker.create({ connection, taskQueue: ADAPTER_TASK_QUEUE, activities: { default: async () => ({ ok: true }) }, maxConcurrentActivityTaskExecutions: 200 });

  const children: ChildProcess[] = [];
  const start = (side: 'on' | 'off') =>
    new Promise<void>((resolve, reject) => {
      const env = { ...process.env, BENCH_TELEMETRY: side, OTEL_EXPORTER_OTLP_ENDPOINT: side === 'on' ? `http://127.0.0.1:${(otlp.address() as AddressInfo).port}` : '' };
      const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--worker', '--queue', `bench-${side}`, '--address', server.address], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`the ${side} worker exited (${code})`)));
    });
  await Promise.all([start('on'), start('off')]);

  const sides = ['on', 'off'] as const;
  const exec = (side: string, id: string) => client.workflow.execute('tencalls', { taskQueue: `bench-${side}`, workflowId: id, args: [{}] });
  const latency: Record<string, number[]> = { on: [], off: [] };
  await service.runUntil(async () => {
    for (const side of sides) for (let i = 0; i < 5; i++) await exec(side, `warm-${side}-${i}`);
    for (let i = 0; i < runs; i++) {
      // Alternate which side goes first, so neither always follows the other.
      for (const side of i % 2 ? [...sides].reverse() : sides) {
        const t = performance.now();
        await exec(side, `lat-${side}-${i}`);
        latency[side].push(performance.now() - t);
      }
    }
  });
  await new Promise((r) => setTimeout(r, 1500)); // the last batch of spans goes out
  const report = {
    runs,
    loadAverage: loadavg().map((l) => +l.toFixed(2)),
    on: { latencyMedianMs: +quantile(latency.on, 0.5).toFixed(1), latencyP90Ms: +quantile(latency.on, 0.9).toFixed(1) },
    off: { latencyMedianMs: +quantile(latency.off, 0.5).toFixed(1), latencyP90Ms: +quantile(latency.off, 0.9).toFixed(1) },
    ratioMedian: +(quantile(latency.on, 0.5) / quantile(latency.off, 0.5)).toFixed(3),
    ratioP90: +(quantile(latency.on, 0.9) / quantile(latency.off, 0.9)).toFixed(3),
    otlpBytesReceived: exported,
  };
  console.log(JSON.stringify(report, null, 2));
  for (const c of children) c.kill('SIGINT');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(undefined) : c.once('exit', r)))));
  await connection.close();
  await server.stop();
  otlp.close();
}

(process.argv.includes('--worker') ? worker() : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
