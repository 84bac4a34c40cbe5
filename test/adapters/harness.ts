/**
 * For adapter tests: the dev server, the real interpreter worker, adapter workers made with the
 * SDK, and definitions run through the interpreter.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { INTERPRETER_TASK_QUEUE } from '../../src/common/contracts';
import { loadAnyDefinition, loadDefinition, formatFinding } from '../../src/dsl';
import { installQuietRuntime } from '../../src/testing/env';
import { bundleInterpreter, createInterpreterWorker } from '../../src/worker/interpreter-worker';
import { startDevEnv } from '../helpers/temporal';

export interface AdapterHarness {
  env: TestWorkflowEnvironment;
  client: Client;
  connection: NativeConnection;
  /** Runs a worker until close(). */
  serve(worker: Worker): void;
  start(doc: Record<string, unknown>, input?: unknown): Promise<WorkflowHandle>;
  /** Starts a definition and waits for its result (rejects with the run's failure). */
  run(doc: Record<string, unknown>, input?: unknown): Promise<{ result: Promise<unknown>; workflowId: string }>;
  close(): Promise<void>;
}

export async function adapterHarness(): Promise<AdapterHarness> {
  installQuietRuntime();
  const env = await startDevEnv();
  const connection = env.nativeConnection as NativeConnection;
  const client = env.client as Client;
  const workers: Worker[] = [];
  const runs: Promise<unknown>[] = [];
  const serve = (w: Worker) => {
    workers.push(w);
    runs.push(w.run());
  };
  serve(await createInterpreterWorker({ connection, taskQueue: INTERPRETER_TASK_QUEUE, definitions: [], workflowBundle: await bundleInterpreter() }));
  const start = async (doc: Record<string, unknown>, input: unknown = {}) => {
    // A 1.0 document (`document:`), else 0.8.
    const loaded = doc.document ? await loadAnyDefinition(doc) : await loadDefinition({ specVersion: '0.8', ...doc } as never);
    assert.ok(loaded.definition, loaded.problems.map(formatFinding).join('\n'));
    const id = loaded.definition.id;
    return client.workflow.start(id, {
      taskQueue: INTERPRETER_TASK_QUEUE,
      workflowId: `${id}-${randomUUID().slice(0, 8)}`,
      args: [input, { definition: loaded.definition }],
      workflowExecutionTimeout: '2 minutes',
    });
  };
  return {
    env,
    client,
    connection,
    serve,
    start,
    async run(doc, input) {
      const handle = await start(doc, input);
      const result = handle.result();
      result.catch(() => {});
      return { result, workflowId: handle.workflowId };
    },
    async close() {
      for (const w of workers) w.shutdown();
      await Promise.allSettled(runs);
      await env.teardown();
    },
  };
}

/** The message chain of a run's failure (workflow failure, then its causes). */
export function failureText(err: unknown): string {
  const parts: string[] = [];
  let e = err as { message?: string; cause?: unknown; details?: unknown[] } | undefined;
  for (let i = 0; e && i < 6; i++) {
    if (e.message) parts.push(e.message);
    if (e.details?.length) parts.push(JSON.stringify(e.details));
    e = e.cause as typeof e;
  }
  return parts.join(' | ');
}
