/**
 * subFlowRef actions: child workflows of the same generic workflow (type = the subflow's id,
 * `id@version` when a version is given), on the interpreter's task queue.
 * `onParentComplete: continue` → ParentClosePolicy ABANDON, else TERMINATE.
 */
import { ParentClosePolicy } from '@temporalio/workflow';
import type { ActionDef, Definition, Json, StateDef } from '../../common/model';
import type { StartOptions } from '../../common/contracts';
import { parseDuration } from '../../common/duration';
import { withRetries } from './retry';
import type { StateContext } from './states/context';

export function subflowKey(id: string, version?: string): string {
  return version ? `${id}@${version}` : id;
}

export function findSubflow(options: StartOptions, id: string, version?: string): Definition | undefined {
  const map = options.subflows ?? {};
  if (version && map[subflowKey(id, version)]) return map[subflowKey(id, version)];
  if (map[id] && (!version || !map[id].version || map[id].version === version)) return map[id];
  return Object.values(map).find((d) => d.id === id && (!version || d.version === version));
}

export async function runSubflow(ctx: StateContext, state: StateDef, action: ActionDef, label: string, input: Json, actionTimeout?: string): Promise<Json | undefined> {
  const ref = action.subFlowRef!;
  const type = subflowKey(ref.workflowId, ref.version);
  const definition = findSubflow(ctx.options, ref.workflowId, ref.version);
  const startOptions: StartOptions = { ...(definition ? { definition } : {}), ...(ctx.options.subflows ? { subflows: ctx.options.subflows } : {}) };
  const summary = ctx.summary(state.name, label, `subflow ${type}`);
  const options = () => ({
    args: [input, startOptions] as [Json, StartOptions],
    // Not derived from the parent's workflow id, so that recorded histories replay under any id
    // (the Web UI links parent and child anyway).
    workflowId: `${ref.workflowId}-${ctx.effects.uuid4()}`,
    taskQueue: ctx.info.taskQueue,
    parentClosePolicy: ref.onParentComplete === 'continue' ? ParentClosePolicy.ABANDON : ParentClosePolicy.TERMINATE,
    ...(actionTimeout && ref.invoke === 'sync' ? { workflowRunTimeout: parseDuration(actionTimeout) } : {}),
    staticSummary: summary,
    staticDetails: `Subflow **${type}** of ${ctx.def.id} (state ${state.name})`,
  });
  if (ref.invoke === 'async') {
    await ctx.effects.startChild(type, options());
    return undefined;
  }
  return withRetries(ctx.def, action, summary, () => ctx.effects.executeChild<Json>(type, options()), undefined, ctx.effects);
}
