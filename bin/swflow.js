#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx swflow ...` works without a build step.
const path = require('node:path');
require('tsx/cjs');
require(path.join(__dirname, '..', 'src', 'cli', 'main.ts'));
