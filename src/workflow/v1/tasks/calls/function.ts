/**
 * A call of a function: one of `use.functions`, or a function document (a cataloged function
 * `<name>:<version>@<catalog>`, or a function by URI) that the interpreter worker fetched when it
 * pinned the definition (`ctx.functions`, feature v1-catalogs; src/dsl/v1/catalogs.ts). It runs
 * as its own task on the evaluated `with` (../call.ts), named by the call.
 */
import type { Task } from '../../../../common/model-v1';
import { needsDocument } from '../../../../common/catalogs';
import { FEATURE_V1_CATALOGS } from '../../../../common/features';
import type { TaskAt, TaskContext } from '../../context';
import { WorkflowError } from '../../errors';

/** v1-catalogs: the function document pinned with the definition for `call` (a `use.catalogs.default` overrides @default). */
export function pinnedFunction(call: string, ctx: TaskContext): Task | undefined {
  return ctx.features.has(FEATURE_V1_CATALOGS) ? ctx.functions?.[call]?.task : undefined;
}

/** The `use.functions` function `call` names; a call this runtime cannot make fails (501). */
export function declaredFunction(call: string, at: TaskAt, ctx: TaskContext): Task {
  const fn = ctx.def.workflow.use?.functions?.[call];
  if (fn) return fn;
  if (ctx.features.has(FEATURE_V1_CATALOGS) && needsDocument(call, ctx.def.workflow.use?.catalogs)) {
    // Every such call is resolved when the definition is pinned (or the run does not start): a bug if reached.
    throw WorkflowError.standard('runtime', at.reference, `function '${call}' was not pinned with the definition`);
  }
  throw WorkflowError.standard('runtime', at.reference, `function '${call}' cannot be called by this runtime (only use.functions and @default)`, 501);
}
