/**
 * The npm package where users install it: `npm pack` this checkout (prepack builds dist/), install
 * the tarball into an empty folder as a user would, and use it from there only — `npx swflow
 * validate`, a TypeScript project on `swflow/adapter` type-checked and built, `npx swflow start`
 * (against a Temporal server, and starting its own from the Temporal CLI on PATH) serving the
 * bundled examples, `npx swflow worker -d ./my-definitions` with the user's adapter worker serving
 * a definition's custom call, `npx swflow mcp` answering over stdio. Runs are started with the
 * Temporal CLI, outside every swflow process.
 *
 * npm fetches the dependencies from the registry (kept in .cache/sw-pkg/npm-cache between runs).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../../src/platform/paths';
import { resolveTemporalCli } from '../../../src/platform/temporal-binary';
import { freePort } from '../../helpers/ports';
import { waitFor } from '../../helpers/wait';

const exec = promisify(execFile);
const NPM_CACHE = join(PROJECT_ROOT, '.cache', 'sw-pkg', 'npm-cache');
const BIG = { maxBuffer: 64 * 1024 * 1024 };

let dir: string;
/** The user's project: an empty folder the tarball was installed into. */
let app: string;
let temporal: string;
let address: string;
/** What every process of the user's gets: no TEMPORAL_ADDRESS of ours, user folders inside the test's. */
let userEnv: NodeJS.ProcessEnv;
const children: ChildProcess[] = [];

interface Served {
  child: ChildProcess;
  output: () => string;
}

