// V8 settings for the processes that run Temporal workers (`swflow start`, `worker`, `adapters`,
// `processes`): a small young generation (--max-semi-space-size=4, MB per semi-space; the default
// lets each isolate's grow to 3 × 16 MB) and a heap grown less eagerly (--optimize-for-size: V8
// otherwise lets garbage pile up to ~4× the live heap before a full collection). On the 10-call
// bench at 50 in flight that is ~250 MB of peak RSS instead of 360–460 MB, for ~10 % more CPU per
// run (bench/README.md, "What a worker costs"). Set from inside the process, so they apply fully to
// the isolates created afterwards (Temporal's workflow thread) and in part to the main one.
// SWFLOW_V8_FLAGS replaces them (empty: none); node's own flags (NODE_OPTIONS) apply as usual.
'use strict';
const v8 = require('node:v8');

const WORKER_HEAP_FLAGS = '--max-semi-space-size=4 --optimize-for-size';

/** The swflow commands that run Temporal workers: the one list (./swflow.js applies the flags, src/cli/main.ts installs Temporal's logger). */
const WORKER_COMMANDS = ['start', 'worker', 'adapters', 'processes'];

/** Applies the worker processes' V8 flags (SWFLOW_V8_FLAGS, else WORKER_HEAP_FLAGS); the flags applied. */
function applyWorkerHeapFlags() {
  const flags = (process.env.SWFLOW_V8_FLAGS ?? WORKER_HEAP_FLAGS).trim();
  if (flags) v8.setFlagsFromString(flags);
  return flags;
}

module.exports = { applyWorkerHeapFlags, WORKER_COMMANDS, WORKER_HEAP_FLAGS };
