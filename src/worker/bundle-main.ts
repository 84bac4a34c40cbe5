/**
 * The child process of ./bundle-apart.ts: bundles the interpreter's workflow code and writes
 * it (JSON: code and source map) to the file named by its argument.
 */
import { writeFileSync } from 'node:fs';
import { bundleInterpreter } from './interpreter-worker';

bundleInterpreter()
  .then((bundle) => writeFileSync(process.argv[2], JSON.stringify(bundle)))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
