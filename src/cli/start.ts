/**
 * `swflow start` (= `npm start`): the main job. Starts the embedded Temporal dev server
 * (unless TEMPORAL_ADDRESS names a server), the interpreter worker with the definitions of
 * `examples/` (or `--definitions`) and their Temporal Schedules (`start.schedule`), the
 * built-in adapter worker (REST, GraphQL, OData...), the event gateway (CloudEvents over HTTP,
 * MQTT with `--mqtt`, Kafka with `--kafka-brokers`), the run page (`swflow ui`) and, while it serves the examples, their
 * example service; prints where everything is. Ctrl-C stops it all.
 */
import type { Server } from 'node:http';
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { clientInterceptors } from '../tracing';
import { NativeConnection } from '@temporalio/worker';
import { ADAPTER_TASK_QUEUE, INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, connectTo, targetFromEnv, type ServerTarget } from '../client/connection';
import { startDevServer, type DevServer } from '../platform/dev-server';
import { dataDir, PROJECT_ROOT } from '../platform/paths';
import { payloadSettings } from '../payloads/config';
import { formatBytes } from '../common/payload-limit';
import { ensureSearchAttributes } from '../platform/search-attributes';
import { resolveTemporalCli } from '../platform/temporal-binary';
import { createInterpreterWorker } from '../worker/interpreter-worker';
import { createBuiltinAdapterWorker } from '../worker/adapter-worker';
import { createProcessWorker } from '../worker/process-worker';
import { DefinitionRegistry, requireDefinitionPaths } from '../definitions/registry';
import { GATEWAY_PORT, startGateway, type Gateway } from '../gateway/server';
import { startMqttInbound, type MqttInbound } from '../gateway/mqtt';
import { keepSchedulesInSync } from '../client/schedules';
import { addGatewayOptions, gatewaySettings, kafkaBanner, kafkaReadiness, startKafkaFromSettings, type GatewayCliOptions } from './gateway';
import type { KafkaInbound } from '../gateway/kafka';
import { EVENT_SINK_HELP, LIFECYCLE_EVENTS_HELP, lifecycleEventsWanted, scheduleSyncMs } from './worker';
import { eventSinks, sinkUrls } from '../gateway/sink';
import { serveMetricsIf } from '../metrics';
import { startGreetingService, GREETING_SERVICE_PORT } from '../../examples/services/greeting-service';
import { dataConverterOptions, keyringFromEnv, payloadCodec } from '../codec';
import { startCodecServer, type CodecServer } from '../codec/server';
import { actionsLine, OPERATOR_TOKEN_HELP, UI_PORT } from './ui';
import { operatorToken } from '../operations/token';
import { startRunPage, type RunPage } from '../ui/server';

const EXAMPLES_DIR = join(PROJECT_ROOT, 'examples');

/** Folders relative OpenAPI references are resolved against: the definition folders. */
function definitionDirs(paths: string[]): string[] {
  return paths.map((p) => {
    const abs = resolve(p);
    try {
      return statSync(abs).isDirectory() ? abs : dirname(abs);
    } catch {
      return abs;
    }
  });
}

