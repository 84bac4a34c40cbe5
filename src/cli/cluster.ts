/**
 * `swflow cluster`: a multi-process Temporal cluster on this machine (PostgreSQL, SQL visibility,
 * frontend + history in one process, history + matching + worker in another; see
 * src/platform/cluster.ts), set up for swflow, until Ctrl-C. For trying swflow on a real
 * cluster and for the cluster tests and benchmarks (docs/cluster.md).
 */
import type { Command } from 'commander';
import { startCluster } from '../platform/cluster';

interface ClusterCliOptions {
  dir?: string;
  shards: string;
  namespace: string[];
}

export function register(program: Command): void {
  program
    .command('cluster')
    .description('Run a multi-process Temporal cluster on PostgreSQL on this machine, set up for swflow, until Ctrl-C')
    .option('--dir <folder>', 'keep PostgreSQL\'s data and the configs here (default: a temporary folder, removed on exit)')
    .option('--shards <n>', 'number of history shards (fixed for a database once created)', '4')
    .option('-n, --namespace <names...>', 'namespaces to create with swflow\'s search attributes', ['default'])
    .action((opts: ClusterCliOptions) => runCluster(opts));
}

async function runCluster(opts: ClusterCliOptions): Promise<void> {
  const shards = Number(opts.shards);
  if (!Number.isInteger(shards) || shards < 1) throw new Error(`--shards must be a positive integer, not "${opts.shards}"`);
  const log = (m: string) => console.log(`[swflow cluster] ${m}`);
  const cluster = await startCluster({ dir: opts.dir, historyShards: shards, namespaces: opts.namespace, log });
  log(`ready: export TEMPORAL_ADDRESS=${cluster.address}`);
  log(`PostgreSQL: psql -h 127.0.0.1 -p ${cluster.postgres.port} -U temporal temporal`);
  for (const p of cluster.processes.values()) log(`process ${p.name} (pid ${p.child.pid}): ${p.services.join(', ')}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log('stopping');
  await cluster.stop();
}
