/**
 * "Liberal in what it accepts": known deviations of documents that other 0.8 runtimes run
 * (Kogito/SonataFlow, the sdk-go and sdk-java parsers, 0.7 and 0.9 names) are fixed in the
 * working copy before schema validation, each with a located warning. Deviations whose
 * meaning is unclear are left alone, so that validation reports them as errors.
 */
import type { Reporter } from '../findings';
import type { SourceMap } from '../source';
import { durationProblem } from '../../common/duration';
import { actionsOf, arr, durationSlots, flowHoldersOf, isObj, type Obj, ptr, statesOf } from './walk';

/** Standard 0.8 function types. */
export const FUNCTION_TYPES_08 = ['rest', 'asyncapi', 'rpc', 'graphql', 'odata', 'expression', 'custom'];

export interface LenientContext {
  rep: Reporter;
  map: SourceMap;
  /** Whether the document is the CWM/0.9 dialect (0.9 names are then normal, not deviations). */
  is09: boolean;
}

function rename(obj: Obj, from: string, to: string, p: string, ctx: LenientContext, why: string): void {
  if (!(from in obj)) return;
  if (to in obj) {
    ctx.rep.error(ptr(p, from), `both '${from}' and '${to}' are given`, `'${from}' is the ${why} name of '${to}'; keep only '${to}'`, { key: true });
    return;
  }
  if (!ctx.is09 || !why.startsWith('0.9')) ctx.rep.warn(ptr(p, from), `'${from}' is the ${why} name of '${to}'; read as '${to}'`, undefined, { key: true });
  const entries = Object.entries(obj);
  for (const k of Object.keys(obj)) delete obj[k];
  for (const [k, v] of entries) obj[k === from ? to : k] = v;
  ctx.map.mount(ptr(p, to), ctx.map.main, ptr(p, from));
}

function boolString(obj: unknown, key: string, p: string, ctx: LenientContext, quiet = false): void {
  if (!isObj(obj)) return;
  const v = obj[key];
  if (v === 'true' || v === 'false') {
    if (!quiet) ctx.rep.warn(ptr(p, key), `'${key}' is the string "${v}"; read as the boolean ${v}`);
    obj[key] = v === 'true';
  }
}

