/** The benchmark cases of bench/expr.ts (shared with the sandbox workflow). Sandbox-safe. */
import type { Json } from '../src/dsl/model';
import type { ExprScope } from '../src/expr';

type Eval = (expr: string, data: Json, scope?: ExprScope) => Json;
type Template = (value: Json, data: Json, scope?: ExprScope) => Json;

export const scope: ExprScope = {
  constants: { AGE: { MIN_ADULT: 18 }, api: { base: 'https://example.com' } },
  workflow: { id: 'bench', instanceId: 'run', name: 'bench', version: '1' },
  functions: { isAdult: '.applicant | .age >= $CONST.AGE.MIN_ADULT' },
};

export const data: Json = {
  applicant: { name: 'Ann', age: 31, address: { city: 'Paris' } },
  items: Array.from({ length: 50 }, (_, i) => ({ n: i, name: `item-${i}`, tags: ['a', 'b'], price: i * 1.5 })),
  count: 7,
};

export const args: Json = {
  name: '${ .applicant.name | ascii_upcase }',
  total: '${ [.items[].price] | add }',
  adult: '${ fn:isAdult }',
  url: '${ $CONST.api.base + "/users/" + (.count | tostring) }',
  first: '${ .items[0:3] | map(.name) }',
};

export interface Case {
  name: string;
  what: string;
  run(evaluateExpression: Eval, evaluateTemplate: Template): Json;
}

export const CASES: Case[] = [
  { name: 'path-fast', what: '`${ .applicant.address.city }` (fast path)', run: (ev) => ev('${ .applicant.address.city }', data, scope) },
  { name: 'const-fast', what: '`${ $CONST.AGE.MIN_ADULT }` (fast path)', run: (ev) => ev('${ $CONST.AGE.MIN_ADULT }', data, scope) },
  { name: 'path-jq', what: '`${ .applicant.address.city | . }` (same path, through jq)', run: (ev) => ev('${ .applicant.address.city | . }', data, scope) },
  {
    name: 'select-map-50',
    what: '`${ [.items[] | select(.n % 2 == 0) | {name, p: (.price * 2)}] }` over 50 items',
    run: (ev) => ev('${ [.items[] | select(.n % 2 == 0) | {name, p: (.price * 2)}] }', data, scope),
  },
  { name: 'fn-condition', what: '`${ fn:isAdult }` (fn: with $CONST)', run: (ev) => ev('${ fn:isAdult }', data, scope) },
  { name: 'args-5-batched', what: '`arguments` with 5 expressions, evaluateTemplate (1 jq run)', run: (_ev, tpl) => tpl(args, data, scope) },
  {
    name: 'args-5-one-by-one',
    what: 'the same 5 expressions, one evaluateExpression each (5 jq runs)',
    run: (ev) => {
      const out: Record<string, Json> = {};
      for (const [k, v] of Object.entries(args as Record<string, string>)) out[k] = ev(v, data, scope);
      return out;
    },
  },
];
