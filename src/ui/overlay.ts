/**
 * A run drawn on its definition's graph (pure): which nodes it visited, how often and for how
 * long, where it is now, where it failed, and the edges it took. The steps come from the run's
 * `state` query (every state or task entered, with workflow times), or, when no worker answers
 * it, from the history alone (SwState writes and command summaries: only the nodes that wrote
 * or waited on something).
 */
import type { CallInFlight, StepRecord } from '../common/contracts';
import { END, START } from './graph';
import type { HistoryFacts } from './history';

export type NodeMark = 'current' | 'failed' | 'visited' | 'unreached';

export interface NodeOverlay {
  mark: NodeMark;
  /** Times entered. */
  count: number;
  /** Time spent in it, all visits (ms; an open visit counts up to `now`). */
  ms: number;
  /** Visits that ended in an error (caught ones too: the node is marked failed only where the run failed). */
  errors: number;
  /** Its activities, timers and child workflows in the history. */
  activities: number;
  timers: number;
  children: number;
}

export interface RunOverlay {
  /** Where the steps came from. */
  source: 'query' | 'history';
  /** Temporal's status of the run (Running, Completed, Failed...). */
  status: string;
  nodes: Record<string, NodeOverlay>;
  /** The ids of the edges the run took. */
  edges: string[];
  /** The node ids in the order entered (START first; END last once completed). */
  path: string[];
  current: string[];
  failure?: { node?: string; message: string };
  /** Steps not listed by the query (a long run: counts cover the latest ones). */
  stepsNotListed?: number;
  /** The function calls in flight (the `state` query's), with their age (ms, workflow start to `now`). */
  callsInFlight?: (CallInFlight & { ageMs: number })[];
}

export interface RunFacts {
  /** Temporal's execution status name: Running, Completed, Failed, TimedOut, Canceled, Terminated, ContinuedAsNew. */
  status: string;
  /** The `state` query's steps, if it answered. */
  steps?: StepRecord[];
  stepsTotal?: number;
  /** The `state` query's calls in flight, if it answered. */
  callsInFlight?: CallInFlight[];
  history: HistoryFacts;
  now: number;
}

/** Steps as far as the history shows them: each SwState write and each command's node, in time order, repeats merged. */
export function stepsFromHistory(h: HistoryFacts): StepRecord[] {
  const marks: { node: string; at: number; end?: number }[] = [];
  for (const s of h.swStates) marks.push({ node: s.state, at: s.at, end: s.at });
  for (const [node, spans] of Object.entries(h.commands)) for (const c of spans) marks.push({ node, at: c.startedAt, end: c.closedAt });
  marks.sort((a, b) => a.at - b.at);
  const steps: StepRecord[] = [];
  for (const m of marks) {
    const last = steps[steps.length - 1];
    if (last?.step === m.node) {
      last.leftAt = Math.max(last.leftAt ?? 0, m.end ?? m.at);
      continue;
    }
    steps.push({ step: m.node, type: '', status: 'done', enteredAt: m.at, leftAt: m.end ?? m.at });
  }
  const last = steps[steps.length - 1];
  if (last && !h.closed) {
    last.status = 'running';
    delete last.leftAt;
  } else if (last && h.closed === 'failed') {
    last.status = 'failed';
    last.leftAt = h.closedAt;
  }
  return steps;
}

/** What the overlay reads of a graph (a laid-out one will do). */
export interface GraphShape {
  nodes: readonly { id: string; parent?: string; type?: string }[];
  edges: readonly { id: string; from: string; to: string }[];
}

export function overlayOf(graph: GraphShape, run: RunFacts): RunOverlay {
  const source = run.steps ? 'query' : 'history';
  const steps = run.steps ?? stepsFromHistory(run.history);
  const open = run.status === 'Running';
  const known = new Set(graph.nodes.map((n) => n.id));
  const nodes: Record<string, NodeOverlay> = {};
  for (const n of graph.nodes) {
    const spans = run.history.commands[n.id] ?? [];
    nodes[n.id] = {
      mark: 'unreached',
      count: 0,
      ms: 0,
      errors: 0,
      activities: spans.filter((s) => s.kind === 'activity' || s.kind === 'local').length,
      timers: spans.filter((s) => s.kind === 'timer').length,
      children: spans.filter((s) => s.kind === 'child').length,
    };
  }
  for (const s of steps) {
    const o = nodes[s.step];
    if (!o) continue;
    o.count++;
    if (s.status === 'failed') o.errors++;
    if (s.enteredAt !== undefined) o.ms += Math.max(0, (s.leftAt ?? (open ? run.now : (run.history.closedAt ?? run.now))) - s.enteredAt);
  }
  const current = open ? [...new Set(steps.filter((s) => s.status === 'running' || s.status === 'compensating').map((s) => s.step))].filter((id) => known.has(id)) : [];
  for (const o of Object.values(nodes)) if (o.count) o.mark = 'visited';
  const failed = run.status === 'Failed' || run.status === 'TimedOut' || run.status === 'Terminated';
  // Where the run failed: the last step that ended in an error (a failed 1.0 task fails its
  // enclosing tasks after it: the innermost, entered last, is where). Errors a handler caught
  // leave their nodes visited.
  const failedAt = failed ? lastFailed(steps.filter((s) => known.has(s.step))) : undefined;
  if (failedAt) nodes[failedAt].mark = 'failed';
  for (const id of current) nodes[id].mark = 'current';

  const path = [START, ...steps.map((s) => s.step).filter((id) => known.has(id))];
  if (run.status === 'Completed') path.push(END);
  nodes[START].mark = 'visited';
  nodes[START].count = 1;
  if (run.status === 'Completed') {
    nodes[END].mark = 'visited';
    nodes[END].count = 1;
  }

  const taken = new Set<string>();
  const pairs = new Set(path.slice(1).map((to, i) => `${path[i]}\u0000${to}`));
  const parentOf = new Map(graph.nodes.map((n) => [n.id, n.parent]));
  const typeOf = new Map(graph.nodes.map((n) => [n.id, n.type]));
  for (const e of graph.edges) {
    const viaPair = pairs.has(`${e.from}\u0000${e.to}`);
    // Into a composite's list (fork branches run side by side, their steps interleave).
    const intoChild = parentOf.get(e.to) === e.from && nodes[e.to].count > 0;
    // Out of a fork branch to what follows the fork: branches interleave, so no pair shows it.
    const outOfBranch = typeOf.get(parentOf.get(e.from) ?? '') === 'fork' && parentOf.get(e.to) !== parentOf.get(e.from) && nodes[e.from].count > 0 && nodes[e.to].count > 0;
    if (viaPair || intoChild || outOfBranch) taken.add(e.id);
  }

  return {
    source,
    status: run.status,
    nodes,
    edges: [...taken],
    path,
    current,
    ...(failed ? { failure: { ...(failedAt ? { node: failedAt } : {}), message: run.history.failure ?? run.status } } : {}),
    ...(run.stepsTotal !== undefined && run.steps && run.stepsTotal > run.steps.length ? { stepsNotListed: run.stepsTotal - run.steps.length } : {}),
    ...(open && run.callsInFlight?.length ? { callsInFlight: run.callsInFlight.map((c) => ({ ...c, ageMs: Math.max(0, run.now - c.startedAt) })) } : {}),
  };
}

/** The step entered last among those that ended in an error. */
function lastFailed(steps: StepRecord[]): string | undefined {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i].status === 'failed') return steps[i].step;
  return undefined;
}