export function applyLeniency(doc: Obj, ctx: LenientContext): void {
  const { rep } = ctx;
  if (doc.specVersion === undefined) {
    rep.warn('', "no 'specVersion'; read as a 0.8 document", "add specVersion: '0.8'");
    doc.specVersion = '0.8';
  } else if (typeof doc.specVersion === 'number') {
    rep.warn('/specVersion', `'specVersion' is the number ${doc.specVersion}; read as the string "${doc.specVersion}"`);
    doc.specVersion = String(doc.specVersion);
  }
  if (doc.id === undefined && doc.key === undefined && typeof doc.name === 'string') {
    if (!ctx.is09) rep.warn('/name', "no 'id'; the 0.9 rule applies and 'name' is used as the id");
    doc.id = doc.name;
  }
  for (const k of ['keepActive', 'autoRetries']) boolString(doc, k, '', ctx);
  if (isObj(doc.metadata)) stringifyMetadata(doc.metadata, '/metadata', ctx);

  if (isObj(doc.start) && doc.start.schedule === undefined) {
    rep.warn('/start', "'start' is an object without 'schedule' (the 0.8 schema wrongly requires it); accepted");
  }
  if (isObj(doc.dataInputSchema)) boolString(doc.dataInputSchema, 'failOnValidationErrors', '/dataInputSchema', ctx);

  arr(doc.functions).forEach((f, i) => {
    if (!isObj(f)) return;
    const fp = `/functions/${i}`;
    if (isObj(f.metadata)) stringifyMetadata(f.metadata, `${fp}/metadata`, ctx);
    if (f.type === 'openapi') {
      if (!ctx.is09) rep.warn(`${fp}/type`, "function type 'openapi' is the 0.9 name of 'rest'; read as 'rest'");
      f.type = 'rest';
    } else if (typeof f.type === 'string' && f.type !== 'http' && !FUNCTION_TYPES_08.includes(f.type)) {
      rep.warn(`${fp}/type`, `function type '${f.type}' is an extension type, not a 0.8 type`, 'the worker must provide it');
    }
  });
  arr(doc.events).forEach((e, i) => {
    if (!isObj(e)) return;
    boolString(e, 'dataOnly', `/events/${i}`, ctx);
    if (isObj(e.metadata)) stringifyMetadata(e.metadata, `/events/${i}/metadata`, ctx);
  });
  arr(doc.retries).forEach((r, i) => {
    if (!isObj(r)) return;
    // CWM / 0.9: maxAttempts 0 means unlimited.
    if (r.maxAttempts === 0 || r.maxAttempts === '0') {
      if (!ctx.is09) rep.warn(`/retries/${i}/maxAttempts`, "'maxAttempts: 0' read as unlimited attempts (CWM/0.9 meaning)");
      delete r.maxAttempts;
      r.__unlimited = true;
    } else if (r.maxAttempts === undefined && ctx.is09) r.__unlimited = true;
  });

  for (const { state, pointer: sp } of statesOf(doc)) {
    for (const k of ['usedForCompensation', 'exclusive']) boolString(state, k, sp, ctx);
    if (isObj(state.metadata)) stringifyMetadata(state.metadata, `${sp}/metadata`, ctx);
    if (state.type === 'foreach' && typeof state.iterationParam === 'string') {
      const m = /^\s*\$\{\s*\.?([A-Za-z_][A-Za-z0-9_]*)\s*\}\s*$/.exec(state.iterationParam);
      if (m) {
        rep.warn(`${sp}/iterationParam`, `iterationParam "${state.iterationParam}" is written as an expression; read as the name '${m[1]}'`);
        state.iterationParam = m[1];
      }
    }
    if ('eventTimeout' in state && (state.type === 'event' || state.type === 'switch' || state.type === 'callback')) {
      const t = (state.timeouts = isObj(state.timeouts) ? state.timeouts : {});
      if (t.eventTimeout !== undefined) rep.error(`${sp}/eventTimeout`, "'eventTimeout' is given both on the state and in its 'timeouts'", 'keep timeouts.eventTimeout only', { key: true });
      else {
        rep.warn(`${sp}/eventTimeout`, "state-level 'eventTimeout' is the 0.7 place; read as timeouts.eventTimeout", undefined, { key: true });
        t.eventTimeout = state.eventTimeout;
        delete state.eventTimeout;
        ctx.map.mount(`${sp}/timeouts/eventTimeout`, ctx.map.main, `${sp}/eventTimeout`);
      }
    }
    if (isObj(state.stateDataFilter)) {
      rename(state.stateDataFilter, 'dataInputPath', 'input', `${sp}/stateDataFilter`, ctx, '0.6');
      rename(state.stateDataFilter, 'dataOutputPath', 'output', `${sp}/stateDataFilter`, ctx, '0.6');
    }
    arr(state.branches).forEach((b, i) => {
      if (isObj(b) && b.name === undefined) {
        rep.warn(`${sp}/branches/${i}`, `parallel branch ${i} has no 'name'; named "branch${i}"`);
        b.name = `branch${i}`;
      }
    });
    arr(state.onEvents).forEach((oe, i) => isObj(oe) && isObj(oe.eventDataFilter) && boolString(oe.eventDataFilter, 'useData', `${sp}/onEvents/${i}/eventDataFilter`, ctx));
    for (const { action, pointer: ap } of actionsOf(state, sp)) {
      if (isObj(action.functionRef)) rename(action.functionRef, 'parameters', 'arguments', `${ap}/functionRef`, ctx, '0.7');
      if (isObj(action.actionDataFilter)) {
        rename(action.actionDataFilter, 'dataResultsPath', 'results', `${ap}/actionDataFilter`, ctx, '0.6');
        boolString(action.actionDataFilter, 'useResults', `${ap}/actionDataFilter`, ctx);
      }
      if (isObj(action.eventRef)) {
        rename(action.eventRef, 'produceEventRef', 'triggerEventRef', `${ap}/eventRef`, ctx, '0.9');
        rename(action.eventRef, 'consumeEventRef', 'resultEventRef', `${ap}/eventRef`, ctx, '0.9');
        rename(action.eventRef, 'consumeEventTimeout', 'resultEventTimeout', `${ap}/eventRef`, ctx, '0.9');
      }
    }
    for (const { holder, pointer: hp } of flowHoldersOf(state, sp)) {
      if (holder.end === 'true' || holder.end === 'false') boolString(holder, 'end', hp, ctx, ctx.is09);
      if (isObj(holder.end)) for (const k of ['terminate', 'compensate']) boolString(holder.end, k, `${hp}/end`, ctx, ctx.is09);
      if (isObj(holder.transition)) boolString(holder.transition, 'compensate', `${hp}/transition`, ctx, ctx.is09);
    }
  }

  // Durations: constants referenced as $CONST.X, and day/week designators after T (PT30D).
  const constants = isObj(doc.constants) ? doc.constants : undefined;
  for (const slot of durationSlots(doc)) {
    let v = slot.value as string;
    const m = /^\s*(?:\$\{\s*)?\$CONST\.([A-Za-z_][A-Za-z0-9_]*)\s*\}?\s*$/.exec(v);
    if (m) {
      const c = constants?.[m[1]];
      if (typeof c !== 'string') {
        rep.error(slot.pointer, `duration "${v}" refers to constant '${m[1]}', which is not a string constant of this definition`);
        continue;
      }
      rep.warn(slot.pointer, `duration "${v}" taken from constant ${m[1]} = "${c}"`);
      v = slot.parent[slot.key] = c;
    }
    const problem = durationProblem(v);
    if (problem && /designator after T/.test(problem)) {
      const fixed = 'P' + v.trim().toUpperCase().slice(2);
      rep.warn(slot.pointer, `duration "${v}" puts the day/week designator after T; read as "${fixed}"`);
      slot.parent[slot.key] = fixed;
    }
  }
}

