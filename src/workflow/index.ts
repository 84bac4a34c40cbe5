/**
 * The generic swflow workflow: ONE Temporal dynamic workflow (the module's default export)
 * that interprets any Serverless Workflow definition.
 *
 * Started as `--type <definition id>` (or `<id>@<version>`) with the data input as its first
 * argument, the definition is resolved by the worker and pinned into history at the first
 * task (a local activity returns it), so a changed file never changes a running instance. Or
 * started with `StartOptions.definition` as the second argument.
 *
 * Events arrive as the EVENT_SIGNAL (a CloudEvent in JSON form) into an in-workflow mailbox;
 * the `state` query answers InstanceState.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ContinueAsNew,
  defineQuery,
  defineSignal,
  isCancellation,
  log,
  scheduleLocalActivity,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Definition, Json, WorkflowDef } from '../dsl/model';
import { isV1Definition, type V1Definition } from '../dsl/v1/model';
import { V1Run } from './v1/run';
import { Lifecycle } from './v1/lifecycle';
import { EVENT_SIGNAL, STATE_QUERY, type CloudEventJson, type InstanceState, type StartOptions } from '../common/contracts';
import { Mailbox } from './events/mailbox';
import { Runtime } from './runtime';
import { Tracker } from './ui';
import { runFailure } from './errors';
import type { ForEachChunk } from './states/foreach';
import { FEATURE_OBJECT_DATA_INPUT, RESOLVE_DEFINITION_ACTIVITY, VALIDATE_DATA_ACTIVITY, type ResolveRequest, type ResolveResult } from './resolve';
import { dataInputProblem } from './data/input';

export const eventSignal = defineSignal<[CloudEventJson]>(EVENT_SIGNAL);
export const stateQuery = defineQuery<InstanceState>(STATE_QUERY);

async function resolve(type: string, options: StartOptions): Promise<ResolveResult> {
  const req: ResolveRequest = { type, ...(options.definition ? { definition: options.definition } : {}) };
  try {
    return await scheduleLocalActivity<ResolveResult>(RESOLVE_DEFINITION_ACTIVITY, [req], {
      startToCloseTimeout: '30 seconds',
      retry: { maximumAttempts: 3, nonRetryableErrorTypes: ['DefinitionNotFound', 'InvalidDefinition'] },
      summary: options.definition ? `pin definition ${options.definition.id}` : `resolve definition ${type}`,
    });
  } catch (err) {
    const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
    const message = cause instanceof Error ? cause.message : String(cause);
    throw ApplicationFailure.create({ message, type: (cause as ApplicationFailure)?.type ?? 'DefinitionNotFound', nonRetryable: true });
  }
}

/** dataInputSchema / dataOutputSchema: checked by a local activity (ajv); fails the run when failOnValidationErrors. */
async function checkData(which: 'input' | 'output', schema: WorkflowDef['dataInputSchema'], data: Json): Promise<string | undefined> {
  if (!schema || schema.schema === undefined || schema.schema === null) return undefined;
  const problems = await scheduleLocalActivity<string[]>(VALIDATE_DATA_ACTIVITY, [{ schema: schema.schema, data }], {
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3 },
    summary: `validate data ${which} against data${which === 'input' ? 'Input' : 'Output'}Schema`,
  });
  if (!problems.length) return undefined;
  const message = `the workflow data ${which} does not match the definition's data${which === 'input' ? 'Input' : 'Output'}Schema: ${problems.slice(0, 10).join('; ')}`;
  if (schema.failOnValidationErrors !== false) {
    throw ApplicationFailure.create({ message, type: which === 'input' ? 'DataInputInvalid' : 'DataOutputInvalid', nonRetryable: true });
  }
  log.warn(message);
  return message;
}

export default async function swflow(input?: Json, options?: StartOptions): Promise<Json> {
  const info = workflowInfo();
  const opts: StartOptions = options && typeof options === 'object' ? options : {};
  const mailbox = new Mailbox();
  let rt: Runtime | undefined;
  let v1: V1Run | undefined;
  setHandler(eventSignal, (event: CloudEventJson) => mailbox.push(event));
  setHandler(stateQuery, () =>
    v1
      ? v1.instanceState()
      : rt
      ? rt.instanceState()
      : { definitionId: opts.definition?.id ?? info.workflowType, currentStates: [], statesEntered: [], data: input ?? null, awaitedEvents: [], status: 'running' },
  );

  const resolved = await resolve(info.workflowType, opts);
  const pinned: Definition = resolved.definition ?? opts.definition!;
  if (isV1Definition(pinned)) return runV1(pinned, resolved, opts, mailbox, input, (r) => (v1 = r));
  const def: WorkflowDef = pinned;
  const tracker = new Tracker(`${def.name ?? def.id}${def.version ? ` ${def.version}` : ''}`, new Set(resolved.searchAttributes), resolved.features ?? []);
  tracker.upsert('SwDefinitionId', def.id);
  if (def.version) tracker.upsert('SwDefinitionVersion', def.version);
  tracker.upsert('SwDefinitionHash', resolved.hash);
  rt = new Runtime(def, { ...opts, definition: opts.definition ?? undefined }, mailbox, tracker, new Set(resolved.features ?? []));
  try {
    const data = input === undefined || input === null ? {} : input;
    const chunk = (opts.carried as Partial<ForEachChunk> | undefined)?.foreachChunk;
    if (chunk) {
      const out = await rt.foreachChunk(chunk, data); // a slice of a large foreach (see states/foreach.ts)
      tracker.flush();
      return out;
    }
    const problem = rt.features.has(FEATURE_OBJECT_DATA_INPUT) && !opts.carried ? dataInputProblem(input) : undefined;
    if (problem) throw ApplicationFailure.create({ message: problem, type: 'DataInputInvalid', nonRetryable: true });
    await checkData('input', def.dataInputSchema, data);
    const output = await rt.run(data);
    await checkData('output', def.dataOutputSchema, output);
    tracker.flush();
    return output;
  } catch (err) {
    tracker.flush();
    if (err instanceof ContinueAsNew || isCancellation(err)) throw err;
    tracker.status = 'failed';
    tracker.render();
    throw runFailure(err);
  }
}

/** A 1.0 document: the task-tree executor (./v1), on the same mailbox, tracker and search attributes. */
async function runV1(def: V1Definition, resolved: ResolveResult, opts: StartOptions, mailbox: Mailbox, input: Json | undefined, expose: (r: V1Run) => void): Promise<Json> {
  const tracker = new Tracker(`${def.name} ${def.version}`, new Set(resolved.searchAttributes), resolved.features ?? [], 'Task');
  tracker.upsert('SwDefinitionId', def.id);
  tracker.upsert('SwDefinitionVersion', def.version);
  tracker.upsert('SwDefinitionHash', resolved.hash);
  const info = workflowInfo();
  const events = resolved.lifecycleEvents ? new Lifecycle(def, info.taskQueue, `${info.workflowId}.${def.namespace}`) : undefined;
  const run = new V1Run(def, opts, mailbox, tracker, events, new Set(resolved.features ?? []));
  expose(run);
  try {
    return await run.run(input === undefined || input === null ? {} : input);
  } finally {
    tracker.flush();
  }
}
