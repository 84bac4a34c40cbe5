/**
 * Events into many waiting runs (issue 34, item 2, the gateway's part): `--waiting` runs of each
 * kind wait at once, correlated by a key, on one dev server with one interpreter worker and the
 * gateway in this process (as bench/gateway.ts):
 *
 * - 1.0: `bench/eventwake10` (event-wake.sw.yaml), a `listen` with `correlate … expect` for its
 *   own `sinkid`: the gateway finds the run through visibility (SwAwaitedEvents);
 * - 0.8: `eventwait08` (event-wait08.sw.json), an event state (not the start state) correlated by
 *   `sinkid`: the gateway names the run by its correlation (`eventwait08/sinkid=<key>`).
 *
 * 1. Latency: `--samples` events per kind, one at a time, each for another waiting run, taking
 *    turns with the same event sent as a raw signal (`signal` on the run's id, which the raw
 *    sender knows): p50/p99 of the answer (the gateway's 202: Temporal took the signal; the
 *    signal's return) and until the run completed (it consumed the event).
 * 2. Burst: one event for every run still waiting (both kinds, taking turns) POSTed to the
 *    gateway's HTTP endpoint at `--rate` events/s (open loop: sent on schedule whatever the
 *    answers), an event answered 503/500 sent again after its `Retry-After` (a full gateway's
 *    admission, src/gateway/admission.ts; with jitter: 1–2× it) or 1 s (a deadline), counted by
 *    kind. Reports the rate the answers came at, their latency (queueing: p50, p99, max), the most
 *    events in flight at the sender and in the gateway's admission (delivering, queued), and the
 *    count that matters: every run completed (it consumed its event), within 10 minutes.
 *
 *   npx tsx bench/gateway-waiting.ts [--waiting 1000] [--samples 100] [--rate 1000]
 *                                    [--max-in-flight N] [--max-queued N] (the gateway's admission; default its defaults)
 *                                    [--cluster]  (the PostgreSQL cluster, src/platform/cluster.ts, instead of the dev server)
 *   npx tsx bench/gateway-waiting.ts --large      (10,000 waiting runs of each kind)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { Json } from '../src/common/model';
import { EVENT_SIGNAL, INTERPRETER_TASK_QUEUE, type CloudEventJson } from '../src/common/contracts';
import { DefinitionRegistry } from '../src/definitions/registry';
import { startGateway } from '../src/gateway/server';
import { startDevServer } from '../src/platform/dev-server';
import { startCluster } from '../src/platform/cluster';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { bundleInterpreter, createInterpreterWorker } from '../src/worker/interpreter-worker';
import { freePort } from '../test/helpers/ports';
import { option, quantile, round } from './support';

const DEFINITIONS = join(__dirname, 'definitions');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The two kinds of waiting run: how one is started, named, and how its event looks. */
interface Kind {
  name: '1.0' | '0.8';
  workflowType: string;
  workflowId(key: string): string;
  event(key: string): CloudEventJson;
}

const KINDS: Kind[] = [
  { name: '1.0', workflowType: 'bench/eventwake10', workflowId: (k) => `wake10-${k}`, event: (k) => ev('bench.wake10', k) },
  { name: '0.8', workflowType: 'eventwait08', workflowId: (k) => `eventwait08/sinkid=${k}`, event: (k) => ev('bench.wait08', k) },
];

function ev(type: string, sinkid: string): CloudEventJson {
  return { specversion: '1.0', id: randomUUID(), type, source: 'bench', sinkid, data: { sinkid } as Json };
}

const stats = (xs: number[]) => ({ p50: round(quantile(xs, 0.5)), p99: round(quantile(xs, 0.99)), max: round(Math.max(...xs)) });

