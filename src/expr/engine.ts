/**
 * The jq engine: jq 1.8.2 built by us to WebAssembly (wasm/jq: jq's C sources and a small C
 * API, compile once, run many times), one instance per worker thread / V8 context, called
 * synchronously.
 *
 * SANDBOX-SAFE: no node: imports, no fs, no process. This module runs both in Node and in the
 * Temporal workflow sandbox (webpack bundle, `vm` context):
 * - the binary comes base64-encoded in `jq-binary.ts` (workflow code cannot read files) and is
 *   decoded in pure JS (the sandbox has no `Buffer`);
 * - `new WebAssembly.Module` / `new WebAssembly.Instance` are synchronous: in the sandbox the engine
 *   is ready when this module has been evaluated, before any workflow code runs (in Node: at first use);
 * - the WASI imports are ours and deterministic (wasi.ts): the clock is `Date.now()` at call
 *   time (inside a workflow: workflow time, so `now` replays identically), random bytes come
 *   from a fixed-seed PRNG, the environment is empty, there is no filesystem (no jq modules),
 *   and the build has no time zone data (local time is UTC).
 *
 * Programs are compiled once and kept in an LRU cache of jq handles (evicted handles are
 * freed in jq). Per-call values must therefore travel in the input, never in the program text.
 * The last input stays parsed in jq: expressions evaluated one after the other over the same
 * data (identical JSON text) parse it once.
 *
 * Step budget: jq counts the interpreter steps of each run (one per bytecode instruction
 * dispatched or backtracked into), and a run given a budget stops when it needs more (`kind:
 * 'budget'`). Nothing in the program can catch that stop (try, `?`, `//`, label/break, limit,
 * first), and the count depends only on the program and the input (not on time, the program
 * cache, the parsed input kept or the instance), so a replayed workflow stops at the same
 * point. This is how workflow code bounds a runaway expression (`[range(1e9)]`, `def f: f; f`)
 * without a clock.
 *
 * Under a budget (only then) the count also charges what the run allocates, so that work done
 * inside one C builtin (`"x" * 1e9`, `join`, `tojson`, building or sorting big arrays) is
 * bounded too (wasm/jq/README.md, "A step budget"): each allocation costs 1 step per 1,024 bytes
 * (rounded up: at least 1), each rise of the run's peak of live jq values 1 step per 16 bytes,
 * and other blocks of 1 MiB or more (sort's entries, jq's own stack) 1 step per 16 bytes too,
 * so a budget of N steps lets a run hold at most 16·N bytes of new values and big buffers
 * (128 MB at 8 million). An allocation that would pass the budget is not made: jq stops there
 * with a trap, which this module reports as the same `kind: 'budget'` result (outputs and
 * `debug` output so far kept, `steps` = budget + 1), and the instance is replaced. Without a budget (0) nothing
 * is charged: `steps` is then the interpreter steps alone, as before charging existed. A
 * budgeted run's count is the same whatever the budget (as long as it suffices), so to learn
 * what a program needs, run it with {@link MAX_STEP_BUDGET}, not with 0.
 *
 * A trap (stack overflow: the stack is placed first in linear memory, so an overflow faults
 * instead of corrupting data; out of memory; a jq assertion) leaves the instance unusable: it
 * is discarded, the call fails with {@link JqEngineError} (but for the budget's own trap, a
 * result), and the next call instantiates a fresh one. An instance whose memory grew past
 * {@link MAX_RETAINED_MEMORY} is discarded after the call (wasm memory never shrinks).
 *
 * Sharing across workflows: with the default reusable V8 context, Temporal evaluates workflow
 * modules once PER WORKFLOW EXECUTION, unless listed in `bundlerOptions.preloadModules`. Add
 * this module (`src/expr/engine`) there so that the decode, the wasm compile and the program
 * cache are shared by all workflows of a worker thread. jq keeps no state between runs, so a
 * shared instance gives the same results as a fresh one.
 */
import { JQ_WASM_BASE64 } from './jq-binary';
import { JqEngineError } from './errors';
import { WasiExit, wasiImports } from './wasi';

export { JqEngineError };

