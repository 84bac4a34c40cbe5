/**
 * The thread side of ./check-apart.ts: reads and checks one definition file at a time (parse,
 * schema, jq syntax: the jq engine is instantiated here, in this short-lived thread, never in the
 * process's main thread) and answers with the definition or its first problem (file:line: ...).
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { Definition } from '../common/model';
import { formatFinding, loadAnyDefinitionFile, type ApiDocumentKind } from '../dsl';

/** What checking one file gave: its definition, or the problem that skips it. */
export interface CheckedFile {
  definition?: Definition;
  problem?: string;
  /** The file is an API or schema document (with `problem` saying so), not a broken definition. */
  apiDocument?: ApiDocumentKind;
}

/** The message a request carries, and its answer. */
export interface CheckRequest {
  id: number;
  path: string;
}
export interface CheckAnswer extends CheckedFile {
  id: number;
}

/** Tells the thread entry from an import of this module elsewhere (the same text in ./check-apart.ts, which imports only types from here). */
const THREAD_MARK = 'swflow-definition-check';

/** Reads and checks one definition file (in the thread that calls it: ./check-apart.ts imports only this module's types). */
export async function checkDefinitionFile(path: string): Promise<CheckedFile> {
  const { definition, problems, apiDocument } = await loadAnyDefinitionFile(path, {});
  if (definition) return { definition };
  // A syntax error first: the schema errors after it mostly follow from it.
  const errors = problems.filter((p) => p.severity === 'error');
  const first = errors.find((p) => / syntax error: /.test(p.message)) ?? errors[0] ?? problems[0];
  return { problem: first ? formatFinding(first) : 'not a definition', ...(apiDocument ? { apiDocument } : {}) };
}

if (!isMainThread && workerData === THREAD_MARK && parentPort) {
  const port = parentPort;
  port.on('message', ({ id, path }: CheckRequest) => {
    void checkDefinitionFile(path)
      .catch((err: Error): CheckedFile => ({ problem: err.message }))
      .then((checked) => {
        try {
          port.postMessage({ id, ...checked } satisfies CheckAnswer);
        } catch (err) {
          port.postMessage({ id, problem: `the definition cannot be passed on: ${(err as Error).message}` } satisfies CheckAnswer);
        }
      });
  });
}
