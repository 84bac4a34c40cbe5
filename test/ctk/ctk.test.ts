/**
 * The Serverless Workflow 1.0 Conformance Test Kit (shared/specs/serverless-workflow-1.0.3/ctk)
 * as a test: every scenario of every feature, parsed with Cucumber's own Gherkin parser, run
 * through the real interpreter on a real Temporal server (the dev server), with the built-in
 * adapter worker making real HTTP calls to local stand-ins for petstore.swagger.io and
 * httpbin.org (./stand-ins.ts). Prints `<feature>: N passed, N failed` per feature.
 */
import { after, before, describe, test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AstBuilder, GherkinClassicTokenMatcher, Parser, compile } from '@cucumber/gherkin';
import { IdGenerator, type Pickle } from '@cucumber/messages';
import { Client, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { INTERPRETER_TASK_QUEUE, STATE_QUERY, type InstanceState } from '../../src/common/contracts';
import { formatFinding, loadAnyDefinition } from '../../src/dsl';
import type { Json } from '../../src/common/model';
import { createBuiltinAdapterWorker } from '../../src/worker/adapter-worker';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { stopWorkers } from '../../src/worker/stop';
import { installQuietRuntime } from '../../src/testing/env';
import { sharedBundle } from '../workflow/helpers';
import { startDevEnv } from '../helpers/temporal';
import { runStep, type Outcome, type World } from './steps';
import { startStandIns, type StandIns } from './stand-ins';

installQuietRuntime();

const FEATURES = resolve(__dirname, '..', '..', '..', 'shared', 'specs', 'serverless-workflow-1.0.3', 'ctk', 'features');

function pickles(file: string): readonly Pickle[] {
  const parser = new Parser(new AstBuilder(IdGenerator.uuid()), new GherkinClassicTokenMatcher());
  return compile(parser.parse(readFileSync(file, 'utf8')), file, IdGenerator.uuid());
}

let env: TestWorkflowEnvironment;
let standIns: StandIns;
let workers: Worker[] = [];
let runs: Promise<void>[] = [];
let client: Client;
let n = 0;
const tally = new Map<string, { passed: number; failed: number }>();

before(async () => {
  env = await startDevEnv();
  standIns = await startStandIns();
  client = env.client;
  const bundle = await sharedBundle();
  workers = [
    await createInterpreterWorker({ connection: env.nativeConnection, definitions: [], workflowBundle: bundle }),
    await createBuiltinAdapterWorker({ connection: env.nativeConnection }),
  ];
  runs = workers.map((w) => w.run());
});

after(async () => {
  await stopWorkers(workers, runs);
  await standIns?.close();
  await env?.teardown();
  for (const [feature, t] of tally) console.log(`ctk ${feature}: ${t.passed} passed, ${t.failed} failed`);
});

async function execute(w: World): Promise<Outcome> {
  const loaded = await loadAnyDefinition(standIns.rewrite(w.definition ?? ''), { source: 'scenario' });
  if (!loaded.definition) throw new Error(`the definition does not validate:\n${loaded.problems.map(formatFinding).join('\n')}`);
  const definition = loaded.definition;
  const handle = await client.workflow.start(definition.id, { taskQueue: INTERPRETER_TASK_QUEUE, workflowId: `ctk-${++n}-${Date.now()}`, args: [(w.input ?? {}) as Json, { definition }] });
  const tasks = async () => (await handle.query<InstanceState>(STATE_QUERY)).statesEntered;
  try {
    const output = (await handle.result()) as Json;
    return { status: 'completed', output, tasks: await tasks() };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    if (err.cause instanceof CancelledFailure) return { status: 'cancelled', tasks: await tasks() };
    const cause = err.cause as ApplicationFailure;
    return { status: 'faulted', error: (cause?.details?.[0] ?? null) as Json, message: cause?.message, tasks: await tasks() };
  }
}

for (const file of readdirSync(FEATURES).filter((f) => f.endsWith('.feature')).sort()) {
  const feature = file.replace(/\.feature$/, '');
  describe(`ctk ${feature}`, () => {
    for (const pickle of pickles(join(FEATURES, file))) {
      test(pickle.name, async () => {
        const world: World = { execute };
        const t = tally.get(feature) ?? { passed: 0, failed: 0 };
        tally.set(feature, t);
        try {
          for (const step of pickle.steps) await runStep(world, step.text, step.argument?.docString?.content);
          t.passed++;
        } catch (err) {
          t.failed++;
          throw err;
        }
      });
    }
  });
}
