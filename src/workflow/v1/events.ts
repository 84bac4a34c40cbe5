/**
 * 1.0 event filters (`listen.to`, pure apart from jq): an event matches a filter when every
 * attribute in `with` matches — a runtime expression holds over the attribute's value, a string
 * is equal or matches as a regular expression (anchored), an object matches key by key, other
 * values are equal — and every `correlate` value is as expected (`expect`, else the value the
 * first correlated event gave, kept for the run).
 */
import type { Json } from '../../common/model';
import type { EventFilter } from '../../common/model-v1';
import type { CloudEventJson } from '../../common/contracts';
import { evalConditionSync, evalExprSync, type ExprScope } from '../expressions';
import { attributeMatches } from '../../common/awaited-events';

function valueMatches(want: Json, have: Json | undefined, scope: ExprScope, what: string): boolean {
  return attributeMatches(want, have, (expr, value) => evalConditionSync(expr, value ?? null, scope, { what }));
}

/** Whether `e` passes `filter`; `correlation` keeps the values first seen for correlations without `expect`. */
export function filterMatches(filter: EventFilter, e: CloudEventJson, scope: ExprScope, correlation: Record<string, Json>, expected: Record<string, Json>): boolean {
  for (const [k, want] of Object.entries(filter.with ?? {})) {
    if (!valueMatches(want, (e as Record<string, Json | undefined>)[k], scope, `listen filter '${k}'`)) return false;
  }
  for (const [key, c] of Object.entries(filter.correlate ?? {})) {
    const value = evalExprSync(c.from, e as unknown as Json, scope, { what: `correlate.${key}.from` });
    const want = key in expected ? expected[key] : correlation[key];
    if (want !== undefined && JSON.stringify(want) !== JSON.stringify(value)) return false;
  }
  return true;
}

/** Records the correlation values of a consumed event (those without `expect` and not yet fixed). */
export function fixCorrelation(filter: EventFilter, e: CloudEventJson, scope: ExprScope, correlation: Record<string, Json>): void {
  for (const [key, c] of Object.entries(filter.correlate ?? {})) {
    if (c.expect !== undefined || key in correlation) continue;
    correlation[key] = evalExprSync(c.from, e as unknown as Json, scope, { what: `correlate.${key}.from` });
  }
}
