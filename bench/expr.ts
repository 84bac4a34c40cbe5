/**
 * Expression cost benchmark: `npx tsx bench/expr.ts` (add `--no-sandbox` to skip part 3).
 *
 * Part 1 — per evaluation, median and p99 in µs, in Node, through src/expr (same program
 * assembly, fast path and caches as in the workflow), with our engine (jq 1.8.2 built to
 * WebAssembly by wasm/jq, programs compiled once; the last input stays parsed, so a call on
 * the same data as the call before skips jq's parse: shown apart from calls on new data) and,
 * in the same run, the former one (jq-wasm: one `jq` command-line run per evaluation, swapped
 * in with `withJqEngine`). Also the first evaluation of an expression never seen before (our
 * analysis + a jq compile + a run on new data).
 * The sandbox has no usable clock (Date is workflow time, no `performance`), so per-call
 * percentiles can only be taken here.
 * Part 2 — loading: reading the embedded binary, decoding + compiling + instantiating it, and
 * the first run, each in a fresh process (V8 shares compiled wasm within a process).
 * Part 3 — cross-check inside the real sandbox: a workflow evaluates one case N times in a
 * single workflow task on a real worker + dev server; (task time with N) - (with 0), / N,
 * gives the mean cost per evaluation inside the sandbox (our engine).
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { evaluateExpression, evaluateTemplate, toJqJson, withJqEngine, type JqEngine } from '../src/expr';
import { jqRunCount, runJqCli } from '../src/expr/engine';
import { loadJqWasmEngine } from '../test/expr/jq-wasm-engine';
import { CASES, data, scope, small, type Case } from './expr-cases';

const ROOT = path.join(__dirname, '..');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Median and p99 (µs) of `iterations` timed calls of `f(i)`. */
function time(iterations: number, f: (i: number) => unknown): { median: number; p99: number } {
  const times: number[] = new Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const t = process.hrtime.bigint();
    f(i);
    times[i] = Number(process.hrtime.bigint() - t) / 1000;
  }
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p99: percentile(times, 99) };
}

const fmt = (t: { median: number; p99: number }) => `${t.median.toFixed(1)} | ${t.p99.toFixed(1)}`;
/** A case's description as a Markdown table cell. */
const cell = (c: Case) => c.what.replace(/\|/g, '\\|');

/** Bytes of the JSON input jq gets for a case (`[data, variables]`). */
function inputBytes(c: Case): number {
  const doc = c.name.startsWith('small') ? small : data;
  return Buffer.byteLength(toJqJson([doc, { CONST: scope.constants ?? {} }]));
}

function part1(jqWasm: JqEngine): void {
  console.log('Part 1: per evaluation, µs (Node, through src/expr)\n');
  console.log('Ours: on the same data as the call before (parse reused) / on new data each call; jq-wasm (new data each call); ours, first evaluation of a new expression.\n');
  console.log('| case | jq input bytes | jq runs | same data: median | p99 | new data: median | p99 | jq-wasm: median | p99 | first: median | p99 |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const floor = time(5_000, (i) => runJqCli('.', String(i)));
  const floorOld = time(300, (i) => jqWasm('.', String(i)));
  console.log(`| reference: one bare jq run of \`.\` on a number | 1–4 | 1 | | | ${fmt(floor)} | ${fmt(floorOld)} | | |`);
  let n = 0;
  for (const c of CASES) {
    const fast = c.name.endsWith('-fast');
    const run = () => c.run(evaluateExpression, evaluateTemplate);
    for (let i = 0; i < 500; i++) run(); // warm up
    const before = jqRunCount();
    run();
    const runs = jqRunCount() - before;
    const same = time(fast ? 50_000 : 5_000, run);
    if (fast) {
      console.log(`| ${cell(c)} | – | 0 | ${fmt(same)} | | | (same code, no jq run) | | | |`);
      continue;
    }
    // A new document each call: jq parses its input again (as when state data changed).
    const changed = time(5_000, () => c.run(evaluateExpression, evaluateTemplate, { change: n++ }));
    const old = withJqEngine(jqWasm, () => {
      for (let i = 0; i < 20; i++) run();
      return time(c.name.includes('one-by-one') ? 100 : 300, () => c.run(evaluateExpression, evaluateTemplate, { change: n++ }));
    });
    const first = time(300, () => c.run(evaluateExpression, evaluateTemplate, { variant: n, change: n++ }));
    console.log(`| ${cell(c)} | ${inputBytes(c)} | ${runs} | ${fmt(same)} | ${fmt(changed)} | ${fmt(old)} | ${fmt(first)} |`);
  }
}

function part2(): void {
  console.log('\nPart 2: loading the engine, ms (each in a fresh process; median of 5)\n');
  const script = `
    const ms = () => Number(process.hrtime.bigint()) / 1e6;
    const t0 = ms(); require(${JSON.stringify(path.join(ROOT, 'src/expr/jq-binary.ts'))}); const t1 = ms();
    const engine = require(${JSON.stringify(path.join(ROOT, 'src/expr/engine.ts'))}); const t2 = ms();
    engine.runJq('.a', '{"a":1}'); const t3 = ms();
    console.log(JSON.stringify([t1 - t0, t2 - t1, t3 - t2]));`;
  const samples: number[][] = [];
  for (let i = 0; i < 6; i++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    if (i > 0) samples.push(JSON.parse(out.trim().split('\n').pop()!) as number[]); // the first warms tsx's cache
  }
  const median = (k: number) => samples.map((s) => s[k]).sort((a, b) => a - b)[Math.floor(samples.length / 2)].toFixed(1);
  console.log('| step | ms |');
  console.log('|---|---|');
  console.log(`| read the embedded binary (src/expr/jq-binary.ts, base64) | ${median(0)} |`);
  console.log(`| decode + compile + instantiate (evaluating src/expr/engine.ts) | ${median(1)} |`);
  console.log(`| first run (first jq compile, cold code) | ${median(2)} |`);
}

async function part3(): Promise<void> {
  const { Worker, bundleWorkflowCode, DefaultLogger, Runtime } = await import('@temporalio/worker');
  const { startDevEnv } = await import('../test/helpers/temporal');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  console.log('\nPart 3: inside the real workflow sandbox (mean per evaluation over one workflow task)\n');
  const env = await startDevEnv();
  try {
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, 'expr-workflow.ts'),
      preloadModules: [path.join(__dirname, '../src/expr/engine.ts')],
      logger: new DefaultLogger('WARN'),
    });
    const taskQueue = `bench-expr-${randomUUID()}`;
    const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle });
    await worker.runUntil(async () => {
      const best = async (kind: string, n: number): Promise<number> => {
        let min = Infinity;
        for (let r = 0; r < 5; r++) {
          const t = process.hrtime.bigint();
          await env.client.workflow.execute('exprBenchWorkflow', { taskQueue, workflowId: randomUUID(), args: [kind, n] });
          min = Math.min(min, Number(process.hrtime.bigint() - t) / 1000);
        }
        return min;
      };
      await best('path-fast', 10); // warm up (engine load, bundle)
      console.log('| case | N | µs per evaluation (mean) |');
      console.log('|---|---|---|');
      for (const c of CASES) {
        const n = c.name.endsWith('-fast') ? 20_000 : 2_000;
        const base = await best(c.name, 0);
        const withN = await best(c.name, n);
        console.log(`| ${cell(c)} | ${n} | ${((withN - base) / n).toFixed(2)} |`);
      }
    });
  } finally {
    await env.teardown();
  }
}

void (async () => {
  part1(await loadJqWasmEngine());
  part2();
  if (!process.argv.includes('--no-sandbox')) await part3();
})();
