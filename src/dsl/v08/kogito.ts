/**
 * Kogito/SonataFlow deviations that need more than a rename (see ./lenient.ts for the simple
 * ones), applied to the 0.8-shaped working document before validation:
 *
 * - `expressionLang: jsonpath`: every expression is translated to jq (./jsonpath.ts) where the
 *   translation is exact, and the document becomes a jq document (one warning). Which strings
 *   are expressions follows Kogito: fields that are always expressions (filters, conditions,
 *   collections, expression-function operations), and elsewhere (arguments, event data)
 *   strings that start with `$.` or `$[`, or are wrapped in `${ }`. A `sysout` function's
 *   `message` is evaluated as a string (Kogito's string mode). `fn:name` as a condition calls
 *   the expression function, converted to a boolean as Kogito does (non-empty list).
 * - `arguments` that are not an object: a string is a jq expression whose value is the
 *   arguments (`".inputArray"`, `"{a: .x}"`); in an array, strings that compile as jq are
 *   expressions, as Kogito resolves them. Both become `${ }` expressions in the model, so
 *   `FunctionRefDef.arguments` may be any JSON.
 */
import { jqProblem, unwrap } from './expressions';
import { type JsonPathContext, translateJsonPath } from '../jsonpath';
import type { Reporter } from '../findings';
import { actionsOf, arr, flowHoldersOf, isObj, type Obj, produceEventsOf, ptr, statesOf } from './walk';

const WRAPPED = /^\s*\$\{([\s\S]*)\}\s*$/;

/** Documents whose JSONPath could not all be translated (already reported): their jq is not checked again. */
const untranslated = new WeakSet<object>();
export const hasUntranslatedJsonPath = (doc: object): boolean => untranslated.has(doc);

const isSysout = (f: Obj | undefined) => !!f && f.type === 'custom' && typeof f.operation === 'string' && /^sysout(:|$)/.test(f.operation.trim());

