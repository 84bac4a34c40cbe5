/**
 * The child process of ./bundle-apart.ts: bundles the interpreter's workflow code and writes
 * it (the code with its inline source map) to the file named by its argument; `--tracing`
 * bundles Temporal's OpenTelemetry workflow interceptors too.
 */
import { writeFileSync } from 'node:fs';
import { bundleInterpreter } from './interpreter-worker';

// --tracing: the parent traces (the child has not started tracing itself).
bundleInterpreter({ tracing: process.argv.includes('--tracing') })
  .then((bundle) => writeFileSync(process.argv[2], bundle.code))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
