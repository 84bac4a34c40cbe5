/**
 * A real multi-process Temporal cluster on this machine, for tests, benchmarks and trying things
 * out (`swflow cluster`): Debian's PostgreSQL (one server, the `temporal` and
 * `temporal_visibility` databases, schemas from the server's own module), SQL visibility, several
 * history shards, and the Temporal server split into processes that find each other through the
 * cluster_membership table (ringpop on 127.0.0.1):
 *
 *   process "a": frontend + history
 *   process "b": history + matching + worker
 *
 * so history shards are spread over two processes and every call between services crosses a
 * process boundary. Each process can be killed (kill -9) and started again.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { resolveTemporalServer } from './temporal-server-binary';
import { setupNamespace } from './setup';

const run = promisify(execFile);

export type TemporalService = 'frontend' | 'history' | 'matching' | 'worker';

/** The default layout: two processes, history on both. */
export const DEFAULT_LAYOUT: Record<string, TemporalService[]> = {
  a: ['frontend', 'history'],
  b: ['history', 'matching', 'worker'],
};

export interface ClusterOptions {
  /** Where PostgreSQL's data and the servers' configs go (default: a new folder in the temp dir). */
  dir?: string;
  historyShards?: number;
  layout?: Record<string, TemporalService[]>;
  /** Namespaces to create with swflow's search attributes (default ["default"]). */
  namespaces?: string[];
  /** PostgreSQL without fsync: for tests, where the database's durability is not under test. */
  fastDisk?: boolean;
  log?: (msg: string) => void;
}

export interface ServerProcess {
  name: string;
  services: TemporalService[];
  child: ChildProcess;
  /** The last lines it wrote, for error messages. */
  tail: string[];
}

export interface Cluster {
  /** The frontend's gRPC address. */
  address: string;
  dir: string;
  postgres: { host: string; port: number; user: string; psql: string };
  processes: Map<string, ServerProcess>;
  /** Runs SQL on one of the databases and returns psql's unaligned output. */
  sql(database: 'temporal' | 'temporal_visibility', query: string): Promise<string>;
  /** kill -9 of one server process. */
  kill(name: string): void;
  /** Starts a (killed) server process again. */
  restart(name: string): Promise<void>;
  stop(): Promise<void>;
}

function canListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

/** Ports this process has handed out: free when checked, but not bound until a server starts. */
const handedOut = new Set<number>();

/**
 * A free port on 127.0.0.1. Below 32768: the SQL schema stores membership ports as smallint, and
 * below Linux's ephemeral range, so a port stays free between this check and the server's bind.
 * Never the same port twice in one process: a cluster asks for a dozen before any is bound, and a
 * random pick could repeat one (process b then failed with "address already in use").
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(candidate)) continue;
    const port = await canListen(candidate);
    if (port !== undefined) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('No free port between 20000 and 32000 on 127.0.0.1');
}

/** Debian installs each PostgreSQL major under /usr/lib/postgresql/<n>/bin; the newest wins. */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  if (!versions.length) {
    throw new Error('No PostgreSQL server found under /usr/lib/postgresql: install it (Debian: apt-get install -y postgresql).');
  }
  return join(root, versions.sort((x, y) => Number(y) - Number(x))[0], 'bin');
}

