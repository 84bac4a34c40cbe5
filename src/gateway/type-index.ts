/**
 * Which definitions may consume an event of a given type, worked out once per set of definitions
 * (the registry hands out the same array until a file changes) and once per type: routing then
 * reads the few candidates instead of every definition, so an event costs a gateway with 1,000
 * definitions about what it costs with one. The candidates are only a first cut: routing.ts and
 * routing-v1.ts still decide on every attribute, as before.
 *
 * Only the latest version of each id is a candidate (what routing reads), 0.8-family and 1.0
 * documents each among their own kind, as before. A type is matched as routing matches it: a 0.8
 * event definition's type exactly; a 1.0 filter's `with.type` as an anchored regular expression
 * (a literal is the common case), a runtime expression or a filter without a type may match any.
 */
import type { Definition, WorkflowDef } from '../common/model';
import { isV1Definition, type V1Definition } from '../common/model-v1';
import { isFilterExpression } from '../common/awaited-events';
import { latestVersions } from '../definitions/registry';
import { routingOf } from './routing-v1';

export interface Candidates {
  v08: WorkflowDef[];
  v1: V1Definition[];
}

interface TypeIndex {
  /** Definitions (by position among the latest) that name the type exactly. */
  exact: Map<string, number[]>;
  /** Types matched as regular expressions, with the definitions that name them. */
  patterns: { re: RegExp; at: number }[];
  /** Definitions that may match any type. */
  any: number[];
  latest: Definition[];
  /** Candidates already worked out, by type (bounded: types are few, but events name them). */
  byType: Map<string, Candidates>;
}

const TYPES_KEPT = 2_000;
const indexes = new WeakMap<readonly Definition[], TypeIndex>();
/** A regular expression metacharacter: a `with.type` without any is matched exactly. */
const META = /[.*+?^${}()|[\]\\]/;

function indexOf(definitions: readonly Definition[]): TypeIndex {
  let index = indexes.get(definitions);
  if (index) return index;
  const latest = [
    ...latestVersions(definitions.filter((d): d is WorkflowDef => !isV1Definition(d))),
    ...latestVersions(definitions.filter((d): d is V1Definition => isV1Definition(d))),
  ];
  index = { exact: new Map(), patterns: [], any: [], latest, byType: new Map() };
  const exact = (type: string, at: number) => {
    const list = index!.exact.get(type);
    if (!list) index!.exact.set(type, [at]);
    else if (list[list.length - 1] !== at) list.push(at);
  };
  latest.forEach((def, at) => {
    if (!isV1Definition(def)) {
      for (const ev of def.events) if ((ev.kind ?? 'consumed') === 'consumed') exact(ev.type, at);
      return;
    }
    const { onFilters, listens } = routingOf(def);
    for (const filter of [...onFilters, ...listens]) {
      const want = filter.with?.type;
      if (typeof want !== 'string' || isFilterExpression(want)) {
        index!.any.push(at);
        return; // every event is a candidate for this document: its other filters add nothing
      }
      if (!META.test(want)) exact(want, at);
      else {
        let re: RegExp;
        try {
          re = new RegExp(`^(?:${want})$`);
        } catch {
          continue; // routing never matches an invalid pattern either
        }
        index!.patterns.push({ re, at });
      }
    }
  });
  indexes.set(definitions, index);
  return index;
}

/** The latest definitions of each kind that may consume an event of `type`, in the registry's order. */
export function candidatesFor(definitions: readonly Definition[], type: string): Candidates {
  const index = indexOf(definitions);
  const known = index.byType.get(type);
  if (known) return known;
  const at = new Set<number>([...(index.exact.get(type) ?? []), ...index.any]);
  for (const p of index.patterns) if (p.re.test(type)) at.add(p.at);
  const picked: Candidates = { v08: [], v1: [] };
  for (const i of [...at].sort((a, b) => a - b)) {
    const def = index.latest[i];
    if (isV1Definition(def)) picked.v1.push(def);
    else picked.v08.push(def);
  }
  if (index.byType.size >= TYPES_KEPT) index.byType.delete(index.byType.keys().next().value!);
  index.byType.set(type, picked);
  return picked;
}
