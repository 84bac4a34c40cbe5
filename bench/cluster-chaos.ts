/**
 * Load and chaos on the multi-process Temporal cluster (src/platform/cluster.ts; docs/cluster.md).
 *
 *   npx tsx bench/cluster-chaos.ts --chaos [--seconds 60] [--concurrency 8]
 *       2 `swflow worker`, 2 `swflow adapters`, 2 `swflow gateway` processes; sustained load of
 *       runs that call a local HTTP service, sleep 1 s on a timer and wait for an event sent
 *       through the gateways (0.8 correlated: started and continued by events; 0.8 and 1.0
 *       uncorrelated: routed by the SwAwaitedEvents visibility query); mid-load kill -9 of one of
 *       each swflow process and of Temporal server process "b" (history + matching + worker),
 *       restarted a few seconds later. Checks every run's output, that every event answered 202
 *       reached its run, and counts duplicate deliveries.
 *   npx tsx bench/cluster-chaos.ts --workers 1,2,4 [--seconds 40]
 *       throughput and latency with N interpreter + N adapter worker processes (2 gateways).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE, type StartOptions } from '../src/common/contracts';
import type { Definition, Json } from '../src/common/model';
import { formatFinding, loadAnyDefinition } from '../src/dsl';
import { startCluster, freePort, type Cluster } from '../src/platform/cluster';
import { SERVING, SwflowProcess } from '../test/reliability/harness';

const args = process.argv.slice(2);
const flag = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const CHAOS = args.includes('--chaos');
const SECONDS = Number(flag('seconds', CHAOS ? '60' : '40'));
const CONCURRENCY = Number(flag('concurrency', '8'));
const WORKER_COUNTS = flag('workers', CHAOS ? '2' : '1,2,4').split(',').map(Number);

const log = (m: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${m}`);

let calls = 0;
async function echoService(): Promise<{ base: string; close: () => void }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls++;
      const url = new URL(req.url!, 'http://x');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (url.pathname === '/openapi.json') return res.end(JSON.stringify(openapi(base)));
      const note = url.pathname === '/echo' ? url.searchParams.get('note')! : (JSON.parse(body) as { note: string }).note;
      res.end(JSON.stringify({ reply: `svc-${note}` }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => (server.closeAllConnections(), server.close()) };
}

const openapi = (base: string) => ({
  openapi: '3.0.3',
  info: { title: 'echo', version: '1' },
  servers: [{ url: base }],
  paths: { '/echo': { get: { operationId: 'echo', parameters: [{ name: 'note', in: 'query', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'ok' } } } } },
});

/** The definitions: one correlated 0.8 flow; per load slot, an uncorrelated 0.8 and 1.0 flow of their own event type. */
function documents(base: string): Record<string, unknown> {
  const docs: Record<string, unknown> = {
    corr08: {
      id: 'corr08', specVersion: '0.8', version: '1.0', start: 'Created',
      events: [
        { name: 'Created', type: 'chaos.created', source: 'load', correlation: [{ contextAttributeName: 'orderid' }] },
        { name: 'Shipped', type: 'chaos.shipped', source: 'load', correlation: [{ contextAttributeName: 'orderid' }] },
      ],
      functions: [{ name: 'echo', operation: `${base}/openapi.json#echo` }],
      states: [
        { name: 'Created', type: 'event', onEvents: [{ eventRefs: ['Created'], eventDataFilter: { toStateData: '${ .created }' } }], transition: 'Call' },
        { name: 'Call', type: 'operation', actions: [{ functionRef: { refName: 'echo', arguments: { note: '${ .created.note }' } }, actionDataFilter: { toStateData: '${ .call }' } }], transition: 'Nap' },
        { name: 'Nap', type: 'sleep', duration: 'PT1S', transition: 'Shipped' },
        { name: 'Shipped', type: 'event', onEvents: [{ eventRefs: ['Shipped'], eventDataFilter: { toStateData: '${ .shipped }' } }], end: true },
      ],
    },
  };
  for (let i = 0; i < CONCURRENCY; i++) {
    docs[`u08-${i}`] = {
      id: `u08-${i}`, specVersion: '0.8', version: '1.0', start: 'Call',
      events: [{ name: 'Go', type: `chaos.u08.${i}`, source: 'load' }],
      functions: [{ name: 'echo', operation: `${base}/openapi.json#echo` }],
      states: [
        { name: 'Call', type: 'operation', actions: [{ functionRef: { refName: 'echo', arguments: { note: '${ .note }' } }, actionDataFilter: { toStateData: '${ .call }' } }], transition: 'Nap' },
        { name: 'Nap', type: 'sleep', duration: 'PT1S', transition: 'Wait' },
        { name: 'Wait', type: 'event', onEvents: [{ eventRefs: ['Go'], eventDataFilter: { toStateData: '${ .go }' } }], end: true },
      ],
    };
    docs[`u10-${i}`] = {
      document: { dsl: '1.0.3', namespace: 'chaos', name: `u10-${i}`, version: '0.1.0' },
      do: [
        { echo: { call: 'http', with: { method: 'post', endpoint: `${base}/echo10`, body: { note: '${ .note }' } }, export: { as: '${ { reply: .reply } }' } } },
        { nap: { wait: { seconds: 1 } } },
        { go: { listen: { to: { one: { with: { type: `chaos.u10.${i}` } } } } } },
        { done: { set: { reply: '${ $context.reply }', go: '${ .[0].go }' } } },
      ],
    };
  }
  return docs;
}

