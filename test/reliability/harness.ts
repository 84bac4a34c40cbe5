/**
 * The reliability suite's pieces: swflow's processes as real CLI processes (`swflow worker`,
 * `swflow adapters`, ...), a dev server on a SQLite file and a fixed (free) port so that it can be
 * killed and started again, a counting HTTP service, and the looping definitions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startDevServer, type DevServer } from '../../src/platform/dev-server';
import { resolveTemporalCli } from '../../src/platform/temporal-binary';
import { freePort } from '../helpers/ports';

const ROOT = resolve(__dirname, '..', '..');
export const SOAK = process.env.SWFLOW_SOAK === '1';

/** A `swflow <args>` process against `address`; `ready` once its output matches `readyWhen`. */
export class SwflowProcess {
  readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: string[], address: string, env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, [join(ROOT, 'bin', 'swflow.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d) => (this.output += d));
    this.child.stderr!.on('data', (d) => (this.output += d));
    this.exited = new Promise((r) => this.child.once('exit', (code, signal) => r({ code, signal })));
  }

  async ready(readyWhen: RegExp, timeoutMs = 60_000): Promise<this> {
    const deadline = Date.now() + timeoutMs;
    while (!readyWhen.test(this.output)) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`swflow exited before it was ready:\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`swflow not ready within ${timeoutMs} ms:\n${this.output}`);
      await delay(50);
    }
    return this;
  }

  /** Sends `signal`; its exit. */
  async stop(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

export const SERVING = /serving task queue/;

/** `swflow worker` (the interpreter) serving the definitions of `dir`. */
export const startWorker = (address: string, dir: string) => new SwflowProcess(['worker', '--definitions', dir, '--no-schedules'], address).ready(SERVING);
/** `swflow adapters` (the built-in adapters). */
export const startAdapters = (address: string, dir: string) => new SwflowProcess(['adapters', '--definitions', dir], address).ready(SERVING);

/** A dev server on a SQLite file and a free port: {@link restart} brings it back on both. */
export class RestartableServer {
  server!: DevServer;
  private constructor(
    readonly port: number,
    readonly uiPort: number,
    readonly dbFile: string,
    private readonly binary: string,
  ) {}

  static async start(): Promise<RestartableServer> {
    const cli = await resolveTemporalCli();
    if (!cli) throw new Error('no Temporal CLI');
    const dir = mkdtempSync(join(tmpdir(), 'swflow-rel-db-'));
    const s = new RestartableServer(await freePort(), await freePort(), join(dir, 'temporal.sqlite'), cli.path);
    await s.restart();
    return s;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    this.server = await startDevServer({ binary: this.binary, port: this.port, uiPort: this.uiPort, dbFile: this.dbFile });
  }

  async kill9(): Promise<void> {
    const gone = new Promise((r) => this.server.process.once('exit', r));
    this.server.process.kill('SIGKILL');
    await gone;
  }
}

/** A service that counts the calls per instance id (POST /hit {id}) and answers after `latencyMs`. */
export class CountingService {
  readonly hits = new Map<string, number>();
  latencyMs = 100;
  port = 0;
  private server!: Server;

  async start(): Promise<void> {
    this.port = await freePort();
    this.server = createServer(async (req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET') return void res.end(JSON.stringify(this.openapi()));
      let body = '';
      for await (const chunk of req) body += chunk;
      const id = String(JSON.parse(body || '{}').id);
      const n = (this.hits.get(id) ?? 0) + 1;
      this.hits.set(id, n);
      await delay(this.latencyMs);
      res.end(JSON.stringify({ n }));
    });
    await new Promise<void>((r) => this.server.listen(this.port, '127.0.0.1', r));
  }

  get total(): number {
    let t = 0;
    for (const n of this.hits.values()) t += n;
    return t;
  }

  private openapi() {
    return {
      openapi: '3.0.0',
      info: { title: 'counter', version: '1' },
      servers: [{ url: `http://127.0.0.1:${this.port}` }],
      paths: { '/hit': { post: { operationId: 'hit', requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '200': { description: 'counted' } } } } },
    };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** How many times each instance goes round its loop. */
export const LOOPS = 3;

/**
 * A loop of LOOPS rounds: a call of the counting service, then a short timer. `retries`: the
 * call declares a retry strategy; else none (the spec default, and the platform's own repeats).
 */
export function loopDefinition(id: string, service: CountingService, retries: boolean): object {
  return {
    id,
    version: '1.0',
    specVersion: '0.8',
    start: 'Check',
    // A short heartbeat timeout: a call whose adapter process was killed is noticed in 3 s, not 30.
    functions: [{ name: 'hit', operation: `http://127.0.0.1:${service.port}/openapi.json#hit`, metadata: { 'swflow.heartbeat': 'PT3S' } }],
    ...(retries ? { retries: [{ name: 'again', delay: 'PT0.2S', maxAttempts: 20 }], autoRetries: false } : {}),
    states: [
      { name: 'Check', type: 'switch', dataConditions: [{ condition: `\${ .i >= ${LOOPS} }`, end: true }], defaultCondition: { transition: 'Call' } },
      {
        name: 'Call',
        type: 'operation',
        actions: [{ name: 'count', functionRef: { refName: 'hit', arguments: { id: '${ .id }', i: '${ .i }' } }, actionDataFilter: { results: '${ .n }', toStateData: '${ .last }' }, ...(retries ? { retryRef: 'again' } : {}) }],
        transition: 'Nap',
      },
      { name: 'Nap', type: 'sleep', duration: 'PT0.3S', stateDataFilter: { output: '${ .i += 1 }' }, transition: 'Check' },
    ],
  };
}

/** A folder with these definitions, for `swflow worker --definitions`. */
export function definitionsDir(defs: Record<string, object>): string {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-rel-defs-'));
  mkdirSync(dir, { recursive: true });
  for (const [name, d] of Object.entries(defs)) writeFileSync(join(dir, `${name}.sw.json`), JSON.stringify(d, null, 2));
  return dir;
}
