/**
 * Payloads in a PostgreSQL table: the database a production deployment already runs (Temporal's
 * own, or another), reached by every swflow process of it. One row per content key; a write is
 * `INSERT … ON CONFLICT DO UPDATE SET created_at`, so concurrent writers of one key (a retried
 * activity and its first attempt) agree without a lock, and content written again is young again. URL (SWFLOW_PAYLOAD_STORE):
 *
 *   postgresql://user:password@host:5432/db?table=swflow_payloads&sslmode=require
 *
 * (`postgres://` too; `table` may be `schema.table`; every other parameter is the `pg` package's
 * own: sslmode, application_name, …). The table is created on first use if missing.
 */
import { Pool, type PoolConfig } from 'pg';
import { checkKey, PayloadMissing, redactUrl, type PayloadStore, type StoredPayload } from './store';

const DEFAULT_TABLE = 'swflow_payloads';
/** Rows per page of `list()` and keys per `DELETE`: bounded memory and statement size whatever the table holds. */
const PAGE = 1000;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export class PostgresPayloadStore implements PayloadStore {
  readonly kind = 'postgresql' as const;
  readonly location: string;
  private readonly table: string;
  private readonly pool: Pool;
  private ready?: Promise<void>;

  constructor(url: string) {
    const { config, table, location } = parseUrl(url);
    this.location = location;
    this.table = table;
    // Small: payload reads and writes are few and large, and each process has one store (config.ts).
    this.pool = new Pool({ ...config, max: 4, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 15_000 });
    // An idle connection the server dropped must not crash the process; the next query opens another.
    this.pool.on('error', () => {});
  }

  async put(key: string, bytes: Uint8Array): Promise<{ written: boolean }> {
    checkKey(key);
    // A key already there is made young again (PayloadStore.put); xmax = 0 only on a row this statement inserted.
    const res = await this.query(`write ${key}`, `INSERT INTO ${this.table} (key, data, size) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET created_at = now() RETURNING (xmax = 0) AS inserted`, [key, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), bytes.byteLength]);
    return { written: res.rows[0]?.inserted === true };
  }

  async get(key: string): Promise<Uint8Array> {
    checkKey(key);
    const res = await this.query(`read ${key}`, `SELECT data FROM ${this.table} WHERE key = $1`, [key]);
    if (!res.rows.length) throw new PayloadMissing(key, this.location);
    return res.rows[0].data as Buffer;
  }

  async *list(): AsyncIterable<StoredPayload> {
    // Keyset pagination: each page is an index range scan after the last key seen, never OFFSET.
    let after = '';
    for (;;) {
      const res = await this.query('list', `SELECT key, size, created_at FROM ${this.table} WHERE key > $1 ORDER BY key LIMIT ${PAGE}`, [after]);
      for (const row of res.rows) yield { key: row.key as string, size: Number(row.size), createdAt: row.created_at as Date };
      if (res.rows.length < PAGE) return;
      after = res.rows[res.rows.length - 1].key;
    }
  }

  async delete(keys: string[], olderThan?: Date): Promise<number> {
    let n = 0;
    for (let i = 0; i < keys.length; i += PAGE) {
      const batch = keys.slice(i, i + PAGE);
      batch.forEach(checkKey);
      const res = olderThan
        ? await this.query(`delete ${batch.length} payloads`, `DELETE FROM ${this.table} WHERE key = ANY($1::text[]) AND created_at < $2`, [batch, olderThan])
        : await this.query(`delete ${batch.length} payloads`, `DELETE FROM ${this.table} WHERE key = ANY($1::text[])`, [batch]);
      n += res.rowCount ?? 0;
    }
    return n;
  }

  /** `postgresql://user@host:port/db?table=t#<key>`: the store's location (no password) and the key as fragment. */
  uri(key: string): string {
    return `${this.location}#${checkKey(key)}`;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }

  // Every statement goes through here: the table exists first, and an error names the store (never the password).
  private async query(what: string, text: string, values: unknown[]) {
    try {
      await (this.ready ??= this.createTable().catch((err) => {
        this.ready = undefined; // a database that was down is tried again by the next call
        throw err;
      }));
      return await this.pool.query(text, values);
    } catch (err) {
      throw this.error(what, err);
    }
  }

  private async createTable(): Promise<void> {
    try {
      await this.pool.query(`CREATE TABLE IF NOT EXISTS ${this.table} (key text PRIMARY KEY, data bytea NOT NULL, size integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
    } catch (err) {
      // Processes creating it at once: the losers fail on the catalog's unique index (23505), on
      // its row type created meanwhile (42710), or find it created (42P07); the table is there.
      const code = (err as { code?: string }).code;
      if (code !== '23505' && code !== '42P07' && code !== '42710') throw err;
    }
  }

  private error(what: string, err: unknown): Error {
    if (err instanceof PayloadMissing) return err;
    const e = err as Error & { code?: string };
    const out = new Error(`payload store ${this.location}: ${what} failed: ${e.message ?? String(err)}${e.code ? ` (${e.code})` : ''}`, { cause: err });
    return out;
  }
}

/** The `pg` config, the table (quoted), and the location without the password. */
function parseUrl(url: string): { config: PoolConfig; table: string; location: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`SWFLOW_PAYLOAD_STORE: ${redactUrl(url)} is not a URL (postgresql://user:password@host:5432/db?table=swflow_payloads)`);
  }
  if (u.protocol !== 'postgresql:' && u.protocol !== 'postgres:') throw new Error(`SWFLOW_PAYLOAD_STORE: ${redactUrl(url)} is not a postgresql:// URL`);
  const tableText = u.searchParams.get('table') ?? DEFAULT_TABLE;
  const parts = tableText.split('.');
  if (parts.length > 2 || !parts.every((p) => IDENT.test(p))) {
    throw new Error(`SWFLOW_PAYLOAD_STORE: table=${JSON.stringify(tableText).slice(0, 80)} in ${redactUrl(url)} is not a table name (letters, digits, _; optionally schema.table)`);
  }
  u.searchParams.delete('table');
  const location = new URL(u.href);
  location.password = '';
  location.search = `?table=${tableText}`;
  return {
    // The pg package parses the rest (host, port, database, user, password, sslmode and other libpq parameters).
    config: { connectionString: u.href },
    table: parts.map((p) => `"${p}"`).join('.'),
    location: `${location.protocol}//${location.username ? `${location.username}@` : ''}${location.host}${location.pathname}${location.search}`,
  };
}