interface Outcome {
  kind: string;
  workflowId: string;
  ok: boolean;
  error?: string;
  ms: number;
  /** Event ids answered 202 for this run. */
  accepted: string[];
}

class Gateways {
  sent = 0;
  refused: Record<string, number> = {};
  constructor(readonly ports: number[]) {}
  /** Posts until a 202 (another gateway on connection errors and 5xx; again on 404: visibility lags). */
  async send(event: Record<string, unknown>, first: number, expectId?: string): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (let attempt = 0; ; attempt++) {
      const port = this.ports[(first + attempt) % this.ports.length];
      let status = 0;
      let body: { delivered?: { workflowId: string }[] } = {};
      try {
        const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify(event), signal: AbortSignal.timeout(15_000) });
        status = res.status;
        body = (await res.json().catch(() => ({}))) as typeof body;
      } catch {
        status = -1;
      }
      this.sent++;
      if (status === 202 && (!expectId || body.delivered?.some((d) => d.workflowId === expectId))) return;
      this.refused[status] = (this.refused[status] ?? 0) + 1;
      if (Date.now() > deadline) throw new Error(`event ${event.id} not accepted within 120 s (last status ${status})`);
      await sleep(status === 404 ? 100 : 300);
    }
  }
}

async function oneRun(kind: 'corr08' | 'u08' | 'u10', slot: number, n: number, client: Client, defs: Map<string, Definition>, gw: Gateways): Promise<Outcome> {
  const started = Date.now();
  const tag = `${kind}-${slot}-${n}-${randomBytes(3).toString('hex')}`;
  const accepted: string[] = [];
  let workflowId = '';
  try {
    let expected: Json;
    if (kind === 'corr08') {
      workflowId = `corr08/orderid=${tag}`;
      await gw.send({ specversion: '1.0', id: `c-${tag}`, source: 'load', type: 'chaos.created', orderid: tag, data: { note: tag } }, n, workflowId);
      accepted.push(`c-${tag}`);
      await gw.send({ specversion: '1.0', id: `s-${tag}`, source: 'load', type: 'chaos.shipped', orderid: tag, data: { shipped: tag } }, n + 1, workflowId);
      accepted.push(`s-${tag}`);
      expected = { created: { note: tag }, call: { reply: `svc-${tag}` }, shipped: { shipped: tag } };
    } else {
      const d = defs.get(`${kind}-${slot}`)!;
      workflowId = `${tag}`;
      await client.workflow.start(d.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId, args: [{ note: tag }, { definition: d } satisfies StartOptions] });
      await gw.send({ specversion: '1.0', id: `g-${tag}`, source: 'load', type: `chaos.${kind}.${slot}`, data: { go: tag } }, n, workflowId);
      accepted.push(`g-${tag}`);
      expected = kind === 'u08' ? { note: tag, call: { reply: `svc-${tag}` }, go: { go: tag } } : { reply: `svc-${tag}`, go: tag };
    }
    const result = await client.workflow.getHandle(workflowId).result();
    const ok = JSON.stringify(result) === JSON.stringify(expected);
    return { kind, workflowId, ok, error: ok ? undefined : `got ${JSON.stringify(result)}, want ${JSON.stringify(expected)}`, ms: Date.now() - started, accepted };
  } catch (err) {
    return { kind, workflowId, ok: false, error: (err as Error).message, ms: Date.now() - started, accepted };
  }
}

function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

