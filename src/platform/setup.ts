/**
 * What a Temporal server needs before swflow can run on it, and the dev server does by itself:
 * the namespace (with a retention period) and swflow's search attributes, visible to queries.
 * Idempotent: running it again on a set-up namespace changes nothing. `swflow setup` and the
 * test cluster (src/platform/cluster.ts) use it.
 */
import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { setTimeout as sleep } from 'node:timers/promises';
import { SEARCH_ATTRIBUTES } from '../common/contracts';
import { KINDS } from './search-attributes';

export interface SetupOptions {
  namespace: string;
  /** Retention of closed runs' histories, in days (new namespaces only). */
  retentionDays?: number;
  /** How long to wait for the namespace and attributes to become usable (default 60 s). */
  timeoutMs?: number;
  log?: (msg: string) => void;
}

export interface SetupReport {
  namespaceCreated: boolean;
  attributesAdded: string[];
  attributesPresent: string[];
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: number; message?: string };
  return e.code === 5 /* NOT_FOUND */ || /not found/i.test(e.message ?? '');
}

function isAlreadyExists(err: unknown): boolean {
  return (err as { code?: number }).code === 6 /* ALREADY_EXISTS */;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s${last ? `: ${(last as Error).message}` : ''}`);
    await sleep(250);
  }
}

export async function setupNamespace(connection: Connection, opts: SetupOptions): Promise<SetupReport> {
  const { namespace } = opts;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const log = opts.log ?? (() => {});
  let namespaceCreated = false;
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    const days = opts.retentionDays ?? 3;
    try {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(`${days} days`) });
      namespaceCreated = true;
      log(`created namespace ${namespace} (retention ${days} d)`);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  // Describe reads the database; the rest waits for the frontends' namespace cache to refresh.
  const existing = await until(`namespace ${namespace} was not usable`, timeoutMs, () =>
    connection.operatorService.listSearchAttributes({ namespace }),
  );
  const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (existing.customAttributes ?? {})));
  if (missing.length) {
    try {
      await connection.operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(missing.map(([name, kind]) => [name, KINDS[kind].indexed])),
      });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    log(`registered search attributes ${missing.map(([n]) => n).join(', ')} in ${namespace}`);
  }
  // Usable = a visibility query naming every attribute is accepted.
  const query = Object.keys(SEARCH_ATTRIBUTES).map((name) => `${name} = 'swflow-setup-probe'`).join(' AND ');
  await until(`search attributes of namespace ${namespace} were not queryable`, timeoutMs, async () => {
    await connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: 1 });
    return true;
  });
  return {
    namespaceCreated,
    attributesAdded: missing.map(([n]) => n),
    attributesPresent: Object.keys(SEARCH_ATTRIBUTES).filter((n) => !missing.some(([m]) => m === n)),
  };
}
