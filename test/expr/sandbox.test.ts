/**
 * src/expr inside the real Temporal workflow sandbox: webpack bundle, dev server, replay.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Worker, bundleWorkflowCode, DefaultLogger, Runtime, type InjectedSinks } from '@temporalio/worker';
import { startDevEnv } from '../helpers/temporal';
import type { ExprSinks, ExprWorkflowResult } from './workflows';

function recordingSinks(into: Map<string, unknown[]>): InjectedSinks<ExprSinks> {
  return {
    expr: {
      record: {
        fn: (info, result) => {
          const list = into.get(info.workflowId) ?? [];
          list.push(result);
          into.set(info.workflowId, list);
        },
        callDuringReplay: true,
      },
    },
  };
}

try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  /* already installed */
}

const workflowsPath = path.join(__dirname, 'workflows.ts');
const engineModule = path.join(__dirname, '../../src/expr/engine.ts');
const data = { applicant: { name: 'Ann', age: 20 }, items: [1, 2, 3, 4], count: 4 };

test('expressions evaluate inside the workflow sandbox and replay identically', { timeout: 240_000 }, async () => {
  const env = await startDevEnv();
  try {
    for (const preload of [true, false]) {
      const workflowBundle = await bundleWorkflowCode({
        workflowsPath,
        preloadModules: preload ? [engineModule] : [],
        logger: new DefaultLogger('WARN'),
      });
      const taskQueue = `expr-${randomUUID()}`;
      const recorded = new Map<string, unknown[]>();
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle,
        sinks: recordingSinks(recorded),
        // Evict after each task so that every task (and the timer's continuation) runs in a
        // freshly created workflow — with a shared (preloaded) or per-workflow engine.
        maxCachedWorkflows: 0,
      });
      const runs = await worker.runUntil(async () => {
        const out: { id: string; result: ExprWorkflowResult }[] = [];
        for (let i = 0; i < 2; i++) {
          const id = `expr-${randomUUID()}`;
          const result = await env.client.workflow.execute('exprWorkflow', { taskQueue, workflowId: id, args: [data] });
          out.push({ id, result: result as ExprWorkflowResult });
        }
        return out;
      });
      for (const { id, result } of runs) {
        assert.equal(result.readyAtStart, true, 'engine ready before workflow code runs');
        assert.deepEqual(result.results, [
          'Ann',
          [30, 40],
          true,
          5,
          { a: 'Ann', b: [4, 'lit', 'test'], c: 'n=5' },
          true,
        ]);
        assert.deepEqual(result.envHidden, [{}, {}]);
        assert.deepEqual(result.error, { name: 'ExpressionError', expression: '${ .count.x }', jqMessage: 'Cannot index number with string ("x")' });
        // `now` is workflow time: after the 1.5 s timer it is the (floored) workflow clock.
        assert.equal(result.nowAfter, Math.floor(result.dateNowAfter / 1000));
        assert.ok(typeof result.nowBefore === 'number' && result.nowBefore <= (result.nowAfter as number) + 1);

        // Replay: the same history must replay without non-determinism, and the workflow code
        // must compute the same result (including `now`) — checked through the completion.
        const history = await env.client.workflow.getHandle(id).fetchHistory();
        const replayed = new Map<string, unknown[]>();
        await Worker.runReplayHistory({ workflowBundle, replayName: id, sinks: recordingSinks(replayed) }, history);
        const original = recorded.get(id) ?? [];
        assert.equal(original.length, 1);
        assert.equal(JSON.stringify(original[0]), JSON.stringify(result));
        // Same values on replay, including `now` (before and after the timer).
        // (JSON: the sink arguments are objects of the sandbox realm.)
        assert.equal(JSON.stringify([...replayed.values()]), JSON.stringify([original]));
      }
    }
  } finally {
    await env.teardown();
  }
});
