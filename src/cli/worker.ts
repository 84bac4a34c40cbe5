/**
 * `swflow worker`: runs a worker against a Temporal server (TEMPORAL_ADDRESS, default
 * localhost:7233). By default the interpreter worker, serving the definitions of `--definitions`
 * (default examples/) and keeping the Temporal Schedules of those with `start.schedule` in sync
 * while it runs (`--no-schedules` leaves that to `swflow schedules sync`); with
 * `--adapter <module…>`, an adapter worker serving the adapters those modules export
 * (defineAdapter, `swflow/adapter`) on `--task-queue`.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { NativeConnection } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { clientInterceptors } from '../tracing';
import { keepSchedulesInSync } from '../client/schedules';
import { DefinitionRegistry, requireDefinitionPaths, requireSomeDefinition } from '../definitions/registry';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, connectTo, targetFromEnv, workerTarget } from '../client/connection';
import { PROJECT_ROOT } from '../platform/paths';
import { createInterpreterWorker, DEFAULT_MAX_CACHED_WORKFLOWS, maxCachedWorkflows } from '../worker/interpreter-worker';
import { loadAdapters, runAdapterWorker } from '../adapter-sdk';
import { loadSecrets } from './secrets';
import { dataConverterOptions } from '../codec';
import { serveMetricsIf } from '../metrics';
import { healthPort, serveHealthIf } from '../worker/health';
import { eventSinks, sinkUrls } from '../gateway/sink';
import { servingWorkerOptions, setCurrentVersion, workerDeployment, type DeploymentCliOptions } from '../worker/deployment';

interface WorkerCliOptions extends DeploymentCliOptions {
  definitions: string[];
  taskQueue?: string;
  adapter?: string[];
  secrets?: string;
  schedules: boolean;
  eagerCalls?: boolean;
  metricsPort?: string;
  healthPort?: string;
  setCurrent?: boolean;
  eventSink?: string[];
  lifecycleEvents?: boolean;
  maxCachedWorkflows?: string;
}

export const EVENT_SINK_HELP =
  'where produced (and lifecycle) CloudEvents go: http(s)://… (POSTed, structured) or kafka://host:port[,host:port]/<topic>[?mode=binary|structured] (default binary; SASL/TLS from SWFLOW_KAFKA_*); default $SWFLOW_EVENT_SINKS, comma-separated';
export const LIFECYCLE_EVENTS_HELP = 'publish lifecycle CloudEvents (io.serverlessworkflow.workflow.*, ….task.*) to the event sinks (or SWFLOW_LIFECYCLE_EVENTS=true)';

/** --lifecycle-events, else SWFLOW_LIFECYCLE_EVENTS (true/1; anything else but false/0/empty is an error naming it). */
export function lifecycleEventsWanted(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag) return true;
  const v = env.SWFLOW_LIFECYCLE_EVENTS?.trim().toLowerCase();
  if (!v || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw new Error(`SWFLOW_LIFECYCLE_EVENTS must be true or false (got ${JSON.stringify(env.SWFLOW_LIFECYCLE_EVENTS)})`);
}

export function register(program: Command): void {
  program
    .command('worker')
    .description('Run the interpreter worker (the generic workflow), or with --adapter an adapter worker, against a Temporal server')
    .option('-d, --definitions <paths...>', 'definition folders or files', [join(PROJECT_ROOT, 'examples')])
    .option('-a, --adapter <modules...>', 'serve the adapters these modules export (defineAdapter) instead of the interpreter')
    .option('-q, --task-queue <queue>', `task queue (default ${INTERPRETER_TASK_QUEUE}; with --adapter ${ADAPTER_TASK_QUEUE})`)
    .option('--secrets <file>', 'a JSON or YAML file of $SECRETS values for the adapters\' calls (with --adapter) or, for the interpreter, its local calls (swflow.local) and the authentication of 1.0 schema resources (default: the environment)')
    .option('--no-eager-calls', "do not serve the built-in adapters' calls on the interpreter's queue (feature eager-calls; by default this worker makes them, with its --secrets): runs started here send them to swflow-adapters, for `swflow adapters` workers")
    .option('--event-sink <urls...>', EVENT_SINK_HELP)
    .option('--lifecycle-events', LIFECYCLE_EVENTS_HELP)
    .option('--no-schedules', 'do not create/update/delete the Temporal Schedules of scheduled definitions')
    .option('--metrics-port <port>', 'serve Prometheus metrics at http://127.0.0.1:<port>/metrics (default $SWFLOW_METRICS_PORT; unset: off)')
    .option('--max-cached-workflows <runs>', `runs kept in the sticky cache (their state in memory, ready for their next event); past it the least recently used is evicted and replays from its history when its event comes; 0: no cache (default $SWFLOW_MAX_CACHED_WORKFLOWS, else ${DEFAULT_MAX_CACHED_WORKFLOWS})`)
    .option('--health-port <port>', 'serve /healthz and /readyz on this port (default $SWFLOW_HEALTH_PORT; unset: off)')
    .option('--shutdown-grace <duration>', 'on SIGTERM, let in-flight tasks finish for this long, e.g. 30s (default $SWFLOW_SHUTDOWN_GRACE, else 0)')
    .option('--build-id <id>', 'Worker Versioning: this build of the interpreter; runs are pinned to the build that started them (default $SWFLOW_BUILD_ID; unset: unversioned)')
    .option('--deployment-name <name>', 'Worker Versioning: the worker deployment (default $SWFLOW_DEPLOYMENT_NAME, else "swflow")')
    .option('--versioning-behavior <behavior>', 'Worker Versioning: pinned or auto-upgrade (default $SWFLOW_VERSIONING_BEHAVIOR, else pinned)')
    .option('--set-current', 'Worker Versioning: make this build the current version once it polls (new runs go to it); default $SWFLOW_SET_CURRENT=true')
    .action((opts: WorkerCliOptions) => (opts.adapter ? runAdapters(opts) : runWorker(opts)));
}

