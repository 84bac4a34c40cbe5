#!/usr/bin/env node
// The swflow command: its TypeScript compiled to plain JavaScript in the project's cache (on the
// first run after a change; ./compiled.js), so `npx swflow ...` works without a build step and
// without tsx's cost in memory. Should compiling fail (or SWFLOW_TSX=1), the sources run through
// tsx: loading `tsx` installs both of its hooks, as `node --import tsx` does (CommonJS for the
// static imports, ESM for `await import()`).
const path = require('node:path');
const { compiledFile } = require('./compiled');

/** The commands that run Temporal workers get their V8 heap settings (./heap.js). */
const heap = require('./heap');
if (heap.WORKER_COMMANDS.includes(process.argv[2])) heap.applyWorkerHeapFlags();

const MAIN = path.join(__dirname, '..', 'src', 'cli', 'main.ts');
compiledFile(MAIN).then((file) => (file ? require(file) : import('tsx').then(() => require(MAIN))));
