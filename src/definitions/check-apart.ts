/**
 * Definition files read and checked in a short-lived worker thread (./check-thread.ts), so the
 * process that serves them (`swflow worker`, the gateway) never instantiates the jq engine in its
 * main thread for the checks: a jq wasm instance is ~19 MB resident for the process's life
 * (malloc keeps its pages even when released; bench/README.md, "No jq instance in the worker's
 * main thread"). The thread starts when a file needs checking and ends after IDLE_MS without one;
 * one thread per process, shared by its registries. Definitions come back by structured clone.
 */
import { Worker } from 'node:worker_threads';
import type { CheckAnswer, CheckedFile, CheckRequest } from './check-thread';

/** How long the thread is kept after its last answer (the files of one scan come in a burst). */
export const IDLE_MS = 3000;

/** The thread's entry (./check-thread.ts, or .js once compiled). */
const MAIN = require.resolve('./check-thread');
const THREAD_MARK = 'swflow-definition-check';

let thread: { worker: Worker; pending: Map<number, { resolve(c: CheckedFile): void }>; idle?: NodeJS.Timeout } | undefined;
let nextId = 0;
let started = 0;

/** How many threads were started so far (tests and benches count them). */
export function checkThreadsStarted(): number {
  return started;
}

/** Whether the checking thread is up (it ends IDLE_MS after its last answer). */
export function checkThreadRunning(): boolean {
  return thread !== undefined;
}

function start(): NonNullable<typeof thread> {
  // Run from TypeScript sources (tsx: tests, SWFLOW_TSX=1): the thread registers tsx's CommonJS hook first.
  const worker = MAIN.endsWith('.ts')
    ? new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register(); require(${JSON.stringify(MAIN)});`, { eval: true, workerData: THREAD_MARK })
    : new Worker(MAIN, { workerData: THREAD_MARK });
  started++;
  const own = { worker, pending: new Map<number, { resolve(c: CheckedFile): void }>() } as NonNullable<typeof thread>;
  worker.on('message', (answer: CheckAnswer) => {
    const waiting = own.pending.get(answer.id);
    own.pending.delete(answer.id);
    const { id: _id, ...checked } = answer;
    waiting?.resolve(checked);
    if (own.pending.size === 0) idle(own);
  });
  // A thread that fails (it could not load, it ran out of memory) fails what it was asked; the next request starts another.
  const fail = (why: string) => {
    if (thread === own) thread = undefined;
    clearTimeout(own.idle);
    for (const w of own.pending.values()) w.resolve({ problem: `checking definitions failed: ${why}` });
    own.pending.clear();
  };
  worker.on('error', (err) => fail(err.message));
  worker.on('exit', (code) => fail(`the checking thread exited (code ${code})`));
  return own;
}

/** No request for IDLE_MS: the thread ends (its jq instance and heap go with it). */
function idle(own: NonNullable<typeof thread>): void {
  own.worker.unref(); // never what keeps the process alive while idle
  clearTimeout(own.idle);
  own.idle = setTimeout(() => {
    if (thread !== own || own.pending.size) return;
    thread = undefined;
    void own.worker.terminate();
  }, IDLE_MS);
  own.idle.unref();
}

/** Reads and checks one definition file in the checking thread: its definition, or the problem (file:line: ...) that skips it. */
export function checkApart(path: string): Promise<CheckedFile> {
  thread ??= start();
  const own = thread;
  clearTimeout(own.idle);
  own.worker.ref(); // a caller awaits the answer (a CLI command with nothing else to do)
  const id = nextId++;
  return new Promise<CheckedFile>((resolve) => {
    own.pending.set(id, { resolve });
    own.worker.postMessage({ id, path } satisfies CheckRequest);
  });
}