interface StartCommandOptions extends GatewayCliOptions {
  definitions: string[];
  port: string;
  uiPort: string;
  db?: string;
  temporalHost: string;
  gatewayPort: string;
  eventSink?: string[];
  allowProcesses?: boolean;
  lifecycleEvents?: boolean;
  metricsPort?: string;
  runPagePort: string;
  operatorToken?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('start')
    .description('Run the main job: Temporal dev server (unless TEMPORAL_ADDRESS is set), workers, examples')
    .option('-d, --definitions <paths...>', 'definition folders or files the worker serves', [join(PROJECT_ROOT, 'examples')])
    .option('--port <port>', 'dev server gRPC port', '7233')
    .option('--ui-port <port>', 'dev server Web UI port', '8233')
    .option('--db <file>', 'dev server SQLite file (default <data>/temporal.sqlite: $SWFLOW_DATA, else .data in a checkout, ~/.local/share/swflow where installed)')
    .option('--temporal-host <ip>', 'interface the dev server listens on (0.0.0.0: every interface, as in the image)', process.env.SWFLOW_TEMPORAL_HOST || '127.0.0.1')
    .option('--gateway-port <port>', 'event gateway port (CloudEvents over HTTP)', String(GATEWAY_PORT))
    .option('--lifecycle-events', LIFECYCLE_EVENTS_HELP)
    .option('--allow-processes', "also serve 1.0 run.shell / run.script / run.container tasks (queue swflow-processes): they execute the documents' commands and scripts with this process's rights")
    .option('--event-sink <urls...>', EVENT_SINK_HELP)
    .option('--run-page-port <port>', 'the run page (runs drawn on their graphs); 0: off', String(UI_PORT))
    .option('--operator-token <token>', OPERATOR_TOKEN_HELP)
    .option('--metrics-port <port>', 'serve Prometheus metrics at http://127.0.0.1:<port>/metrics (default $SWFLOW_METRICS_PORT; unset: off)');
  addGatewayOptions(cmd).action((opts: StartCommandOptions) => start(opts));
}

