/**
 * The embedded Temporal dev server for `swflow start`: the real Temporal CLI's
 * `server start-dev`, persisting to a SQLite file under the project's data folder so runs
 * survive restarts, with the Web UI and swflow's search attributes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dataDir } from './paths';
import { searchAttributeFlags } from './search-attributes';

/**
 * Dynamic config every swflow dev server runs with. The dev server has one history shard, and
 * each shard loads its transfer queue (the tasks that hand workflow and activity tasks to
 * matching) at most `transferProcessorMaxPollRPS` times a second, 20 by default: that made
 * every dispatch wait ~40 ms (`task_latency_load` in the server's metrics), ~100 ms per
 * sequential activity call. Loads are still triggered by new tasks, so the higher cap costs
 * nothing when idle. A cluster has many shards and keeps its own settings.
 */
export const devServerDynamicConfig: Record<string, number | boolean> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxPollRPS': 1000,
  // Eager activity execution: an activity scheduled on the workflow's own queue by a worker that
  // can run it comes back in the workflow task's answer (feature eager-calls), no matching round trip.
  'system.enableActivityEagerExecution': true,
};

export function devServerTuningFlags(): string[] {
  return Object.entries(devServerDynamicConfig).flatMap(([k, v]) => ['--dynamic-config-value', `${k}=${v}`]);
}

/**
 * A throw-away dev server (in-memory SQLite) through the SDK's test environment, with swflow's
 * search attributes and tuning: for tests, `swflow run` and `swflow test` without Java.
 */
export async function createLocalEnv(log?: (m: string) => void): Promise<import('@temporalio/testing').TestWorkflowEnvironment> {
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  const { resolveTemporalCli } = await import('./temporal-binary');
  const { searchAttributeKeys } = await import('./search-attributes');
  const cli = await resolveTemporalCli(log);
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: 'existing-path', path: cli.path } : { type: 'cached-download' },
      searchAttributes: searchAttributeKeys,
      extraArgs: devServerTuningFlags(),
      log: { format: 'pretty', level: 'error' },
    },
  });
}

export interface DevServerOptions {
  binary: string;
  /** The interface it listens on (default 127.0.0.1; 0.0.0.0 in a container, to publish its ports). */
  ip?: string;
  port?: number;
  uiPort?: number;
  dbFile?: string;
  namespace?: string;
  /** More `temporal server start-dev` flags (e.g. `--dynamic-config-value k=v`). */
  extraArgs?: string[];
  /** Where the server's own log lines go (default: dropped; errors are reported on exit). */
  log?: (line: string) => void;
}

export interface DevServer {
  address: string;
  uiUrl: string;
  dbFile: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Ready = the frontend answers for the namespace (an open port alone is not enough). */
async function namespaceReady(address: string, namespace: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1000 });
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => {});
  }
}

export async function startDevServer(opts: DevServerOptions): Promise<DevServer> {
  const ip = opts.ip ?? '127.0.0.1';
  // Listening on every interface, it is reached through the loopback one.
  const host = ip === '0.0.0.0' || ip === '::' ? '127.0.0.1' : ip;
  const port = opts.port ?? 7233;
  const uiPort = opts.uiPort ?? 8233;
  const dbFile = opts.dbFile ?? join(dataDir(), 'temporal.sqlite');
  mkdirSync(join(dbFile, '..'), { recursive: true });

  if (await portOpen(host, port)) {
    throw new Error(
      `Port ${port} on ${host} is already in use (another Temporal server?). ` +
        `Stop it, or use it with TEMPORAL_ADDRESS=${host}:${port} npm start.`,
    );
  }

  const args = [
    'server', 'start-dev',
    '--ip', ip,
    '--port', String(port),
    '--ui-port', String(uiPort),
    '--db-filename', dbFile,
    '--namespace', opts.namespace ?? 'default',
    '--log-level', 'warn',
    ...searchAttributeFlags(),
    ...devServerTuningFlags(),
    ...(opts.extraArgs ?? []),
  ];
  const child = spawn(opts.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      opts.log?.(line);
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);

  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 60_000;
  while (!(await namespaceReady(`${host}:${port}`, opts.namespace ?? 'default'))) {
    if (exited) throw new Error(`The Temporal dev server exited at start:\n${tail.join('\n')}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The Temporal dev server did not listen on ${ip}:${port} within 60 s:\n${tail.join('\n')}`);
    }
    await sleep(100);
  }

  return {
    address: `${host}:${port}`,
    uiUrl: `http://localhost:${uiPort}`,
    dbFile,
    process: child,
    async stop() {
      if (exited) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