/** PostgreSQL refuses to run as root: as root, run its programs as the `postgres` user. */
export function asPostgresUser(cmd: string, args: string[]): [string, string[]] {
  return userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

async function runChecked(what: string, cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await run(cmd, args, { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${what} failed: ${(e.stderr || e.stdout || e.message).trim()}`);
  }
}

interface Ports {
  grpc: number;
  membership: number;
}

function serverConfig(o: {
  pgPort: number;
  shards: number;
  frontend: Ports & { http: number };
  history: Ports;
  matching: Ports;
  worker: Ports;
  dynamicConfigFile: string;
}): string {
  const store = (db: string, conns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${db}
        connectAddr: "127.0.0.1:${o.pgPort}"
        connectProtocol: tcp
        user: temporal
        password: ""
        maxConns: ${conns}
        maxIdleConns: ${conns}
        maxConnLifetime: 1h`;
  const service = (name: string, p: Ports, extra = '') => `
  ${name}:
    rpc:
      grpcPort: ${p.grpc}
      membershipPort: ${p.membership}
      bindOnIP: 127.0.0.1${extra}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: ${o.shards}
  datastores:
    default:${store('temporal', 20)}
    visibility:${store('temporal_visibility', 10)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:${service('frontend', o.frontend, `\n      httpPort: ${o.frontend.http}`)}${service('history', o.history)}${service('matching', o.matching)}${service('worker', o.worker)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: 127.0.0.1:${o.frontend.grpc}
dcRedirectionPolicy:
  policy: noop
publicClient:
  hostPort: 127.0.0.1:${o.frontend.grpc}
dynamicConfigClient:
  filepath: ${o.dynamicConfigFile}
  pollInterval: 10s
`;
}

/**
 * Dynamic config of the cluster. Namespaces and search attributes are picked up in about a second
 * (not the default 10 s), so a namespace created by `swflow setup` is usable at once.
 */
const DYNAMIC_CONFIG = `system.namespaceCacheRefreshInterval:
  - value: 1s
system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
`;

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const log = opts.log ?? (() => {});
  const layout = opts.layout ?? DEFAULT_LAYOUT;
  const shards = opts.historyShards ?? 4;
  const bins = await resolveTemporalServer(log);
  const pgBin = postgresBinDir();
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'swflow-cluster-'));
  mkdirSync(dir, { recursive: true });
  const pgData = join(dir, 'pgdata');
  const root = userInfo().uid === 0;
  if (root) await runChecked('chown', 'chown', ['postgres', dir]);

  // PostgreSQL: one server on a free port, trust auth on loopback, superuser "temporal".
  const pgPort = await freePort();
  if (!existsSync(join(pgData, 'PG_VERSION'))) {
    await runChecked('initdb', ...asPostgresUser(join(pgBin, 'initdb'), ['-D', pgData, '-U', 'temporal', '--auth=trust', '-E', 'UTF8', '--no-sync']));
  }
  const pgSettings = [
    '-p', String(pgPort), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300',
    ...(opts.fastDisk ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
  ];
  await runChecked('pg_ctl start', ...asPostgresUser(join(pgBin, 'pg_ctl'), ['-D', pgData, '-l', join(dir, 'postgres.log'), '-w', '-o', pgSettings.join(' '), 'start']));
  const psql = join(pgBin, 'psql');
  const stopPostgres = () => runChecked('pg_ctl stop', ...asPostgresUser(join(pgBin, 'pg_ctl'), ['-D', pgData, '-m', 'fast', '-w', 'stop'])).catch(() => '');
  const processes = new Map<string, ServerProcess>();

  const sql = (database: string, query: string) =>
    runChecked(`psql ${database}`, psql, ['-h', '127.0.0.1', '-p', String(pgPort), '-U', 'temporal', '-d', database, '-At', '-v', 'ON_ERROR_STOP=1', '-c', query]);

  try {
    // Schemas: the SQL tool's versioned schema folders of the same server module.
    const tool = (db: string, ...args: string[]) =>
      runChecked(`temporal-sql-tool ${args[0]} (${db})`, bins.sqlTool, ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(pgPort), '-u', 'temporal', '--db', db, ...args]);
    for (const [db, schema] of [['temporal', 'temporal'], ['temporal_visibility', 'visibility']] as const) {
      const exists = (await sql('postgres', `SELECT 1 FROM pg_database WHERE datname = '${db}'`)).trim() === '1';
      if (!exists) {
        await tool(db, 'create-database');
        await tool(db, 'setup-schema', '-v', '0.0');
      }
      await tool(db, 'update-schema', '-d', join(bins.postgresSchemaDir, schema, 'versioned'));
    }

    // One config per process: every process names all four services (the config requires it), with
    // its own ports for the services it runs; the frontend's ports are the same everywhere.
    const frontend = { grpc: await freePort(), membership: await freePort(), http: await freePort() };
    const dynamicConfigFile = join(dir, 'dynamicconfig.yaml');
    writeFileSync(dynamicConfigFile, DYNAMIC_CONFIG);
    const specs = new Map<string, { services: TemporalService[]; configDir: string }>();
    const shared = { matching: { grpc: await freePort(), membership: await freePort() }, worker: { grpc: await freePort(), membership: await freePort() } };
    for (const [name, services] of Object.entries(layout)) {
      const configDir = join(dir, `config-${name}`);
      mkdirSync(configDir, { recursive: true });
      const history = { grpc: await freePort(), membership: await freePort() };
      writeFileSync(join(configDir, 'development.yaml'), serverConfig({ pgPort, shards, frontend, history, ...shared, dynamicConfigFile }));
      specs.set(name, { services, configDir });
    }

    const launch = (name: string) => {
      const spec = specs.get(name)!;
      const child = spawn(
        bins.server,
        ['--root', '/', '--config', spec.configDir, '--env', 'development', '--allow-no-auth', 'start', ...spec.services.flatMap((s) => ['--service', s])],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const proc: ServerProcess = { name, services: spec.services, child, tail: [] };
      const onData = (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) {
          if (!line.trim()) continue;
          proc.tail.push(line);
          if (proc.tail.length > 40) proc.tail.shift();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      processes.set(name, proc);
      return proc;
    };

    const address = `127.0.0.1:${frontend.grpc}`;
    const totalServices = [...specs.values()].reduce((n, s) => n + s.services.length, 0);
    /** Every service of every process has joined the ring (heartbeats in cluster_membership). */
    const waitForMembers = async () => {
      const deadline = Date.now() + 90_000;
      for (;;) {
        const alive = Number(await sql('temporal', `SELECT count(DISTINCT (role, rpc_port)) FROM cluster_membership WHERE last_heartbeat > now() - interval '10 seconds'`));
        if (alive >= totalServices) return;
        for (const p of processes.values()) {
          if (p.child.exitCode !== null) throw new Error(`Temporal server process ${p.name} exited at start:\n${p.tail.join('\n')}`);
        }
        if (Date.now() > deadline) throw new Error(`Only ${alive} of ${totalServices} Temporal services joined within 90 s`);
        await sleep(250);
      }
    };
    const waitForFrontend = async () => {
      const deadline = Date.now() + 90_000;
      for (;;) {
        for (const p of processes.values()) {
          if (p.child.exitCode !== null || p.child.signalCode !== null) {
            if (p.child.signalCode === 'SIGKILL') continue;
            throw new Error(`Temporal server process ${p.name} (${p.services.join(', ')}) exited at start:\n${p.tail.join('\n')}`);
          }
        }
        let connection: Connection | undefined;
        try {
          connection = await Connection.connect({ address, connectTimeout: 1000 });
          // The system namespace answers once the frontend has read the namespaces from the database.
          await connection.workflowService.describeNamespace({ namespace: 'temporal-system' });
          return;
        } catch {
          if (Date.now() > deadline) {
            throw new Error(`The Temporal frontend did not answer on ${address} within 90 s:\n${[...processes.values()].map((p) => `[${p.name}] ${p.tail.slice(-10).join('\n')}`).join('\n')}`);
          }
        } finally {
          await connection?.close().catch(() => {});
        }
        await sleep(250);
      }
    };

    // The first process writes the cluster's metadata: started together, two would race on it.
    const [first, ...rest] = [...specs.keys()];
    launch(first);
    await waitForFrontend();
    for (const name of rest) launch(name);
    await waitForMembers();
    log(`Temporal cluster on ${address}: ${[...specs].map(([n, s]) => `${n}=${s.services.join('+')}`).join(', ')}, ${shards} history shards, PostgreSQL on 127.0.0.1:${pgPort}`);

    const connection = await Connection.connect({ address });
    try {
      for (const namespace of opts.namespaces ?? ['default']) await setupNamespace(connection, { namespace, retentionDays: 1, timeoutMs: 90_000 });
    } finally {
      await connection.close();
    }

    const stopProcess = async (p: ServerProcess) => {
      if (p.child.exitCode !== null || p.child.signalCode !== null) return;
      const gone = new Promise((resolve) => p.child.once('exit', resolve));
      p.child.kill('SIGTERM');
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    };

    return {
      address,
      dir,
      postgres: { host: '127.0.0.1', port: pgPort, user: 'temporal', psql },
      processes,
      sql,
      kill(name) {
        const p = processes.get(name);
        if (!p) throw new Error(`No Temporal server process ${name} (have ${[...processes.keys()].join(', ')})`);
        p.child.kill('SIGKILL');
      },
      async restart(name) {
        const p = processes.get(name);
        if (!p) throw new Error(`No Temporal server process ${name}`);
        if (p.child.exitCode === null && p.child.signalCode === null) {
          await new Promise((resolve) => p.child.once('exit', resolve));
        }
        launch(name);
        await waitForFrontend();
      },
      async stop() {
        await Promise.all([...processes.values()].map(stopProcess));
        await stopPostgres();
        if (!opts.dir) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    for (const p of processes.values()) p.child.kill('SIGKILL');
    await stopPostgres();
    if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** `true` when this machine can run the cluster (PostgreSQL and Go present), without building anything. */
export function clusterPrerequisites(): string | undefined {
  try {
    postgresBinDir();
  } catch (err) {
    return (err as Error).message;
  }
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status !== 0) return 'Go is not installed (it builds the Temporal server).';
  return undefined;
}
