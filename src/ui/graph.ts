/**
 * A definition as a graph (pure, no layout): what the run page draws. 0.8: one node per state,
 * edges for transitions, switch conditions, error handlers, `end`. 1.0: one node per task (id =
 * the task's JSON pointer, as the run's `state` query and the Web UI summaries name it),
 * composite tasks (`do`, `for`, `try`/`catch`, `fork`, `listen … foreach`) as containers of
 * their lists, edges for the flow (implicit `continue`, `then`, switch cases, `exit`, `end`).
 * Both have a `start` and an `end` node. The same walk as the Mermaid diagrams (src/dsl/v08/diagram.ts,
 * src/dsl/v1/diagram.ts), kept as data.
 */
import type { Definition, StateDef, WorkflowDef } from '../common/model';
import { entryOf, isV1Definition, taskTypeOf, type TaskList, type V1Definition } from '../common/model-v1';
import { childLists } from '../dsl/v1/diagram';
import { stateEdges } from '../dsl/v08/diagram';

export const START = 'start';
export const END = 'end';

export interface GraphNode {
  /** 0.8: the state name; 1.0: the task's JSON pointer (`/do/0/getPet`); `start`/`end`. */
  id: string;
  /** What the node shows: the state or task name. */
  label: string;
  /** State type (0.8), task type (1.0), `start` or `end`. */
  type: string;
  /** The composite task this task belongs to (1.0). */
  parent?: string;
  /** The task calls (1.0 `call`), or the state's function refs (0.8). */
  detail?: string;
}

export interface GraphEdge {
  id: string;
  from: string;
  to: string;
  label?: string;
}

export interface Graph {
  dsl: '0.8' | '1.0';
  /** Definition id (1.0: `<namespace>/<name>`) and version. */
  id: string;
  version?: string;
  title: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export function graphOf(def: Definition): Graph {
  return isV1Definition(def) ? graphV1(def) : graph08(def);
}

// ------------------------------------------------------------------ 0.8

function graph08(def: WorkflowDef): Graph {
  const nodes: GraphNode[] = [{ id: START, label: 'start', type: 'start' }];
  const edges: GraphEdge[] = [];
  const add = (from: string, to: string, label?: string) => edges.push({ id: `e${edges.length}`, from, to, ...(label ? { label } : {}) });
  for (const s of def.states) {
    const refs = functionRefs(s);
    nodes.push({ id: s.name, label: s.name, type: s.type, ...(refs ? { detail: refs } : {}) });
  }
  nodes.push({ id: END, label: 'end', type: 'end' });
  add(START, def.start.stateName);
  for (const e of stateEdges(def)) {
    if (e.kind === 'compensatedBy') add(e.from, e.to!, 'compensated by');
    else if (e.to === undefined) add(e.from, END, e.label);
    else add(e.from, e.to, e.compensate ? `${e.label ? `${e.label} ` : ''}(compensate)` : e.label);
  }
  return { dsl: '0.8', id: def.id, ...(def.version ? { version: def.version } : {}), title: def.name ?? def.id, nodes, edges };
}

function functionRefs(s: StateDef): string | undefined {
  const actions = (s as { actions?: { functionRef?: { refName: string } }[] }).actions;
  const names = (actions ?? []).map((a) => a.functionRef?.refName).filter((n): n is string => Boolean(n));
  return names.length ? [...new Set(names)].join(', ') : undefined;
}

// ------------------------------------------------------------------ 1.0

const segment = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');

function graphV1(def: V1Definition): Graph {
  const nodes: GraphNode[] = [{ id: START, label: 'start', type: 'start' }];
  const edges: GraphEdge[] = [];
  const add = (from: string, to: string, label?: string) => edges.push({ id: `e${edges.length}`, from, to, ...(label ? { label } : {}) });
  const first = list(def.workflow.do, '/do', undefined, END, nodes, add);
  add(START, first ?? END);
  nodes.push({ id: END, label: 'end', type: 'end' });
  return { dsl: '1.0', id: def.id, version: def.version, title: def.name, nodes, edges };
}

/** Adds one task list's nodes and edges; returns its first task's id. `after`: where the list's end leads. */
function list(tasks: TaskList | undefined, base: string, parent: string | undefined, after: string, nodes: GraphNode[], add: (from: string, to: string, label?: string) => void, offset = 0): string | undefined {
  const items = (tasks ?? []).map((item, j) => {
    const [name, task] = entryOf(item);
    return { name, task, id: `${base}/${j + offset}/${segment(name)}` };
  });
  const byName = new Map(items.map((x) => [x.name, x.id]));
  const target = (then: string | undefined, next: string) => {
    if (then === undefined || then === 'continue') return next;
    if (then === 'exit') return after;
    if (then === 'end') return END;
    return byName.get(then) ?? next;
  };
  items.forEach((x, i) => {
    const next = i + 1 < items.length ? items[i + 1].id : after;
    const type = taskTypeOf(x.task) ?? 'do';
    nodes.push({ id: x.id, label: x.name, type, ...(parent ? { parent } : {}), ...(x.task.call ? { detail: x.task.call } : {}) });
    const children = childLists(x.task, x.id);
    const then = target(x.task.then, next);
    if (children.length) {
      for (const c of children) {
        const firstChild = list(c.tasks, c.pointer, x.id, then, nodes, add, c.offset ?? 0);
        if (firstChild) add(x.id, firstChild, c.label);
      }
      // `for` / `foreach` may run their body zero times; `try` with nothing to catch skips `catch`.
      if (x.task.for || x.task.foreach || !children.some((c) => c.label !== 'catch')) add(x.id, then, x.task.for || x.task.foreach ? 'done' : undefined);
      return;
    }
    if (x.task.switch) {
      for (const c of x.task.switch) {
        const [cname, body] = entryOf(c);
        add(x.id, target(body.then, next), cname);
      }
      if (!x.task.switch.some((c) => entryOf(c)[1].when === undefined)) add(x.id, then, 'no match');
      return;
    }
    if (x.task.raise) return; // a raise never continues
    add(x.id, then);
  });
  return items[0]?.id;
}