function stringifyMetadata(md: Obj, p: string, ctx: LenientContext): void {
  for (const [k, v] of Object.entries(md)) {
    if (typeof v !== 'string') {
      const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
      ctx.rep.warn(ptr(p, k), `metadata '${k}' is not a string; read as "${s}"`);
      md[k] = s;
    }
  }
}

/**
 * The copy handed to the 0.8 JSON schema: our accepted extensions (fields the model keeps but
 * the 0.8 schema does not know) are taken out, and known bugs of the schema are worked around.
 */
export function schemaView(doc: Obj): Obj {
  const v: Obj = JSON.parse(JSON.stringify(doc));
  // 0.8 schema: `oneOf` id/key wrongly rejects documents that give both.
  if (v.id !== undefined && v.key !== undefined) delete v.key;
  if (isObj(v.start) && v.start.schedule === undefined && typeof v.start.stateName === 'string') v.start = v.start.stateName;
  if (isObj(v.dataInputSchema) && isObj(v.dataInputSchema.schema)) v.dataInputSchema.schema = 'inline';
  if (isObj(v.dataOutputSchema)) delete v.dataOutputSchema;
  if (typeof v.dataOutputSchema === 'string') delete v.dataOutputSchema;
  if (isObj(v.dataInputSchema) && v.dataInputSchema.failOnValidationErrors === undefined) v.dataInputSchema.failOnValidationErrors = true;
  arr(v.functions).forEach((f) => {
    if (!isObj(f)) return;
    if (typeof f.type === 'string' && !FUNCTION_TYPES_08.includes(f.type)) f.type = 'custom';
    if (isObj(f.operation)) f.operation = 'http';
  });
  arr(v.errors).forEach((e) => isObj(e) && delete e.description);
  arr(v.errors).forEach((e) => isObj(e) && typeof e.code === 'number' && (e.code = String(e.code)));
  arr(v.retries).forEach((r) => {
    if (!isObj(r)) return;
    if (r.__unlimited) r.maxAttempts = '0';
    delete r.__unlimited;
  });
  for (const { state, pointer } of statesOf(v)) {
    void pointer;
    for (const { action } of actionsOf(state, '')) {
      // Kogito: arguments may be an expression string or an array (checked in ./kogito.ts).
      if (isObj(action.functionRef) && action.functionRef.arguments !== undefined && !isObj(action.functionRef.arguments)) delete action.functionRef.arguments;
      // 0.8 schema: sleep's oneOf wrongly rejects both before and after.
      if (isObj(action.sleep) && action.sleep.before !== undefined && action.sleep.after !== undefined) delete action.sleep.after;
      // 0.9: an eventRef may only produce (no result event).
      if (isObj(action.eventRef) && action.eventRef.triggerEventRef !== undefined && action.eventRef.resultEventRef === undefined) action.eventRef.resultEventRef = '(none)';
    }
  }
  return v;
}
