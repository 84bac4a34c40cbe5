/**
 * Mermaid `stateDiagram-v2` of a canonical definition. State names may contain spaces,
 * dashes, quotes...: every state gets a safe alias (`s0`, `s1`...) declared with its label
 * (`state "Name with spaces" as s0`).
 */
import type { EndDef, StateDef, TransitionDef, WorkflowDef } from '../../common/model';

function label(s: string): string {
  // Mermaid labels: double quotes and line breaks cannot appear inside "...".
  return s.replace(/"/g, "'").replace(/[\r\n]+/g, ' ');
}

function edgeText(s: string): string {
  return label(s).replace(/:/g, ' ');
}

/**
 * One edge of a 0.8 definition's state graph: a transition (`to` a state, `compensate` when it
 * compensates first) or an end (`to` undefined) of a state, a switch's condition or default
 * (labelled), an onErrors handler (`error <refs>`); or the state's `compensatedBy`.
 */
export interface StateEdge {
  kind: 'transition' | 'compensatedBy';
  from: string;
  /** The next state; undefined: the workflow ends. */
  to?: string;
  label?: string;
  compensate?: boolean;
}

/** The edges of a 0.8 definition's state graph, state by state (the Mermaid diagram's and the run page's). */
export function stateEdges(def: WorkflowDef): StateEdge[] {
  const out: StateEdge[] = [];
  const edge = (from: StateDef, t: TransitionDef | undefined, e: EndDef | undefined, label?: string) => {
    const labelled = label !== undefined ? { label } : {};
    if (t) out.push({ kind: 'transition', from: from.name, to: t.nextState, ...labelled, ...(t.compensate ? { compensate: true } : {}) });
    if (e) out.push({ kind: 'transition', from: from.name, ...labelled });
  };
  for (const s of def.states) {
    if (s.type === 'switch') {
      s.dataConditions.forEach((c, i) => edge(s, c.transition, c.end, c.name ?? `condition ${i + 1}`));
      s.eventConditions.forEach((c) => edge(s, c.transition, c.end, c.name ?? c.eventRef));
      edge(s, s.defaultCondition.transition, s.defaultCondition.end, 'default');
    } else edge(s, s.transition, s.end);
    for (const h of s.onErrors) edge(s, h.transition, h.end, `error ${h.errorRefs.join(', ')}`);
    if (s.compensatedBy) out.push({ kind: 'compensatedBy', from: s.name, to: s.compensatedBy });
  }
  return out;
}

export function toMermaid(def: WorkflowDef): string {
  const alias = new Map<string, string>();
  def.states.forEach((s, i) => alias.set(s.name, `s${i}`));
  const lines = ['stateDiagram-v2'];
  for (const s of def.states) lines.push(`    state "${label(s.name)}" as ${alias.get(s.name)}`);
  lines.push(`    [*] --> ${alias.get(def.start.stateName)}`);
  for (const e of stateEdges(def)) {
    const a = alias.get(e.from)!;
    const suffix = e.label ? ` : ${edgeText(e.label)}` : '';
    if (e.kind === 'compensatedBy') lines.push(`    ${a} --> ${alias.get(e.to!)} : compensated by`);
    else if (e.to === undefined) lines.push(`    ${a} --> [*]${suffix}`);
    else lines.push(`    ${a} --> ${alias.get(e.to) ?? e.to}${suffix}${e.compensate ? ' (compensate)' : ''}`);
  }
  for (const s of def.states) lines.push(`    note right of ${alias.get(s.name)} : ${s.type}${s.usedForCompensation ? ' (compensation)' : ''}`);
  return lines.join('\n') + '\n';
}
