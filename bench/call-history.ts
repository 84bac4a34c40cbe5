/**
 * History bytes per function call, before and after `v1-call-headers` + `minimal-secret-context`.
 * One dev server, a local HTTP service, the built-in adapter worker (`sw.http`) and an SDK adapter
 * (`bench.get`, for 0.8 custom calls); two interpreter workers: one with every feature ("after"),
 * one without those two ("before": it sends what runs recorded before them send).
 *
 * Four definitions, each with N sequential calls and with 1 call: a 1.0 document of `call: http`
 * tasks whose header reads `$secrets`, the same without secrets, a 0.8 definition of custom
 * function actions with a `$SECRETS` argument, the same without. Every run gets the same workflow
 * input (an order of 20 items, ~2 kB). Reports, as protobuf bytes (what the server stores):
 * per call = (history of N calls − history of 1 call) / (N − 1), and the mean
 * ActivityTaskScheduled event (input + `swflow-call` header).
 *
 *   npx tsx bench/call-history.ts [--calls 10]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { createAdapterWorker, defineAdapter } from '../src/adapter-sdk';
import type { Definition, Json } from '../src/common/model';
import { loadAnyDefinition } from '../src/dsl';
import { createLocalEnv } from '../src/platform/dev-server';
import { createBuiltinAdapterWorker } from '../src/worker/adapter-worker';
import { bundleInterpreter, createInterpreterWorker } from '../src/worker/interpreter-worker';
import { FEATURE_MINIMAL_SECRET_CONTEXT, FEATURE_V1_CALL_HEADERS, INTERPRETER_FEATURES } from '../src/common/features';
import { option, round } from './support';

const BEFORE_QUEUE = 'bench-before-call-format';
const SDK_QUEUE = 'bench-call-history';
const SECRETS = { apiToken: 'bench-token-0123456789' };

const INPUT: Json = {
  orderId: 'o-1001',
  customer: { id: 'c-42', name: 'Ada Lovelace', email: 'ada@example.com', address: { street: '12 Analytical Row', city: 'London', zip: 'N1 9GU' } },
  items: Array.from({ length: 20 }, (_, i) => ({ sku: `SKU-${1000 + i}`, title: `Item number ${i}`, qty: 1 + (i % 3), price: 9.99 + i })),
};

function v1Doc(name: string, calls: number, base: string, secrets: boolean): unknown {
  const headers = secrets ? { authorization: '${ "Bearer " + $secrets.apiToken }' } : { authorization: 'Bearer public' };
  return {
    document: { dsl: '1.0.3', namespace: 'bench', name, version: '0.1.0' },
    ...(secrets ? { use: { secrets: ['apiToken'] } } : {}),
    do: Array.from({ length: calls }, (_, i) => ({ [`call${i}`]: { call: 'http', with: { method: 'get', endpoint: `${base}/items/${i}`, headers }, export: { as: '$context' }, output: { as: '$input' } } })),
  };
}

function v08Def(id: string, calls: number, secrets: boolean): unknown {
  const key = secrets ? '${ "Bearer " + $SECRETS.apiToken }' : 'Bearer public';
  return {
    id,
    version: '1.0',
    specVersion: '0.8',
    start: 'Calls',
    ...(secrets ? { secrets: ['apiToken'] } : {}),
    functions: [{ name: 'get', type: 'custom', operation: 'bench.get', metadata: { worker: SDK_QUEUE } }],
    states: [
      {
        name: 'Calls',
        type: 'operation',
        actions: Array.from({ length: calls }, (_, i) => ({ name: `call${i}`, functionRef: { refName: 'get', arguments: { path: `/items/${i}`, key } }, actionDataFilter: { useResults: false } })),
        end: true,
      },
    ],
  };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const calls = Number(option('calls', '10'));
  const service = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true }));
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  const env = await createLocalEnv();
  const connection = env.nativeConnection;
  const bundle = await bundleInterpreter();
  const workers = [
    await createInterpreterWorker({ connection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [], workflowBundle: bundle }),
    await createInterpreterWorker({ connection, taskQueue: BEFORE_QUEUE, definitions: [], workflowBundle: bundle, features: INTERPRETER_FEATURES.filter((f) => f !== FEATURE_V1_CALL_HEADERS && f !== FEATURE_MINIMAL_SECRET_CONTEXT) }),
    await createBuiltinAdapterWorker({ connection, secrets: SECRETS }),
    await createAdapterWorker({
      connection,
      taskQueue: SDK_QUEUE,
      secrets: SECRETS,
      adapters: [defineAdapter({ name: 'bench', activities: { get: async (args: { path: string }, ctx) => (await ctx.http({ method: 'GET', url: `${base}${args.path}` })).body } })],
    }),
  ];
  const running = Promise.all(workers.map((w) => w.run()));

  const measure = async (definition: Definition, taskQueue: string) => {
    const workflowId = `history-${randomUUID()}`;
    await env.client.workflow.execute(definition.id, { taskQueue, workflowId, args: [INPUT, { definition }] });
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).map((e) => temporal.api.history.v1.HistoryEvent.encode(e).finish().length);
    return { total: temporal.api.history.v1.History.encode(history).finish().length, scheduled };
  };
  const cases = [
    { name: '1.0, $secrets in a header', make: (n: number, id: string) => v1Doc(id, n, base, true) },
    { name: '1.0, no secrets', make: (n: number, id: string) => v1Doc(id, n, base, false) },
    { name: '0.8, $SECRETS argument', make: (n: number, id: string) => v08Def(id, n, true) },
    { name: '0.8, no secrets', make: (n: number, id: string) => v08Def(id, n, false) },
  ];
  const rows: Record<string, Json>[] = [];
  for (const [i, c] of cases.entries()) {
    const many = await loadAnyDefinition(c.make(calls, `calls-${i}-n`) as never);
    const one = await loadAnyDefinition(c.make(1, `calls-${i}-1`) as never);
    const row: Record<string, Json> = { case: c.name };
    for (const [side, queue] of [['before', BEFORE_QUEUE], ['after', INTERPRETER_TASK_QUEUE]] as const) {
      const m = await measure(many.definition!, queue);
      const o = await measure(one.definition!, queue);
      row[`${side}: history bytes, ${calls} calls`] = m.total;
      row[`${side}: per call`] = round((m.total - o.total) / (calls - 1));
      row[`${side}: scheduled event, mean`] = round(m.scheduled.reduce((a, b) => a + b, 0) / m.scheduled.length);
    }
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  for (const w of workers) w.shutdown();
  await running;
  await env.teardown();
  service.close();
  console.log(JSON.stringify({ calls, inputBytes: JSON.stringify(INPUT).length, rows }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
