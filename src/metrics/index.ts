/**
 * Prometheus metrics of a swflow process (`--metrics-port` / SWFLOW_METRICS_PORT): one prom-client
 * registry per process and one `/metrics` endpoint serving it together with the Temporal Core
 * runtime's own metrics (Core exports them on a loopback port of its own, scraped and re-served
 * here). Off by default: nothing is created, the hooks below are single `undefined` checks.
 *
 * swflow's metrics are recorded on the Node side only: workflow code cannot call prom-client, so
 * the interpreter reports runs and steps through the `swflow.metrics` workflow sink (./sink.ts),
 * calls are measured by an activity interceptor (./interceptor.ts), the gateway and the
 * definition registry call the hooks here. Labels are bounded: definition id and version, step
 * type, function name, error code, status — never workflow ids or data.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { temporalLogger } from '../tracing/log';
import { registerCallsInFlight } from './in-flight';
import { registerAdmissionMetrics } from '../gateway/admission';

export interface SwflowMetrics {
  readonly registry: Registry;
  runsStarted: Counter<'definition' | 'version'>;
  runsEnded: Counter<'definition' | 'version' | 'status'>;
  stepDuration: Histogram<'definition' | 'version' | 'type' | 'status'>;
  callDuration: Histogram<'definition' | 'function' | 'outcome'>;
  callErrors: Counter<'definition' | 'function' | 'code'>;
  callRetries: Counter<'definition' | 'function'>;
  retries: Counter<'definition' | 'version' | 'target'>;
  gatewayEvents: Counter<'transport' | 'outcome' | 'status'>;
  kafkaConsumed: Counter<'topic' | 'outcome'>;
  kafkaDeadLettered: Counter<'topic' | 'reason'>;
  kafkaLag: Gauge<'topic' | 'partition'>;
  eventsProduced: Counter<'sink' | 'outcome'>;
  scheduleTriggers: Counter<'definition' | 'version'>;
  payloadsStored: Counter<'store' | 'outcome'>;
  payloadBytesStored: Counter<'store'>;
  payloadBytesRetrieved: Counter<'store'>;
  definitionsLoaded: Gauge;
  definitionsRejected: Gauge;
}

let current: SwflowMetrics | undefined;

/** The process's metrics, when they are on. */
export function metrics(): SwflowMetrics | undefined {
  return current;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** Creates the process's registry and metrics (once; later calls return the same). */
export function enableMetrics(): SwflowMetrics {
  if (current) return current;
  // Loaded only when metrics are on: off, a process never loads prom-client.
  const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = require('prom-client') as typeof import('prom-client');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'swflow_' });
  const r = [registry];
  current = {
    registry,
    runsStarted: new Counter({ name: 'swflow_runs_started_total', help: 'Workflow runs started (a continue-as-new chain counts once), by definition id and version', labelNames: ['definition', 'version'], registers: r }),
    runsEnded: new Counter({ name: 'swflow_runs_ended_total', help: 'Workflow runs ended, by definition id, version and status (completed, failed, cancelled)', labelNames: ['definition', 'version', 'status'], registers: r }),
    stepDuration: new Histogram({ name: 'swflow_step_duration_seconds', help: 'Duration of states (0.8) and tasks (1.0) in workflow time, by definition, version, state/task type and status (done, failed, compensated)', labelNames: ['definition', 'version', 'type', 'status'], buckets: DURATION_BUCKETS, registers: r }),
    callDuration: new Histogram({ name: 'swflow_function_call_duration_seconds', help: 'Latency of function call attempts (activities), by definition, function name and outcome (ok, error)', labelNames: ['definition', 'function', 'outcome'], buckets: DURATION_BUCKETS, registers: r }),
    callErrors: new Counter({ name: 'swflow_function_call_errors_total', help: 'Failed function call attempts, by definition, function name and error code', labelNames: ['definition', 'function', 'code'], registers: r }),
    callRetries: new Counter({ name: 'swflow_function_call_retries_total', help: 'Function call attempts after the first (retries), by definition and function name', labelNames: ['definition', 'function'], registers: r }),
    retries: new Counter({ name: 'swflow_retries_total', help: 'Retries the interpreter makes after a timer, by definition, version and target (a 0.8 action\'s function or subflow, a 1.0 try task)', labelNames: ['definition', 'version', 'target'], registers: r }),
    gatewayEvents: new Counter({ name: 'swflow_gateway_events_total', help: 'CloudEvents the gateway accepted or rejected, by transport (http, mqtt), outcome and HTTP status (the reason; MQTT messages get the status an HTTP request would)', labelNames: ['transport', 'outcome', 'status'], registers: r }),
    kafkaConsumed: new Counter({ name: 'swflow_kafka_consumed_total', help: 'Kafka records the gateway consumed, by topic and outcome (accepted, dead-lettered)', labelNames: ['topic', 'outcome'], registers: r }),
    kafkaDeadLettered: new Counter({ name: 'swflow_kafka_dead_lettered_total', help: 'Kafka records the gateway wrote to the dead-letter topic, by source topic and reason (invalid, unrouted, refused)', labelNames: ['topic', 'reason'], registers: r }),
    kafkaLag: new Gauge({ name: 'swflow_kafka_consumer_lag', help: 'Records not yet consumed by the gateway\'s consumer group, by topic and partition (high watermark minus the next offset)', labelNames: ['topic', 'partition'], registers: r }),
    eventsProduced: new Counter({ name: 'swflow_events_produced_total', help: 'Produced and lifecycle CloudEvents handed to an event sink, by sink kind (http, kafka) and outcome (ok, error)', labelNames: ['sink', 'outcome'], registers: r }),
    payloadsStored: new Counter({ name: 'swflow_payloads_stored_total', help: 'Payloads over the threshold handed to the payload store, by store kind and outcome (written; present: the same content was there already)', labelNames: ['store', 'outcome'], registers: r }),
    payloadBytesStored: new Counter({ name: 'swflow_payload_bytes_stored_total', help: 'Bytes written to the payload store (new content only), by store kind', labelNames: ['store'], registers: r }),
    payloadBytesRetrieved: new Counter({ name: 'swflow_payload_bytes_retrieved_total', help: 'Bytes read back from the payload store, by store kind', labelNames: ['store'], registers: r }),
    scheduleTriggers: new Counter({ name: 'swflow_schedule_triggers_total', help: 'Runs a Temporal Schedule started (start.schedule cron / every), by definition id and version', labelNames: ['definition', 'version'], registers: r }),
    definitionsLoaded: new Gauge({ name: 'swflow_definitions_loaded', help: 'Definitions the registry loaded at its last scan', registers: r }),
    definitionsRejected: new Gauge({ name: 'swflow_definitions_rejected', help: 'Definition files the registry could not load at its last scan', registers: r }),
  };
  registerCallsInFlight(registry, Gauge);
  registerAdmissionMetrics(registry, Gauge, Counter);
  return current;
}

