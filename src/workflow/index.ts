/**
 * The generic Temporal workflow: the *default* (dynamic) workflow of the interpreter worker
 * (`export default`) that interprets any Serverless Workflow definition.
 *
 * Started as `--type <definition id>` (or `<id>@<version>`, 1.0: `<namespace>/<name>`) with the
 * data input as its first argument, the definition is resolved by the worker and pinned into
 * history at the first task (a local activity returns it), so a changed file never changes a
 * running instance. Or started with `StartOptions.definition` as the second argument.
 *
 * What belongs to the run is the run host's (./host): the mailbox (events arrive as the
 * EVENT_SIGNAL), the `state` query, suspension (SUSPEND_SIGNAL / RESUME_SIGNAL), continue-as-new,
 * lifecycle events. The pinned definition picks its front end: 0.8 states (v08/front-end.ts over
 * v08/run.ts) or the 1.0 task tree (./v1/run.ts).
 */
import { ActivityFailure, ApplicationFailure, CancellationScope, defineQuery, defineSignal, isCancellation, scheduleLocalActivity, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Definition, Json } from '../common/model';
import { isV1Definition } from '../common/model-v1';
import { CONSUMED_QUERY, EVENT_SIGNAL, RESUME_SIGNAL, STATE_QUERY, SUSPEND_SIGNAL, type CloudEventJson, type InstanceState, type StartOptions, type StateProgress, type StateQueryArg } from '../common/contracts';
import { RunHost, type FrontEnd } from './host/run-host';
import { resetsSeen } from './host/resets';
import { StatesFrontEnd } from './v08/front-end';
import { V1Run } from './v1/run';
import { RESOLVE_DEFINITION_ACTIVITY, type ResolveRequest, type ResolveResult } from '../common/pinning';

export const eventSignal = defineSignal<[CloudEventJson]>(EVENT_SIGNAL);
export const suspendSignal = defineSignal(SUSPEND_SIGNAL);
export const resumeSignal = defineSignal(RESUME_SIGNAL);
/** The whole InstanceState; with a `since` argument, only the progress since then (StateProgress). */
export const stateQuery = defineQuery<InstanceState | StateProgress, [StateQueryArg?]>(STATE_QUERY);
/** A query only (nothing recorded): replays of every history are unchanged. */
export const consumedQuery = defineQuery<string[]>(CONSUMED_QUERY);

async function resolve(type: string, options: StartOptions): Promise<ResolveResult> {
  // A continued chain carries its pinned function documents (v1-catalogs): the worker fetches none.
  const req: ResolveRequest = { type, ...(options.definition ? { definition: options.definition } : {}), ...(options.functions ? { functionsPinned: true } : {}), ...(resetsSeen() ? { afterReset: true } : {}) };
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

/** The front end of each kind of pinned definition. */
function frontEnd(host: RunHost, def: Definition): FrontEnd {
  return isV1Definition(def) ? new V1Run(host, def) : new StatesFrontEnd(host, def);
}

export default async function swflow(input?: Json, options?: StartOptions): Promise<Json> {
  const info = workflowInfo();
  const opts: StartOptions = options && typeof options === 'object' ? options : {};
  const host = new RunHost(opts);
  setHandler(eventSignal, (event: CloudEventJson) => host.mailbox.push(event));
  setHandler(suspendSignal, () => host.suspend());
  setHandler(resumeSignal, () => host.resume());
  setHandler(consumedQuery, () => host.mailbox.consumedKeys());
  setHandler(stateQuery, (arg?: StateQueryArg) => host.stateAnswer({ definitionId: opts.definition?.id ?? info.workflowType, data: input ?? null }, arg));

  const resolved = await resolve(info.workflowType, opts);
  host.pin(resolved);
  frontEnd(host, resolved.definition ?? opts.definition!);
  try {
    return await host.run(input === undefined || input === null ? {} : input);
  } catch (err) {
    if (isCancellation(err)) {
      // Shielded: the run's own scope is cancelled, and so would be the events' activities.
      await CancellationScope.nonCancellable(async () => {
        host.setStatus('cancelled');
        host.publish('workflow.cancelled', { cancelledAt: host.nowIso() });
        await host.lifecycle?.settle();
      });
    }
    throw err;
  }
}
