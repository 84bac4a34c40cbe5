#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx swflow ...` works without a build step. Loading
// `tsx` installs both of its hooks, as `node --import tsx` does: CommonJS for the static imports,
// ESM for the subcommands' `await import()`.
const path = require('node:path');
import('tsx').then(() => require(path.join(__dirname, '..', 'src', 'cli', 'main.ts')));
