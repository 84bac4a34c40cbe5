/**
 * A real Apache Kafka broker for tests: the `kafka_2.13` broker from Maven Central (resolved once
 * by Maven into its local repository; the class path is cached in .cache), run with the machine's
 * JDK in KRaft mode (no ZooKeeper), each node broker and controller at once, on free loopback
 * ports, with its own storage directory formatted here. One node per test file; three for a test
 * that stops one of them.
 *
 *   const kafka = await startKafka();            // or startKafka({ nodes: 3 })
 *   // startKafka({ sasl: { username, password } }) adds a SASL_PLAINTEXT listener (kafka.saslBrokers);
 *   // startKafka({ autoCreateTopics: false }) makes the broker refuse unknown topics.
 *   await kafka.createTopic('events', { partitions: 3 });
 *   ... new Producer({ bootstrapBrokers: kafka.brokers }) ...
 *   await kafka.stopNode(1); await kafka.startNode(1);
 *   await kafka.close();
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Admin } from '@platformatic/kafka';
import { cacheDir } from '../../src/platform/paths';
import { freePort } from './ports';

const run = promisify(execFile);
const POM = join(__dirname, 'kafka-broker', 'pom.xml');

export interface KafkaNode {
  id: number;
  /** `127.0.0.1:<port>`: the node's client listener. */
  broker: string;
  running(): boolean;
}

export interface KafkaCluster {
  /** Every node's client listener (bootstrap list). */
  brokers: string[];
  /** With `sasl`: every node's SASL_PLAINTEXT listener (SASL/PLAIN with the user given). */
  saslBrokers: string[];
  nodes: KafkaNode[];
  /** Creates a topic (replicated on every node, at most 3), and waits until it has leaders. */
  createTopic(name: string, opts?: { partitions?: number; replicas?: number; config?: Record<string, string> }): Promise<void>;
  /** Stops node `i` (0-based): SIGTERM, a controlled shutdown; `kill: true` for SIGKILL. */
  stopNode(i: number, opts?: { kill?: boolean }): Promise<void>;
  /** Starts node `i` again on its storage and ports. */
  startNode(i: number): Promise<void>;
  /** The last lines node `i` wrote (for a failure's message). */
  output(i: number): string;
  close(): Promise<void>;
}

/** Whether this machine can run the broker (a JDK of 17 or later, and Maven unless it is cached). */
export function kafkaAvailable(): { ok: true } | { ok: false; why: string } {
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).status !== 0) return { ok: false, why: 'no java on PATH (Kafka 4 needs a JDK 17+)' };
  if (!cachedClassPath() && spawnSync('mvn', ['-v'], { stdio: 'ignore' }).status !== 0) return { ok: false, why: 'no mvn on PATH to fetch org.apache.kafka:kafka_2.13' };
  return { ok: true };
}

function classPathFile(): string {
  return join(cacheDir(), 'kafka-broker.classpath');
}

function cachedClassPath(): string | undefined {
  const file = classPathFile();
  if (!existsSync(file)) return undefined;
  const cp = readFileSync(file, 'utf8').trim();
  return cp && cp.split(':').every((jar) => existsSync(jar)) ? cp : undefined;
}

/** The broker's class path: Maven resolves it once (~45 MB into ~/.m2), later runs read the cached list. */
export async function kafkaClassPath(): Promise<string> {
  const cached = cachedClassPath();
  if (cached) return cached;
  mkdirSync(cacheDir(), { recursive: true });
  const tmp = `${classPathFile()}.${process.pid}.tmp`;
  try {
    await run('mvn', ['-q', '-B', '-f', POM, 'dependency:build-classpath', `-Dmdep.outputFile=${tmp}`], { maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`Maven could not fetch org.apache.kafka:kafka_2.13 (${POM}): ${(e.stdout || e.stderr || e.message).trim().slice(-2000)}`);
  }
  renameSync(tmp, classPathFile()); // atomic: test files resolving at once each write a whole list
  return readFileSync(classPathFile(), 'utf8').trim();
}

const LOG4J = `status = error
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.out.ref = out
logger.server.name = kafka.server.KafkaRaftServer
logger.server.level = info
`;

interface NodeState {
  id: number;
  port: number;
  /** With `sasl`: the SASL_PLAINTEXT listener's port. */
  saslPort?: number;
  controllerPort: number;
  dir: string;
  process?: ChildProcess;
  exited: Promise<void>;
  output: string;
}

/**
 * Starts a KRaft cluster of `nodes` combined broker+controller nodes and waits until every node
 * serves. A port taken by another process between choosing it and binding it (other test files'
 * servers start at the same time) is not a failure: the cluster is started again on new ports.
 */
export async function startKafka(opts: StartOptions = {}): Promise<KafkaCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startKafkaOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !/Address already in use/.test((err as Error).message)) throw err;
    }
  }
}

