/**
 * Loaded into a worker process by bench/worker-mixed.ts (`--require`, with `--probe`): every
 * BENCH_PROBE_MS (default 500) one line `[probe] {...}` on stderr with the main thread's
 * process.memoryUsage() in MB and the process's VmRSS / VmHWM, so a peak can be placed
 * (which heap, when). Node loads it into every thread (worker threads inherit `--require`): `thread`
 * 0 is the main thread, the others Temporal's workflow thread(s). Bench-only: nothing of swflow's reads it.
 */
const { readFileSync } = require('node:fs');
const mb = (x) => Math.round(x / 1048576);
const status = (f) => Number((new RegExp(`${f}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8')) ?? [0, 0])[1]) >> 10;
setInterval(() => {
  const m = process.memoryUsage();
  process.stderr.write(`[probe] ${JSON.stringify({ thread: require('node:worker_threads').threadId, t: Date.now(), rss: status('VmRSS'), hwm: status('VmHWM'), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) })}\n`);
}, Number(process.env.BENCH_PROBE_MS ?? 500)).unref();
