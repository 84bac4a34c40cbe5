/**
 * Starting swflow runs from code. The run's staticSummary names the definition (shown in
 * the Web UI's list and detail views), and its search attributes start with the definition id.
 *
 *   const handle = await startWorkflow(client, { id: 'greeting', input: { person: { name: 'Ann' } } });
 *   const handle = await startWorkflow(client, { definition, input, subflows });
 */
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { Json, WorkflowDef } from '../common/model';
import { withRunPageLink } from '../ui/link';
import { jsonBytes, payloadTooLargeMessage } from '../common/payload-limit';
import { payloadSettings } from '../payloads/config';
import { INTERPRETER_TASK_QUEUE, type CloudEventJson, EVENT_SIGNAL, type StartOptions } from '../common/contracts';

export interface StartWorkflowOptions {
  /** The definition itself (sent with the run) ... */
  definition?: WorkflowDef;
  /** ... or its id (`id` or `id@version`), resolved by the worker from its definitions. */
  id?: string;
  version?: string;
  input?: Json;
  workflowId?: string;
  taskQueue?: string;
  subflows?: Record<string, WorkflowDef>;
  /** Events delivered with the start (signal-with-start), e.g. for start event states. */
  startEvents?: CloudEventJson[];
  /**
   * A Temporal workflowExecutionTimeout for the run; none by default. The definition's
   * workflowExecTimeout is the interpreter's own timer (it runs `runBefore`, honours `interrupt`):
   * a server timeout of the same length would cut the run off before either.
   */
  workflowExecutionTimeout?: string | number;
}

export function definitionTitle(def: { id: string; name?: string; version?: string }): string {
  const v = def.version ? ` v${def.version}` : '';
  return def.name && def.name !== def.id ? `${def.name} (${def.id}${v})` : `${def.id}${v}`;
}

export async function startWorkflow(client: Client, opts: StartWorkflowOptions): Promise<WorkflowHandle> {
  const def = opts.definition;
  const id = def?.id ?? opts.id;
  if (!id) throw new Error('startWorkflow needs a definition or an id');
  const version = def?.version ?? opts.version;
  const type = def ? def.id : version && opts.id && !opts.id.includes('@') ? `${opts.id}@${version}` : opts.id!;
  const startOptions: StartOptions = { ...(def ? { definition: def } : {}), ...(opts.subflows ? { subflows: opts.subflows } : {}) };
  const args: [Json, StartOptions?] = Object.keys(startOptions).length ? [opts.input ?? {}, startOptions] : [opts.input ?? {}];
  // A client without a payload store: an input Temporal would refuse is refused here, saying why.
  if (!client.options.loadedDataConverter.externalStorage) {
    const { limit } = payloadSettings();
    const bytes = jsonBytes(args, limit);
    if (bytes > limit) throw new Error(payloadTooLargeMessage(`the input of ${type}${def ? ' (with its definition)' : ''}`, bytes, limit));
  }
  const summary = def ? `Serverless Workflow ${definitionTitle(def)}` : `Serverless Workflow ${type}`;
  const timeout = opts.workflowExecutionTimeout;
  const workflowId = opts.workflowId ?? `${id}-${randomUUID().slice(0, 8)}`;
  const common = {
    taskQueue: opts.taskQueue ?? INTERPRETER_TASK_QUEUE,
    workflowId,
    args,
    staticSummary: summary,
    // With SWFLOW_UI_URL set, the Web UI links the run to its run page.
    staticDetails: withRunPageLink(workflowId, def?.description),
    ...(timeout !== undefined ? { workflowExecutionTimeout: typeof timeout === 'string' && timeout.startsWith('P') ? isoToMs(timeout) : timeout } : {}),
  };
  if (opts.startEvents?.length) {
    const [first, ...rest] = opts.startEvents;
    const handle = await client.workflow.signalWithStart(type, { ...common, signal: EVENT_SIGNAL, signalArgs: [first] } as any);
    for (const e of rest) await handle.signal(EVENT_SIGNAL, e);
    return handle as unknown as WorkflowHandle;
  }
  return client.workflow.start(type, common as any);
}

function isoToMs(iso: string): number {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  return (require('../common/duration') as typeof import('../common/duration')).parseDuration(iso);
}
