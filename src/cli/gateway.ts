/**
 * `swflow gateway`: runs the event gateway alone against a Temporal server (TEMPORAL_ADDRESS,
 * default localhost:7233), routing by the definitions of `--definitions`: CloudEvents over HTTP,
 * and from MQTT topics with `--mqtt`. Run as many as you like behind a load balancer: routing
 * needs no shared state. SIGTERM/SIGINT stop it gracefully (in-flight deliveries finish).
 *
 * The options shared with `swflow start` (`addGatewayOptions`, `gatewaySettings`) live here.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { INTERPRETER_TASK_QUEUE } from '../common/contracts';
import { connectionOptions, unreachable, workerTarget } from '../client/connection';
import { DefinitionRegistry, requireDefinitionPaths, requireSomeDefinition } from '../definitions/registry';
import { DEFAULT_MAX_BODY_BYTES, GATEWAY_PORT, startGateway, type Gateway, type GatewayOptions } from '../gateway/server';
import { startMqttInbound, type MqttInbound } from '../gateway/mqtt';
import { PROJECT_ROOT } from '../platform/paths';
import { dataConverterOptions } from '../codec';
import { serveMetricsIf } from '../metrics';
import { clientInterceptors } from '../tracing';

/** The gateway options of `swflow gateway` and `swflow start` (commander camel-cases them). */
export interface GatewayCliOptions {
  token?: string;
  hmacSecret?: string;
  allowAnonymous?: boolean;
  maxBody: string;
  bodyTimeout: string;
  temporalTimeout: string;
  accessLog: boolean;
  mqtt?: string;
  mqttTopic?: string[];
  mqttClientId?: string;
  mqttProtocol: string;
  mqttTrusted?: boolean;
}

/** Adds the gateway's hardening and MQTT options to a command. */
export function addGatewayOptions(cmd: Command): Command {
  return cmd
    .option('--token <token>', 'bearer token senders must present (default $SWFLOW_GATEWAY_TOKEN; prefer the variable: flags show in ps)')
    .option('--hmac-secret <secret>', 'accept bodies signed with HMAC-SHA256 in X-Swflow-Signature (default $SWFLOW_GATEWAY_HMAC_SECRET)')
    .option('--allow-anonymous', 'with credentials set, still accept events without them (routed by the definitions; never swflowworkflowid)')
    .option('--max-body <bytes>', 'largest request body (413 above)', process.env.SWFLOW_GATEWAY_MAX_BODY ?? String(DEFAULT_MAX_BODY_BYTES))
    .option('--body-timeout <ms>', 'time a request body may take to arrive (408 after)', '10000')
    .option('--temporal-timeout <ms>', 'time Temporal may take to take an event before the answer is 503', '5000')
    .option('--no-access-log', 'do not print the access log (one JSON line per request)')
    .option('--mqtt <url>', 'also take CloudEvents from this MQTT broker (default $SWFLOW_MQTT_URL)')
    .option('--mqtt-topic <topics...>', 'MQTT topic filters (default $SWFLOW_MQTT_TOPICS or cloudevents/#)')
    .option('--mqtt-client-id <id>', 'MQTT persistent session id', 'swflow-gateway')
    .option('--mqtt-protocol <version>', '4 (MQTT 3.1.1) or 5', '4')
    .option('--mqtt-trusted', 'let MQTT events address instances directly (swflowworkflowid): the broker ACL decides who publishes');
}