/** Translates a `expressionLang: jsonpath` document in place (errors name each expression that cannot be). */
export function translateJsonPathDocument(doc: Obj, rep: Reporter): void {
  let count = 0;
  let failed = 0;
  const functions = new Map<string, Obj>();
  arr(doc.functions).forEach((f) => isObj(f) && typeof f.name === 'string' && !functions.has(f.name) && functions.set(f.name, f));
  /** Expression functions whose operation yields a list (usable as a condition). */
  const listFunctions = new Set<string>();

  const put = (parent: Obj, k: string | number, p: string, text: string, ctx: JsonPathContext, what: string): void => {
    const m = WRAPPED.exec(text);
    const inner = (m ? m[1] : text).trim();
    if (ctx === 'boolean') {
      const fn = /^fn:([A-Za-z_][\w-]*)$/.exec(inner);
      if (fn) {
        if (!functions.has(fn[1]) || functions.get(fn[1])!.type !== 'expression') return; // reported by the semantic check
        if (!listFunctions.has(fn[1])) {
          failed++;
          rep.error(p, `condition ${JSON.stringify(text)} calls expression function '${fn[1]}', whose JSONPath is a single value: Kogito converts it to a boolean with Jackson, which has no exact jq equivalent`);
          return;
        }
        parent[k] = `\${ fn:${fn[1]} | length > 0 }`;
        count++;
        return;
      }
    }
    if (/fn:/.test(inner)) {
      failed++;
      rep.error(p, `${what} ${JSON.stringify(text)} mixes fn: calls with JSONPath, which cannot be translated to jq`);
      return;
    }
    const t = translateJsonPath(inner, ctx);
    if ('error' in t) {
      rep.error(p, `JSONPath ${what} ${JSON.stringify(text)} cannot be translated to jq: ${t.error}`, 'expressionLang is jsonpath: only exact translations are made');
      failed++;
      return;
    }
    if (ctx === 'string' && !m) {
      rep.warn(p, `sysout message ${JSON.stringify(text)} is evaluated as text as Kogito does; values that are not strings are written as compact JSON (Kogito pretty-prints them)`);
    }
    parent[k] = `\${ ${t.jq} }`;
    count++;
  };
  const always = (parent: unknown, k: string, p: string, ctx: JsonPathContext, what: string) => {
    if (isObj(parent) && typeof parent[k] === 'string') put(parent, k, ptr(p, k), parent[k], ctx, what);
  };
  /** Path targets (toStateData): must be a single path. */
  const target = (parent: unknown, k: string, p: string, what: string) => {
    if (!isObj(parent) || typeof parent[k] !== 'string') return;
    const inner = unwrap(parent[k]);
    const t = translateJsonPath(inner, 'value');
    if (!('error' in t) && t.list) {
      rep.error(ptr(p, k), `JSONPath ${what} ${JSON.stringify(parent[k])} selects a list, but it must name one place to write to`);
      return;
    }
    always(parent, k, p, 'value', what);
  };
  /** Kogito: strings that start with `$.` / `$[`, or `${ }`, are expressions; others are literal. */
  const embedded = (parent: Obj, k: string | number, p: string, ctx: JsonPathContext, what: string): void => {
    const v = parent[k];
    if (typeof v === 'string') {
      if (WRAPPED.test(v) || /^\s*\$[.[]/.test(v)) put(parent, k, p, v, ctx, what);
      else if (v.includes('${')) rep.error(p, `${what} ${JSON.stringify(v)} embeds an expression in text, which Kogito's jsonpath does not evaluate`);
      else if (/^\s*\$[A-Z]/.test(v)) rep.error(p, `${what} ${JSON.stringify(v)} uses a Kogito variable ($WORKFLOW, $SECRET, $CONST...) in a jsonpath expression, which cannot be translated to jq`);
    } else if (Array.isArray(v)) v.forEach((_, i) => embedded(v, i, `${p}/${i}`, 'value', what));
    else if (isObj(v)) for (const key of Object.keys(v)) embedded(v, key, ptr(p, key), 'value', what);
  };

  arr(doc.functions).forEach((f, i) => {
    if (!isObj(f) || f.type !== 'expression' || typeof f.operation !== 'string') return;
    const t = translateJsonPath(unwrap(f.operation), 'value');
    if (!('error' in t) && t.list) listFunctions.add(String(f.name));
    always(f, 'operation', `/functions/${i}`, 'value', 'expression function operation');
  });
  for (const { state, pointer: sp } of statesOf(doc)) {
    if (isObj(state.stateDataFilter)) for (const k of ['input', 'output']) always(state.stateDataFilter, k, `${sp}/stateDataFilter`, 'value', `stateDataFilter.${k}`);
    always(state, 'inputCollection', sp, 'value', 'inputCollection');
    target(state, 'outputCollection', sp, 'outputCollection');
    arr(state.dataConditions).forEach((c, i) => always(c, 'condition', `${sp}/dataConditions/${i}`, 'boolean', 'condition'));
    const edf = (f: unknown, p: string) => {
      always(f, 'data', p, 'value', 'eventDataFilter.data');
      target(f, 'toStateData', p, 'eventDataFilter.toStateData');
    };
    arr(state.onEvents).forEach((oe, i) => isObj(oe) && edf(oe.eventDataFilter, `${sp}/onEvents/${i}/eventDataFilter`));
    arr(state.eventConditions).forEach((c, i) => isObj(c) && edf(c.eventDataFilter, `${sp}/eventConditions/${i}/eventDataFilter`));
    edf(state.eventDataFilter, `${sp}/eventDataFilter`);
    for (const { action, pointer: ap } of actionsOf(state, sp)) {
      always(action, 'condition', ap, 'boolean', 'action condition');
      if (isObj(action.actionDataFilter)) {
        const f = action.actionDataFilter;
        always(f, 'fromStateData', `${ap}/actionDataFilter`, 'value', 'actionDataFilter.fromStateData');
        always(f, 'results', `${ap}/actionDataFilter`, 'value', 'actionDataFilter.results');
        target(f, 'toStateData', `${ap}/actionDataFilter`, 'actionDataFilter.toStateData');
      }
      const fr = action.functionRef;
      if (isObj(fr) && fr.arguments !== undefined) {
        const args = fr.arguments;
        const p = `${ap}/functionRef/arguments`;
        if (typeof args === 'string') put(fr, 'arguments', p, args, 'value', 'arguments');
        else if (isObj(args)) {
          const sysout = isSysout(functions.get(String(fr.refName)));
          for (const k of Object.keys(args)) {
            if (sysout && k === 'message' && typeof args.message === 'string' && /^\s*\$[.[]/.test(args.message)) put(args, k, ptr(p, k), args[k], 'string', 'argument');
            else embedded(args, k, ptr(p, k), 'value', 'argument');
          }
        } else embedded(fr, 'arguments', p, 'value', 'argument');
      }
      if (isObj(action.eventRef)) {
        if (typeof action.eventRef.data === 'string') always(action.eventRef, 'data', `${ap}/eventRef`, 'value', 'eventRef.data');
        else if (action.eventRef.data !== undefined) embedded(action.eventRef, 'data', `${ap}/eventRef/data`, 'value', 'event data');
        if (action.eventRef.contextAttributes !== undefined) embedded(action.eventRef, 'contextAttributes', `${ap}/eventRef/contextAttributes`, 'value', 'context attribute');
      }
    }
    for (const { holder, pointer: hp } of flowHoldersOf(state, sp)) {
      for (const { ev, pointer: ep } of produceEventsOf(holder, hp)) {
        if (typeof ev.data === 'string') always(ev, 'data', ep, 'value', 'produced event data');
        else if (ev.data !== undefined) embedded(ev, 'data', `${ep}/data`, 'value', 'produced event data');
        if (ev.contextAttributes !== undefined) embedded(ev, 'contextAttributes', `${ep}/contextAttributes`, 'value', 'context attribute');
      }
      const ca = isObj(holder.end) ? holder.end.continueAs : undefined;
      if (isObj(ca) && ca.data !== undefined) {
        if (typeof ca.data === 'string') always(ca, 'data', `${hp}/end/continueAs`, 'value', 'continueAs data');
        else embedded(ca, 'data', `${hp}/end/continueAs/data`, 'value', 'continueAs data');
      }
    }
  }
  rep.warn('/expressionLang', `expressionLang 'jsonpath' (Kogito): ${count} JSONPath expression${count === 1 ? '' : 's'} translated to jq`);
  doc.expressionLang = 'jq';
  if (failed) untranslated.add(doc);
}

/**
 * Kogito's non-object `arguments` (jq documents): a string is a jq expression; strings in an
 * array (at any depth) that compile as jq are expressions. Each becomes `${ }`.
 */
export async function kogitoArguments(doc: Obj, rep: Reporter, fromJsonPath = false): Promise<void> {
  for (const { state, pointer: sp } of statesOf(doc)) {
    for (const { action, pointer: ap } of actionsOf(state, sp)) {
      const fr = action.functionRef;
      if (!isObj(fr) || fr.arguments === undefined || fr.arguments === null || isObj(fr.arguments)) continue;
      const p = `${ap}/functionRef/arguments`;
      const args = fr.arguments;
      if (typeof args === 'string') {
        if (WRAPPED.test(args)) {
          rep.warn(p, "'arguments' is an expression (Kogito), not an object: its value is the arguments");
          continue;
        }
        const problem = await jqProblem(args);
        if (problem) rep.error(p, `'arguments' is a string that is not a jq expression (${problem.split('\n')[0].trim()}): ${JSON.stringify(args)}`, 'arguments must be an object, or (Kogito) a jq expression giving the arguments');
        else {
          rep.warn(p, `'arguments' is the jq expression ${JSON.stringify(args)} (Kogito), not an object: read as "\${ ${args.trim()} }"`);
          fr.arguments = `\${ ${args.trim()} }`;
        }
        continue;
      }
      if (Array.isArray(args)) {
        const read: string[] = [];
        const walk = async (v: unknown): Promise<unknown> => {
          if (typeof v === 'string') {
            if (v.includes('${') || (await jqProblem(v))) return v;
            read.push(v);
            return `\${ ${v.trim()} }`;
          }
          if (Array.isArray(v)) {
            const out: unknown[] = [];
            for (const x of v) out.push(await walk(x));
            return out;
          }
          if (isObj(v)) {
            const out: Obj = {};
            for (const [k, x] of Object.entries(v)) out[k] = await walk(x);
            return out;
          }
          return v;
        };
        if (!fromJsonPath) fr.arguments = await walk(args); // (jsonpath documents: translated already)
        rep.warn(p, `'arguments' is an array (Kogito), not an object${read.length ? `; its strings that are jq expressions are evaluated as Kogito does: ${read.map((r) => JSON.stringify(r)).join(', ')}` : ''}`);
        continue;
      }
      rep.error(p, `'arguments' must be an object (got ${JSON.stringify(args)})`, 'or (Kogito) a jq expression string or an array');
    }
  }
}
