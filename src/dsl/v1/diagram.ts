/**
 * A Mermaid `flowchart TD` of a 1.0 document's task tree: every task a node labelled with its
 * name and type, composite tasks (do, for, try, fork, listen foreach) as subgraphs, edges for
 * the flow (implicit `continue`, `then` targets, switch cases, `exit`/`end`). Node ids are the
 * tasks' JSON pointers made safe (`do_0_getPet`), so a diagram reads like the errors and the
 * Web UI summaries.
 */
import { entryOf, taskTypeOf, type Task, type TaskList, type V1Definition } from '../../common/model-v1';

function label(s: string): string {
  return s.replace(/"/g, "'").replace(/[\r\n]+/g, ' ');
}

const idOf = (pointer: string) => pointer.replace(/^\//, '').replace(/[^A-Za-z0-9_]/g, '_');

export function toMermaidV1(def: V1Definition): string {
  const lines = ['flowchart TD', '    start((start))', '    finish((end))'];
  const first = list(def.workflow.do, '/do', '    ', lines, 'finish');
  lines.push(`    start --> ${first ?? 'finish'}`);
  return lines.join('\n') + '\n';
}

/** Emits the nodes and edges of one task list; returns the id of its first task. `after`: where the list's end leads. */
function list(tasks: TaskList | undefined, base: string, indent: string, lines: string[], after: string, endId = 'finish', offset = 0): string | undefined {
  const items = (tasks ?? []).map((item, j) => {
    const i = j + offset;
    const [name, task] = entryOf(item);
    return { name, task, pointer: `${base}/${i}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}` };
  });
  const byName = new Map(items.map((x) => [x.name, idOf(x.pointer)]));
  const target = (then: string | undefined, next: string) => {
    if (then === undefined || then === 'continue') return next;
    if (then === 'exit') return after;
    if (then === 'end') return endId;
    return byName.get(then) ?? next;
  };
  items.forEach((x, i) => {
    const id = idOf(x.pointer);
    const next = i + 1 < items.length ? idOf(items[i + 1].pointer) : after;
    const type = taskTypeOf(x.task) ?? 'task';
    const children = childLists(x.task, x.pointer);
    if (children.length) {
      lines.push(`${indent}subgraph ${id}_group ["${label(x.name)} (${type})"]`);
      lines.push(`${indent}    ${id}["${label(x.name)}"]`);
      for (const c of children) {
        const firstChild = list(c.tasks, c.pointer, indent + '    ', lines, `${id}_done`, endId, c.offset ?? 0);
        if (firstChild) lines.push(`${indent}    ${id} -->|${c.label}| ${firstChild}`);
      }
      lines.push(`${indent}    ${id}_done(( ))`);
      lines.push(`${indent}end`);
      lines.push(`${indent}${id}_done --> ${target(x.task.then, next)}`);
      return;
    }
    lines.push(`${indent}${id}["${label(x.name)} (${type}${x.task.call ? ` ${label(x.task.call)}` : ''})"]`);
    if (x.task.switch) {
      for (const c of x.task.switch) {
        const [cname, body] = entryOf(c);
        lines.push(`${indent}${id} -->|${label(cname)}| ${target(body.then, next)}`);
      }
      lines.push(`${indent}${id} -->|no match| ${target(x.task.then, next)}`);
      return;
    }
    lines.push(`${indent}${id} --> ${target(x.task.then, next)}`);
  });
  return items.length ? idOf(items[0].pointer) : undefined;
}

/**
 * The task lists a composite task holds (do, for's do, try, catch.do, fork branches, listen's
 * foreach.do), each with its pointer and the label of the edge into it; the Mermaid diagram and
 * the run page's graph (src/ui/graph.ts) both draw from it.
 */
export function childLists(task: Task, pointer: string): { tasks: TaskList; pointer: string; label: string; offset?: number }[] {
  const out: { tasks: TaskList; pointer: string; label: string; offset?: number }[] = [];
  if (task.for && task.do) out.push({ tasks: task.do, pointer: `${pointer}/do`, label: 'each' });
  else if (task.do) out.push({ tasks: task.do, pointer: `${pointer}/do`, label: 'do' });
  if (task.try) out.push({ tasks: task.try, pointer: `${pointer}/try`, label: 'try' });
  if (task.catch?.do) out.push({ tasks: task.catch.do, pointer: `${pointer}/catch/do`, label: 'catch' });
  if (task.fork) task.fork.branches.forEach((b, i) => out.push({ tasks: [b], pointer: `${pointer}/fork/branches`, label: `branch ${i + 1}`, offset: i }));
  if (task.foreach?.do) out.push({ tasks: task.foreach.do, pointer: `${pointer}/foreach/do`, label: 'each event' });
  return out;
}
