/**
 * Every task list of a 1.0 document, with its JSON pointer and the task that holds it: the
 * validation rules and the likely-mistake warnings (./lint.ts) look at lists (a flow directive
 * stays within its list, a task's input is the output of the one before it), and both need the
 * same walk over the nested lists (`do`, `for`, `try`/`catch`, `fork` branches, a `listen`'s or
 * a subscription's `foreach`, extensions' `before`/`after`). Read defensively: the document may
 * be schema-invalid.
 */
import { entryOf, type Task } from '../../common/model-v1';
import { joinPointer } from '../source';
import { isObj, type Obj } from '../v08/walk';

export interface TaskList {
  /** The list's pointer (`/do`, `/do/2/outer/do`, `/do/0/f/fork/branches`). */
  pointer: string;
  items: unknown[];
  /** Its tasks, in order: name, task, the task's pointer (`/do/0/name`). */
  tasks: { name: string; task: Task; pointer: string; index: number }[];
  /** The task that holds the list (undefined for the document's `do` and extensions). */
  holder?: string;
  /** Whether the list is a fork's branches (they run concurrently). */
  fork: boolean;
}

/** The task lists inside one task, with their pointers. */
function childLists(task: Obj, tp: string): { items: unknown; pointer: string; fork: boolean }[] {
  const out: { items: unknown; pointer: string; fork: boolean }[] = [];
  if (task.do !== undefined) out.push({ items: task.do, pointer: `${tp}/do`, fork: false });
  if (task.try !== undefined) out.push({ items: task.try, pointer: `${tp}/try`, fork: false });
  if (isObj(task.catch)) out.push({ items: task.catch.do, pointer: `${tp}/catch/do`, fork: false });
  if (isObj(task.fork)) out.push({ items: task.fork.branches, pointer: `${tp}/fork/branches`, fork: true });
  if (isObj(task.foreach)) out.push({ items: task.foreach.do, pointer: `${tp}/foreach/do`, fork: false });
  const sub = task.call === 'asyncapi' && isObj(task.with) && isObj(task.with.subscription) ? task.with.subscription : undefined;
  if (sub && isObj(sub.foreach)) out.push({ items: sub.foreach.do, pointer: `${tp}/with/subscription/foreach/do`, fork: false });
  return out;
}

/** Every task list of the document, outermost first. */
export function taskLists(doc: Obj): TaskList[] {
  const out: TaskList[] = [];
  const visit = (items: unknown, pointer: string, holder: string | undefined, fork: boolean) => {
    if (!Array.isArray(items)) return;
    const list: TaskList = { pointer, items, tasks: [], holder, fork };
    out.push(list);
    items.forEach((item, index) => {
      if (!isObj(item) || Object.keys(item).length !== 1) return;
      const [name, task] = entryOf(item as Record<string, unknown>);
      if (!isObj(task)) return;
      list.tasks.push({ name, task: task as Task, pointer: `${pointer}${joinPointer(index, name)}`, index });
    });
    for (const t of list.tasks) for (const c of childLists(t.task as Obj, t.pointer)) visit(c.items, c.pointer, t.name, c.fork);
  };
  visit(doc.do, '/do', undefined, false);
  const use = isObj(doc.use) ? doc.use : {};
  if (Array.isArray(use.extensions)) {
    use.extensions.forEach((ext: unknown, i: number) => {
      if (!isObj(ext) || Object.keys(ext).length !== 1) return;
      const [name, body] = entryOf(ext as Record<string, unknown>);
      if (isObj(body)) for (const when of ['before', 'after']) visit(body[when], joinPointer('use', 'extensions', i, name, when), undefined, false);
    });
  }
  return out;
}
