/**
 * What the payload store costs: the same 0.8 run (ten sequential GETs, each answering 500 KB,
 * each answer reduced to its size) on two `swflow worker` processes of one dev server, one with a
 * directory payload store (threshold 256 KiB: every answer is stored, the history holds
 * references) and one without (every answer inline in the history). Runs alternate between
 * the two; prints p50/p90 latency per run, their ratio (store / no store), and the history
 * bytes per run of each.
 *
 *   npx tsx bench/large-data.ts [--runs 20] [--answer-kb 500] [--calls 10]
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectionOptions } from '../src/client/connection';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { dataConverterOptions } from '../src/codec';
import { startWorkflow } from '../src/client/start';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { freePort } from '../test/helpers/ports';
import { SERVING, SwflowProcess } from '../test/reliability/harness';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' }, 'answer-kb': { type: 'string', default: '500' }, calls: { type: 'string', default: '10' } } });
  const runs = Number(values.runs);
  const calls = Number(values.calls);
  const answer = JSON.stringify({ blob: 'x'.repeat(Number(values['answer-kb']) * 1000) });
  const server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === '/openapi.json') return res.end(JSON.stringify({ openapi: '3.0.3', info: { title: 'b', version: '1' }, servers: [{ url: base }], paths: { '/answer': { get: { operationId: 'answer', responses: { '200': { description: 'ok' } } } } } }));
    res.end(answer);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'swflow-largebench-'));
  mkdirSync(join(dir, 'defs'));
  writeFileSync(
    join(dir, 'defs', 'answers.sw.json'),
    JSON.stringify({
      id: 'answers', specVersion: '0.8', start: 'Calls', functions: [{ name: 'answer', operation: `${base}/openapi.json#answer` }],
      states: [{ name: 'Calls', type: 'operation', actionMode: 'sequential', actions: Array.from({ length: calls }, (_, i) => ({ functionRef: { refName: 'answer' }, actionDataFilter: { results: '${ .blob | length }', toStateData: `\${ .a${i} }` } })), end: true }],
    }),
  );
  const cli = await resolveTemporalCli();
  const dev = await startDevServer({ binary: cli!.path, port: await freePort(), uiPort: await freePort(), dbFile: join(dir, 'db.sqlite') });
  const store = join(dir, 'payloads');
  const workers = await Promise.all(
    [['stored', store], ['inline', 'none']].map(([queue, s]) => new SwflowProcess(['worker', '--definitions', join(dir, 'defs'), '--no-schedules', '--task-queue', queue], dev.address, { SWFLOW_PAYLOAD_STORE: s }).ready(SERVING, 120_000)),
  );
  // swflow's client options: the inline runs' histories (ten 500 KB answers) pass gRPC's default 4 MB.
  const connection = await Connection.connect(connectionOptions({ address: dev.address, namespace: 'default' }));
  const clients = { stored: new Client({ connection, ...dataConverterOptions({ ...process.env, SWFLOW_PAYLOAD_STORE: store }) }), inline: new Client({ connection, ...dataConverterOptions({ ...process.env, SWFLOW_PAYLOAD_STORE: 'none' }) }) };
  const times: Record<'stored' | 'inline', number[]> = { stored: [], inline: [] };
  const historyBytes: Record<'stored' | 'inline', number[]> = { stored: [], inline: [] };
  for (let i = -2; i < runs; i++) {
    for (const mode of (i % 2 ? ['stored', 'inline'] : ['inline', 'stored']) as ('stored' | 'inline')[]) {
      const t = performance.now();
      const h = await startWorkflow(clients[mode], { id: 'answers', taskQueue: mode, workflowId: `answers-${mode}-${i}-${Date.now()}` });
      await h.result();
      if (i < 0) continue; // warm-up
      times[mode].push(performance.now() - t);
      const hist = await connection.workflowService.getWorkflowExecutionHistory({ namespace: 'default', execution: { workflowId: h.workflowId } });
      historyBytes[mode].push(temporal.api.history.v1.History.encode(hist.history!).finish().length);
    }
  }
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  for (const mode of ['inline', 'stored'] as const) console.log(`${mode.padEnd(7)} p50 ${q(times[mode], 0.5).toFixed(0)} ms, p90 ${q(times[mode], 0.9).toFixed(0)} ms, history ${Math.round(historyBytes[mode][0] / 1000)} KB per run`);
  console.log(`ratio stored/inline: p50 ${(q(times.stored, 0.5) / q(times.inline, 0.5)).toFixed(2)}×, p90 ${(q(times.stored, 0.9) / q(times.inline, 0.9)).toFixed(2)}×; history ${(historyBytes.stored[0] / historyBytes.inline[0]).toFixed(3)}× (${runs} runs each, ${calls} calls of ${values['answer-kb']} KB)`);
  await Promise.all(workers.map((w) => w.stop('SIGTERM')));
  await connection.close();
  await dev.stop();
  server.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