/**
 * What one run of a program on one input gave. `stderr`: what `debug`/`stderr` printed.
 * `steps`: the steps the run took (0 when it did not start: compile error, bad input;
 * saturates at 2^31 - 1), the same for the same program and input every time: interpreter
 * steps, plus, under a budget only, what its allocations cost (see the header).
 */
export type JqResult =
  /** `outputs`: the JSON array (text) of all outputs, each as `jq -c` prints it. */
  | { kind: 'ok'; outputs: string; stderr: string; steps: number }
  /** `message`: jq's compile errors as the CLI prints them (ends with "jq: N compile error(s)"). */
  | { kind: 'compile-error'; message: string; stderr: string; steps: number }
  /** An uncaught error: jq's message, or the JSON of a non-string error value. Outputs before it are kept. */
  | { kind: 'error'; outputs: string; message: string; notAString: boolean; stderr: string; steps: number }
  /** `halt` / `halt_error`: the exit code and the text jq prints for it. */
  | { kind: 'halt'; outputs: string; exitCode: number; message: string; stderr: string; steps: number }
  /** The input is not one JSON text. */
  | { kind: 'bad-input'; message: string; stderr: string; steps: number }
  /**
   * The run needed more than `budget` steps and was stopped, in the interpreter or at an
   * allocation (`steps` is then `budget` + 1). Outputs and `debug`/`stderr` output before it are kept.
   */
  | { kind: 'budget'; outputs: string; budget: number; stderr: string; steps: number };

/** How many compiled programs an instance keeps (LRU); a typical expression's takes ~13 kB. */
export const PROGRAM_CACHE_SIZE = 1000;
/** Linear memory above which an instance is replaced after a call. */
export const MAX_RETAINED_MEMORY = 256 * 1024 * 1024;

// Minimal WebAssembly typings (the project compiles without the DOM lib).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
type WasmModule = object;
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: unknown };
};
declare const TextEncoder: new () => { encodeInto(s: string, into: Uint8Array): { read: number; written: number } };
declare const TextDecoder: new () => { decode(bytes: Uint8Array): string };

/** The exports of wasm/jq/api.c (plus the reactor's `_initialize`). */
interface JqExports {
  memory: WasmMemory;
  _initialize(): void;
  jqw_alloc(size: number): number;
  jqw_dealloc(ptr: number): void;
  jqw_compile(program: number): number;
  jqw_input(input: number, length: number): number;
  jqw_run(handle: number, limit: number, budget: number): number;
  jqw_steps(): number;
  jqw_free(handle: number): void;
  jqw_result(): number;
  jqw_result_len(): number;
  jqw_message(): number;
  jqw_message_len(): number;
  jqw_stderr(): number;
  jqw_stderr_len(): number;
  jqw_exit_code(): number;
  jqw_partial(): number;
}