async function phase(cluster: Cluster, base: string, dir: string, workers: number, chaos: boolean): Promise<Record<string, number | string>> {
  const env = {};
  const procs: Record<string, SwflowProcess[]> = { worker: [], adapters: [], gateway: [] };
  const gatewayPorts = [await freePort(), await freePort()];
  const startWorker = () => new SwflowProcess(['worker', '--definitions', dir, '--no-schedules'], cluster.address, env).ready(SERVING);
  const startAdapters = () => new SwflowProcess(['adapters', '--definitions', dir], cluster.address, env).ready(SERVING);
  const startGateway = (port: number) => new SwflowProcess(['gateway', '--definitions', dir, '--port', String(port), '--no-access-log'], cluster.address, env).ready(/listening on/);
  procs.worker = await Promise.all(Array.from({ length: workers }, startWorker));
  procs.adapters = await Promise.all(Array.from({ length: workers }, startAdapters));
  procs.gateway = await Promise.all(gatewayPorts.map(startGateway));
  const connection = await Connection.connect({ address: cluster.address });
  const client = new Client({ connection });
  const defs = new Map<string, Definition>();
  for (const [name, doc] of Object.entries(documents(base))) {
    const { definition, problems } = await loadAnyDefinition(doc);
    if (!definition) throw new Error(`${name}: ${problems.map(formatFinding).join('; ')}`);
    defs.set(name, definition);
  }
  const gw = new Gateways(gatewayPorts);
  const outcomes: Outcome[] = [];
  const callsBefore = calls;
  const started = Date.now();
  const until = started + SECONDS * 1000;
  const kinds = ['corr08', 'u08', 'u10'] as const;
  const slots = Array.from({ length: CONCURRENCY }, async (_, slot) => {
    for (let n = 0; Date.now() < until; n++) outcomes.push(await oneRun(kinds[(slot + n) % 3], slot, n, client, defs, gw));
  });
  const chaosDone = chaos
    ? (async () => {
        await sleep(SECONDS * 300);
        log('kill -9: worker 0, adapters 0, gateway 0, Temporal server process b');
        procs.worker[0].child.kill('SIGKILL');
        procs.adapters[0].child.kill('SIGKILL');
        procs.gateway[0].child.kill('SIGKILL');
        cluster.kill('b');
        await sleep(5000);
        await cluster.restart('b');
        log('Temporal server process b restarted');
        procs.worker[0] = await startWorker();
        procs.adapters[0] = await startAdapters();
        procs.gateway[0] = await startGateway(gatewayPorts[0]);
        log('swflow processes restarted');
      })()
    : Promise.resolve();
  await Promise.all([...slots, chaosDone]);
  const elapsed = (Date.now() - started) / 1000;
  const load = loadavg()[0];

  // Every 202-accepted event reached its run once (duplicates counted): the signals in each history.
  let delivered = 0;
  let duplicates = 0;
  let lost = 0;
  for (const o of outcomes) {
    if (!o.workflowId) continue;
    const events = (await connection.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: o.workflowId } })).history?.events ?? [];
    const payloads = events.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.input?.payloads ?? []);
    const text = payloads.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString()).join('\n');
    for (const id of o.accepted) {
      const count = text.split(id).length - 1;
      if (count === 0) lost++;
      else delivered++;
      if (count > 1) duplicates += count - 1;
    }
  }
  const failed = outcomes.filter((o) => !o.ok);
  for (const f of failed.slice(0, 10)) log(`FAILED ${f.kind} ${f.workflowId}: ${f.error}`);
  const ms = outcomes.filter((o) => o.ok).map((o) => o.ms).sort((a, b) => a - b);
  for (const p of Object.values(procs).flat()) await p.stop('SIGTERM');
  await connection.close();
  return {
    workers,
    runs: outcomes.length,
    failed: failed.length,
    'runs/s': +(outcomes.length / elapsed).toFixed(2),
    'calls/s': +((calls - callsBefore) / elapsed).toFixed(2),
    'events/s': +(outcomes.reduce((n, o) => n + o.accepted.length, 0) / elapsed).toFixed(2),
    'p50 ms': pct(ms, 50),
    'p99 ms': pct(ms, 99),
    accepted: outcomes.reduce((n, o) => n + o.accepted.length, 0),
    delivered,
    lost,
    duplicates,
    'gateway refusals': JSON.stringify(gw.refused),
    'load avg': load.toFixed(1),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-chaos-'));
  const svc = await echoService();
  const defsDir = join(dir, 'defs');
  mkdirSync(defsDir);
  for (const [name, doc] of Object.entries(documents(svc.base))) writeFileSync(join(defsDir, `${name}.sw.json`), JSON.stringify(doc));
  const cluster = await startCluster({ log });
  let bad = false;
  try {
    for (const workers of WORKER_COUNTS) {
      log(`${CHAOS ? 'chaos' : 'load'}: ${workers} worker + ${workers} adapter processes, 2 gateways, ${CONCURRENCY} concurrent flows, ${SECONDS} s`);
      const row = await phase(cluster, svc.base, defsDir, workers, CHAOS);
      console.log(JSON.stringify(row));
      if (Number(row.failed) || Number(row.lost)) bad = true;
    }
  } finally {
    await cluster.stop();
    svc.close();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(bad ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