async function start(opts: StartCommandOptions): Promise<void> {
  const log = (msg: string) => console.log(`[swflow] ${msg}`);
  const settings = gatewaySettings(opts, (line) => console.log(line));
  // Bad options fail before a server starts.
  requireDefinitionPaths(opts.definitions);
  // The embedded default: payloads too large for Temporal's history go to a directory beside the
  // dev server's database (one machine: every process here sees it). SWFLOW_PAYLOAD_STORE=none turns it off.
  process.env.SWFLOW_PAYLOAD_STORE ??= join(dataDir(), 'payloads');
  dataConverterOptions();
  const payloads = payloadSettings();
  log(payloads.store ? `Payloads of ${formatBytes(payloads.threshold)} and more go to the payload store ${payloads.store.location}.` : `No payload store: a value over ${formatBytes(payloads.limit)} fails its step (SWFLOW_PAYLOAD_STORE).`);
  const { urls, what } = sinkUrls(opts.eventSink);
  const sinks = eventSinks(urls, what);
  const lifecycleEvents = lifecycleEventsWanted(opts.lifecycleEvents);
  // One registry and one endpoint for the workers and the gateway of this process; first, as
  // Core's exporter is part of the runtime the workers' connection creates.
  const metricsServer = await serveMetricsIf(opts.metricsPort, log);
  let devServer: DevServer | undefined;
  let codecServer: CodecServer | undefined;
  let target: ServerTarget | undefined = targetFromEnv();
  let uiUrl: string | undefined;

  if (target) {
    log(`Using the Temporal server at ${target.address} (namespace ${target.namespace}); starting none.`);
  } else {
    const cli = await resolveTemporalCli(log);
    if (!cli) {
      throw new Error(
        'No Temporal CLI found and Go is not installed to build it. Install Go, or the Temporal CLI ' +
          '(https://docs.temporal.io/cli), or set TEMPORAL_CLI=/path/to/temporal, or TEMPORAL_ADDRESS=host:port.',
      );
    }
    if (cli.buildMs) log(`Built the Temporal CLI in ${(cli.buildMs / 1000).toFixed(0)} s (cached for next time).`);
    // The embedded Web UI decodes through a codec server of this process (stored payloads read
    // back, encrypted ones decrypted) when the UI is on loopback: unauthenticated, it shows what
    // the UI itself shows to whoever reaches 127.0.0.1. Exposed set-ups run `swflow codec-server` with a token.
    const keys = keyringFromEnv();
    if ((keys || payloads.store) && /^(127\.\d+\.\d+\.\d+|localhost|::1)$/.test(opts.temporalHost)) {
      codecServer = await startCodecServer({ codec: keys ? payloadCodec(keys) : undefined, store: payloads.store, host: '127.0.0.1', port: 0, corsOrigins: [`http://localhost:${opts.uiPort}`, `http://127.0.0.1:${opts.uiPort}`], log: (m) => log(`codec server: ${m}`) });
    }
    devServer = await startDevServer({ binary: cli.path, ip: opts.temporalHost, port: Number(opts.port), uiPort: Number(opts.uiPort), dbFile: opts.db, ...(codecServer ? { extraArgs: ['--ui-codec-endpoint', codecServer.url] } : {}) });
    target = { address: devServer.address, namespace: 'default' };
    uiUrl = devServer.uiUrl;
  }

  try {
    const clientConnection = await connectTo(target, (o) => Connection.connect(o));
    const warning = devServer ? undefined : await ensureSearchAttributes(clientConnection, target.namespace);
    if (warning) log(warning);

    const connection = await NativeConnection.connect(connectionOptions(target));
    const worker = await createInterpreterWorker({
      connection,
      namespace: target.namespace,
      taskQueue: INTERPRETER_TASK_QUEUE,
      definitions: opts.definitions,
      eventSinks: sinks.sinks,
      lifecycleEvents,
      // Built-in calls as activities on this worker's queue, handed back eagerly (feature eager-calls);
      // the adapter worker below still serves swflow-adapters (runs started before, `metadata.worker`-less runs of older workers).
      builtinCalls: true,
      log: (m) => log(m),
    });
    const dirs = definitionDirs(opts.definitions);
    const adapters = await createBuiltinAdapterWorker({ connection, namespace: target.namespace, baseDirs: dirs });
    const processes = opts.allowProcesses ? await createProcessWorker({ connection, namespace: target.namespace }) : undefined;
    if (processes) log('Serving run.shell / run.script / run.container on swflow-processes (--allow-processes): documents run commands with this process\'s rights.');

    let exampleService: Server | undefined;
    if (dirs.includes(EXAMPLES_DIR)) {
      exampleService = await startGreetingService().catch((err) => {
        log(`The example greeting service could not listen on port ${GREETING_SERVICE_PORT} (${(err as Error).message}); examples/greeting.sw.json will fail to reach it.`);
        return undefined;
      });
    }

    const registry = new DefinitionRegistry(opts.definitions);
    const client = new Client({ connection: clientConnection, namespace: target.namespace, ...dataConverterOptions(), ...clientInterceptors() });
    const schedules = keepSchedulesInSync(client, () => registry.allDefinitions(), { taskQueue: INTERPRETER_TASK_QUEUE, intervalMs: scheduleSyncMs(), log: (m) => log(m) });
    const token = operatorToken(opts.operatorToken);
    const runPage: RunPage | undefined =
      opts.runPagePort === '0'
        ? undefined
        : await startRunPage({ client, registry, webUiUrl: uiUrl ?? process.env.TEMPORAL_WEB_UI, host: process.env.SWFLOW_UI_HOST ?? '127.0.0.1', port: Number(opts.runPagePort), operatorToken: token }).catch((err: Error) => {
            log(`The run page cannot listen on port ${opts.runPagePort} (${err.message}); choose another with --run-page-port. Going on without it.`);
            return undefined;
          });
    // Runs this process starts (the gateway) link to the page from the Web UI (src/ui/link.ts).
    if (runPage && !process.env.SWFLOW_UI_URL) process.env.SWFLOW_UI_URL = runPage.url;
    if (runPage) log(actionsLine(token));
    const common = { client, definitions: () => registry.indexedDefinitions(), temporalTimeoutMs: settings.temporalTimeoutMs, log: (m: string) => log(`gateway: ${m}`) };
    let kafka: KafkaInbound | undefined;
    const gateway: Gateway = await startGateway({
      ...common,
      ...settings,
      readiness: kafkaReadiness(settings.kafka, () => kafka),
      host: process.env.SWFLOW_GATEWAY_HOST ?? '127.0.0.1',
      port: Number(opts.gatewayPort),
    }).catch((err) => {
      throw new Error(`The event gateway cannot listen on port ${opts.gatewayPort} (${(err as Error).message}); choose another with --gateway-port.`);
    });
    const mqtt: MqttInbound | undefined = settings.mqtt ? await startMqttInbound({ ...common, ...settings.mqtt, accessLog: settings.accessLog ? (e) => console.log(JSON.stringify({ log: 'mqtt', ...e })) : undefined }) : undefined;
    if (settings.kafka) kafka = await startKafkaFromSettings(settings.kafka, common, Boolean(settings.accessLog));

    printBanner({ metricsUrl: metricsServer?.url, runPageUrl: runPage?.url, target, uiUrl, definitions: opts.definitions, dbFile: devServer?.dbFile, exampleService: Boolean(exampleService), gatewayUrl: gateway.url, sinks: sinks.shown, mqtt: settings.mqtt && `${settings.mqtt.topics.join(', ')} on ${settings.mqtt.url.replace(/\/\/[^@/]*@/, '//')}`, kafka: settings.kafka && kafkaBanner(settings.kafka) });
    // The SDK's runtime shuts the workers down on SIGINT/SIGTERM; run() resolves after that.
    try {
      await Promise.all([worker.run(), adapters.run(), ...(processes ? [processes.run()] : [])]);
    } finally {
      await Promise.all([gateway.close(), mqtt?.close(), kafka?.close(), runPage?.close(), schedules.stop(), metricsServer?.close(), sinks.close()]);
      await new Promise((r) => (exampleService ? exampleService.close(r) : r(undefined)));
    }
    await connection.close();
    await clientConnection.close();
  } finally {
    if (devServer) {
      log('Stopping the Temporal dev server...');
      await devServer.stop();
    }
    await codecServer?.close();
    log('Stopped.');
  }
}