// Statuses of jqw_input / jqw_run (api.c); 1 is an error with a string message.
const OK = 0;
const ERROR_NOT_STRING = 2;
const HALT = 3;
const BAD_INPUT = 4;
const BUDGET = 5;
/** The largest step budget (jqw_run takes an int32). */
export const MAX_STEP_BUDGET = 2 ** 31 - 1;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeBase64(s: string): Uint8Array {
  const lookup = new Uint8Array(128);
  for (let i = 0; i < B64.length; i++) lookup[B64.charCodeAt(i)] = i;
  let len = s.length;
  while (len > 0 && s[len - 1] === '=') len--;
  const out = new Uint8Array(Math.floor((len * 3) / 4));
  let o = 0;
  let i = 0;
  for (; i + 4 <= len; i += 4) {
    const n =
      (lookup[s.charCodeAt(i)] << 18) | (lookup[s.charCodeAt(i + 1)] << 12) | (lookup[s.charCodeAt(i + 2)] << 6) | lookup[s.charCodeAt(i + 3)];
    out[o++] = (n >> 16) & 255;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  const rest = len - i;
  if (rest >= 2) {
    const n = (lookup[s.charCodeAt(i)] << 18) | (lookup[s.charCodeAt(i + 1)] << 12) | (rest === 3 ? lookup[s.charCodeAt(i + 2)] << 6 : 0);
    out[o++] = (n >> 16) & 255;
    if (rest === 3) out[o++] = (n >> 8) & 255;
  }
  return o === out.length ? out : out.subarray(0, o);
}

/** One instance of jq.wasm with its program cache. */
class JqInstance {
  private readonly exports: JqExports;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private readonly programs = new Map<string, number | string>(); // program -> handle, or its compile errors
  private scratch = 0;
  private scratchSize = 0;
  /** The input jq holds parsed (several expressions over the same data parse it once). */
  private input: string | undefined;
  /** What jq itself wrote to fd 2 (e.g. "cannot allocate memory" before aborting). */
  wasiStderr = '';
  /** The instance trapped in a way reported as a result (the budget's stop at an allocation): replace it after the call. */
  spent = false;
  /** Where api.c keeps what a run produced so far (`partial`), read after a trap. */
  private readonly partialAt: number;

  constructor(module: WasmModule) {
    const imports = wasiImports(
      () => this.exports.memory.buffer,
      (text) => {
        if (this.wasiStderr.length < 4096) this.wasiStderr += text;
      },
    );
    this.exports = new WebAssembly.Instance(module, { wasi_snapshot_preview1: imports }).exports as JqExports;
    this.exports._initialize();
    this.partialAt = this.exports.jqw_partial();
  }

  /** Writes `text` + NUL into the scratch buffer; returns its UTF-8 length. */
  private write(text: string): number {
    const need = text.length * 3 + 1;
    if (need > this.scratchSize) {
      if (this.scratch) this.exports.jqw_dealloc(this.scratch);
      this.scratchSize = Math.max(need, 64 * 1024);
      this.scratch = this.exports.jqw_alloc(this.scratchSize);
      if (!this.scratch) throw new JqEngineError('jq ran out of memory');
    }
    const bytes = new Uint8Array(this.exports.memory.buffer, this.scratch, this.scratchSize);
    const { written } = this.encoder.encodeInto(text, bytes);
    bytes[written] = 0;
    return written;
  }

  private read(ptr: number, len: number): string {
    return len === 0 ? '' : this.decoder.decode(new Uint8Array(this.exports.memory.buffer, ptr, len));
  }

  private message(): string {
    return this.read(this.exports.jqw_message(), this.exports.jqw_message_len());
  }

  /** A handle for `program` (from the cache, or compiled now), or its compile errors. */
  private handle(program: string): number | string {
    const hit = this.programs.get(program);
    if (hit !== undefined) {
      this.programs.delete(program); // most recently used goes last
      this.programs.set(program, hit);
      return hit;
    }
    this.write(program);
    const handle = this.exports.jqw_compile(this.scratch);
    const entry = handle || this.message();
    this.programs.set(program, entry);
    if (this.programs.size > state.cacheSize) {
      const [oldest, old] = this.programs.entries().next().value as [string, number | string];
      this.programs.delete(oldest);
      if (typeof old === 'number') this.exports.jqw_free(old);
    }
    return entry;
  }

  /** jq's compile errors for `program`, or undefined. Not cached (validation compiles each expression once). */
  check(program: string): string | undefined {
    if (this.programs.has(program)) {
      const entry = this.programs.get(program)!;
      return typeof entry === 'string' ? entry : undefined;
    }
    this.write(program);
    const handle = this.exports.jqw_compile(this.scratch);
    if (!handle) return this.message();
    this.exports.jqw_free(handle);
    return undefined;
  }

  run(program: string, input: string, limit: number, budget: number): JqResult {
    const handle = this.handle(program);
    if (typeof handle === 'string') return { kind: 'compile-error', message: handle, stderr: '', steps: 0 };
    const e = this.exports;
    if (input !== this.input) {
      this.input = undefined;
      const length = this.write(input); // first: it may move the scratch buffer
      if (e.jqw_input(this.scratch, length) !== OK) return { kind: 'bad-input', message: this.message(), stderr: '', steps: 0 };
      this.input = input;
    }
    let status: number;
    try {
      status = e.jqw_run(handle, limit, budget);
    } catch (err) {
      const stopped = this.budgetStop(budget);
      if (!stopped) throw err;
      return stopped;
    }
    const steps = e.jqw_steps();
    const stderr = this.read(e.jqw_stderr(), e.jqw_stderr_len());
    if (status === BAD_INPUT) return { kind: 'bad-input', message: this.message(), stderr, steps };
    const outputs = this.read(e.jqw_result(), e.jqw_result_len());
    if (status === OK) return { kind: 'ok', outputs, stderr, steps };
    if (status === BUDGET) return { kind: 'budget', outputs, budget, stderr, steps };
    if (status === HALT) return { kind: 'halt', outputs, exitCode: e.jqw_exit_code(), message: this.message(), stderr, steps };
    return { kind: 'error', outputs, message: this.message(), notAString: status === ERROR_NOT_STRING, stderr, steps };
  }

  /**
   * After a trap in a run: the budget's stop if jq's allocator made it (an allocation past the
   * budget, which must not be made: api.c's `partial`, read from memory without calling into
   * the trapped instance), else undefined. The instance is then spent: it is replaced.
   */
  private budgetStop(budget: number): JqResult | undefined {
    if (budget <= 0) return undefined;
    const memory = this.exports.memory.buffer;
    const [overBudget, result, resultLen, err, errLen] = Array.from(new Uint32Array(memory, this.partialAt, 5));
    if (overBudget === 0 || new Uint32Array(memory, overBudget, 1)[0] !== 1) return undefined;
    this.spent = true;
    return { kind: 'budget', outputs: `${this.read(result, resultLen)}]`, budget, stderr: this.read(err, errLen), steps: budget + 1 };
  }

  get cachedPrograms(): number {
    return this.programs.size;
  }

  get memoryBytes(): number {
    return this.exports.memory.buffer.byteLength;
  }
}

// State lives in this closure only (never exported: a preloaded module's exports are frozen).
const state: { module?: WasmModule; instance?: JqInstance; error?: unknown; instances: number; runs: number; checks: number; cacheSize: number } = {
  instances: 0,
  runs: 0,
  checks: 0,
  cacheSize: PROGRAM_CACHE_SIZE,
};

function instance(): JqInstance {
  if (state.instance) return state.instance;
  if (state.error) throw new JqEngineError(`jq engine failed to load: ${String(state.error)}`);
  try {
    state.module ??= new WebAssembly.Module(decodeBase64(JQ_WASM_BASE64));
    state.instance = new JqInstance(state.module);
    state.instances++;
  } catch (err) {
    state.error = err;
    throw new JqEngineError(`jq engine failed to load: ${String(err)}`);
  }
  return state.instance;
}

/** Calls into the instance; a trap discards it (see the header). */
function guarded<T>(call: (jq: JqInstance) => T): T {
  const jq = instance();
  let result: T;
  try {
    result = call(jq);
  } catch (err) {
    state.instance = undefined;
    if (err instanceof JqEngineError) throw err;
    if (err instanceof WasiExit) throw new JqEngineError(err.message);
    const said = jq.wasiStderr.trim();
    const what = /cannot allocate memory/.test(said)
      ? 'jq ran out of memory'
      : /call stack|out of bounds/i.test(String(err))
        ? 'jq ran out of stack (too deeply nested data or recursion)'
        : 'jq failed';
    throw new JqEngineError(`${what}: ${String(err)}${said ? ` (${said})` : ''}`);
  }
  if (jq.spent || jq.memoryBytes > MAX_RETAINED_MEMORY) state.instance = undefined;
  return result;
}

/**
 * Makes sure the engine is loaded. Kept for callers of the former asynchronous loader:
 * loading is synchronous and happens when this module is evaluated.
 */
export function startEngine(): Promise<void> {
  try {
    instance();
    return Promise.resolve();
  } catch (err) {
    return Promise.reject(err);
  }
}

/** True when {@link runJq} can be called (always, unless the binary failed to load). */
export function isEngineReady(): boolean {
  try {
    instance();
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `program` (compiled once, then cached) on one JSON text. `limit` > 0 stops after that
 * many outputs. `budget` > 0 stops a run that needs more than that many steps, its
 * allocations charged (`kind: 'budget'`, see the header; at most {@link MAX_STEP_BUDGET}); 0:
 * no budget, nothing charged. Throws
 * {@link JqEngineError} only when the engine itself fails (or for an invalid budget).
 */
export function runJq(program: string, inputJson: string, limit = 0, budget = 0): JqResult {
  if (!Number.isInteger(budget) || budget < 0 || budget > MAX_STEP_BUDGET) {
    throw new JqEngineError(`invalid jq step budget ${budget}: an integer from 0 (none) to ${MAX_STEP_BUDGET}`);
  }
  state.runs++;
  return guarded((jq) => jq.run(program, inputJson, limit, budget));
}

/** jq's compile errors for `program` (as the CLI prints them), or undefined if it compiles. Never runs it. */
export function checkJq(program: string): string | undefined {
  state.checks++;
  return guarded((jq) => jq.check(program));
}

/** A run as the `jq -c` command line reports it: the former engine's view, see {@link runJqCli}. */
export interface JqCliRun {
  /** 0 when jq succeeded (also `halt`), 3 for compile errors, 5 for errors, else `halt_error`'s code. */
  exitCode: number;
  /** The JSON array (text) of the outputs. */
  outputs: string;
  /** What jq prints on stderr: its error messages, `debug`/`stderr` output, `halt_error`'s text. */
  stderr: string;
  /**
   * The interpreter steps the run took (see {@link JqResult}); always set by {@link runJqCli}.
   * Optional in this interface because other engines behind it (jq-wasm in tests, src/expr's
   * record of a trapped run) count none.
   */
  steps?: number;
  /** The run was stopped by its step budget: `exitCode` 5, `stderr` ends with "jq: error: the expression used more than N steps". */
  budgetExceeded?: true;
}

/**
 * {@link runJq} seen as the `jq -c` command line sees it (exit status and stderr text). src/expr
 * reads errors from that text, exactly as it did with the former CLI-based engine (jq-wasm),
 * so messages stay identical for recorded histories. `budget`: as for {@link runJq}; a run it
 * stopped exits with 5 and `budgetExceeded: true` (a message the jq command line never prints).
 */
export function runJqCli(program: string, inputJson: string, budget = 0): JqCliRun & { steps: number } {
  const r = runJq(program, inputJson, 0, budget);
  const steps = r.steps;
  switch (r.kind) {
    case 'ok':
      return { exitCode: 0, outputs: r.outputs, stderr: r.stderr, steps };
    case 'compile-error':
      return { exitCode: 3, outputs: '[]', stderr: r.message, steps };
    case 'error': {
      const at = r.notAString ? 'jq: error (at <stdin>:0) (not a string): ' : 'jq: error (at <stdin>:0): ';
      return { exitCode: 5, outputs: r.outputs, stderr: `${r.stderr}${at}${r.message}\n`, steps };
    }
    case 'halt':
      return { exitCode: r.exitCode, outputs: r.outputs, stderr: r.stderr + r.message, steps };
    case 'bad-input':
      return { exitCode: 2, outputs: '[]', stderr: `${r.stderr}jq: parse error: ${r.message}\n`, steps };
    case 'budget':
      return { exitCode: 5, outputs: r.outputs, stderr: `${r.stderr}jq: error: the expression used more than ${r.budget} steps\n`, steps, budgetExceeded: true };
  }
}

/** @internal A smaller program cache, for tests of eviction (takes effect at the next compile). */
export function setProgramCacheSize(size: number): void {
  state.cacheSize = size;
}

/** How many jq runs this context made (tests and benchmarks use it to count batching). */
export function jqRunCount(): number {
  return state.runs;
}

/** How many programs {@link checkJq} compiled in this context (tests count validation's jq compiles with it). */
export function jqCheckCount(): number {
  return state.checks;
}

/** The engine's state in this context: instances created so far, the current one's cache and memory. */
export function jqEngineStats(): { instances: number; runs: number; cachedPrograms: number; memoryBytes: number } {
  const jq = state.instance;
  return { instances: state.instances, runs: state.runs, cachedPrograms: jq?.cachedPrograms ?? 0, memoryBytes: jq?.memoryBytes ?? 0 };
}

// Load now (synchronously) in the workflow sandbox (no `process` there): a preloaded module does it
// once per worker thread, before any workflow code runs. In Node, on first use: a process that only
// imports src/expr (its types, 1.0 durations, the adapters' secret arguments) makes no jq instance
// (~19 MB resident for the process's life: bench/README.md, "No jq instance in the worker's main thread").
if (typeof process === 'undefined') isEngineReady();
