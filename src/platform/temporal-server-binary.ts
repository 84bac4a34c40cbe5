/**
 * Finds the Temporal server (the multi-service `temporal-server`, the one the CLI embeds) and its
 * SQL schema tool, building both once from their Go module into the project's cache; and the
 * PostgreSQL schema folders of that same module version.
 *
 * Order: $TEMPORAL_SERVER_DIR (a folder holding `temporal-server` and `temporal-sql-tool`) →
 * the project's cache → `go install` into that cache → an error saying what is missing.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir } from './paths';
import { hasGo } from './temporal-binary';

/** The server release the Temporal CLI v1.5.1 embeds (its go.mod requires go.temporal.io/server v1.29.1). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';
export const TEMPORAL_SERVER_MODULE = 'go.temporal.io/server';

export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
  /** schema/postgresql/v12 of the module: temporal/versioned and visibility/versioned. */
  postgresSchemaDir: string;
  source: 'env' | 'cache' | 'built';
  buildMs?: number;
}

const run = promisify(execFile);

function binDir(): string {
  return join(cacheDir(), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

/** The module's folder in Go's module cache, downloading it when absent. */
async function moduleDir(): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', `${TEMPORAL_SERVER_MODULE}@${TEMPORAL_SERVER_VERSION}`], {
    maxBuffer: 16 * 1024 * 1024,
    // Outside any module: `go mod download` of a named version needs no go.mod.
    cwd: cacheDir(),
  });
  const dir = (JSON.parse(stdout) as { Dir?: string }).Dir;
  if (!dir) throw new Error(`go mod download ${TEMPORAL_SERVER_MODULE}@${TEMPORAL_SERVER_VERSION} did not say where the module is`);
  return dir;
}

export async function resolveTemporalServer(log: (msg: string) => void = () => {}): Promise<TemporalServerBinaries> {
  if (!hasGo()) {
    throw new Error(
      `The Temporal cluster needs Go to build ${TEMPORAL_SERVER_MODULE}@${TEMPORAL_SERVER_VERSION} (cmd/server, cmd/tools/sql) ` +
        'and to find its PostgreSQL schema: install Go 1.25 or later.',
    );
  }
  mkdirSync(cacheDir(), { recursive: true });
  const postgresSchemaDir = join(await moduleDir(), 'schema', 'postgresql', 'v12');
  const fromEnv = process.env.TEMPORAL_SERVER_DIR;
  if (fromEnv) {
    const server = join(fromEnv, 'temporal-server');
    const sqlTool = join(fromEnv, 'temporal-sql-tool');
    for (const f of [server, sqlTool]) if (!existsSync(f)) throw new Error(`TEMPORAL_SERVER_DIR=${fromEnv} has no ${f}`);
    return { server, sqlTool, postgresSchemaDir, source: 'env' };
  }
  const dir = binDir();
  const server = join(dir, 'temporal-server');
  const sqlTool = join(dir, 'temporal-sql-tool');
  if (existsSync(server) && existsSync(sqlTool)) return { server, sqlTool, postgresSchemaDir, source: 'cache' };

  mkdirSync(dir, { recursive: true });
  log(`Building the Temporal server once (go install ${TEMPORAL_SERVER_MODULE}/cmd/server and cmd/tools/sql@${TEMPORAL_SERVER_VERSION}); this takes several minutes...`);
  const started = Date.now();
  try {
    await run(
      'go',
      ['install', `${TEMPORAL_SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`, `${TEMPORAL_SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`],
      { env: { ...process.env, GOBIN: dir, GOFLAGS: '-buildvcs=false' }, maxBuffer: 64 * 1024 * 1024, cwd: cacheDir() },
    );
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`go install ${TEMPORAL_SERVER_MODULE}@${TEMPORAL_SERVER_VERSION} failed: ${e.stderr?.trim() || e.message}`);
  }
  // `go install` names binaries after their package folders.
  renameSync(join(dir, 'server'), server);
  renameSync(join(dir, 'sql'), sqlTool);
  return { server, sqlTool, postgresSchemaDir, source: 'built', buildMs: Date.now() - started };
}