/** Starts a long-running command in its own process group (npx starts node under npm) and waits for `ready` in its output. */
async function serve(what: string, command: string, args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}, ms = 120_000): Promise<Served> {
  const child = spawn(command, args, { cwd: app, env: { ...userEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  await waitFor(`${what} (${ready})`, async () => {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}): ${out}`);
    return ready.test(out) ? true : undefined;
  }, ms).catch((err) => {
    throw new Error(`${(err as Error).message}\n${out}`);
  });
  return { child, output: () => out };
}

/** Stops a process group: SIGINT (what Ctrl-C sends), SIGKILL if still there after 15 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // Gone already.
    }
  };
  signal('SIGINT');
  const timer = setTimeout(() => signal('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** A run started with the Temporal CLI (outside swflow) and waited for; its result. */
async function execute(type: string, input: unknown, at = address): Promise<unknown> {
  const { stdout } = await exec(temporal, ['workflow', 'execute', '--type', type, '--task-queue', 'swflow', '--input', JSON.stringify(input), '--address', at, '--output', 'json'], BIG);
  const run = JSON.parse(stdout);
  assert.match(String(run.status), /COMPLETED/, stdout);
  return run.result;
}

before(async () => {
  const started = Date.now();
  dir = mkdtempSync(join(tmpdir(), 'sw-pkg-'));
  app = join(dir, 'my-app');
  mkdirSync(app);
  const cli = await resolveTemporalCli();
  assert.ok(cli, 'the Temporal CLI (npm test resolves or builds it)');
  temporal = cli.path;

  await exec('npm', ['pack', '--pack-destination', dir], { cwd: PROJECT_ROOT, ...BIG });
  const tarball = join(dir, `swflow-${JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version}.tgz`);
  const files = (await exec('tar', ['tzf', tarball], BIG)).stdout.trim().split('\n');
  console.log(`tarball: ${(statSync(tarball).size / 1024).toFixed(0)} kB, ${files.length} files (npm pack in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  // Lean: what the command and the SDK need, no tests, benchmarks or docs beyond README.
  for (const f of ['package/bin/swflow.js', 'package/bin/compiled.js', 'package/dist/adapter-sdk/index.d.ts', 'package/dist/adapter-sdk/index.js', 'package/src/cli/main.ts', 'package/examples/hello-world.sw.json', 'package/README.md']) {
    assert.ok(files.includes(f), `the tarball holds ${f}`);
  }
  const extra = files.filter((f) => /^package\/(test|bench|docs|deploy|wasm|\.ci)\//.test(f) || /\.test\.ts$/.test(f));
  assert.deepEqual(extra, [], 'no tests, benchmarks, docs or build inputs in the tarball');

  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', version: '1.0.0', private: true }, null, 2));
  const typescript = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).devDependencies.typescript;
  const installing = Date.now();
  await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--cache', NPM_CACHE, tarball, `typescript@${typescript}`], { cwd: app, ...BIG });
  console.log(`npm install <tarball> typescript@${typescript} into an empty folder: ${((Date.now() - installing) / 1000).toFixed(1)} s`);

  userEnv = { ...process.env, XDG_CACHE_HOME: join(dir, 'user-cache'), XDG_DATA_HOME: join(dir, 'user-data') };
  for (const k of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_CLI', 'SWFLOW_CACHE', 'SWFLOW_DATA', 'SWFLOW_TSX', 'NODE_OPTIONS']) delete userEnv[k];

  const port = await freePort();
  address = `127.0.0.1:${port}`;
  const server = spawn(temporal, ['server', 'start-dev', '--headless', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'error'], { stdio: 'ignore', detached: true });
  children.push(server);
  await waitFor(`the Temporal dev server at ${address}`, async () => ((await exec(temporal, ['operator', 'cluster', 'health', '--address', address])).stdout.includes('SERVING') ? true : undefined), 30_000);
});

after(async () => {
  await Promise.all(children.map(stop));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `npx swflow <args>` in the user's project, to its end (a minute at most: these are the commands that must exit). */
const npx = (args: string[], env: NodeJS.ProcessEnv = {}) => exec('npx', ['--no-install', 'swflow', ...args], { cwd: app, env: { ...userEnv, ...env }, timeout: 60_000, ...BIG });

/**
 * The user's own definition and adapter: the ones the package ships as its adapter example
 * (examples/adapters: reserve.sw.yaml, a custom function served on the queue "inventory", and
 * inventory.ts on `swflow/adapter`), read from the installed package as a user would copy them.
 */
const shippedExample = (file: string) => readFileSync(join(app, 'node_modules', 'swflow', 'examples', 'adapters', file), 'utf8');
const WORKER = `import { runAdapterWorker } from 'swflow/adapter';
import inventory from './inventory';

runAdapterWorker({ adapters: [inventory], taskQueue: 'inventory', log: (m) => console.log(m) }).catch((err) => {
  console.error(err);
  process.exit(1);
});
`;

test('npx swflow validate checks the user\'s definitions and names what is wrong', async () => {
  mkdirSync(join(app, 'my-definitions'));
  const RESERVE = shippedExample('reserve.sw.yaml');
  writeFileSync(join(app, 'my-definitions', 'reserve.sw.yaml'), RESERVE);
  const { stdout } = await npx(['validate', 'my-definitions/reserve.sw.yaml']);
  assert.match(stdout, /valid \(0\.8, id reserve\)/);
  writeFileSync(join(dir, 'broken.sw.yaml'), RESERVE.replace('start: Reserve', 'start: Nowhere'));
  const broken = await npx(['validate', join(dir, 'broken.sw.yaml')]).then(() => undefined, (e) => e as { code: number; stdout: string; stderr: string });
  assert.ok(broken && broken.code !== 0, 'an invalid definition fails validate');
  assert.match(broken.stdout + broken.stderr, /Nowhere/);
  console.log('npx swflow validate: a valid definition passes; one starting at a missing state fails naming it');
});

test('a TypeScript project on swflow/adapter type-checks and builds against the installed package', async () => {
  writeFileSync(join(app, 'inventory.ts'), shippedExample('inventory.ts'));
  writeFileSync(join(app, 'worker.ts'), WORKER);
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'commonjs', moduleResolution: 'bundler', target: 'ES2022', esModuleInterop: true, skipLibCheck: true, outDir: 'build' }, files: ['worker.ts'] }, null, 2));
  const tsc = join(app, 'node_modules', '.bin', 'tsc');
  await exec(tsc, ['-p', '.'], { cwd: app }).catch((e) => assert.fail(`tsc -p . failed: ${e.stdout}${e.stderr}`));
  // Files named on the command line: TypeScript 7 wants --ignoreConfig beside the project's tsconfig.json.
  await exec(tsc, ['--ignoreConfig', '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'worker.ts'], { cwd: app }).catch((e) => assert.fail(`tsc (nodenext) failed: ${e.stdout}${e.stderr}`));
  const misuse = `import { defineAdapter } from 'swflow/adapter';\nexport default defineAdapter({ name: 1, activities: {} });\n`;
  writeFileSync(join(app, 'misuse.ts'), misuse);
  // Rejected for the adapter's type, not for anything else.
  await assert.rejects(exec(tsc, ['--ignoreConfig', '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'misuse.ts'], { cwd: app }), (e: { stdout?: string }) => /misuse\.ts\(2,\d+\): error TS2322/.test(e.stdout ?? ''), 'a wrong adapter fails to type-check: the types are real');
  rmSync(join(app, 'misuse.ts'));
  console.log('swflow/adapter: the user\'s adapter and worker type-check (commonjs/bundler and nodenext) and build to build/*.js; a wrong one fails');
});

test('npx swflow start against a Temporal server serves the bundled examples; runs started with the Temporal CLI complete', async () => {
  const gatewayPort = await freePort();
  const runPagePort = await freePort();
  const t0 = Date.now();
  const start = await serve('npx swflow start', 'npx', ['--no-install', 'swflow', 'start', '--gateway-port', String(gatewayPort), '--run-page-port', String(runPagePort)], /swflow is running[\s\S]*Ctrl-C stops everything/, { TEMPORAL_ADDRESS: address });
  await waitFor('the interpreter worker running', async () => (/taskQueue: 'swflow', state: 'RUNNING'/.test(start.output()) ? true : undefined), 60_000);
  const readyMs = Date.now() - t0;
  assert.match(start.output(), /Definitions\s+\S*node_modules\/swflow\/examples/);
  assert.deepEqual(await execute('helloworld', {}), { result: 'Hello World!' });
  assert.equal(await execute('greeting', { person: { name: 'John' } }), 'Welcome to Serverless Workflow, John!');
  const page = await fetch(`http://127.0.0.1:${runPagePort}/`);
  assert.equal(page.status, 200, 'the run page answers');
  const ready = await fetch(`http://127.0.0.1:${gatewayPort}/readyz`);
  assert.equal(ready.status, 200, 'the gateway is ready (Temporal answers it)');
  await stop(start.child);
  console.log(`npx swflow start (TEMPORAL_ADDRESS): ready in ${(readyMs / 1000).toFixed(1)} s; helloworld and greeting (REST call to the example service) completed; run page 200; gateway /readyz 200`);
});

test('npx swflow start without TEMPORAL_ADDRESS starts its own dev server from the Temporal CLI on PATH, its database in the user\'s data folder', async () => {
  const port = await freePort();
  const uiPort = await freePort();
  const t0 = Date.now();
  const start = await serve('npx swflow start (own dev server)', 'npx', ['--no-install', 'swflow', 'start', '--port', String(port), '--ui-port', String(uiPort), '--gateway-port', String(await freePort()), '--run-page-port', '0'], /swflow is running[\s\S]*Ctrl-C stops everything/, { PATH: `${dirname(temporal)}:${process.env.PATH}` });
  await waitFor('the interpreter worker running', async () => (/taskQueue: 'swflow', state: 'RUNNING'/.test(start.output()) ? true : undefined), 60_000);
  const ready = Date.now() - t0;
  const db = join(dir, 'user-data', 'swflow', 'temporal.sqlite');
  assert.match(start.output(), new RegExp(`Server database\\s+${db.replace(/[.]/g, '\\.')}`), 'the dev server keeps its runs outside node_modules (npm replaces that folder)');
  assert.deepEqual(await execute('helloworld', {}, `127.0.0.1:${port}`), { result: 'Hello World!' });
  await stop(start.child);
  assert.ok(statSync(db).size > 0, 'the database was written');
  console.log(`npx swflow start (no TEMPORAL_ADDRESS, temporal on PATH): own dev server, ready in ${(ready / 1000).toFixed(1)} s; helloworld completed; database ${db}`);
});

test('npx swflow start with neither TEMPORAL_ADDRESS nor a Temporal CLI nor Go exits saying what to set', async () => {
  const failed = await npx(['start', '--port', String(await freePort()), '--gateway-port', String(await freePort()), '--run-page-port', '0'], { PATH: dirname(process.execPath) === '/usr/bin' ? '/usr/bin:/bin' : `${dirname(process.execPath)}:/usr/bin:/bin` }).then(
    () => undefined,
    (e) => e as { code: number; stdout: string; stderr: string },
  );
  assert.ok(failed && failed.code !== 0, 'swflow start fails');
  const said = failed.stdout + failed.stderr;
  assert.match(said, /TEMPORAL_ADDRESS/);
  assert.match(said, /Temporal CLI/);
  assert.doesNotMatch(said, /swflow is running/);
  console.log(`npx swflow start without a server, CLI or Go: exit ${failed.code}, "${said.match(/No Temporal CLI[^\n]*/)?.[0].slice(0, 100)}..."`);
});

test('npx swflow worker -d ./my-definitions and the user\'s adapter worker serve the definition\'s custom call', async () => {
  const t0 = Date.now();
  const worker = await serve('npx swflow worker -d ./my-definitions', 'npx', ['--no-install', 'swflow', 'worker', '-d', './my-definitions'], /serving task queue swflow/, { TEMPORAL_ADDRESS: address });
  const adapter = await serve('node build/worker.js', process.execPath, ['build/worker.js'], /serving inventory\.reserve/, { TEMPORAL_ADDRESS: address });
  const ready = Date.now() - t0;
  assert.match(worker.output(), /definitions: \.\/my-definitions/);
  assert.deepEqual(await execute('reserve', { item: 'apple', count: 2 }), { item: 'apple', count: 2, reservation: { item: 'apple', reserved: 2, left: 1, state: 'Reserve' } });
  assert.deepEqual(await execute('reserve', { item: 'pear', count: 1 }), { item: 'pear', count: 1, soldOut: true });
  await Promise.all([stop(worker.child), stop(adapter.child)]);
  console.log(`npx swflow worker -d ./my-definitions + the user's adapter worker (tsc-built, swflow/adapter runAdapterWorker): ready in ${(ready / 1000).toFixed(1)} s; reserve completed with the adapter's result, and through onErrors on its OutOfStock code`);
});

test('npx swflow worker -d with a folder that does not exist exits naming it', async () => {
  const failed = await npx(['worker', '-d', './no-such-definitions'], { TEMPORAL_ADDRESS: address }).then(
    () => undefined,
    (e) => e as { code: number; stdout: string; stderr: string },
  );
  assert.ok(failed && failed.code !== 0, 'swflow worker fails');
  const said = failed.stdout + failed.stderr;
  assert.match(said, /--definitions \S*no-such-definitions: no such folder or file/);
  assert.doesNotMatch(said, /serving task queue/);
  console.log(`npx swflow worker -d ./no-such-definitions: exit ${failed.code}, "${said.trim().split('\n').pop()}"`);
});

test('npx swflow mcp over stdio from the installed package: tools listed, a definition validated (zod, the tools\' schemas, comes with the package)', async () => {
  const child = spawn('npx', ['--no-install', 'swflow', 'mcp', '-d', join(app, 'node_modules', 'swflow', 'examples')], { cwd: app, env: { ...userEnv, TEMPORAL_ADDRESS: address }, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const send = (msg: unknown) => child.stdin!.write(`${JSON.stringify(msg)}\n`);
  /** The JSON-RPC answer with `id` (stdout is the protocol's: one message per line). */
  const answer = (id: number) =>
    waitFor(`the MCP answer ${id}`, async () => {
      if (child.exitCode !== null) throw new Error(`swflow mcp exited (${child.exitCode}): ${err}`);
      const line = out.split('\n').find((l) => l.startsWith('{') && JSON.parse(l).id === id);
      return line ? (JSON.parse(line) as { result?: any; error?: unknown }) : undefined;
    }, 60_000).catch((e) => {
      throw new Error(`${(e as Error).message}\nstdout: ${out}\nstderr: ${err}`);
    });
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'package-test', version: '1' } } });
  assert.ok((await answer(1)).result?.serverInfo, 'initialized');
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const names = ((await answer(2)).result?.tools ?? []).map((t: { name: string }) => t.name);
  assert.ok(names.includes('validate_definition'), `tools: ${names.join(', ')}`);
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'validate_definition', arguments: { document: JSON.stringify({ id: 'x', specVersion: '0.8', start: 'S', states: [{ name: 'S', type: 'inject', data: {}, end: true }] }) } } });
  const called = (await answer(3)).result;
  assert.equal(called?.structuredContent?.valid, true, JSON.stringify(called));
  assert.notEqual(called?.isError, true, JSON.stringify(called));
  child.stdin!.end();
  await stop(child);
  console.log(`npx swflow mcp (stdio): ${names.length} tools, validate_definition answered`);
});