/** Numbers and environment defaults of the options, checked. */
export function gatewaySettings(opts: GatewayCliOptions, log: (line: string) => void): Pick<GatewayOptions, 'auth' | 'allowAnonymous' | 'maxBodyBytes' | 'bodyTimeoutMs' | 'temporalTimeoutMs' | 'accessLog'> & { mqtt?: { url: string; topics: string[]; clientId?: string; protocolVersion: 4 | 5; trusted: boolean } } {
  const number = (flag: string, v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive whole number (got ${JSON.stringify(v)})`);
    return n;
  };
  const token = opts.token ?? (process.env.SWFLOW_GATEWAY_TOKEN || undefined);
  const hmacSecret = opts.hmacSecret ?? (process.env.SWFLOW_GATEWAY_HMAC_SECRET || undefined);
  const mqttUrl = opts.mqtt ?? (process.env.SWFLOW_MQTT_URL || undefined);
  const protocol = number('--mqtt-protocol', opts.mqttProtocol);
  if (protocol !== 4 && protocol !== 5) throw new Error(`--mqtt-protocol must be 4 or 5 (got ${protocol})`);
  return {
    auth: { token, hmacSecret },
    allowAnonymous: opts.allowAnonymous === true,
    maxBodyBytes: number('--max-body', opts.maxBody),
    bodyTimeoutMs: number('--body-timeout', opts.bodyTimeout),
    temporalTimeoutMs: number('--temporal-timeout', opts.temporalTimeout),
    accessLog: opts.accessLog ? (entry) => log(JSON.stringify({ log: 'access', ...entry })) : undefined,
    ...(mqttUrl
      ? {
          mqtt: {
            url: mqttUrl,
            topics: opts.mqttTopic ?? (process.env.SWFLOW_MQTT_TOPICS ?? 'cloudevents/#').split(',').map((t) => t.trim()).filter(Boolean),
            clientId: opts.mqttClientId,
            protocolVersion: protocol as 4 | 5,
            trusted: opts.mqttTrusted === true,
          },
        }
      : {}),
  };
}

interface GatewayCommandOptions extends GatewayCliOptions {
  definitions: string[];
  port: string;
  host: string;
  taskQueue: string;
  metricsPort?: string;
}

export function register(program: Command): void {
  addGatewayOptions(
    program
      .command('gateway')
      .description('Run the event gateway (CloudEvents over HTTP, and MQTT with --mqtt) against a Temporal server')
      .option('-d, --definitions <paths...>', 'definition folders or files to route by', [join(PROJECT_ROOT, 'examples')])
      .option('-p, --port <port>', 'HTTP port', String(GATEWAY_PORT))
      .option('--host <host>', 'interface to listen on (0.0.0.0: every interface)', process.env.SWFLOW_GATEWAY_HOST ?? '127.0.0.1')
      .option('-q, --task-queue <queue>', 'the interpreter task queue new instances start on', INTERPRETER_TASK_QUEUE)
      .option('--metrics-port <port>', 'serve Prometheus metrics at http://127.0.0.1:<port>/metrics (default $SWFLOW_METRICS_PORT; unset: off)'),
  ).action((opts: GatewayCommandOptions) => runGateway(opts));
}

async function runGateway(opts: GatewayCommandOptions): Promise<void> {
  const say = (m: string) => console.error(`[swflow gateway] ${m}`);
  const settings = gatewaySettings(opts, (line) => console.log(line));
  requireDefinitionPaths(opts.definitions);
  const registry = new DefinitionRegistry(opts.definitions);
  await requireSomeDefinition(registry);
  const target = workerTarget();
  const metricsServer = await serveMetricsIf(opts.metricsPort, say, { core: false });
  // Lazy: the gateway starts (and /readyz says so) while Temporal is still down.
  const connection = Connection.lazy(connectionOptions(target));
  const client = new Client({ connection, namespace: target.namespace, ...dataConverterOptions(), ...clientInterceptors() });
  const common = { client, definitions: () => registry.allDefinitions(), taskQueue: opts.taskQueue, temporalTimeoutMs: settings.temporalTimeoutMs, log: say };
  // Not ready, and events refused with 503, name the setting while the server does not answer.
  const gateway: Gateway = await startGateway({ ...common, ...settings, host: opts.host, port: Number(opts.port), unreachable: unreachable(target) });
  let mqtt: MqttInbound | undefined;
  if (settings.mqtt) mqtt = await startMqttInbound({ ...common, ...settings.mqtt, accessLog: settings.accessLog ? (e) => console.log(JSON.stringify({ log: 'mqtt', ...e })) : undefined });
  const credentials = [settings.auth?.token && 'bearer token', settings.auth?.hmacSecret && 'HMAC signature'].filter(Boolean).join(' or ');
  say(
    `listening on ${gateway.url}, Temporal ${target.address} (namespace ${target.namespace}); ` +
      `${credentials ? `credentials: ${credentials}${settings.allowAnonymous ? ' (anonymous events allowed)' : ''}` : 'no credentials configured (swflowworkflowid refused)'}` +
      `${settings.mqtt ? `; MQTT ${settings.mqtt.topics.join(', ')}` : ''}`,
  );
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  say('stopping: finishing in-flight deliveries');
  await Promise.all([gateway.close(), mqtt?.close(), metricsServer?.close()]);
  await connection.close();
  say('stopped');
}
