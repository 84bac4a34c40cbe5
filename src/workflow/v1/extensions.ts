/**
 * `use.extensions`: task lists run around every task they extend (spec "Extensions").
 *
 * An extension applies to a task that runs (not one skipped by `if`) whose type is its `extend`
 * (`composite` is a `do` task; `all` is every type), when its `when` holds. Extensions wrap the
 * task in the order they are listed, like layers: the first listed is the outermost, so `before`
 * lists run in document order and `after` lists in reverse order.
 *
 * Data flow (swflow's reading of the spec, docs/dsl-1.0-conformance.md):
 * - `when` and the extension's tasks see `$task` as the EXTENDED task: its descriptor (name,
 *   reference, input, startedAt, definition; `output` in `after`) plus the task's own properties
 *   (`$task.call`, `$task.with`), which is what the spec's examples read. A `when` that fails to
 *   evaluate (the spec's mock example indexes `endpoint.uri` of a string endpoint) does not apply.
 * - `before` runs on the task's input (after `input.from`); its output is dropped (a log call's
 *   response must not become the task's input) — unless the list leaves by `exit`: then the
 *   task (and the layers inside this extension) is bypassed and that output is the task's raw
 *   output ("potentially bypass the extended task entirely using an exit directive": a mock).
 * - `after` runs on the task's raw output (before `output.as`); its output is dropped unless the
 *   list leaves by `exit`, which replaces the task's raw output.
 * - `end` in either list ends the workflow, as anywhere. A failing task skips the `after` lists.
 * - The extension's tasks are not extended themselves (no recursion); their references are
 *   `/use/extensions/<i>/<name>/before/<j>/<task>` (errors' `instance`, the Web UI).
 */
import type { Json } from '../../common/model';
import { entryOf, type Extension, type Task, type TaskType } from '../../common/model-v1';
import type { TaskAt, TaskContext, TaskOutcome } from './context';

/** Where extension tasks live: tasks under it are never extended. */
export const EXTENSIONS_BASE = '/use/extensions/';

/** An extension that matches a task's type, with where it is. */
export interface Applicable {
  name: string;
  reference: string;
  extension: Extension;
}

const escapeSeg = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** The spec's name of a task type in `extend` (`do` tasks are "composite"). */
const extendName = (type: TaskType): string => (type === 'do' ? 'composite' : type);

/** The extensions of `use.extensions` whose `extend` names `type` (or `all`), in document order. */
export function extensionsOf(list: Record<string, Extension>[] | undefined, type: TaskType): Applicable[] {
  const out: Applicable[] = [];
  (list ?? []).forEach((item, i) => {
    const [name, extension] = entryOf(item);
    if (!extension || typeof extension !== 'object') return;
    if (extension.extend === 'all' || extension.extend === extendName(type)) out.push({ name, reference: `${EXTENSIONS_BASE}${i}/${escapeSeg(name)}`, extension });
  });
  return out;
}

/** Whether a task at `reference` may be extended: not an extension's own task. */
export const extensible = (reference: string): boolean => !reference.startsWith(EXTENSIONS_BASE);

/** `$task` as extensions see it: the task's properties under its descriptor. */
export function extendedTask(task: Task, descriptor: Json): Record<string, Json> {
  return { ...(task as unknown as Record<string, Json>), ...(descriptor as Record<string, Json>) };
}

/**
 * The applicable extensions whose `when` holds for this run of the task (evaluated on its
 * input, `$task` the extended task). A `when` that fails is false (see the module comment).
 */
export async function applying(candidates: Applicable[], self: Record<string, Json>, at: TaskAt, input: Json, ctx: TaskContext): Promise<Applicable[]> {
  const out: Applicable[] = [];
  for (const c of candidates) {
    const when = c.extension.when;
    if (when !== undefined) {
      const args = { ...ctx.args(at, { input }), task: self };
      let holds: boolean;
      try {
        holds = ctx.sync ? ctx.conditionSync(when, input, args, `${c.reference}/when`) : await ctx.condition(when, input, args, `${c.reference}/when`);
      } catch {
        holds = false;
      }
      if (!holds) continue;
    }
    out.push(c);
  }
  return out;
}

/**
 * Runs `inner` (the task's executor, under its timeout) wrapped by `layers`; the result is the
 * task's raw outcome. Extension lists run with `$task` bound to the extended task (`self`).
 */
export async function runExtended(layers: Applicable[], self: Record<string, Json>, at: TaskAt, input: Json, inner: () => Promise<TaskOutcome>, ctx: TaskContext): Promise<TaskOutcome> {
  const layer = async (i: number): Promise<TaskOutcome> => {
    if (i === layers.length) return inner();
    const { extension, reference } = layers[i];
    let outcome: TaskOutcome | undefined;
    if (extension.before?.length) {
      const r = await ctx.runList(extension.before, `${reference}/before`, input, { ...at.locals, task: self });
      if (r.end) return { output: r.output, then: 'end' };
      if (r.exited) outcome = { output: r.output };
    }
    outcome ??= await layer(i + 1);
    if (extension.after?.length && outcome.then !== 'end') {
      const r = await ctx.runList(extension.after, `${reference}/after`, outcome.output, { ...at.locals, task: { ...self, output: outcome.output } });
      if (r.end) return { output: r.output, then: 'end' };
      if (r.exited) outcome = { ...outcome, output: r.output };
    }
    return outcome;
  };
  return layer(0);
}
