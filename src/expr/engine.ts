/**
 * The jq engine: jq 1.8 compiled to WebAssembly (jq-wasm 3.x, inline build), one instance
 * per worker thread / V8 context, called synchronously.
 *
 * SANDBOX-SAFE: no node: imports, no fs, no process. This module runs both in Node and in the
 * Temporal workflow sandbox (webpack bundle, `vm` context), where:
 * - there is no `Buffer`: jq-wasm/inline decodes its embedded base64 binary with
 *   `Buffer.from(b64, 'base64')` when it is first evaluated, so we install a tiny pure-JS
 *   shim for the duration of that `require` only (the global is removed again);
 * - the asynchronous default instantiation (`WebAssembly.instantiate`) never resolves inside
 *   a workflow task, so we compile with `new WebAssembly.Module` and instantiate with
 *   `new WebAssembly.Instance` in a synchronous `instantiateWasm` hook: loading then settles
 *   within the current microtask checkpoint (the sandbox drains microtasks before returning);
 * - there is no `crypto`: Emscripten's `random_get` (jq seeds itself once, on its first run)
 *   calls `crypto.getRandomValues`. We install a shim that fills bytes from a FIXED-seed
 *   PRNG, not from the workflow's `Math.random`: the instance is shared by all workflows of a
 *   context, so only the first workflow would consume randomness, which would shift that
 *   workflow's `Math.random`/`uuid4()` sequence between the original run and a replay on a
 *   fresh worker. Nothing jq outputs depends on these bytes.
 * - `Date` is the sandbox's deterministic `Date` (looked up at call time, so in the current
 *   workflow's context): jq's `now` returns workflow time and replays identically.
 *
 * Sharing across workflows: with the default reusable V8 context, Temporal evaluates workflow
 * modules once PER WORKFLOW EXECUTION, unless listed in `bundlerOptions.preloadModules`.
 * Add this module (`src/expr/engine`) there so the 1.2 MB decode + wasm compile happen once
 * per worker thread; without it everything still works, each workflow just pays ~30 ms to load.
 * The preload runs outside any workflow (no `Date`), so there we only decode and compile; the
 * instance is created on the first call of {@link startEngine} made inside a workflow.
 *
 * jq itself is stateless between runs (each run is a fresh `main()`), so a shared instance
 * gives the same results as a fresh one.
 */

/** Output of one jq run. */
export interface JqRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

// Minimal WebAssembly typings (the project compiles without the DOM lib).
type WasmModule = object;
type WasmInstance = object;
type WasmImports = object;
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: WasmImports) => WasmInstance;
};

interface JqHandle {
  raw(input: string, query: string, flags?: string[]): JqRun;
}

interface JqWasmModule {
  loadJq(options: {
    instantiateWasm: (
      imports: WasmImports,
      onSuccess: (instance: WasmInstance, module: WasmModule) => void,
    ) => void;
  }): Promise<JqHandle>;
}

