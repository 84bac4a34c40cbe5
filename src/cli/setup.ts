/**
 * `swflow setup`: prepares a Temporal server for swflow — what the embedded dev server does by
 * itself: creates the namespace when missing (with a retention period) and registers swflow's
 * search attributes, then waits until both are usable. Idempotent; against any TEMPORAL_ADDRESS
 * (with the TLS and API-key variables of src/client/connection.ts).
 */
import type { Command } from 'commander';
import { Connection } from '@temporalio/client';
import { connectionOptions, targetFromEnv } from '../client/connection';
import { setupNamespace } from '../platform/setup';

interface SetupCliOptions {
  address?: string;
  namespace?: string;
  retentionDays: string;
  timeout: string;
}

export function register(program: Command): void {
  program
    .command('setup')
    .description('Prepare a Temporal server for swflow: create the namespace if missing and register the search attributes')
    .option('--address <host:port>', 'the Temporal frontend (default $TEMPORAL_ADDRESS, else localhost:7233)')
    .option('-n, --namespace <name>', 'the namespace (default $TEMPORAL_NAMESPACE, else "default")')
    .option('--retention-days <days>', 'retention of closed runs, for a namespace created now', '3')
    .option('--timeout <seconds>', 'how long to wait for the namespace and attributes to become usable', '60')
    .action((opts: SetupCliOptions) => setup(opts));
}

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, not "${value}"`);
  return n;
}

async function setup(opts: SetupCliOptions): Promise<void> {
  const env = { ...process.env };
  if (opts.address) env.TEMPORAL_ADDRESS = opts.address;
  if (opts.namespace) env.TEMPORAL_NAMESPACE = opts.namespace;
  const target = targetFromEnv(env) ?? { address: 'localhost:7233', namespace: opts.namespace ?? 'default' };
  const retentionDays = positive('--retention-days', opts.retentionDays);
  const timeoutMs = positive('--timeout', opts.timeout) * 1000;
  const connection = await Connection.connect(connectionOptions(target)).catch((err: Error) => {
    throw new Error(`Cannot reach the Temporal server at ${target.address}: ${err.message}`);
  });
  try {
    const report = await setupNamespace(connection, { namespace: target.namespace, retentionDays, timeoutMs, log: (m) => console.log(`[swflow setup] ${m}`) });
    console.log(
      `[swflow setup] ${target.address} namespace ${target.namespace}: ` +
        `${report.namespaceCreated ? 'created' : 'already there'}; search attributes ` +
        `${report.attributesAdded.length ? `added ${report.attributesAdded.join(', ')}` : 'all present'}; ready`,
    );
  } finally {
    await connection.close();
  }
}
