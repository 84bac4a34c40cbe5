/** The benchmark cases of bench/expr.ts (shared with the sandbox workflow). Sandbox-safe. */
import type { Json } from '../src/common/model';
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

/** A small document: every case over it sends jq less than 1 kB. */
export const small: Json = {
  applicant: { name: 'Ann', age: 31 },
  items: Array.from({ length: 5 }, (_, i) => ({ n: i, name: `item-${i}` })),
  count: 7,
};

export const args: Json = {
  name: '${ .applicant.name | ascii_upcase }',
  total: '${ [.items[].price] | add }',
  adult: '${ fn:isAdult }',
  url: '${ $CONST.api.base + "/users/" + (.count | tostring) }',
  first: '${ .items[0:3] | map(.name) }',
};

/** `variant`: a distinct expression text per value (a jq comment), to time first evaluations; `change`: a distinct document per value. */
export interface Variation {
  variant?: number;
  change?: number;
}

export interface Case {
  name: string;
  what: string;
  run(evaluateExpression: Eval, evaluateTemplate: Template, vary?: Variation): Json;
}

/** The document, or a copy that differs from the previous one (so jq must parse it again). */
function doc(base: Json, vary: Variation | undefined): Json {
  return vary?.change === undefined ? base : { ...(base as Record<string, Json>), change: vary.change };
}

/** `${ e }` -> `${ e # n }` for every expression in `value`: new text, same meaning. */
export function variantOf<T extends Json>(value: T, vary: Variation | undefined): T {
  const n = vary?.variant;
  if (n === undefined) return value;
  return JSON.parse(JSON.stringify(value).replace(/\$\{(.*?) \}/g, (_m, e: string) => `\${${e} # ${n}\\n}`)) as T;
}

export const CASES: Case[] = [
  { name: 'path-fast', what: '`${ .applicant.address.city }` (fast path)', run: (ev) => ev('${ .applicant.address.city }', data, scope) },
  { name: 'const-fast', what: '`${ $CONST.AGE.MIN_ADULT }` (fast path)', run: (ev) => ev('${ $CONST.AGE.MIN_ADULT }', data, scope) },
  { name: 'small-arith', what: '`${ .count + 1 }`, small document', run: (ev, _t, v) => ev(variantOf('${ .count + 1 }', v), doc(small, v), scope) },
  {
    name: 'small-select',
    what: '`${ [.items[] | select(.n > 2) | .name] }`, small document',
    run: (ev, _t, v) => ev(variantOf('${ [.items[] | select(.n > 2) | .name] }', v), doc(small, v), scope),
  },
  {
    name: 'small-reduce',
    what: '`${ reduce .items[] as $i (0; . + $i.n) }`, small document',
    run: (ev, _t, v) => ev(variantOf('${ reduce .items[] as $i (0; . + $i.n) }', v), doc(small, v), scope),
  },
  {
    name: 'small-keys',
    what: '`${ to_entries | map(.key) | join(",") }`, small document',
    run: (ev, _t, v) => ev(variantOf('${ to_entries | map(.key) | join(",") }', v), doc(small, v), scope),
  },
  { name: 'small-fn', what: '`${ fn:isAdult }` (fn: with $CONST), small document', run: (ev, _t, v) => ev(variantOf('${ fn:isAdult }', v), doc(small, v), scope) },
  { name: 'path-jq', what: '`${ .applicant.address.city | . }` (same path, through jq)', run: (ev, _t, v) => ev(variantOf('${ .applicant.address.city | . }', v), doc(data, v), scope) },
  {
    name: 'select-map-50',
    what: '`${ [.items[] | select(.n % 2 == 0) | {name, p: (.price * 2)}] }` over 50 items',
    run: (ev, _t, v) => ev(variantOf('${ [.items[] | select(.n % 2 == 0) | {name, p: (.price * 2)}] }', v), doc(data, v), scope),
  },
  { name: 'fn-condition', what: '`${ fn:isAdult }` (fn: with $CONST)', run: (ev, _t, v) => ev(variantOf('${ fn:isAdult }', v), doc(data, v), scope) },
  { name: 'args-5-batched', what: '`arguments` with 5 expressions, evaluateTemplate (1 jq run)', run: (_ev, tpl, v) => tpl(variantOf(args, v), doc(data, v), scope) },
  {
    name: 'args-5-one-by-one',
    what: 'the same 5 expressions, one evaluateExpression each (5 jq runs)',
    run: (ev, _t, v) => {
      const out: Record<string, Json> = {};
      for (const [k, e] of Object.entries(variantOf(args, v) as Record<string, string>)) out[k] = ev(e, doc(data, v), scope);
      return out;
    },
  },
];