// State lives in this closure only (never exported: a preloaded module's exports are frozen).
const state: {
  mod?: JqWasmModule;
  wasm?: WasmModule;
  jq?: JqHandle;
  loading?: Promise<void>;
  error?: unknown;
} = {};

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeBase64(s: string): Uint8Array {
  const lookup = new Uint8Array(128);
  for (let i = 0; i < B64.length; i++) lookup[B64.charCodeAt(i)] = i;
  let len = s.length;
  while (len > 0 && (s[len - 1] === '=' || s[len - 1] === '\n')) len--;
  const out = new Uint8Array(Math.floor((len * 3) / 4));
  let o = 0;
  let i = 0;
  for (; i + 4 <= len; i += 4) {
    const n =
      (lookup[s.charCodeAt(i)] << 18) |
      (lookup[s.charCodeAt(i + 1)] << 12) |
      (lookup[s.charCodeAt(i + 2)] << 6) |
      lookup[s.charCodeAt(i + 3)];
    out[o++] = (n >> 16) & 255;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  const rest = len - i;
  if (rest === 2) {
    const n = (lookup[s.charCodeAt(i)] << 18) | (lookup[s.charCodeAt(i + 1)] << 12);
    out[o++] = (n >> 16) & 255;
  } else if (rest === 3) {
    const n = (lookup[s.charCodeAt(i)] << 18) | (lookup[s.charCodeAt(i + 1)] << 12) | (lookup[s.charCodeAt(i + 2)] << 6);
    out[o++] = (n >> 16) & 255;
    out[o++] = (n >> 8) & 255;
  }
  return o === out.length ? out : out.subarray(0, o);
}

/** Deterministic bytes for Emscripten's random_get (see the header comment). */
let prngState = 0x9e3779b9;
function fillDeterministic<T extends ArrayBufferView | null>(view: T): T {
  if (view) {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    for (let i = 0; i < bytes.length; i++) {
      // xorshift32
      prngState ^= prngState << 13;
      prngState ^= prngState >>> 17;
      prngState ^= prngState << 5;
      bytes[i] = prngState & 255;
    }
  }
  return view;
}
const cryptoShim = { getRandomValues: fillDeterministic };

function ensureCrypto(): void {
  const g = globalThis as { crypto?: unknown };
  if (typeof g.crypto === 'undefined') {
    // In the sandbox, globals are per workflow: install in the current one.
    Object.defineProperty(globalThis, 'crypto', { value: cryptoShim, writable: true, configurable: true, enumerable: false });
  }
}

/**
 * Sync part of loading: evaluate jq-wasm/inline and keep the wasm bytes it decodes. The inline
 * build does not export its binary: it decodes it at module evaluation with
 * `Buffer.from(b64, 'base64')` (Node 20 has no `Uint8Array.fromBase64`), so we swap in a
 * capturing pure-JS `Buffer` for the duration of that synchronous `require` (in Node as well,
 * so both sides load the same way), then restore the original global (or remove the shim).
 */
function prepare(): void {
  if (state.mod) return;
  const g = globalThis as { Buffer?: unknown };
  const original = Object.getOwnPropertyDescriptor(globalThis, 'Buffer');
  let captured: Uint8Array | undefined;
  const isWasm = (value: unknown, encoding: unknown): value is string =>
    encoding === 'base64' && typeof value === 'string' && value.startsWith('AGFzbQ'); // "\0asm"
  const originalBuffer = original ? (original.get ? original.get.call(globalThis) : original.value) : undefined;
  let shim: unknown;
  if (originalBuffer) {
    // Node: other code (e.g. tsx's loader) may use Buffer meanwhile; only observe `from`.
    const from = (originalBuffer as { from: (...a: unknown[]) => Uint8Array }).from;
    shim = new Proxy(originalBuffer as object, {
      get(target, prop, receiver) {
        if (prop !== 'from') return Reflect.get(target, prop, receiver);
        return (value: unknown, encoding: unknown, ...rest: unknown[]) => {
          const r = from.call(target, value, encoding, ...rest);
          if (isWasm(value, encoding)) captured = r;
          return r;
        };
      },
    });
  } else {
    shim = {
      from(value: unknown, encoding?: unknown): Uint8Array {
        if (!isWasm(value, encoding)) throw new Error('swflow Buffer shim: only the jq-wasm binary can be decoded');
        captured = decodeBase64(value);
        return captured;
      },
    };
  }
  Object.defineProperty(globalThis, 'Buffer', { value: shim, writable: true, configurable: true });
  let mod: JqWasmModule;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require('jq-wasm/inline') as JqWasmModule;
  } finally {
    if (original) Object.defineProperty(globalThis, 'Buffer', original);
    else delete g.Buffer;
  }
  state.mod = mod;
  // Compile now (sync, no clock needed): in a preloaded module this happens once per context.
  if (captured) state.wasm = new WebAssembly.Module(captured);
}

function canUseClock(): boolean {
  try {
    Date.now();
    return true;
  } catch {
    return false; // preloading in the sandbox: no workflow yet
  }
}

/**
 * Starts loading jq if needed and returns a promise settled when {@link runJq} is usable.
 * Loading is synchronous at heart, so the promise settles within the current microtask
 * checkpoint. Safe to call repeatedly. Outside a workflow context in the sandbox (preload)
 * it only prepares, and returns undefined.
 */
export function startEngine(): Promise<void> | undefined {
  if (state.jq) return Promise.resolve();
  if (state.loading) return state.loading;
  prepare();
  if (!canUseClock()) return undefined;
  ensureCrypto();
  state.error = undefined;
  const wasm = state.wasm;
  // Without captured bytes (jq-wasm/inline was already loaded by someone else in this Node
  // process) fall back to the package's default async loader: fine in Node, never reached in
  // the sandbox where the module registry is ours.
  const loaded = wasm
    ? state.mod!.loadJq({
        instantiateWasm(imports, onSuccess) {
          onSuccess(new WebAssembly.Instance(wasm, imports), wasm);
        },
      })
    : (state.mod as unknown as { loadJq(): Promise<JqHandle> }).loadJq();
  const loading = loaded.then(
      (jq) => {
        state.jq = jq;
        state.loading = undefined;
      },
      (err: unknown) => {
        state.error = err;
        state.loading = undefined;
        throw err;
      },
    );
  // Never an unhandled rejection: callers that care await the returned promise.
  loading.catch(() => undefined);
  state.loading = loading;
  return loading;
}

const runs = { count: 0 };
/** How many jq runs this context made (tests and benchmarks use it to count batching). */
export function jqRunCount(): number {
  return runs.count;
}

/** True when {@link runJq} can be called. */
export function isEngineReady(): boolean {
  return state.jq !== undefined;
}

/** Runs jq synchronously on JSON text. Throws if the engine is not loaded yet. */
export function runJq(inputJson: string, program: string): JqRun {
  const jq = state.jq;
  if (!jq) {
    if (state.error) throw new Error(`jq engine failed to load: ${String(state.error)}`);
    startEngine();
    if (!state.jq) {
      throw new Error(
        'jq engine not initialised yet: `await initExpressions()` (src/expr) once before evaluating expressions synchronously',
      );
    }
  }
  ensureCrypto();
  runs.count++;
  return state.jq!.raw(inputJson, program, ['-c']);
}
