/**
 * A real PostgreSQL server for tests: Debian's, the way src/platform/cluster.ts runs Temporal's
 * (initdb + pg_ctl, as the `postgres` user when root), on a free port and a new data directory,
 * with password authentication over TCP so a test can also try a wrong password.
 *
 *   const pg = await startPostgres();
 *   pg.url('mydb')  // postgresql://swflow:<password>@127.0.0.1:<port>/mydb
 *   await pg.close();
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { asPostgresUser, postgresBinDir } from '../../src/platform/cluster';
import { freePort } from './ports';

const run = promisify(execFile);

export interface TestPostgres {
  host: string;
  port: number;
  user: string;
  password: string;
  /** A connection URL for `database` (default `postgres`). */
  url(database?: string): string;
  /** Runs SQL with psql as the superuser; resolves with its unaligned output. */
  sql(query: string, database?: string): Promise<string>;
  close(): Promise<void>;
}

async function checked(what: string, cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    return (await run(cmd, args, { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 })).stdout;
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${what} failed: ${(e.stderr || e.stdout || e.message).trim()}`);
  }
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'swflow-pg-'));
  const data = join(dir, 'data');
  const user = 'swflow';
  const password = randomBytes(12).toString('hex');
  writeFileSync(join(dir, 'pwfile'), `${password}\n`);
  if (userInfo().uid === 0) {
    await checked('chown', 'chown', ['-R', 'postgres', dir]);
    chmodSync(dir, 0o700);
  }
  await checked('initdb', ...asPostgresUser(join(bin, 'initdb'), ['-D', data, '-U', user, `--pwfile=${join(dir, 'pwfile')}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync']));
  const pgctl = (...args: string[]) => checked(`pg_ctl ${args.at(-1)}`, ...asPostgresUser(join(bin, 'pg_ctl'), ['-D', data, ...args]));
  let port = 0;
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      const settings = ['-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
      await pgctl('-l', join(dir, 'postgres.log'), '-w', '-t', '60', '-o', settings.join(' '), 'start');
      break;
    } catch (err) {
      // Another test file's server took the port between freePort() and the bind: another port.
      if (attempt >= 3) throw err;
    }
  }
  const host = '127.0.0.1';
  return {
    host,
    port,
    user,
    password,
    url: (database = 'postgres') => `postgresql://${user}:${password}@${host}:${port}/${database}`,
    sql: (query, database = 'postgres') =>
      checked('psql', join(bin, 'psql'), ['-h', host, '-p', String(port), '-U', user, '-d', database, '-At', '-v', 'ON_ERROR_STOP=1', '-c', query], { PGPASSWORD: password }),
    close: async () => {
      await pgctl('-m', 'immediate', '-w', 'stop').catch(() => '');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
