/**
 * CPU and wall time per HTTP request of the adapters' client (src/adapter-sdk/http-client.ts,
 * node:http with a keep-alive agent) against global `fetch` (undici), which it replaced: one
 * request at a time, keep-alive, to a local echo service in another process (so only the
 * client's work is counted), the answer read as text as adapters do. A GET and a POST (a
 * 120-byte JSON body); rounds interleave the clients, the first round is a warm-up.
 *
 *   npx tsx bench/http-client.ts [--requests 3000] [--rounds 30]
 *
 * Per request: this process's CPU time (user + system, process.cpuUsage) and wall time of a
 * round, divided by its requests; medians over the rounds, and the median of the rounds' own
 * ratios (each round's httpFetch against the fetch round beside it: on a shared machine the
 * load changes between rounds, less within one).
 */
import { performance } from 'node:perf_hooks';
import { httpFetch } from '../src/adapter-sdk/http-client';
import { freePort } from '../test/helpers/ports';
import { option, quantile, round, startEchoService, waitFor } from './support';

type Send = (url: string, init: { method: string; headers?: Record<string, string>; body?: string }) => Promise<Response>;

const CLIENTS: Record<string, Send> = {
  fetch: (url, init) => fetch(url, init),
  httpFetch: (url, init) => httpFetch(url, init),
};

const BODY = JSON.stringify({ order: 'A-1042', items: [{ sku: 'sku-1', count: 2 }, { sku: 'sku-2', count: 1 }], note: 'x'.repeat(40) });

async function main(): Promise<void> {
  const requests = Number(option('requests', '3000'));
  const rounds = Number(option('rounds', '30'));
  const perRound = Math.ceil(requests / rounds);
  const port = await freePort();
  const service = startEchoService(port);
  try {
    await waitFor(service, /ready/, 'echo service');
    const base = `http://127.0.0.1:${port}/echo`;
    const kinds = {
      GET: { method: 'GET', headers: { accept: 'application/json' } },
      POST: { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: BODY },
    };
    console.log(`${requests} requests per client and kind, ${rounds} rounds of ${perRound} (+1 warm-up), one at a time, keep-alive`);
    console.log('| request | client | CPU µs/request, median (min–max) | wall µs/request, median (min–max) |');
    console.log('|---|---|---|---|');
    for (const [kind, init] of Object.entries(kinds)) {
      const cpu: Record<string, number[]> = {};
      const wall: Record<string, number[]> = {};
      for (let r = 0; r <= rounds; r++) {
        // Alternate which client goes first.
        const order = r % 2 ? Object.keys(CLIENTS).reverse() : Object.keys(CLIENTS);
        for (const name of order) {
          const send = CLIENTS[name];
          const cpu0 = process.cpuUsage();
          const t0 = performance.now();
          for (let i = 0; i < perRound; i++) {
            const res = await send(`${base}/${i}`, init);
            await res.text();
            if (!res.ok) throw new Error(`${name} ${kind}: ${res.status}`);
          }
          const wallUs = ((performance.now() - t0) * 1000) / perRound;
          const used = process.cpuUsage(cpu0);
          if (r === 0) continue;
          (cpu[name] ??= []).push((used.user + used.system) / perRound);
          (wall[name] ??= []).push(wallUs);
        }
      }
      for (const name of Object.keys(CLIENTS)) {
        const show = (xs: number[]) => `${round(quantile(xs, 0.5), 0)} (${round(Math.min(...xs), 0)}–${round(Math.max(...xs), 0)})`;
        console.log(`| ${kind} | ${name} | ${show(cpu[name])} | ${show(wall[name])} |`);
      }
      const ratio = (m: Record<string, number[]>) => {
        const paired = m.httpFetch.map((x, i) => x / m.fetch[i]);
        return `${(quantile(m.httpFetch, 0.5) / quantile(m.fetch, 0.5)).toFixed(2)}× (rounds: ${quantile(paired, 0.5).toFixed(2)}×)`;
      };
      console.log(`| ${kind} | httpFetch / fetch (median of round ratios) | ${ratio(cpu)} | ${ratio(wall)} |`);
    }
  } finally {
    service.kill();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
