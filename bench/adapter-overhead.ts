/**
 * Per-call overhead of the adapter SDK's worker against a bare Temporal activity doing the same
 * HTTP call. One definition (10 sequential calls of a `custom` function, `bench.get`) run by the
 * interpreter on the dev server; only what serves `bench.get` on its queue changes:
 *
 * - bare:    a plain activity, `fetch(url)` and `res.json()` (no interceptor, no context);
 * - adapter: a defineAdapter activity served by createAdapterWorker: the call put back together
 *            from its header, a context, `ctx.http` (auth, error codes, answer reading),
 *            redaction of the result;
 * - rest:    the built-in REST adapter (OpenAPI document, parameters) for the same GET.
 *
 * Runs interleave the variants; per call = run latency / 10. Prints medians and the ratios.
 *
 *   npx tsx bench/adapter-overhead.ts [--runs 30]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { createAdapterWorker, defineAdapter } from '../src/adapter-sdk';
import { builtinAdapters } from '../src/worker/adapter-worker';
import { loadDefinition } from '../src/dsl';
import { createLocalEnv } from '../src/platform/dev-server';
import { bundleInterpreter, createInterpreterWorker } from '../src/worker/interpreter-worker';

const CALLS = 10;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30;
  const service = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url === '/openapi.json' ? JSON.stringify(openapi(base)) : JSON.stringify({ ok: true, n: 1 }));
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  const env = await createLocalEnv();
  const connection = env.nativeConnection;

  const bare = await Worker.create({
    connection,
    taskQueue: 'bench-bare',
    activities: { 'bench.get': async (args: { url: string }) => (await fetch(args.url)).json() },
  });
  const sdk = await createAdapterWorker({
    connection,
    taskQueue: 'bench-adapter',
    adapters: [defineAdapter({ name: 'bench', activities: { get: async (args: { url: string }, ctx) => (await ctx.http({ method: 'GET', url: args.url })).body } })],
  });
  const rest = await createAdapterWorker({ connection, taskQueue: 'bench-rest', adapters: builtinAdapters() });
  const interpreter = await createInterpreterWorker({ connection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [], workflowBundle: await bundleInterpreter() });

  const variants = {
    bare: await definition('bench-bare', { type: 'custom', operation: 'bench.get' }, base),
    adapter: await definition('bench-adapter', { type: 'custom', operation: 'bench.get' }, base),
    rest: await definition('bench-rest', { type: 'rest', operation: `${base}/openapi.json#get` }, base),
  };
  const perCall: Record<string, number[]> = { bare: [], adapter: [], rest: [] };
  const once = async (name: keyof typeof variants) => {
    const t = performance.now();
    await env.client.workflow.execute(variants[name].id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `${name}-${randomUUID()}`, args: [{}, { definition: variants[name] }] });
    return (performance.now() - t) / CALLS;
  };
  const workers = [bare, sdk, rest, interpreter];
  const running = Promise.all(workers.map((w) => w.run()));
  for (const name of Object.keys(variants) as (keyof typeof variants)[]) await once(name); // warm-up
  for (let r = 0; r < runs; r++) for (const name of Object.keys(variants) as (keyof typeof variants)[]) perCall[name].push(await once(name));
  for (const w of workers) w.shutdown();
  await running;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const m = Object.fromEntries(Object.entries(perCall).map(([k, v]) => [k, +median(v).toFixed(2)]));
  console.log(JSON.stringify({ runs, callsPerRun: CALLS, msPerCallMedian: m, adapterVsBare: +(m.adapter / m.bare).toFixed(3), restVsBare: +(m.rest / m.bare).toFixed(3) }));
  await env.teardown();
  service.close();
}

function openapi(serverUrl: string) {
  return { openapi: '3.0.3', info: { title: 'bench', version: '1' }, servers: [{ url: serverUrl }], paths: { '/data': { get: { operationId: 'get' } } } };
}

async function definition(queue: string, fn: { type: string; operation: string }, base: string) {
  const args = fn.type === 'rest' ? {} : { url: `${base}/data` };
  const { definition: def } = await loadDefinition({
    id: queue,
    specVersion: '0.8',
    start: 'Calls',
    functions: [{ name: 'get', ...fn, metadata: { worker: queue } }],
    states: [{ name: 'Calls', type: 'operation', actions: Array.from({ length: CALLS }, () => ({ functionRef: { refName: 'get', arguments: args }, actionDataFilter: { useResults: false } })), end: true }],
  } as never);
  if (!def) throw new Error('bench definition invalid');
  return def;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
