/**
 * `swflow run` follows a long run incrementally (src/cli/follow.ts, the `state` query's `since`
 * argument): a 1.0 `for` of thousands of `set` iterations (and a 1 ms `wait` every 500) through runCommand against a real dev
 * server prints every step once and in order, and the query's answers carry each entry once (no
 * data, no whole path per poll): what it transfers is linear in the run's length. Also across
 * continue-as-new (a small `swflow.historyLimit`), where each run of the chain is checked
 * against its own whole `state` answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Client } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { INTERPRETER_TASK_QUEUE, STATE_QUERY, type InstanceState, type StateProgress } from '../../src/common/contracts';
import { runCommand } from '../../src/cli/run';
import { createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';
import { installQuietRuntime } from '../../src/testing/env';

let env: TestWorkflowEnvironment;
const dir = mkdtempSync(join(tmpdir(), 'swflow-run-progress-'));

before(async () => {
  installQuietRuntime();
  env = await startDevEnv();
});

after(async () => {
  await env?.teardown();
});

function loopDocument(name: string, iterations: number, historyLimit?: number): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `document: { dsl: '1.0.0', namespace: test, name: ${name}, version: '1.0.0'${historyLimit ? `, metadata: { swflow.historyLimit: ${historyLimit} }` : ''} }`,
      'do:',
      '  - first:',
      '      set: { count: 0 }',
      '  - loop:',
      `      for: { each: i, in: '\${ [range(0; ${iterations})] }' }`,
      '      do:',
      '        - inc:',
      "            set: { count: '${ $index + 1 }' }",
      // A 1 ms timer every 500 iterations: the run spans several polls, and its history grows (continue-as-new under a small limit).
      '        - nap:',
      "            if: '${ $index % 500 == 499 }'",
      '            wait: { milliseconds: 1 }',
      '  - last:',
      "      set: { count: '${ .count }' }",
      '',
    ].join('\n'),
  );
  return file;
}

/** Runs `file` as `swflow run` does, against the test's server: the lines printed and the `state` answers it received. */
async function swflowRun(file: string, workflowId: string) {
  const lines: string[] = [];
  const answers: (InstanceState | StateProgress)[] = [];
  const code = await runCommand(file, { address: env.address, namespace: 'default', worker: true, workflowId }, (l) => lines.push(l), (a) => answers.push(a));
  const steps = lines.filter((l) => l.startsWith('→ ')).map((l) => l.slice(2));
  const output = JSON.parse(lines.slice(lines.indexOf('Output:') + 1).join('\n'));
  return { code, lines, steps, output, answers };
}

/** Each answer is a progress answer without data, and starts where the last answer of its run ended. */
function assertIncremental(answers: (InstanceState | StateProgress)[]): number {
  const at = new Map<string, number>();
  let entries = 0;
  for (const a of answers) {
    assert.ok('progress' in a && a.progress, 'a progress answer');
    assert.ok(!('data' in a) && !('steps' in a), 'no data, no steps');
    const end = at.get(a.runId);
    // The first answer of a run (asked with another run's position) starts at 0.
    assert.equal(a.from, end ?? 0, `answer of ${a.runId} starts where the last one ended`);
    at.set(a.runId, a.from + a.entered.length);
    entries += a.entered.length;
  }
  return entries;
}

const ITERATIONS = 3000;

test(`swflow run: a 1.0 for of ${ITERATIONS} set iterations prints every step once, in order; each poll transfers only new entries`, { timeout: 240_000 }, async () => {
  const file = loopDocument('progress', ITERATIONS);
  const t = Date.now();
  const r = await swflowRun(file, `progress-${randomUUID().slice(0, 8)}`);
  console.log(`[run-progress] ${ITERATIONS} iterations: ${((Date.now() - t) / 1000).toFixed(1)} s, ${r.answers.length} answers`);
  assert.equal(r.code, 0, r.lines.slice(-5).join('\n'));
  assert.deepEqual(r.output, { count: ITERATIONS });
  assert.deepEqual(r.steps, ['first', 'loop', ...Array.from({ length: ITERATIONS }, () => ['inc', 'nap']).flat(), 'last']);
  const entries = assertIncremental(r.answers);
  // One run: every entry transferred exactly once.
  assert.equal(entries, r.steps.length);
  assert.ok(r.answers.length > 1, 'followed over several polls');
});

test(`swflow run across continue-as-new: the same ${ITERATIONS} iterations in a chain of runs, each run's own steps once`, { timeout: 240_000 }, async () => {
  const file = loopDocument('progresscan', ITERATIONS, 8);
  const workflowId = `progresscan-${randomUUID().slice(0, 8)}`;
  // A worker of the test's own, to answer the closed runs' whole state afterwards.
  const nativeConnection = await NativeConnection.connect({ address: env.address });
  const worker: Worker = await createInterpreterWorker({ connection: nativeConnection, namespace: 'default', taskQueue: INTERPRETER_TASK_QUEUE, definitions: [] });
  const running = worker.run();
  try {
    const r = await swflowRun(file, workflowId);
    assert.equal(r.code, 0, r.lines.slice(-5).join('\n'));
    assert.deepEqual(r.output, { count: ITERATIONS });

    // The chain, newest first, from each run's history (continuedExecutionRunId).
    const client = new Client({ connection: env.connection, namespace: 'default' });
    const runIds: string[] = [];
    let runId: string | undefined = (await client.workflow.getHandle(workflowId).describe()).runId;
    while (runId) {
      runIds.unshift(runId);
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    }
    assert.ok(runIds.length >= 3, `continued as new (runs: ${runIds.length})`);

    // What each run says it entered (its whole state): a run starts with the last (at most 100) of the run before.
    const expected: string[] = [];
    let before: string[] = [];
    for (const id of runIds) {
      const s = await client.workflow.getHandle(workflowId, id).query<InstanceState>(STATE_QUERY);
      const kept = Math.min(100, before.length);
      assert.deepEqual(s.statesEntered.slice(0, kept), before.slice(before.length - kept));
      expected.push(...s.statesEntered.slice(kept));
      before = s.statesEntered;
    }
    assert.deepEqual(r.steps, expected);
    // The loop is entered again by each run that goes on with it; every iteration once.
    assert.equal(r.steps.filter((s) => s === 'inc').length, ITERATIONS);
    assert.equal(r.steps.filter((s) => s === 'nap').length, ITERATIONS);
    assert.deepEqual(r.steps.filter((s) => s !== 'inc' && s !== 'nap' && s !== 'loop'), ['first', 'last']);
    assert.ok(!r.lines.some((l) => l.includes('now following run')), 'every run linked');

    const entries = assertIncremental(r.answers);
    console.log(`[run-progress] ${ITERATIONS} iterations in ${runIds.length} runs: ${r.answers.length} answers, ${entries} entries for ${r.steps.length} steps`);
    // Each entry once, besides each new run's first answer, which holds its carried entries.
    assert.ok(entries <= r.steps.length + 100 * (runIds.length - 1), `${entries} entries for ${r.steps.length} steps in ${runIds.length} runs`);
  } finally {
    worker.shutdown();
    await running;
    await nativeConnection.close();
  }
});