type StartOptions = { nodes?: 1 | 3; partitions?: number; timeoutMs?: number; sasl?: { username: string; password: string }; autoCreateTopics?: boolean };

async function startKafkaOnce(opts: StartOptions): Promise<KafkaCluster> {
  const count = opts.nodes ?? 1;
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const classPath = await kafkaClassPath();
  const root = mkdtempSync(join(tmpdir(), 'swflow-kafka-'));
  const states: NodeState[] = [];
  for (let i = 0; i < count; i++) states.push({ id: i + 1, port: await freePort(), controllerPort: await freePort(), ...(opts.sasl ? { saslPort: await freePort() } : {}), dir: join(root, `node${i + 1}`), exited: Promise.resolve(), output: '' });
  // An additional SASL_PLAINTEXT listener (SASL/PLAIN, one user) beside the plain one; brokers talk PLAINTEXT among themselves.
  const jaas = (u: { username: string; password: string }) => `org.apache.kafka.common.security.plain.PlainLoginModule required username="${u.username}" password="${u.password}" user_${u.username}="${u.password}";`;
  const saslListener = (s: NodeState) => (s.saslPort !== undefined ? `,SASL_PLAINTEXT://127.0.0.1:${s.saslPort}` : '');
  const voters = states.map((s) => `${s.id}@127.0.0.1:${s.controllerPort}`).join(',');
  const replication = Math.min(3, count);
  writeFileSync(join(root, 'log4j2.properties'), LOG4J);
  for (const s of states) {
    mkdirSync(s.dir, { recursive: true });
    writeFileSync(
      join(s.dir, 'server.properties'),
      [
        'process.roles=broker,controller',
        `node.id=${s.id}`,
        `controller.quorum.voters=${voters}`,
        `listeners=PLAINTEXT://127.0.0.1:${s.port}${saslListener(s)},CONTROLLER://127.0.0.1:${s.controllerPort}`,
        `advertised.listeners=PLAINTEXT://127.0.0.1:${s.port}${saslListener(s)}`,
        'controller.listener.names=CONTROLLER',
        `listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT${opts.sasl ? ',SASL_PLAINTEXT:SASL_PLAINTEXT' : ''}`,
        ...(opts.sasl ? ['sasl.enabled.mechanisms=PLAIN', 'listener.name.sasl_plaintext.sasl.enabled.mechanisms=PLAIN', `listener.name.sasl_plaintext.plain.sasl.jaas.config=${jaas(opts.sasl)}`] : []),
        'inter.broker.listener.name=PLAINTEXT',
        `log.dirs=${join(s.dir, 'data')}`,
        `num.partitions=${opts.partitions ?? 3}`,
        `default.replication.factor=${replication}`,
        `min.insync.replicas=${replication > 1 ? 2 : 1}`,
        `offsets.topic.replication.factor=${replication}`,
        `transaction.state.log.replication.factor=${replication}`,
        `transaction.state.log.min.isr=${replication > 1 ? 2 : 1}`,
        'group.initial.rebalance.delay.ms=0',
        `auto.create.topics.enable=${opts.autoCreateTopics === false ? 'false' : 'true'}`,
        '',
      ].join('\n'),
    );
  }
  const clusterId = (await run('java', ['-cp', classPath, 'kafka.tools.StorageTool', 'random-uuid'])).stdout.trim().split('\n').pop()!;
  await Promise.all(states.map((s) => run('java', ['-cp', classPath, `-Dlog4j2.configurationFile=${join(root, 'log4j2.properties')}`, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', join(s.dir, 'server.properties')], { timeout: 120_000 })));

  const start = (s: NodeState) => {
    s.output = '';
    const child = spawn('java', ['-Xms128m', '-Xmx512m', '-XX:+UseSerialGC', '-cp', classPath, `-Dlog4j2.configurationFile=${join(root, 'log4j2.properties')}`, 'kafka.Kafka', join(s.dir, 'server.properties')], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (c: Buffer) => (s.output = (s.output + c).slice(-8000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    s.process = child;
    s.exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  };
  const running = (s: NodeState) => s.process !== undefined && s.process.exitCode === null && s.process.signalCode === null;
  const brokers = states.map((s) => `127.0.0.1:${s.port}`);

  const stopNode = async (s: NodeState, kill = false) => {
    if (!running(s)) return;
    s.process!.kill(kill ? 'SIGKILL' : 'SIGTERM');
    const late = setTimeout(() => s.process?.kill('SIGKILL'), 30_000);
    await s.exited;
    clearTimeout(late);
  };
  const close = async () => {
    await Promise.all(states.map((s) => stopNode(s, true)));
    rmSync(root, { recursive: true, force: true });
  };

  /** Waits until the node's port answers and the cluster lists every running node. */
  const awaitServing = async (which: NodeState[]) => {
    const deadline = Date.now() + timeoutMs;
    for (const s of which) {
      while (!(await answers(s.port))) {
        if (!running(s)) throw new Error(`Kafka node ${s.id} exited before serving:\n${s.output}`);
        if (Date.now() > deadline) throw new Error(`Kafka node ${s.id} did not open port ${s.port} within ${timeoutMs} ms:\n${s.output}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const want = states.filter(running).length;
    for (;;) {
      const exited = states.find((s) => which.includes(s) && !running(s));
      if (exited) throw new Error(`Kafka node ${exited.id} exited before serving:\n${exited.output}`);
      const admin = new Admin({ clientId: 'swflow-test-kafka', bootstrapBrokers: brokers.filter((_, i) => running(states[i]!)) });
      try {
        const meta = await admin.metadata({ topics: [] });
        if (meta.brokers.size >= want) return;
      } catch {
        // the controller quorum is still electing
      } finally {
        await admin.close().catch(() => {});
      }
      if (Date.now() > deadline) throw new Error(`Kafka cluster did not list ${want} brokers within ${timeoutMs} ms:\n${states.map((s) => s.output).join('\n')}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  };

  states.forEach(start);
  try {
    await awaitServing(states);
  } catch (err) {
    await close();
    throw err;
  }

  return {
    brokers,
    saslBrokers: states.filter((s) => s.saslPort !== undefined).map((s) => `127.0.0.1:${s.saslPort}`),
    nodes: states.map((s) => ({ id: s.id, broker: `127.0.0.1:${s.port}`, running: () => running(s) })),
    async createTopic(name, topicOpts = {}) {
      const admin = new Admin({ clientId: 'swflow-test-kafka', bootstrapBrokers: brokers.filter((_, i) => running(states[i]!)) });
      try {
        const configs = Object.entries(topicOpts.config ?? {}).map(([name, value]) => ({ name, value }));
        await admin.createTopics({ topics: [name], partitions: topicOpts.partitions ?? opts.partitions ?? 3, replicas: topicOpts.replicas ?? replication, ...(configs.length ? { configs } : {}) });
        const deadline = Date.now() + 30_000;
        for (;;) {
          const meta = await admin.metadata({ topics: [name] }).catch(() => undefined);
          const topic = meta?.topics.get(name);
          if (topic && topic.partitions.every((p) => p.leader >= 0)) return;
          if (Date.now() > deadline) throw new Error(`topic ${name} has no leader for every partition after 30 s`);
          await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        await admin.close().catch(() => {});
      }
    },
    stopNode: (i, o) => stopNode(states[i]!, o?.kill === true),
    async startNode(i) {
      const s = states[i]!;
      if (running(s)) return;
      start(s);
      await awaitServing([s]);
    },
    output: (i) => states[i]!.output,
    close,
  };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** A unique name (topics, groups) for one test. */
export const uniqueName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

/**
 * Starts the broker and another server (a dev server) at once; when either fails, the one that
 * started is stopped before the error is thrown, so a failed `before` leaves no process that keeps
 * the test file from exiting.
 */
export async function startAlongside<T>(kafka: Promise<KafkaCluster>, other: Promise<T>, stopOther: (t: T) => Promise<unknown>): Promise<[KafkaCluster, T]> {
  const [k, o] = await Promise.allSettled([kafka, other]);
  if (k.status === 'fulfilled' && o.status === 'fulfilled') return [k.value, o.value];
  if (k.status === 'fulfilled') await k.value.close().catch(() => undefined);
  if (o.status === 'fulfilled') await stopOther(o.value).catch(() => undefined);
  throw k.status === 'rejected' ? k.reason : (o as PromiseRejectedResult).reason;
}
