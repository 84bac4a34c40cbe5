/**
 * A real AMQP 0-9-1 broker for tests: Debian's rabbitmq-server (installed by .ci/run), one node
 * per test file on free loopback ports, with its own node name, data and log directories, so it
 * neither needs nor disturbs a system broker. Its `guest`/`guest` user may connect from loopback.
 *
 *   const broker = await startAmqpBroker();
 *   ... amqplib.connect(broker.url) ...
 *   await broker.close();
 */
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports';

const run = promisify(execFile);
/** The scripts themselves (the /usr/sbin wrappers switch to the rabbitmq user and its home). */
const BIN = existsSync('/usr/lib/rabbitmq/bin/rabbitmq-server') ? '/usr/lib/rabbitmq/bin' : '/usr/sbin';

export interface AmqpBroker {
  /** `amqp://127.0.0.1:<port>` (no credentials: the client's own or guest). */
  url: string;
  port: number;
  /** The node name, for rabbitmqctl -n. */
  node: string;
  close(): Promise<void>;
}

/** Starts a node and waits until it serves (up to `timeoutMs`); its output is in the error if it does not. */
export async function startAmqpBroker(timeoutMs = 120_000): Promise<AmqpBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'swflow-rabbitmq-'));
  const port = await freePort();
  const dist = await freePort();
  const node = `swflow${port}@localhost`;
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  const env = {
    ...process.env,
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODENAME: node,
    RABBITMQ_DIST_PORT: String(dist),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_PID_FILE: join(dir, 'pid'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
  };
  let output = '';
  const server = spawn(join(BIN, 'rabbitmq-server'), [], { env, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout.on('data', (c) => (output = (output + c).slice(-4000)));
  server.stderr.on('data', (c) => (output = (output + c).slice(-4000)));
  let exited = false;
  server.once('exit', () => (exited = true));
  const ctl = (...args: string[]) => run(join(BIN, 'rabbitmqctl'), ['-n', node, ...args], { env, timeout: 60_000 });
  const stop = async () => {
    if (!exited) await ctl('stop').catch(() => server.kill('SIGKILL'));
    for (let i = 0; i < 50 && !exited; i++) await new Promise((r) => setTimeout(r, 100));
    if (!exited) server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  // await_startup fails at once while the node is not registered with epmd yet: asked again until it answers.
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await ctl('await_startup', '--timeout', '60');
      break;
    } catch (err) {
      if (exited || Date.now() > deadline) {
        await stop();
        throw new Error(`rabbitmq-server did not start (node ${node}, port ${port}): ${(err as Error).message}\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return { url: `amqp://127.0.0.1:${port}`, port, node, close: stop };
}
