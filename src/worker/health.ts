/**
 * Health endpoints of a worker process (`--health-port` / SWFLOW_HEALTH_PORT), for Kubernetes
 * probes and load balancers:
 *
 *   GET /healthz   200 while the process answers and none of its workers has failed (liveness)
 *   GET /readyz    200 while every worker is RUNNING (polling its task queue) and the Temporal
 *                  server answers within 2 s; 503 with the reason otherwise — before the workers
 *                  start, while they drain after SIGTERM, when the server is unreachable
 *
 * Its own small server rather than the metrics one: metrics are optional and often scraped on a
 * port that probes should not depend on. Listens on 127.0.0.1 unless SWFLOW_HEALTH_HOST says
 * otherwise (the Helm chart sets 0.0.0.0).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NativeConnection, Worker } from '@temporalio/worker';

export interface HealthServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface HealthSources {
  /** The process's workers (read at each probe: they may not exist yet). */
  workers: () => Worker[];
  /** Their connection, pinged by /readyz; absent: no ping. */
  connection?: () => NativeConnection | undefined;
  /** How long /readyz waits for the server (default 2 s). */
  pingTimeoutMs?: number;
}

/** The port of `--health-port`, else SWFLOW_HEALTH_PORT, or undefined (off). A bad value names its source. */
export function healthPort(option?: string): number | undefined {
  const [raw, where] = option !== undefined ? [option, '--health-port'] : [process.env.SWFLOW_HEALTH_PORT, 'SWFLOW_HEALTH_PORT'];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${where} must be a port number (0-65535), not "${raw}"`);
  return port;
}

/** What /readyz answers: ok, or why not. */
export async function readiness(sources: HealthSources): Promise<{ ok: boolean; reason?: string; states: string[] }> {
  const workers = sources.workers();
  const states = workers.map((w) => w.getState());
  if (workers.length === 0) return { ok: false, reason: 'the workers have not started yet', states };
  const notRunning = states.filter((s) => s !== 'RUNNING');
  if (notRunning.length) return { ok: false, reason: `worker state ${notRunning.join(', ')}`, states };
  const connection = sources.connection?.();
  if (connection) {
    const timeout = sources.pingTimeoutMs ?? 2_000;
    try {
      await connection.withDeadline(Date.now() + timeout, () => connection.workflowService.getSystemInfo({}));
    } catch (err) {
      return { ok: false, reason: `the Temporal server did not answer within ${timeout} ms: ${(err as Error).message}`, states };
    }
  }
  return { ok: true, states };
}

/** Serves /healthz and /readyz on `port` (0: any free port). */
export async function startHealthServer(port: number, sources: HealthSources, host = process.env.SWFLOW_HEALTH_HOST ?? '127.0.0.1'): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, body: unknown) => {
      const json = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) }).end(json);
    };
    if (req.method !== 'GET') return reply(405, { error: 'GET /healthz or /readyz' });
    if (path === '/healthz') {
      const states = sources.workers().map((w) => w.getState());
      const failed = states.includes('FAILED');
      return reply(failed ? 503 : 200, { ok: !failed, states });
    }
    if (path === '/readyz') {
      void readiness(sources).then(
        (r) => reply(r.ok ? 200 : 503, r.ok ? { ok: true, states: r.states } : { ok: false, error: r.reason, states: r.states }),
        (err) => reply(503, { ok: false, error: (err as Error).message }),
      );
      return;
    }
    reply(404, { error: `nothing at ${path}: GET /healthz or /readyz` });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(new Error(`the health endpoint cannot listen on ${host}:${port} (${err.message}); choose another with --health-port`)));
    server.listen(port, host, resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections?.(); }),
  };
}

/** Starts the health server when a port is given (`--health-port`, else SWFLOW_HEALTH_PORT); else nothing. */
export async function serveHealthIf(option: string | undefined, sources: HealthSources, log: (msg: string) => void): Promise<HealthServer | undefined> {
  const port = healthPort(option);
  if (port === undefined) return undefined;
  const server = await startHealthServer(port, sources);
  log(`health at ${server.url}/healthz and ${server.url}/readyz`);
  return server;
}
