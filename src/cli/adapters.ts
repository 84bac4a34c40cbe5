/**
 * `swflow adapters`: runs the built-in adapter worker (REST, GraphQL, OData...) against a Temporal server
 * (TEMPORAL_ADDRESS, default localhost:7233) — to scale function calls out on their own machines —
 * with the user adapters of `--module` beside them on the same queue.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { NativeConnection } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { PROJECT_ROOT } from '../platform/paths';
import { createBuiltinAdapterWorker } from '../worker/adapter-worker';
import { loadAdapters } from '../adapter-sdk';
import { loadSecrets } from './secrets';
import { serveMetricsIf } from '../metrics';
import { healthPort, serveHealthIf } from '../worker/health';
import { servingWorkerOptions } from '../worker/deployment';

interface AdaptersCliOptions {
  definitions: string[];
  taskQueue: string;
  module?: string[];
  secrets?: string;
  metricsPort?: string;
  healthPort?: string;
  shutdownGrace?: string;
}

export function register(program: Command): void {
  program
    .command('adapters')
    .description('Run the built-in adapter worker (REST, GraphQL, OData, ...), and your own adapters, against a Temporal server')
    .option('-d, --definitions <dirs...>', 'folders where relative OpenAPI documents are found', [join(PROJECT_ROOT, 'examples')])
    .option('-q, --task-queue <queue>', 'task queue', ADAPTER_TASK_QUEUE)
    .option('-m, --module <files...>', 'also serve the adapters these modules export (defineAdapter)')
    .option('--secrets <file>', 'a JSON or YAML file of $SECRETS values (default: the environment)')
    .option('--metrics-port <port>', 'serve Prometheus metrics at http://127.0.0.1:<port>/metrics (default $SWFLOW_METRICS_PORT; unset: off)')
    .option('--health-port <port>', 'serve /healthz and /readyz on this port (default $SWFLOW_HEALTH_PORT; unset: off)')
    .option('--shutdown-grace <duration>', 'on SIGTERM, let calls in flight finish for this long, e.g. 30s (default $SWFLOW_SHUTDOWN_GRACE, else 0: they are cancelled and retried elsewhere)')
    .action((opts: AdaptersCliOptions) => runAdapters(opts));
}

async function runAdapters(opts: AdaptersCliOptions): Promise<void> {
  const target = targetFromEnv() ?? { address: 'localhost:7233', namespace: 'default' };
  const adapters = loadAdapters(opts.module ?? []);
  // Bad options fail before anything connects.
  const workerOptions = servingWorkerOptions(opts, false);
  healthPort(opts.healthPort);
  // Before the connection: Core's metrics exporter is part of the runtime it creates.
  const metricsServer = await serveMetricsIf(opts.metricsPort, (m) => console.log(`[swflow adapters] ${m}`));
  const connection = await NativeConnection.connect(connectionOptions(target)).catch((err: Error) => {
    // The SDK's own message names neither the address nor where it came from.
    throw new Error(`Cannot reach the Temporal server at ${target.address} (TEMPORAL_ADDRESS): ${err.message}`);
  });
  const worker = await createBuiltinAdapterWorker({ connection, namespace: target.namespace, taskQueue: opts.taskQueue, baseDirs: opts.definitions, adapters, secrets: loadSecrets(opts.secrets), workerOptions });
  const health = await serveHealthIf(opts.healthPort, { workers: () => [worker], connection: () => connection }, (m) => console.log(`[swflow adapters] ${m}`));
  const own = adapters.length ? `; also ${adapters.flatMap((a) => Object.keys(a.activityTypes)).join(', ')}` : '';
  console.log(`[swflow adapters] serving task queue ${opts.taskQueue} on ${target.address} (namespace ${target.namespace})${own}`);
  await worker.run();
  await health?.close();
  await connection.close();
  await metricsServer?.close();
}
