/**
 * Task dispatch latency of the dev server, without swflow: a hand-written workflow making 20
 * sequential calls of a trivial activity, five runs, ms per call. `--untuned` runs the dev server
 * with Temporal's default transfer-queue load cap (20/s per shard) instead of swflow's
 * (devServerDynamicConfig in src/platform/dev-server.ts).
 *
 *   npx tsx bench/dispatch.ts [--untuned]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDevServer } from '../src/platform/dev-server';
import { resolveTemporalCli } from '../src/platform/temporal-binary';
import { freePort } from '../test/helpers/ports';

const CALLS = 20;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const untuned = process.argv.includes('--untuned');
  const cli = await resolveTemporalCli();
  const server = await startDevServer({
    binary: cli!.path,
    port: await freePort(),
    uiPort: await freePort(),
    dbFile: join(mkdtempSync(join(tmpdir(), 'swflow-dispatch-')), 'db.sqlite'),
    // Later flags win: this restores Temporal's defaults.
    extraArgs: untuned ? ['--dynamic-config-value', 'history.transferProcessorMaxPollRPS=20', '--dynamic-config-value', 'history.timerProcessorMaxPollRPS=20'] : [],
  });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const workflows = await Worker.create({
    connection,
    taskQueue: 'dispatch',
    workflowBundle: await bundleWorkflowCode({ workflowsPath: require.resolve('./dispatch-workflow'), logger: new DefaultLogger('WARN') }),
  });
  const activities = await Worker.create({ connection, taskQueue: 'dispatch-acts', activities: { echo: async (i: number) => i } });
  const perCall: number[] = [];
  await workflows.runUntil(
    activities.runUntil(async () => {
      for (let r = 0; r < 5; r++) {
        const t = performance.now();
        await client.workflow.execute('sequentialCalls', { taskQueue: 'dispatch', workflowId: `dispatch-${r}`, args: [CALLS, 'dispatch-acts'] });
        perCall.push(+((performance.now() - t) / CALLS).toFixed(1));
      }
    }),
  );
  console.log(JSON.stringify({ devServer: untuned ? 'Temporal defaults' : 'swflow tuning', msPerCall: perCall }));
  await connection.close();
  await server.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
