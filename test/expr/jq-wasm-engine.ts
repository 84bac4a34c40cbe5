/**
 * The former engine, jq-wasm (jq 1.8.2 compiled by Emscripten, one `jq -c` command-line run
 * per call), behind src/expr's engine interface: the replay test and bench/expr.ts compare it
 * with ours through the same program assembly (`withJqEngine`). Node only.
 */
import { loadJq } from 'jq-wasm';
import type { JqEngine } from '../../src/expr';

/** Loads jq-wasm (asynchronously: its loader is) and returns it as a {@link JqEngine}. */
export async function loadJqWasmEngine(): Promise<JqEngine> {
  const jq = await loadJq();
  return (program, inputJson) => {
    const run = jq.raw(inputJson, program, ['-c']);
    // stdout is one compact JSON text per line (jq-wasm trims the last newline).
    const lines = run.stdout === '' ? [] : run.stdout.split('\n');
    return { exitCode: run.exitCode, outputs: `[${lines.join(',')}]`, stderr: run.stderr };
  };
}