/**
 * The metrics port of the command line (`--metrics-port`) or of SWFLOW_METRICS_PORT, or undefined
 * (metrics off). A bad value is an error that says where it came from.
 */
export function metricsPort(option?: string): number | undefined {
  const [raw, where] = option !== undefined ? [option, '--metrics-port'] : [process.env.SWFLOW_METRICS_PORT, 'SWFLOW_METRICS_PORT'];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${where} must be a port number (0-65535), not "${raw}"`);
  return port;
}

/**
 * Installs the Temporal Core runtime with its Prometheus exporter on a free loopback port; returns
 * that port, or a note saying why not (the runtime was already installed: Runtime.install works
 * once per process, before any worker or connection). Call it before anything touches the Runtime.
 */
export async function installCoreMetrics(opts: { logger?: import('@temporalio/worker').Logger } = {}): Promise<{ port?: number; note?: string }> {
  const port = await freePort();
  try {
    // Loaded here: the gateway and the registry use this module without a worker runtime.
    const { Runtime } = require('@temporalio/worker') as typeof import('@temporalio/worker');
    // JSON logs (--log-format json): the runtime logs through the process's JSON logger.
    const logger = opts.logger ?? temporalLogger();
    Runtime.install({ ...(logger ? { logger } : {}), telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } } } });
    return { port };
  } catch (err) {
    return { note: `Temporal Core metrics are not served: ${(err as Error).message}` };
  }
}

export interface MetricsServer {
  url: string;
  port: number;
  /** Core's own exporter, when installed by this process. */
  corePort?: number;
  close(): Promise<void>;
}

/**
 * Turns metrics on and serves them: GET /metrics answers swflow's metrics followed by Core's
 * (scraped from its exporter at each request). `corePort`: from {@link installCoreMetrics}.
 */
export async function startMetricsServer(opts: { port: number; host?: string; corePort?: number }): Promise<MetricsServer> {
  const m = enableMetrics();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('GET /metrics\n');
      return;
    }
    void (async () => {
      try {
        const own = await m.registry.metrics();
        const core = opts.corePort ? await scrapeCore(opts.corePort) : '';
        res.writeHead(200, { 'content-type': m.registry.contentType }).end(`${own}\n${core}`);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(err as Error).message}\n`);
      }
    })();
  });
  const host = opts.host ?? process.env.SWFLOW_METRICS_HOST ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`the metrics endpoint cannot listen on ${host}:${opts.port} (${err.message}); choose another with --metrics-port`)));
    server.listen(opts.port, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}/metrics`,
    port,
    corePort: opts.corePort,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * What the swflow commands call first: with a port (`--metrics-port`, else SWFLOW_METRICS_PORT),
 * installs Core's exporter and serves /metrics; without one, nothing.
 */
export async function serveMetricsIf(option: string | undefined, log: (msg: string) => void, opts: { core?: boolean } = {}): Promise<MetricsServer | undefined> {
  const port = metricsPort(option);
  if (port === undefined) return undefined;
  // The gateway runs no Core runtime (its client is pure JS): nothing of Core's to serve there.
  const core = opts.core === false ? {} : await installCoreMetrics();
  if (core.note) log(core.note);
  const server = await startMetricsServer({ port, corePort: core.port });
  log(`Prometheus metrics at ${server.url}`);
  return server;
}

async function scrapeCore(port: number): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) });
    return res.ok ? await res.text() : `# Temporal Core metrics: HTTP ${res.status}\n`;
  } catch (err) {
    return `# Temporal Core metrics unavailable: ${(err as Error).message}\n`;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