async function runAdapters(opts: WorkerCliOptions): Promise<void> {
  const adapters = loadAdapters(opts.adapter ?? []);
  dataConverterOptions();
  const workerOptions = servingWorkerOptions(opts, false);
  const metricsServer = await serveMetricsIf(opts.metricsPort, (m) => console.log(`[swflow worker] ${m}`));
  await runAdapterWorker({
    adapters,
    workerOptions,
    taskQueue: opts.taskQueue ?? ADAPTER_TASK_QUEUE,
    secrets: loadSecrets(opts.secrets),
    log: (m) => console.log(`[swflow worker] ${m} on ${targetFromEnv()?.address ?? 'localhost:7233'}`),
  });
  await metricsServer?.close();
}

export async function runWorker(opts: WorkerCliOptions): Promise<void> {
  const target = workerTarget();
  const taskQueue = opts.taskQueue ?? INTERPRETER_TASK_QUEUE;
  // Bad options fail before anything connects.
  requireDefinitionPaths(opts.definitions);
  // Files that do not load are logged (file:line) at the first scan and whenever they change again.
  const registry = new DefinitionRegistry(opts.definitions, { log: (m) => console.log(`[swflow worker] ${m}`) });
  await requireSomeDefinition(registry);
  dataConverterOptions();
  const workerOptions = servingWorkerOptions(opts, true);
  const deployment = workerDeployment(opts);
  healthPort(opts.healthPort);
  const { urls, what } = sinkUrls(opts.eventSink);
  const sinks = eventSinks(urls, what);
  const lifecycleEvents = lifecycleEventsWanted(opts.lifecycleEvents);
  const cacheSize = maxCachedWorkflows(opts.maxCachedWorkflows);
  // Before the connection: Core's metrics exporter is part of the runtime it creates.
  const metricsServer = await serveMetricsIf(opts.metricsPort, (m) => console.log(`[swflow worker] ${m}`));
  const connection = await connectTo(target, (o) => NativeConnection.connect(o));
  const worker = await createInterpreterWorker({
    connection,
    namespace: target.namespace,
    taskQueue,
    definitions: opts.definitions,
    registry,
    secrets: opts.secrets ? loadSecrets(opts.secrets) : undefined,
    builtinCalls: opts.eagerCalls !== false,
    eventSinks: sinks.sinks,
    lifecycleEvents,
    maxCachedWorkflows: cacheSize,
    log: (m) => console.log(`[swflow worker] ${m}`),
    workerOptions,
  });
  const log = (m: string) => console.log(`[swflow worker] ${m}`);
  const health = await serveHealthIf(opts.healthPort, { workers: () => [worker], connection: () => connection }, log);
  const clientConnection = opts.schedules ? await Connection.connect(connectionOptions(target)) : undefined;
  const schedules = clientConnection
    ? keepSchedulesInSync(new Client({ connection: clientConnection, namespace: target.namespace, ...dataConverterOptions(), ...clientInterceptors() }), () => registry.allDefinitions(), { taskQueue: taskQueue, intervalMs: scheduleSyncMs(), log })
    : undefined;
  const skipped = registry.problems().length;
  log(`serving task queue ${taskQueue} on ${target.address} (namespace ${target.namespace}); definitions: ${opts.definitions.join(', ')}${skipped ? ` (${skipped} file(s) skipped, see above)` : ''}; produced events: ${sinks.shown.length ? sinks.shown.join(', ') : 'logged only'}${lifecycleEvents ? ' (with lifecycle events)' : ''}; sticky cache: ${cacheSize} runs${deployment ? `; build ${deployment.version.deploymentName}.${deployment.version.buildId} (${deployment.defaultVersioningBehavior})` : ''}`);
  const running = worker.run();
  if (deployment && (opts.setCurrent || process.env.SWFLOW_SET_CURRENT === 'true')) {
    await setCurrentVersion(connection, target.namespace, deployment.version).then(
      () => log(`${deployment.version.deploymentName}.${deployment.version.buildId} is the current version: new runs start on this build`),
      (err) => log(`${(err as Error).message}`),
    );
  }
  await running;
  await sinks.close();
  await health?.close();
  await schedules?.stop();
  await clientConnection?.close();
  await connection.close();
  await metricsServer?.close();
}

/** How often a serving worker re-syncs the Schedules (SWFLOW_SCHEDULE_SYNC_MS, default 30 s). */
export function scheduleSyncMs(): number {
  const v = Number(process.env.SWFLOW_SCHEDULE_SYNC_MS);
  return Number.isFinite(v) && v > 0 ? v : 30_000;
}