function printBanner(info: { target: ServerTarget; uiUrl?: string; runPageUrl?: string; definitions: string[]; dbFile?: string; exampleService: boolean; gatewayUrl: string; sinks: string[]; mqtt?: string; kafka?: string; metricsUrl?: string }): void {
  const address = info.target.address === '127.0.0.1:7233' ? '' : ` --address ${info.target.address}`;
  const lines = [
    '',
    '  swflow is running',
    `  Temporal server   ${info.target.address}  (namespace ${info.target.namespace})`,
    info.uiUrl ? `  Temporal Web UI   ${info.uiUrl}` : undefined,
    info.runPageUrl ? `  Run page          ${info.runPageUrl}  (runs drawn on their graphs, live)` : undefined,
    info.dbFile ? `  Server database   ${info.dbFile}` : undefined,
    `  Task queues       ${INTERPRETER_TASK_QUEUE} (interpreter), ${ADAPTER_TASK_QUEUE} (built-in adapters)`,
    `  Definitions       ${info.definitions.join(', ')}`,
    `  Event gateway     ${info.gatewayUrl}  (POST CloudEvents; binary, structured or batch)`,
    info.mqtt ? `  MQTT events       ${info.mqtt}` : undefined,
    info.kafka ? `  Kafka events      ${info.kafka}` : undefined,
    `  Produced events   ${info.sinks.length ? info.sinks.join(', ') : 'logged only (set --event-sink <url> or SWFLOW_EVENT_SINKS: http(s)://… or kafka://host:port/<topic>)'}`,
    info.metricsUrl ? `  Metrics           ${info.metricsUrl}  (Prometheus)` : undefined,
    info.exampleService ? `  Example service   http://127.0.0.1:${GREETING_SERVICE_PORT} (examples/myapis/greetingapis.json)` : undefined,
    '',
    '  Start a workflow (another terminal):',
    `    temporal workflow execute --type helloworld --task-queue ${INTERPRETER_TASK_QUEUE} --input '{}'${address}`,
    info.exampleService
      ? `    temporal workflow execute --type greeting --task-queue ${INTERPRETER_TASK_QUEUE} --input '{"person":{"name":"John"}}'${address}`
      : undefined,
    '',
    '  Ctrl-C stops everything.',
    '',
  ];
  console.log(lines.filter((l) => l !== undefined).join('\n'));
}