async function main(): Promise<void> {
  const waiting = Number(option('waiting', process.argv.includes('--large') ? '10000' : '1000'));
  const samples = Number(option('samples', '100'));
  const rate = Number(option('rate', '1000'));
  const maxInFlight = process.argv.includes('--max-in-flight') ? Number(option('max-in-flight', '')) : undefined;
  const maxQueued = process.argv.includes('--max-queued') ? Number(option('max-queued', '')) : undefined;
  const onCluster = process.argv.includes('--cluster');
  if (samples * 2 >= waiting) throw new Error(`--samples ${samples} needs more than ${samples * 2} --waiting runs`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = await resolveTemporalCli();
  const server = onCluster
    ? await startCluster({ log: (m) => console.error(`[cluster] ${m}`) }).then((c) => ({ address: c.address, stop: () => c.stop() }))
    : await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-gwwait-')), 'db.sqlite') });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const worker = await createInterpreterWorker({ connection: native, definitions: [DEFINITIONS], workflowBundle: await bundleInterpreter() });
  const registry = new DefinitionRegistry([DEFINITIONS]);
  const gateway = await startGateway({ client, definitions: () => registry.allDefinitions(), port: 0, maxInFlight, maxQueued });
  const send = async (e: CloudEventJson): Promise<{ status: number; retryAfter: string | null }> => {
    const res = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/cloudevents+json' }, body: JSON.stringify(e) });
    await res.text();
    return { status: res.status, retryAfter: res.headers.get('retry-after') };
  };
  const post = async (e: CloudEventJson): Promise<number> => (await send(e)).status;
  const load = [loadavg()[0]];
  const out: Record<string, unknown> = { server: onCluster ? 'cluster' : 'dev server', waiting, samples, rate, admission: { maxInFlight: gateway.admission.maxInFlight, maxQueued: gateway.admission.maxQueued } };

  await worker.runUntil(async () => {
    // Every run of both kinds starts and waits.
    const t0 = performance.now();
    const keys = Array.from({ length: waiting }, (_, i) => `k${i}`);
    for (const kind of KINDS) {
      for (let i = 0; i < waiting; i += 50) {
        await Promise.all(keys.slice(i, i + 50).map((k) => client.workflow.start(kind.workflowType, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: kind.workflowId(k), args: [{ sinkid: k }] })));
      }
    }
    const waitingQuery = `WorkflowType = 'bench/eventwake10' AND ExecutionStatus = 'Running' AND SwAwaitedEvents IS NOT NULL`;
    for (let t = 0; (await client.workflow.count(waitingQuery)).count < waiting; t++) {
      if (t > 1200) throw new Error(`the ${waiting} 1.0 runs did not all wait within 10 minutes`);
      await sleep(500);
    }
    out.startSeconds = round((performance.now() - t0) / 1000);
    out.rssAfterStartMb = Math.round(process.memoryUsage().rss / 2 ** 20);
    console.error(`[waiting] ${waiting} runs of each kind waiting after ${out.startSeconds} s (this process's RSS ${out.rssAfterStartMb} MB)`);

    // 1. Latency, one event at a time, the gateway and the raw signal taking turns.
    let next = 0;
    const latency: Record<string, Record<string, number[]>> = {};
    for (const kind of KINDS) {
      const l: Record<string, number[]> = (latency[kind.name] = { gateway: [], raw: [], gatewayConsumed: [], rawConsumed: [] });
      for (let s = 0; s < samples * 2; s++) {
        const key = keys[next++ % waiting];
        const side = s % 2 ? 'raw' : 'gateway';
        const e = kind.event(key);
        const t = performance.now();
        if (side === 'gateway') {
          const status = await post(e);
          if (status !== 202) throw new Error(`the gateway answered ${status} for ${kind.name} key ${key}`);
        } else {
          await client.workflow.getHandle(kind.workflowId(key)).signal(EVENT_SIGNAL, e);
        }
        l[side].push(performance.now() - t);
        await client.workflow.getHandle(kind.workflowId(key)).result();
        l[`${side}Consumed`].push(performance.now() - t);
      }
      next = 0;
    }
    out.latency = Object.fromEntries(Object.entries(latency).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).filter(([, xs]) => xs.length).map(([s, xs]) => [s, stats(xs)]))]));
    console.error(`[waiting] latency: ${JSON.stringify(out.latency)}`);
    load.push(loadavg()[0]);

    // 2. Burst: an event for every run still waiting, at `rate`/s, through the gateway's HTTP endpoint.
    const burst = keys.slice(samples * 2).flatMap((k) => KINDS.map((kind) => kind.event(k)));
    const answers: number[] = [];
    let inFlight = 0;
    let peak = 0;
    let resent = 0;
    const refusals: Record<string, number> = {};
    let lastSentAt = 0;
    let gatewayPeak = { inFlight: 0, queued: 0 };
    const sampler = setInterval(() => {
      gatewayPeak = { inFlight: Math.max(gatewayPeak.inFlight, gateway.admission.inFlight), queued: Math.max(gatewayPeak.queued, gateway.admission.queued) };
    }, 5);
    const refusedBefore = gateway.admission.refused;
    const startedAt = performance.now();
    const sends = burst.map(async (e, i) => {
      const due = startedAt + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const t = performance.now();
      lastSentAt = Math.max(lastSentAt, t);
      inFlight++;
      peak = Math.max(peak, inFlight);
      for (let attempt = 0; ; attempt++) {
        // No HTTP answer at all (a connection refused or reset): counted by its error code.
        const { status, retryAfter: after, failure } = await send(e).then(
          (r) => ({ ...r, failure: undefined as string | undefined }),
          (err: Error & { cause?: { code?: string } }) => ({ status: 0, retryAfter: null, failure: err.cause?.code ?? err.message }),
        );
        if (status === 202) break;
        // A 503 says Temporal did not answer within the gateway's deadline, not that the signal was
        // not taken: when it was, the run consumed the event and a resend finds nobody waiting (404).
        // The count of completed runs below is what says whether every event arrived.
        if (status === 404 && attempt > 0) {
          refusals['404 after a resend'] = (refusals['404 after a resend'] ?? 0) + 1;
          break;
        }
        if (attempt >= 50 || status === 404) throw new Error(`event ${e.sinkid} (${e.type}) was not accepted after 50 attempts (last answer ${status})`);
        resent++;
        const why = after ? `${status} busy (Retry-After)` : failure ? `no answer (${failure})` : String(status);
        refusals[why] = (refusals[why] ?? 0) + 1;
        await sleep(after ? Number(after) * 1000 * (1 + Math.random()) : 1000);
      }
      inFlight--;
      answers.push(performance.now() - t);
    });
    await Promise.all(sends);
    clearInterval(sampler);
    const answeredSeconds = (performance.now() - startedAt) / 1000;
    const consumedQuery = (kind: Kind) => `WorkflowType = '${kind.workflowType}' AND ExecutionStatus = 'Completed'`;
    const completed: Record<string, number> = {};
    let consumedSeconds = 0;
    for (let t = 0; ; t++) {
      for (const kind of KINDS) completed[kind.name] = (await client.workflow.count(consumedQuery(kind))).count;
      if (KINDS.every((kind) => completed[kind.name] >= waiting) || t >= 1200) break;
      await sleep(500);
    }
    consumedSeconds = (performance.now() - startedAt) / 1000;
    const running = Object.fromEntries(await Promise.all(KINDS.map(async (kind) => [kind.name, (await client.workflow.count(`WorkflowType = '${kind.workflowType}' AND ExecutionStatus = 'Running'`)).count])));
    out.burst = {
      events: burst.length,
      offeredPerSecond: rate,
      sendSeconds: round((lastSentAt - startedAt) / 1000, 2),
      acceptedPerSecond: round(burst.length / answeredSeconds),
      answerMs: stats(answers), // from the event's first send to its 202 (resends included)
      peakInFlight: peak,
      gatewayPeak,
      refusedBusy: gateway.admission.refused - refusedBefore,
      resent,
      refusals,
      completed,
      stillRunning: running,
      allConsumedAfterSeconds: round(consumedSeconds),
      lost: KINDS.reduce((a, kind) => a + waiting - completed[kind.name], 0),
    };
    out.rssAfterBurstMb = Math.round(process.memoryUsage().rss / 2 ** 20);
    load.push(loadavg()[0]);
  });
  out.loadAverage = load;
  console.log(JSON.stringify(out, null, 1));
  await gateway.close();
  await connection.close();
  await native.close();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
