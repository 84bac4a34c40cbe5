/**
 * `npm test`: makes sure the real Temporal servers are available (found, or built once:
 * see src/platform), then runs every `test/**\/*.test.ts` with node's test runner, one file
 * at a time (each file starts its own servers; two cores do not take more).
 *
 *   npm test                      every test
 *   npm test -- test/dsl          the tests under a folder (or given files)
 *   npm run test:unit             the server-free tests (UNIT below: no Temporal server, broker
 *                                 or browser), in a minute or two: what CI runs first
 *   npm run test:deploy           the deployment paths end to end (test/deploy/e2e: the image, the
 *                                 compose stack, the chart's pods, the npm package), which build
 *                                 images and are left out of a bare `npm test`
 *   SWFLOW_CLUSTER=1 npm test -- test/workflow
 *                                 the same tests on a multi-process Temporal cluster on PostgreSQL
 *                                 (src/platform/cluster.ts), started once for all files
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { resolveTimeSkippingServer } from '../src/platform/test-server';

const ROOT = resolve(__dirname, '..');
/** Run only when named (npm run test:deploy): they build container images and install packages. */
const E2E_DEPLOY = join(ROOT, 'test', 'deploy', 'e2e');

/**
 * The server-free tests: the workflow units over fake effects, the expression engine, the DSL's
 * loader and checks, the error family, routing indexes and caches. With --unit, a Temporal
 * server started by one of them fails it (SWFLOW_UNIT: test/helpers/temporal.ts), so the list
 * stays what it says.
 */
const UNIT = [
  'test/workflow/units',
  'test/expr/engine.test.ts', 'test/expr/expr.test.ts', 'test/expr/fastpath.test.ts', 'test/expr/jq-suite.test.ts', 'test/expr/reads.test.ts',
  'test/expr/replay-engines.test.ts', 'test/expr/shapes.test.ts', 'test/expr/syntax-batch.test.ts',
  'test/dsl', 'test/common', 'test/codec/aes-gcm.test.ts', 'test/ui/overlay.test.ts',
  'test/definitions/registry-index.test.ts', 'test/gateway/routing-v1.test.ts', 'test/gateway/type-index.test.ts', 'test/gateway/kafka-binding.test.ts',
  'test/worker/bundle-cache.test.ts',
];

function findTests(path: string): string[] {
  if (statSync(path).isFile()) return path.endsWith('.test.ts') ? [path] : [];
  return readdirSync(path)
    .filter((name) => name !== 'node_modules' && !name.startsWith('.'))
    .sort()
    .flatMap((name) => findTests(join(path, name)));
}

async function main(): Promise<void> {
  const log = (msg: string) => console.log(`[test] ${msg}`);
  const started = Date.now();
  const cli = await resolveTemporalCli(log);
  if (!cli) throw new Error('No Temporal CLI and no Go to build it: tests need a real Temporal server.');
  log(`Temporal CLI: ${cli.path} (${cli.source}${cli.buildMs ? `, built in ${Math.round(cli.buildMs / 1000)} s` : ''})`);
  const testServer = await resolveTimeSkippingServer(log);
  log(
    testServer
      ? `Time-skipping server: ${testServer.path} (${testServer.source})`
      : 'Time-skipping server: none (no Java/Maven); @temporalio/testing will try to download one',
  );
  log(`Servers ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const unit = process.argv.includes('--unit');
  const args = unit ? UNIT : process.argv.slice(2);
  const roots = args.length ? args.map((a) => resolve(ROOT, a)) : [join(ROOT, 'test')];
  const named = (f: string) => roots.some((r) => r === E2E_DEPLOY || f === r || r.startsWith(E2E_DEPLOY + '/'));
  const files = roots.flatMap(findTests).filter((f) => !f.startsWith(E2E_DEPLOY + '/') || named(f));
  if (!args.length) log('test/deploy/e2e is left out: npm run test:deploy runs it');
  if (files.length === 0) throw new Error(`No *.test.ts under ${roots.map((r) => relative(ROOT, r)).join(', ')}`);

  // The cluster's Temporal server is built once here (minutes), not inside a test file.
  const useCluster = process.env.SWFLOW_CLUSTER === '1';
  if (useCluster || files.some((f) => relative(ROOT, f).startsWith(join('test', 'cluster')))) {
    const { resolveTemporalServer } = await import('../src/platform/temporal-server-binary');
    const bins = await resolveTemporalServer(log);
    log(`Temporal server: ${bins.server} (${bins.source}${bins.buildMs ? `, built in ${Math.round(bins.buildMs / 1000)} s` : ''})`);
  }
  // The Kafka broker's class path (Maven Central, ~45 MB, once) is resolved here, not inside a test file's time.
  if (files.some((f) => /kafka/i.test(relative(ROOT, f)))) {
    const { kafkaAvailable, kafkaClassPath } = await import('./helpers/kafka-broker');
    const available = kafkaAvailable();
    if (!available.ok) throw new Error(`Kafka tests need Apache Kafka's broker: ${available.why}`);
    const t = Date.now();
    await kafkaClassPath();
    log(`Kafka broker (org.apache.kafka:kafka_2.13): class path ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  // SWFLOW_CLUSTER=1: one cluster for every file; test/helpers/temporal.ts connects to it.
  let cluster: import('../src/platform/cluster').Cluster | undefined;
  if (useCluster) {
    const { startCluster } = await import('../src/platform/cluster');
    cluster = await startCluster({ fastDisk: true, log });
  }
  const result = spawnSync(
    process.execPath,
    [
      '--import', 'tsx',
      '--test',
      '--test-concurrency=1',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      // Where the minutes go: the slowest files, after the summary.
      `--test-reporter=${join(__dirname, 'helpers', 'file-times-reporter.mjs')}`,
      '--test-reporter-destination=stdout',
      ...files.map((f) => relative(ROOT, f)),
    ],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...(unit ? { SWFLOW_UNIT: '1' } : {}), TEMPORAL_CLI: cli.path, ...(testServer ? { TEMPORAL_TEST_SERVER: testServer.path } : {}), ...(cluster ? { SWFLOW_CLUSTER_ADDRESS: cluster.address } : {}) } },
  );
  await cluster?.stop();
  process.exit(result.status ?? 1);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
