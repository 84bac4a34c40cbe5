/**
 * Mermaid `stateDiagram-v2` of a canonical definition. State names may contain spaces,
 * dashes, quotes...: every state gets a safe alias (`s0`, `s1`...) declared with its label
 * (`state "Name with spaces" as s0`).
 */
import type { EndDef, StateDef, TransitionDef, WorkflowDef } from '../common/model';

function label(s: string): string {
  // Mermaid labels: double quotes and line breaks cannot appear inside "...".
  return s.replace(/"/g, "'").replace(/[\r\n]+/g, ' ');
}

function edgeText(s: string): string {
  return label(s).replace(/:/g, ' ');
}

export function toMermaid(def: WorkflowDef): string {
  const alias = new Map<string, string>();
  def.states.forEach((s, i) => alias.set(s.name, `s${i}`));
  const lines = ['stateDiagram-v2'];
  for (const s of def.states) lines.push(`    state "${label(s.name)}" as ${alias.get(s.name)}`);
  lines.push(`    [*] --> ${alias.get(def.start.stateName)}`);
  const edge = (from: StateDef, t: TransitionDef | undefined, e: EndDef | undefined, text?: string) => {
    const a = alias.get(from.name)!;
    const suffix = text ? ` : ${edgeText(text)}` : '';
    if (t) lines.push(`    ${a} --> ${alias.get(t.nextState) ?? t.nextState}${suffix}${t.compensate ? ' (compensate)' : ''}`);
    if (e) lines.push(`    ${a} --> [*]${suffix}`);
  };
  for (const s of def.states) {
    if (s.type === 'switch') {
      s.dataConditions.forEach((c, i) => edge(s, c.transition, c.end, c.name ?? `condition ${i + 1}`));
      s.eventConditions.forEach((c) => edge(s, c.transition, c.end, c.name ?? c.eventRef));
      edge(s, s.defaultCondition.transition, s.defaultCondition.end, 'default');
    } else edge(s, s.transition, s.end);
    for (const h of s.onErrors) edge(s, h.transition, h.end, `error ${h.errorRefs.join(', ')}`);
    if (s.compensatedBy) lines.push(`    ${alias.get(s.name)} --> ${alias.get(s.compensatedBy)} : compensated by`);
  }
  for (const s of def.states) lines.push(`    note right of ${alias.get(s.name)} : ${s.type}${s.usedForCompensation ? ' (compensation)' : ''}`);
  return lines.join('\n') + '\n';
}
