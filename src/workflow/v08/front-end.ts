/**
 * The 0.8 front end as the run host sees it: the definition's data input and schemas, a foreach
 * chunk's slice, the run's end and failure around the state walk (./run.ts), and its
 * lifecycle events.
 */
import { ApplicationFailure, ContinueAsNew, isCancellation, log, scheduleLocalActivity } from '@temporalio/workflow';
import type { Json, WorkflowDef } from '../../common/model';
import type { FrontEnd, RunHost } from '../host/run-host';
import { V08Run } from './run';
import { runFailure } from './errors';
import type { ForEachChunk } from './states/foreach';
import { FEATURE_ITERATION_FAILURE_INDEX, FEATURE_OBJECT_DATA_INPUT } from '../../common/features';
import { VALIDATE_DATA_ACTIVITY } from '../../common/pinning';
import { dataInputProblem } from './data/input';

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

export class StatesFrontEnd implements FrontEnd {
  private readonly rt: V08Run;

  constructor(
    private readonly host: RunHost,
    private readonly def: WorkflowDef,
  ) {
    host.attach(
      {
        id: def.id,
        ...(def.version ? { version: def.version } : {}),
        title: `${def.name ?? def.id}${def.version ? ` ${def.version}` : ''}`,
        stepHeading: 'State',
        lifecycleName: `${host.info.workflowId}.${def.id}`,
        historyLimit: def.metadata?.['swflow.historyLimit'],
      },
      this,
    );
    this.rt = new V08Run(host, def);
  }

  data(): Json {
    return this.rt.states.currentData();
  }

  awaitedEvents(): string[] {
    return this.rt.awaitedEvents();
  }

  entered(): string[] {
    return this.host.tracker.entered;
  }

  current(): string[] {
    return this.host.tracker.current.map((name) => this.rt.states.pointer(name));
  }

  async run(input: Json): Promise<Json> {
    const { host, rt, def } = this;
    const opts = host.options;
    try {
      const data = input === undefined || input === null ? {} : input;
      const chunk = (opts.carried as Partial<ForEachChunk> | undefined)?.foreachChunk;
      if (chunk) {
        const out = await rt.foreachChunk(chunk, data); // a slice of a large foreach (see states/foreach.ts)
        host.checkOutput(out);
        host.tracker.flush();
        return out;
      }
      const problem = host.features.has(FEATURE_OBJECT_DATA_INPUT) && !opts.carried ? dataInputProblem(input) : undefined;
      if (problem) throw ApplicationFailure.create({ message: problem, type: 'DataInputInvalid', nonRetryable: true });
      if (!host.carried) host.started({ name: def.id, namespace: 'swflow', version: def.version ?? '' }, host.effects.now());
      await checkData('input', def.dataInputSchema, data);
      const output = await rt.run(data);
      await checkData('output', def.dataOutputSchema, output);
      host.checkOutput(output);
      host.publish('workflow.completed', { completedAt: host.nowIso(), output });
      await host.lifecycle?.settle();
      host.tracker.flush();
      return output;
    } catch (err) {
      host.tracker.flush();
      if (err instanceof ContinueAsNew || isCancellation(err)) throw err;
      host.setStatus('failed');
      const failure = runFailure(err, undefined, host.features.has(FEATURE_ITERATION_FAILURE_INDEX));
      host.publish('workflow.faulted', { faultedAt: host.nowIso(), error: { type: failure.type ?? 'runtime', title: failure.message } as Json });
      await host.lifecycle?.settle();
      throw failure;
    }
  }
}
