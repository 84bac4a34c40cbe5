/**
 * Parallel state: each branch runs its actions (sequentially) on a copy of the state data;
 * completed branches' data is merged into the state data (in branch order). allOf waits for
 * every branch; atLeast for numCompleted, then cancels the unfinished branches. A failing
 * branch fails the state (and cancels the others).
 */
import type { Json, ParallelState } from '../../../common/model';
import { merge } from '../data/merge';
import { runActions } from '../actions';
import { actionExecTimeout, branchExecTimeout, withTimeout } from '../../timeouts';
import type { Holder, StateContext } from './context';
import { beforeBlocking } from '../../host/tracker';

export async function runParallel(state: ParallelState, h: Holder, ctx: StateContext): Promise<void> {
  const input = h.data;
  const n = state.branches.length;
  const need = state.completionType === 'atLeast' ? Math.min(state.numCompleted ?? n, n) : n;
  const scopes = state.branches.map(() => ctx.effects.scope());
  const outputs: (Json | undefined)[] = new Array(n).fill(undefined);
  const finished: boolean[] = new Array(n).fill(false);
  let completed = 0;
  let failure: { err: unknown } | undefined;
  let stopping = false;

  state.branches.forEach((b, i) => {
    const bt = branchExecTimeout(ctx.def, state, b);
    const branch = () => runActions({ ctx, state, branch: b.name, actionTimeout: actionExecTimeout(ctx.def, state, b) }, b.actions, 'sequential', input);
    const timed = () => withTimeout(bt, ctx.summary(state.name, b.name, `branchExecTimeout ${bt}`), `branch "${b.name}" of state "${state.name}" did not finish within ${bt} (branchExecTimeout)`, branch, ctx.effects);
    scopes[i]
      .run(ctx.sync && !bt ? branch : timed)
      .then(
        (out) => {
          finished[i] = true;
          outputs[i] = out;
          completed++;
        },
        (err) => {
          finished[i] = true;
          if (!stopping && !failure) failure = { err };
        },
      );
  });

  beforeBlocking();
  await ctx.effects.condition(() => completed >= need || failure !== undefined || finished.every(Boolean));
  stopping = true;
  scopes.forEach((s, i) => {
    if (!finished[i]) s.cancel();
  });
  if (failure && completed < need) throw failure.err;
  if (completed < need) throw new Error(`state "${state.name}": only ${completed} of ${need} branches completed`);
  let data = input;
  for (const out of outputs) if (out !== undefined) data = merge(data, out);
  h.data = data;
}
