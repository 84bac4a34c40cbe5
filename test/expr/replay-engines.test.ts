/**
 * The engine switch cannot change what a recorded run computes: every jq program the
 * interpreter runs while replaying test/fixtures/histories is captured (the bundle's
 * src/expr/engine is swapped for recording-engine.ts), then run by the former engine (jq-wasm)
 * and by ours: the same exit status, byte-identical outputs, the same error message.
 *
 * (Replay itself only compares commands, not activity inputs: this test checks the values.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { installQuietRuntime } from '../../src/testing/env';
import { historyFromFixture } from '../../src/testing/history';
import { WORKFLOWS_PATH, WORKFLOW_INTERCEPTORS_PATH } from '../../src/worker/interpreter-worker';
import { jqErrorMessage, type JqEngine } from '../../src/expr';
import { runJqCli } from '../../src/expr/engine';
import { loadJqWasmEngine } from './jq-wasm-engine';
import type { JqTraceSinks } from './recording-engine';

const HISTORIES = resolve(__dirname, '..', 'fixtures', 'histories');
const ENGINE = resolve(__dirname, '..', '..', 'src', 'expr', 'engine');
const RECORDER = resolve(__dirname, 'recording-engine.ts');

/** What src/expr makes of a run: the outputs, or the error message it reports. */
function outcome(engine: JqEngine, program: string, input: string): string {
  const run = engine(program, input);
  if (run.exitCode === 0) return `ok ${run.outputs}`;
  return `exit ${run.exitCode}: ${JSON.stringify(jqErrorMessage(run.stderr))}`;
}

test('every jq run of the recorded histories gives the same result with jq-wasm and with our engine', { timeout: 300_000 }, async (t) => {
  installQuietRuntime();
  const files = readdirSync(HISTORIES).filter((f) => f.endsWith('.json')).sort();
  const bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [WORKFLOW_INTERCEPTORS_PATH],
    preloadModules: [RECORDER],
    // `./engine` from src/expr resolves to this absolute request: send it to the recorder.
    webpackConfigHook: (config) => ({ ...config, resolve: { ...config.resolve, alias: { ...config.resolve?.alias, [`${ENGINE}$`]: RECORDER } } }),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m) },
  });
  const runs = new Map<string, { program: string; input: string }>();
  const sinks = {
    jqTrace: {
      record: {
        // Runs under a step budget (expression-work) are of runs recorded with our engine only: jq-wasm never ran them.
        fn: (_info: unknown, program: string, input: string, budget = 0) => void (budget === 0 && runs.set(`${program}\u0000${input}`, { program, input })),
        callDuringReplay: true,
      },
    },
  };
  const histories = files.map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: historyFromFixture(readFileSync(join(HISTORIES, f), 'utf8')) }));
  const failures: string[] = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle, sinks: sinks as never }, histories)) {
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
  }
  assert.deepEqual(failures, [], 'the recorded histories replay');
  assert.ok(runs.size > 20, `only ${runs.size} jq runs captured: the recorder is not in the bundle`);

  const jqWasm = await loadJqWasmEngine();
  const realNow = Date.now;
  Date.now = () => 1_700_000_000_123; // `now` must read the same clock in both engines
  const differences: string[] = [];
  try {
    for (const { program, input } of runs.values()) {
      const before = outcome(jqWasm, program, input);
      const after = outcome(runJqCli, program, input);
      if (before !== after) differences.push(`${program}\n  input ${input}\n  jq-wasm: ${before}\n  ours:    ${after}`);
    }
  } finally {
    Date.now = realNow;
  }
  if (process.env.JQ_TRACE) for (const r of runs.values()) console.log(outcome(runJqCli, r.program, r.input).slice(0, 60), '<=', r.program.split('$__swd | ')[1]?.replace(/\n/g, ' ').slice(0, 100));
  t.diagnostic(`${runs.size} distinct jq runs from ${files.length} histories compared`);
  assert.deepEqual(differences, []);
});

// Checks the checker: a recorded history's programs include ones that fail, and failures compare too.
test('outcome() tells results and errors apart', async () => {
  const jqWasm = await loadJqWasmEngine();
  assert.equal(outcome(jqWasm, '.a', '{"a":1}'), outcome(runJqCli, '.a', '{"a":1}'));
  assert.equal(outcome(jqWasm, '.a.b', '{"a":1}'), outcome(runJqCli, '.a.b', '{"a":1}'));
  assert.notEqual(outcome(runJqCli, '.a', '{"a":1}'), outcome(runJqCli, '.a', '{"a":2}'));
  assert.match(outcome(runJqCli, '.a.b', '{"a":1}'), /^exit 5: .*Cannot index number/);
});
