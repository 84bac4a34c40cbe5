/**
 * Expression cost benchmark: `npx tsx bench/expr.ts` (add `--no-sandbox` to skip part 2).
 *
 * Part 1 — per evaluation, median and p99 in µs, in Node with the SAME engine the sandbox
 * uses (src/expr: same jq-wasm instance type, same synchronous instantiation, same program
 * assembly and fast path). The workflow sandbox has no usable clock (Date is workflow time,
 * no `performance`), so per-call percentiles can only be taken here.
 * Part 2 — cross-check inside the real sandbox: a workflow evaluates one case N times in a
 * single workflow task on a real worker + dev server; (task time with N) - (with 0), / N,
 * gives the mean cost per evaluation inside the sandbox.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { evaluateExpression, evaluateTemplate, initExpressions } from '../src/expr';
import { jqRunCount, runJq } from '../src/expr/engine';
import { CASES } from './expr-cases';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function part1(): Promise<void> {
  await initExpressions();
  console.log('Part 1: per evaluation (Node, same engine as the sandbox)\n');
  console.log('| case | jq runs | median µs | p99 µs |');
  console.log('|---|---|---|---|');
  const floor: number[] = [];
  for (let i = 0; i < 2_000; i++) {
    const t = process.hrtime.bigint();
    runJq('null', '.');
    floor.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  floor.sort((a, b) => a - b);
  console.log(`| reference: one bare jq-wasm run of \`.\` on null (the jq floor) | 1 | ${percentile(floor, 50).toFixed(2)} | ${percentile(floor, 99).toFixed(2)} |`);
  for (const c of CASES) {
    const fast = c.name.endsWith('-fast');
    const iterations = fast ? 50_000 : 2_000;
    for (let i = 0; i < Math.min(500, iterations); i++) c.run(evaluateExpression, evaluateTemplate); // warm up
    const runsBefore = jqRunCount();
    c.run(evaluateExpression, evaluateTemplate);
    const runs = jqRunCount() - runsBefore;
    const times: number[] = new Array(iterations);
    for (let i = 0; i < iterations; i++) {
      const t = process.hrtime.bigint();
      c.run(evaluateExpression, evaluateTemplate);
      times[i] = Number(process.hrtime.bigint() - t) / 1000;
    }
    times.sort((a, b) => a - b);
    console.log(`| ${c.what} | ${runs} | ${percentile(times, 50).toFixed(2)} | ${percentile(times, 99).toFixed(2)} |`);
  }
}

async function part2(): Promise<void> {
  const { Worker, bundleWorkflowCode, DefaultLogger, Runtime } = await import('@temporalio/worker');
  const { startDevEnv } = await import('../test/helpers/temporal');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  console.log('\nPart 2: inside the real workflow sandbox (mean per evaluation over one workflow task)\n');
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
      const time = async (kind: string, n: number): Promise<number> => {
        let best = Infinity;
        for (let r = 0; r < 5; r++) {
          const t = process.hrtime.bigint();
          await env.client.workflow.execute('exprBenchWorkflow', { taskQueue, workflowId: randomUUID(), args: [kind, n] });
          best = Math.min(best, Number(process.hrtime.bigint() - t) / 1000);
        }
        return best;
      };
      await time('path-fast', 10); // warm up (engine load, bundle)
      console.log('| case | N | µs per evaluation (mean) |');
      console.log('|---|---|---|');
      for (const c of CASES) {
        const n = c.name.endsWith('-fast') ? 20_000 : 300;
        const base = await time(c.name, 0);
        const withN = await time(c.name, n);
        console.log(`| ${c.what} | ${n} | ${((withN - base) / n).toFixed(2)} |`);
      }
    });
  } finally {
    await env.teardown();
  }
}

void (async () => {
  await part1();
  if (!process.argv.includes('--no-sandbox')) await part2();
})();
