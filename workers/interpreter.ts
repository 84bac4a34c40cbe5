/**
 * Entrypoint of the interpreter worker process: `npx tsx workers/interpreter.ts [folders...]`.
 * Environment: TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (see src/client/connection.ts),
 * SWFLOW_DEFINITIONS (colon-separated folders/files) when no arguments are given.
 */
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/platform/paths';
import { INTERPRETER_TASK_QUEUE } from '../src/common/contracts';
import { runWorker } from '../src/cli/worker';

const fromArgs = process.argv.slice(2);
const definitions = fromArgs.length ? fromArgs : process.env.SWFLOW_DEFINITIONS ? process.env.SWFLOW_DEFINITIONS.split(':') : [join(PROJECT_ROOT, 'examples')];

runWorker({ definitions, taskQueue: process.env.SWFLOW_TASK_QUEUE ?? INTERPRETER_TASK_QUEUE, schedules: true }).catch((err) => {
  console.error(err);
  process.exit(1);
});
